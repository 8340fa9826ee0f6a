/* SPDX-License-Identifier: MIT */
/*
 * registration.c - the hcbtap decoder's registration blobs reassembled
 * from their chunks (several copies at once, from several threads), each
 * within providers/bounds.h: what is unfinished in the registration pool,
 * given up when a copy ends short, when the pool is full (the oldest
 * first) or when it expires.  A whole blob becomes a consumer in
 * consumers.c; what waited for it is resolved in pending.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_impl.h"

static void reg_free(struct hcb_hcbtap *d, struct pending_reg *r)
{
	hcb_bounds_give(&d->b.regs, r->held);
	free(r->buf);
	free(r->have);
	free(r);
}

static void reg_unlink(struct hcb_hcbtap *d, struct pending_reg *r)
{
	for (struct pending_reg **pp = &d->regs; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			return;
		}
}

/* Give registration r up; what waited for it is resolved without it. */
static int reg_give_up(struct hcb_hcbtap *d, struct pending_reg *r)
{
	uint32_t cid = r->consumer_id;

	reg_unlink(d, r);
	reg_free(d, r);
	return hcb_hcbtap_resolve(d, cid, NULL);
}

/* Room for a registration of total bytes: the oldest given up while the
 * pool is full.  0, or the resolve's error. */
static int reg_room(struct hcb_hcbtap *d, uint32_t dev, uint32_t cid, uint64_t need)
{
	while (hcb_bounds_take(&d->b.regs, need)) {
		struct pending_reg *old = d->regs;
		int err;

		while (old && old->next)
			old = old->next;
		if (!old)
			return -ENOBUFS;
		hcb_bounds_note(&d->b, HCB_BOUND_REG_MEM, dev, old->consumer_id,
				"registration of consumer %u given up for consumer %u's: %u unfinished "
				"registrations hold %llu bytes", old->consumer_id, cid, d->b.regs.n,
				(unsigned long long)d->b.regs.bytes);
		err = reg_give_up(d, old);
		if (err)
			return err;
	}
	return 0;
}

static int reg_new(struct hcb_hcbtap *d, const struct hcb_ev_chunk *h, struct pending_reg **out)
{
	uint64_t need = h->total + h->total / 8 + 1 + sizeof(struct pending_reg);
	struct pending_reg *r;
	int err = reg_room(d, h->device, h->consumer_id, need);

	if (err)
		return err == -ENOBUFS ? 0 : err;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->buf = malloc(h->total)) || !(r->have = calloc(h->total / 8 + 1, 1))) {
		if (r)
			free(r->buf);
		free(r);
		hcb_bounds_give(&d->b.regs, need);
		return -ENOMEM;
	}
	r->consumer_id = h->consumer_id;
	r->total = h->total;
	r->held = need;
	r->next = d->regs;
	d->regs = r;
	*out = r;
	return 0;
}

static struct pending_reg *reg_find(struct hcb_hcbtap *d, uint32_t cid)
{
	struct pending_reg *r = d->regs;

	while (r && r->consumer_id != cid)
		r = r->next;
	return r;
}

/* The copy of chunk h is under way (noted once; a few at most). */
static void copy_seen(struct pending_reg *r, const struct hcb_ev_chunk *h)
{
	for (unsigned int i = 0; i < r->ncopies; i++)
		if (r->copies[i].device == h->device && r->copies[i].seq == h->seq)
			return;
	if (r->ncopies < REG_COPIES)
		r->copies[r->ncopies++] = (struct reg_copy){ h->device, h->seq };
}

/* Mark bytes [from, to) as there; how many were not yet.  Whole bytes of
 * the map at a time: a 1 MiB blob is 128 Ki of them, not 1 Mi bits. */
static uint64_t mark(unsigned char *have, uint64_t from, uint64_t to)
{
	uint64_t n = 0, i = from;

	for (; i < to && (i % 8 || to - i < 8); i++) {
		unsigned char bit = (unsigned char)(1u << (i % 8));

		n += !(have[i / 8] & bit);
		have[i / 8] |= bit;
	}
	for (; i + 8 <= to; i += 8) {
		n += 8u - (unsigned int)__builtin_popcount(have[i / 8]);
		have[i / 8] = 0xff;
	}
	for (; i < to; i++) {
		unsigned char bit = (unsigned char)(1u << (i % 8));

		n += !(have[i / 8] & bit);
		have[i / 8] |= bit;
	}
	return n;
}

int hcb_hcbtap_reg_chunk(struct hcb_hcbtap *d, const struct hcb_ev_chunk *h,
			 const unsigned char *data)
{
	struct pending_reg *r;
	const struct hcb_consumer *c;
	int err;

	if (hcb_registry_get(d->reg, h->consumer_id))
		return 0;   /* another thread's copy got here first */
	r = reg_find(d, h->consumer_id);
	if (h->total == 0 || h->total > HCB_MAX_REG_BYTES || h->offset > h->total ||
	    h->len > h->total - h->offset || (r && r->total != h->total)) {
		hcb_bounds_problem(&d->b, HCB_BAD_CHUNK, h->device, h->consumer_id,
				   "registration chunk of consumer %u out of bounds", h->consumer_id);
		return 0;
	}
	if (!r) {
		err = reg_new(d, h, &r);
		if (!r)
			return err;
	}
	copy_seen(r, h);
	r->touched_ns = d->b.now_ns;
	memcpy(r->buf + h->offset, data, h->len);
	r->received += mark(r->have, h->offset, h->offset + h->len);
	if (r->received < r->total)
		return 0;
	reg_unlink(d, r);
	err = hcb_hcbtap_consumer_add(d, h->device, h->consumer_id, r->buf, r->total);
	reg_free(d, r);
	c = hcb_registry_get(d->reg, h->consumer_id);
	/* what waited for it goes now, or, had it no use, goes without it */
	return err ? err : hcb_hcbtap_resolve(d, h->consumer_id, c);
}

int hcb_hcbtap_reg_copy_over(struct hcb_hcbtap *d, uint32_t cid, uint32_t device, uint64_t seq)
{
	struct pending_reg *r = reg_find(d, cid);
	int err;

	if (!r)
		return 0;
	for (unsigned int i = 0; i < r->ncopies; i++)
		if (r->copies[i].device == device && r->copies[i].seq == seq) {
			r->copies[i] = r->copies[--r->ncopies];
			break;
		}
	if (r->ncopies)
		return 1;
	/* every copy under way ended short: the next packet sends it again,
	 * from its start; these bytes are no use to anyone */
	err = reg_give_up(d, r);
	return err < 0 ? err : 0;
}

void hcb_hcbtap_regs_expire(struct hcb_hcbtap *d)
{
	for (struct pending_reg *r = d->regs, *next; r; r = next) {
		next = r->next;
		if (!r->touched_ns)
			r->touched_ns = d->b.now_ns;
		if (!hcb_bounds_expired(&d->b, r->touched_ns))
			continue;
		hcb_bounds_note(&d->b, HCB_BOUND_EXPIRED, HCB_MAX_DEVICES, r->consumer_id,
				"registration of consumer %u given up: %llu of %llu bytes came, then "
				"none for a while", r->consumer_id, (unsigned long long)r->received,
				(unsigned long long)r->total);
		reg_give_up(d, r);
		next = d->regs;   /* the list may have changed: start over */
	}
}

int hcb_hcbtap_regs_finish(struct hcb_hcbtap *d)
{
	int err = 0;

	while (d->regs && !err)
		err = reg_give_up(d, d->regs);
	return err;
}

void hcb_hcbtap_regs_free(struct hcb_hcbtap *d)
{
	while (d->regs) {
		struct pending_reg *r = d->regs;

		d->regs = r->next;
		reg_free(d, r);
	}
}
