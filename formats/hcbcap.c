/* SPDX-License-Identifier: MIT */
/*
 * hcbcap.c - the .hcbcap binary capture (the layout is
 * formats/HCBCAP.md, its constants hcbcap_impl.h): a 16-byte file header,
 * then frames {type, length, header CRC, body, CRC}.  Consumers are stored
 * once as their registration blobs; a tap frame is its packet header and
 * the payload bytes as they came, so writing a tap is one copy and one CRC,
 * and reading one is a read and a CRC.  Everything little endian, fixed
 * width, written field by field.  This file writes; hcbcap_read.c reads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/consumer.h"
#include "core/grow.h"
#include "hcbcap_impl.h"
#include "le.h"
#include "recfile_impl.h"

/* ---- writing ---- */

/* A consumer whose definition is in the file already. */
struct cap_known {
	uint32_t id;                     /* 0: empty slot */
	const struct hcb_consumer *ptr;  /* as last seen: the fast path */
	struct hcb_consumer *copy;       /* as written, to compare */
};

struct cap_writer {
	unsigned char *buf;
	size_t cap;
	struct cap_known *slots;
	unsigned int nslots, n;
};

static struct cap_known *known_slot(const struct cap_writer *st, uint32_t id)
{
	if (!st->nslots)
		return NULL;
	for (unsigned int i = (id * 2654435761u) & (st->nslots - 1);; i = (i + 1) & (st->nslots - 1))
		if (st->slots[i].id == id || st->slots[i].id == 0)
			return &st->slots[i];
}

static int known_add(struct cap_writer *st, const struct hcb_consumer *c)
{
	struct hcb_consumer *copy;
	struct cap_known *k;

	if ((st->n + 1) * 2 > st->nslots) {
		unsigned int nslots = st->nslots ? st->nslots * 2 : 16;
		struct cap_known *old = st->slots, *grown = calloc(nslots, sizeof(*grown));
		unsigned int oldn = st->nslots;

		if (!grown)
			return -ENOMEM;
		st->slots = grown;
		st->nslots = nslots;
		for (unsigned int i = 0; i < oldn; i++)
			if (old[i].id)
				*known_slot(st, old[i].id) = old[i];
		free(old);
	}
	if (hcb_consumer_dup(c, &copy))
		return -ENOMEM;
	k = known_slot(st, c->id);
	*k = (struct cap_known){ c->id, c, copy };
	st->n++;
	return 0;
}

/*
 * Is c's definition in the file?  0: yes.  1: no, *blob (malloc'ed) must be
 * written first.  -EINVAL when another consumer with the same id is in the
 * file already (a file holds one definition per id), -ENOMEM.
 */
static int consumer_check(struct cap_writer *st, const struct hcb_consumer *c,
			  unsigned char **blob, size_t *len)
{
	struct cap_known *k = known_slot(st, c->id);
	void *b;
	int err;

	if (k && k->id) {
		if (k->ptr != c && !hcb_consumer_equal(k->copy, c))
			return -EINVAL;
		k->ptr = c;
		return 0;
	}
	err = hcb_consumer_to_reg(c, &b, len);
	if (err)
		return err;
	*blob = b;
	return 1;
}

/* Frame header at p for a body of len bytes; the body follows at p + FRAME_HEAD. */
static void frame_head(unsigned char *p, uint32_t type, uint64_t len)
{
	hcb_put_le32(p, type);
	hcb_put_le64(p + 4, len);
	hcb_put_le32(p + 12, cap_crc(p, 12));
}

/* Seal the frame at p whose body (len bytes) is filled in; returns its size. */
static size_t frame_seal(unsigned char *p, uint64_t len)
{
	hcb_put_le32(p + FRAME_HEAD + len, cap_crc(p, FRAME_HEAD + len));
	return FRAME_HEAD + len + FRAME_TAIL;
}

static size_t bounded_strlen(const char *s, size_t size)
{
	return strnlen(s, size - 1);
}

static int write_tap(struct hcb_writer *w, struct cap_writer *st, const struct hcb_tap *t)
{
	const struct hcb_consumer *c = t->consumer;
	unsigned char *blob = NULL, *p;
	size_t blen = 0, need, off = 0;
	int fresh, err;

	if (!c || c->id == HCB_CONSUMER_RESERVED || (c->total_bytes && !t->payload) ||
	    t->copy_start_ns > t->copy_end_ns)
		return -EINVAL;
	if (c->total_bytes > CAP_MAX_PAYLOAD)
		return -E2BIG;
	fresh = consumer_check(st, c, &blob, &blen);
	if (fresh < 0)
		return fresh;
	need = FRAME_HEAD + TAP_HEAD + (size_t)c->total_bytes + FRAME_TAIL;
	if (fresh)
		need += FRAME_HEAD + blen + FRAME_TAIL;
	if (t->copy_end_ns)
		need += FRAME_HEAD + COPY_BODY + FRAME_TAIL;
	if (t->text && t->text_len > CAP_MAX_TEXT)
		return -E2BIG;
	if (t->text)
		need += FRAME_HEAD + t->text_len + FRAME_TAIL;
	err = hcb_grow(&st->buf, &st->cap, need, 1);
	if (err)
		goto out;
	if (fresh) {
		frame_head(st->buf, CAP_CONSUMER, blen);
		memcpy(st->buf + FRAME_HEAD, blob, blen);
		off = frame_seal(st->buf, blen);
	}
	/* a print's text, where known, first: then the copy times, the tap */
	if (t->text) {
		p = st->buf + off;
		frame_head(p, CAP_TEXT, t->text_len);
		memcpy(p + FRAME_HEAD, t->text, t->text_len);
		off += frame_seal(p, t->text_len);
	}
	/* copy times, where known, just before their tap: a file without
	 * them is as it was, and older readers skip the frame */
	if (t->copy_end_ns) {
		p = st->buf + off;
		frame_head(p, CAP_COPY, COPY_BODY);
		hcb_put_le64(p + FRAME_HEAD, t->copy_start_ns);
		hcb_put_le64(p + FRAME_HEAD + 8, t->copy_end_ns);
		off += frame_seal(p, COPY_BODY);
	}
	p = st->buf + off;
	frame_head(p, CAP_TAP, TAP_HEAD + c->total_bytes);
	hcb_put_le32(p + FRAME_HEAD, t->device);
	hcb_put_le32(p + FRAME_HEAD + 4, c->id);
	hcb_put_le64(p + FRAME_HEAD + 8, t->seq);
	hcb_put_le64(p + FRAME_HEAD + 16, t->wall_ns);
	hcb_put_le32(p + FRAME_HEAD + 24, t->pid);
	hcb_put_le32(p + FRAME_HEAD + 28, t->tid);
	if (c->total_bytes)
		memcpy(p + FRAME_HEAD + TAP_HEAD, t->payload, (size_t)c->total_bytes);
	off += frame_seal(p, TAP_HEAD + c->total_bytes);
	/* the consumer's definition and its tap go out together */
	err = hcb_write_all(w, st->buf, off);
	if (!err && fresh)
		err = known_add(st, c);
out:
	free(blob);
	return err;
}

/* A trigger record's body at b (room for TRIGGER_MAX_BODY bytes): its length. */
static size_t put_trigger(unsigned char *b, const struct hcb_trigger_info *t)
{
	size_t n = bounded_strlen(t->consumer, sizeof(t->consumer));
	size_t m = bounded_strlen(t->condition, sizeof(t->condition));
	uint64_t bits;

	memcpy(&bits, &t->value, sizeof(bits));
	hcb_put_le32(b, t->device);
	hcb_put_le64(b + 4, t->seq);
	hcb_put_le64(b + 12, (uint64_t)t->leaf);
	hcb_put_le64(b + 20, (uint64_t)t->element);
	hcb_put_le64(b + 28, bits);
	hcb_put_le64(b + 36, t->wall_ns);
	hcb_put_le32(b + 44, t->oversize);
	hcb_put_le32(b + 48, (uint32_t)n);
	hcb_put_le32(b + 52, (uint32_t)m);
	memcpy(b + TRIGGER_HEAD, t->consumer, n);
	memcpy(b + TRIGGER_HEAD + n, t->condition, m);
	if (!t->by_pid && !t->exited && !t->by_host[0])
		return TRIGGER_HEAD + n + m;
	/* a job's, a fleet's or an exit's trigger: the tail older files lack */
	return TRIGGER_HEAD + n + m + cap_trigger_tail_put(b + TRIGGER_HEAD + n + m, t);
}

static int cap_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct cap_writer *st = w->state;
	unsigned char *b;
	size_t n, m;
	int err;

	if (rec->kind == HCB_REC_TAP)
		return write_tap(w, st, &rec->tap);
	/* every other record fits in a few hundred bytes */
	err = hcb_grow(&st->buf, &st->cap, FRAME_HEAD + TRIGGER_MAX_BODY + FRAME_TAIL, 1);
	if (err)
		return err;
	b = st->buf + FRAME_HEAD;
	switch (rec->kind) {
	case HCB_REC_SESSION: {
		const struct hcb_session_info *s = &rec->session;
		size_t who = cap_who_size(s);

		/* who the process is, in a frame of its own just before */
		if (who) {
			err = hcb_grow(&st->buf, &st->cap, FRAME_HEAD + who + FRAME_TAIL +
				       FRAME_HEAD + SESSION_HEAD + 64 + FRAME_TAIL, 1);
			if (err)
				return err;
			cap_who_put(st->buf + FRAME_HEAD, s);
			frame_head(st->buf, CAP_WHO, who);
			who = frame_seal(st->buf, who);
		}
		b = st->buf + who + FRAME_HEAD;
		n = bounded_strlen(s->provider, sizeof(s->provider));
		m = bounded_strlen(s->platform, sizeof(s->platform));
		hcb_put_le32(b, (uint32_t)s->version);
		hcb_put_le32(b + 4, (uint32_t)s->pid);
		hcb_put_le64(b + 8, s->start_ns);
		hcb_put_le32(b + 16, (uint32_t)n);
		hcb_put_le32(b + 20, (uint32_t)m);
		memcpy(b + SESSION_HEAD, s->provider, n);
		memcpy(b + SESSION_HEAD + n, s->platform, m);
		n += SESSION_HEAD + m;
		frame_head(b - FRAME_HEAD, CAP_SESSION, n);
		return hcb_write_all(w, st->buf, who + frame_seal(b - FRAME_HEAD, n));
	}
	case HCB_REC_DROP:
		m = bounded_strlen(rec->drop.reason, sizeof(rec->drop.reason));
		hcb_put_le32(b, rec->drop.device);
		hcb_put_le64(b + 4, rec->drop.count);
		hcb_put_le32(b + 12, (uint32_t)m);
		memcpy(b + DROP_HEAD, rec->drop.reason, m);
		n = DROP_HEAD + m;
		frame_head(st->buf, CAP_DROP, n);
		break;
	case HCB_REC_BARRIER:
		hcb_put_le64(b, rec->barrier.wall_ns);
		hcb_put_le64(b + 8, rec->barrier.taps);
		n = 16;
		frame_head(st->buf, CAP_BARRIER, n);
		break;
	case HCB_REC_TRIGGER:
		n = put_trigger(b, &rec->trigger);
		frame_head(st->buf, CAP_TRIGGER, n);
		break;
	case HCB_REC_END:
		hcb_put_le64(b, rec->end.taps);
		hcb_put_le64(b + 8, rec->end.drops);
		hcb_put_le64(b + 16, rec->end.end_ns);
		n = 24;
		frame_head(st->buf, CAP_END, n);
		break;
	default:
		return -EINVAL;
	}
	return hcb_write_all(w, st->buf, frame_seal(st->buf, n));
}

static int cap_close(struct hcb_writer *w)
{
	struct cap_writer *st = w->state;

	if (!st)
		return 0;
	for (unsigned int i = 0; i < st->nslots; i++)
		hcb_consumer_free(st->slots[i].copy);
	free(st->slots);
	free(st->buf);
	free(st);
	w->state = NULL;
	return 0;
}

int hcb_hcbcap_writer_init(struct hcb_writer *w)
{
	struct cap_writer *st = calloc(1, sizeof(*st));
	unsigned char h[CAP_HEADER];
	int err;

	if (!st)
		return -ENOMEM;
	w->state = st;
	w->write = cap_write;
	w->close = cap_close;
	memcpy(h, CAP_MAGIC, CAP_MAGIC_LEN);
	hcb_put_le32(h + 8, CAP_VERSION);
	hcb_put_le32(h + 12, 0);
	/* the header now, so that a recording without records is a valid file */
	err = hcb_write_all(w, h, sizeof(h));
	if (err)
		cap_close(w);
	return err;
}
