/* SPDX-License-Identifier: MIT */
/*
 * hcbcap.c - the .hcbcap binary capture (DESIGN 6.3; the layout is
 * formats/HCBCAP.md): a 16-byte file header, then frames {type, length,
 * header CRC, body, CRC}.  Consumers are stored once as their registration
 * blobs; a tap frame is its packet header and the payload bytes as they
 * came, so writing a tap is one copy and one CRC, and reading one is a read
 * and a CRC.  Everything little endian, fixed width, written field by field.
 *
 * The reader trusts nothing: a length is checked against its limit before
 * anything is read or allocated for it, and the buffer grows only as bytes
 * actually arrive, so a damaged length costs at most twice the file's size.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "consumer.h"
#include "grow.h"
#include "le.h"
#include "recfile_impl.h"

#define CAP_MAGIC "HCBCAP\x1a\n"        /* 8 bytes, no NUL */
#define CAP_MAGIC_LEN 8
#define CAP_VERSION 1u
#define CAP_HEADER 16                   /* magic, u32 version, u32 flags */
#define FRAME_HEAD 16                   /* u32 type, u64 length, u32 header CRC */
#define FRAME_TAIL 4                    /* u32 CRC of head and body */
#define TAP_HEAD 32                     /* device, consumer, seq, ts_ns, pid, tid */
#define SESSION_HEAD 24
#define DROP_HEAD 16
#define CAP_MAX_PAYLOAD (UINT64_C(1) << 30)   /* one tap's payload: 1 GiB */
#define CAP_MAX_BODY (CAP_MAX_PAYLOAD + TAP_HEAD)
#define CAP_SKIPPABLE 0x80000000u       /* type bit: readers may skip what they do not know */

enum cap_type {
	CAP_SESSION = 1,
	CAP_CONSUMER = 2,
	CAP_TAP = 3,
	CAP_DROP = 4,
	CAP_BARRIER = 5,
	CAP_END = 6,
};

static const char *type_name(uint32_t t)
{
	static const char *const names[] = {
		[CAP_SESSION] = "session", [CAP_CONSUMER] = "consumer", [CAP_TAP] = "tap",
		[CAP_DROP] = "drop", [CAP_BARRIER] = "barrier", [CAP_END] = "end",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "unknown";
}

static uint32_t crc(const unsigned char *p, size_t n)
{
	return (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), p, n);
}

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
	hcb_put_le32(p + 12, crc(p, 12));
}

/* Seal the frame at p whose body (len bytes) is filled in; returns its size. */
static size_t frame_seal(unsigned char *p, uint64_t len)
{
	hcb_put_le32(p + FRAME_HEAD + len, crc(p, FRAME_HEAD + len));
	return FRAME_HEAD + len + FRAME_TAIL;
}

static size_t bounded_strlen(const char *s, size_t size)
{
	return strnlen(s, size - 1);
}

static int write_tap(struct hcb_writer *w, struct cap_writer *st, const struct hcb_packet *t)
{
	const struct hcb_consumer *c = t->consumer;
	unsigned char *blob = NULL, *p;
	size_t blen = 0, need, off = 0;
	int fresh, err;

	if (!c || c->id == HCB_CONSUMER_RESERVED || (c->total_bytes && !t->payload) ||
	    t->device >= HCB_MAX_DEVICES)
		return -EINVAL;
	if (c->total_bytes > CAP_MAX_PAYLOAD)
		return -E2BIG;
	fresh = consumer_check(st, c, &blob, &blen);
	if (fresh < 0)
		return fresh;
	need = FRAME_HEAD + TAP_HEAD + (size_t)c->total_bytes + FRAME_TAIL;
	if (fresh)
		need += FRAME_HEAD + blen + FRAME_TAIL;
	err = hcb_grow(&st->buf, &st->cap, need, 1);
	if (err)
		goto out;
	if (fresh) {
		frame_head(st->buf, CAP_CONSUMER, blen);
		memcpy(st->buf + FRAME_HEAD, blob, blen);
		off = frame_seal(st->buf, blen);
	}
	p = st->buf + off;
	frame_head(p, CAP_TAP, TAP_HEAD + c->total_bytes);
	hcb_put_le32(p + FRAME_HEAD, t->device);
	hcb_put_le32(p + FRAME_HEAD + 4, c->id);
	hcb_put_le64(p + FRAME_HEAD + 8, t->seq);
	hcb_put_le64(p + FRAME_HEAD + 16, t->ts_ns);
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

static int cap_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct cap_writer *st = w->state;
	unsigned char *b;
	size_t n, m;
	int err;

	if (rec->kind == HCB_REC_TAP)
		return write_tap(w, st, &rec->tap);
	/* every other record fits in a few hundred bytes */
	err = hcb_grow(&st->buf, &st->cap, FRAME_HEAD + SESSION_HEAD + 256 + FRAME_TAIL, 1);
	if (err)
		return err;
	b = st->buf + FRAME_HEAD;
	switch (rec->kind) {
	case HCB_REC_SESSION: {
		const struct hcb_session_info *s = &rec->session;

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
		frame_head(st->buf, CAP_SESSION, n);
		break;
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
		hcb_put_le64(b, rec->barrier.ts_ns);
		hcb_put_le64(b + 8, rec->barrier.taps);
		n = 16;
		frame_head(st->buf, CAP_BARRIER, n);
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

/* ---- reading ---- */

struct cap_reader {
	unsigned char *buf;     /* the current frame, head to CRC; taps point in here */
	size_t cap;
	uint64_t off;           /* file offset of the current frame */
	int started;            /* the file header was read */
};


#define FAIL(r, st, err, ...) fail_at(r, (st)->off, err, __VA_ARGS__)

static int __attribute__((format(printf, 4, 5)))
fail_at(struct hcb_reader *r, uint64_t off, int err, const char *fmt, ...)
{
	char where[40], msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "offset %llu", (unsigned long long)off);
	return hcb_reader_fail(r, err, where, "%s", msg);
}

static int read_error(struct hcb_reader *r, struct cap_reader *st)
{
	int e = errno ? errno : EIO;

	return FAIL(r, st, -EIO, "read error: %s", strerror(e));
}

static int read_file_header(struct hcb_reader *r, struct cap_reader *st)
{
	unsigned char h[CAP_HEADER];
	size_t got = fread(h, 1, sizeof(h), r->f);
	uint32_t version, flags;

	if (got < sizeof(h) && ferror(r->f))
		return read_error(r, st);
	if (got == 0)
		return hcb_reader_empty(r, "offset 0");
	if (memcmp(h, CAP_MAGIC, got < CAP_MAGIC_LEN ? got : CAP_MAGIC_LEN))
		return FAIL(r, st, -EBADMSG, "not an .hcbcap recording (its first bytes are not "
			    "\"HCBCAP\\x1a\\n\")");
	if (got < sizeof(h))
		return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside its header "
			    "(%zu of %d bytes); nothing was recorded", got, CAP_HEADER);
	version = hcb_get_le32(h + 8);
	flags = hcb_get_le32(h + 12);
	if (version != CAP_VERSION)
		return FAIL(r, st, -EPROTO, ".hcbcap version %u; this hcbtrace reads version %u "
			    "(a newer hcbtrace may read it)", version, CAP_VERSION);
	if (flags)
		return FAIL(r, st, -EPROTO, "unknown header flags 0x%x (written by a newer hcbtrace?)",
			    flags);
	st->off = CAP_HEADER;
	st->started = 1;
	return 0;
}

/*
 * Read the rest of the frame whose head is in st->buf: len body bytes and
 * the CRC.  The buffer grows at most to twice what has arrived, so a
 * damaged length that passed its limit still cannot make us allocate for
 * bytes that are not there.
 */
static int read_body(struct hcb_reader *r, struct cap_reader *st, uint32_t type, uint64_t len)
{
	size_t need = FRAME_HEAD + (size_t)len + FRAME_TAIL, have = FRAME_HEAD;

	while (have < need) {
		size_t target = have * 2 > st->cap ? have * 2 : st->cap;
		size_t got;
		int err;

		if (target < 65536)
			target = 65536;
		if (target > need)
			target = need;
		err = hcb_grow(&st->buf, &st->cap, target, 1);
		if (err)
			return FAIL(r, st, err, "no memory for a %s frame of %llu bytes",
				    type_name(type), (unsigned long long)len);
		got = fread(st->buf + have, 1, target - have, r->f);
		have += got;
		if (have < target) {
			if (ferror(r->f))
				return read_error(r, st);
			return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside a "
				    "%s frame (%zu of %zu bytes); the records before it are complete",
				    type_name(type), have, need);
		}
	}
	if (crc(st->buf, FRAME_HEAD + len) != hcb_get_le32(st->buf + FRAME_HEAD + len))
		return FAIL(r, st, -EBADMSG, "damaged %s frame of %llu bytes: checksum mismatch",
			    type_name(type), (unsigned long long)len);
	return 0;
}

/* Does a string field of a session or drop frame hold text (no NUL)? */
static int text_ok(const unsigned char *p, size_t n)
{
	return memchr(p, '\0', n) == NULL;
}

static int parse_session(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
			 uint64_t len, struct hcb_record *rec)
{
	struct hcb_session_info *s = &rec->session;
	uint32_t n, m;

	n = hcb_get_le32(b + 16);
	m = hcb_get_le32(b + 20);
	if (n >= sizeof(s->provider) || m >= sizeof(s->platform) || len != SESSION_HEAD + n + m ||
	    !text_ok(b + SESSION_HEAD, n + m))
		return FAIL(r, st, -EBADMSG, "invalid session frame (provider %u bytes, platform "
			    "%u bytes, frame %llu bytes)", n, m, (unsigned long long)len);
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_SESSION;
	s->version = (int)hcb_get_le32(b);
	s->pid = (int32_t)hcb_get_le32(b + 4);
	s->start_ns = hcb_get_le64(b + 8);
	memcpy(s->provider, b + SESSION_HEAD, n);
	memcpy(s->platform, b + SESSION_HEAD + n, m);
	return 1;
}

static int parse_consumer(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
			  uint64_t len)
{
	struct hcb_consumer *c;
	const struct hcb_consumer *old;
	int err = hcb_consumer_from_reg(b, (size_t)len, &c), same;

	if (err == -ENOMEM)
		return FAIL(r, st, err, "no memory for a consumer definition");
	if (err == -E2BIG)
		return FAIL(r, st, err, "a consumer definition with more leaves or bytes than "
			    "this hcbtrace holds");
	if (err)
		return FAIL(r, st, -EBADMSG, "invalid consumer definition");
	old = hcb_registry_get(r->consumers, c->id);
	if (!old) {
		err = hcb_registry_add(r->consumers, c);
		return err ? FAIL(r, st, err, "no memory for consumer %u", c->id) : 0;
	}
	/* a repeated definition is harmless; a different one is not */
	same = hcb_consumer_equal(old, c);
	hcb_consumer_free(c);
	if (!same)
		return FAIL(r, st, -EBADMSG, "consumer %u (%s) defined again with a different shape",
			    old->id, old->name);
	return 0;
}

static int parse_tap(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
		     uint64_t len, struct hcb_record *rec)
{
	uint32_t device = hcb_get_le32(b), id = hcb_get_le32(b + 4);
	const struct hcb_consumer *c = hcb_registry_get(r->consumers, id);

	if (!c)
		return FAIL(r, st, -EBADMSG, "tap of consumer %u, which no earlier frame defines", id);
	if (len - TAP_HEAD != c->total_bytes)
		return FAIL(r, st, -EBADMSG, "tap of consumer %u (%s) holds %llu payload bytes; "
			    "its shape needs %llu", id, c->name,
			    (unsigned long long)(len - TAP_HEAD), (unsigned long long)c->total_bytes);
	if (device >= HCB_MAX_DEVICES)
		return FAIL(r, st, -EBADMSG, "tap of consumer %u on device %u (at most %u devices)",
			    id, device, HCB_MAX_DEVICES);
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_TAP;
	rec->tap.device = device;
	rec->tap.consumer = c;
	rec->tap.seq = hcb_get_le64(b + 8);
	rec->tap.ts_ns = hcb_get_le64(b + 16);
	rec->tap.pid = hcb_get_le32(b + 24);
	rec->tap.tid = hcb_get_le32(b + 28);
	rec->tap.payload = b + TAP_HEAD;
	return 1;
}

/* The body size a frame of this type may have: [min, max]. */
static void body_limits(uint32_t type, uint64_t *min, uint64_t *max)
{
	switch (type) {
	case CAP_SESSION: *min = SESSION_HEAD; *max = SESSION_HEAD + 31 + 15; break;
	case CAP_CONSUMER: *min = 0; *max = HCB_MAX_REG_BYTES; break;
	case CAP_TAP: *min = TAP_HEAD; *max = CAP_MAX_BODY; break;
	case CAP_DROP: *min = DROP_HEAD; *max = DROP_HEAD + 127; break;
	case CAP_BARRIER: *min = *max = 16; break;
	case CAP_END: *min = *max = 24; break;
	default: *min = 0; *max = CAP_MAX_BODY; break;   /* skippable */
	}
}

/*
 * The next frame's head into st->buf, checked: 1 and its type and body
 * length, 0 at the end of the file, or the failure.
 */
static int read_frame_head(struct hcb_reader *r, struct cap_reader *st, uint32_t *type,
			   uint64_t *len)
{
	size_t got = fread(st->buf, 1, FRAME_HEAD, r->f);
	uint64_t min, max;

	if (got == 0 && !ferror(r->f))
		return 0;
	if (got < FRAME_HEAD) {
		if (ferror(r->f))
			return read_error(r, st);
		return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside a "
			    "frame header (%zu of %d bytes); the records before it are "
			    "complete", got, FRAME_HEAD);
	}
	*type = hcb_get_le32(st->buf);
	*len = hcb_get_le64(st->buf + 4);
	if (crc(st->buf, 12) != hcb_get_le32(st->buf + 12))
		return FAIL(r, st, -EBADMSG, "damaged frame header: checksum mismatch");
	if (*type == 0 || (*type > CAP_END && !(*type & CAP_SKIPPABLE)))
		return FAIL(r, st, -EBADMSG, "unknown frame type %u", *type);
	body_limits(*type, &min, &max);
	if (*len > max && (*type == CAP_TAP || *type == CAP_CONSUMER || *type & CAP_SKIPPABLE))
		return FAIL(r, st, -E2BIG, "a %s frame of %llu bytes, more than the %llu this "
			    "hcbtrace reads", type_name(*type), (unsigned long long)*len,
			    (unsigned long long)max);
	if (*len < min || *len > max)
		return FAIL(r, st, -EBADMSG, "a %s frame of %llu bytes (expected %llu to %llu)",
			    type_name(*type), (unsigned long long)*len,
			    (unsigned long long)min, (unsigned long long)max);
	return 1;
}

static int parse_drop(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
		      uint64_t len, struct hcb_record *rec)
{
	uint32_t m = hcb_get_le32(b + 12);

	if (len != DROP_HEAD + (uint64_t)m || !text_ok(b + DROP_HEAD, m))
		return FAIL(r, st, -EBADMSG, "invalid drop frame");
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_DROP;
	rec->drop.device = hcb_get_le32(b);
	rec->drop.count = hcb_get_le64(b + 4);
	memcpy(rec->drop.reason, b + DROP_HEAD, m);
	return 1;
}

/* The body b of a frame: 1 and a record, 0 for a frame that is none (a
 * consumer definition, a skippable frame), or the failure. */
static int parse_frame(struct hcb_reader *r, struct cap_reader *st, uint32_t type,
		       const unsigned char *b, uint64_t len, struct hcb_record *rec)
{
	switch (type) {
	case CAP_SESSION:
		return parse_session(r, st, b, len, rec);
	case CAP_CONSUMER:
		return parse_consumer(r, st, b, len);
	case CAP_TAP:
		return parse_tap(r, st, b, len, rec);
	case CAP_DROP:
		return parse_drop(r, st, b, len, rec);
	case CAP_BARRIER:
		memset(rec, 0, sizeof(*rec));
		rec->kind = HCB_REC_BARRIER;
		rec->barrier.ts_ns = hcb_get_le64(b);
		rec->barrier.taps = hcb_get_le64(b + 8);
		return 1;
	case CAP_END:
		memset(rec, 0, sizeof(*rec));
		rec->kind = HCB_REC_END;
		rec->end.taps = hcb_get_le64(b);
		rec->end.drops = hcb_get_le64(b + 8);
		rec->end.end_ns = hcb_get_le64(b + 16);
		return 1;
	default:    /* a skippable frame of a later version */
		return 0;
	}
}

static int cap_next(struct hcb_reader *r, struct hcb_record *rec)
{
	struct cap_reader *st = r->state;

	if (!st->started) {
		int err = read_file_header(r, st);

		if (err)
			return err;
	}
	for (;;) {
		uint64_t len = 0;
		uint32_t type = 0;
		int n;

		n = read_frame_head(r, st, &type, &len);
		if (n <= 0)
			return n;
		n = read_body(r, st, type, len);
		if (n)
			return n;
		n = parse_frame(r, st, type, st->buf + FRAME_HEAD, len, rec);
		if (n < 0)
			return n;
		st->off += FRAME_HEAD + len + FRAME_TAIL;
		if (n)
			return 1;
	}
}

static void cap_free(struct hcb_reader *r)
{
	struct cap_reader *st = r->state;

	if (st)
		free(st->buf);
	free(st);
	r->state = NULL;
}

int hcb_hcbcap_reader_init(struct hcb_reader *r)
{
	struct cap_reader *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	r->state = st;
	r->next = cap_next;
	r->free = cap_free;
	/* frame heads are read here; bodies grow it as they arrive */
	if (hcb_grow(&st->buf, &st->cap, 4096, 1)) {
		cap_free(r);
		return -ENOMEM;
	}
	return 0;
}
