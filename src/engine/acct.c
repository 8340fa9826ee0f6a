/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "acct.h"

const char *hcb_loss_reason(enum hcb_loss_cause cause)
{
	static const char *const reasons[HCB_LOSS_CAUSES] = {
		[HCB_LOSS_RING] = "ring buffer full",
		[HCB_LOSS_UNREADABLE] = "target memory unreadable",
		[HCB_LOSS_MALFORMED] = "malformed or incomplete packet",
		[HCB_LOSS_STAGING] = "device staging full",
		[HCB_LOSS_DEVICE_COPY] = "device copy failed",
		[HCB_LOSS_NO_RUNTIME] = "no device runtime",
		[HCB_LOSS_LAG] = "output too far behind",
		[HCB_LOSS_NO_MEMORY] = "no kernel memory for the probe",
		[HCB_LOSS_UNDELIVERED] = "not delivered",
		[HCB_LOSS_TOO_MANY_DEVICES] = "too many devices",
	};

	return cause < HCB_LOSS_CAUSES ? reasons[cause] : "not delivered";
}

/* a comes after b, modulo 2^64 */
static int after(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) > 0;
}

void hcb_acct_init(struct hcb_acct *a, const uint64_t *base, int unordered)
{
	memset(a, 0, sizeof(*a));
	a->unordered = unordered;
	for (uint32_t d = 0; base && d < HCB_MAX_DEVICES; d++)
		a->dev[d].base = a->dev[d].through = base[d];
}

uint64_t hcb_acct_next(const struct hcb_acct *a, uint32_t d)
{
	const struct hcb_acct_dev *v;

	if (d >= HCB_MAX_DEVICES)
		return 0;
	v = &a->dev[d];
	return v->started ? v->through : v->base;
}

/* n packets of device d are lost: attribute them to the causes the
 * counters have not yet accounted for, in order, the rest undelivered. */
static unsigned int lose(struct hcb_acct_dev *v, uint32_t d, uint64_t n,
			 const struct hcb_loss_source *src, struct hcb_loss out[HCB_LOSS_CAUSES])
{
	struct hcb_loss_seen seen = { { 0 } };
	unsigned int k = 0;

	v->dropped += n;
	if (src && src->seen)
		src->seen(src->ctx, d, &seen);
	for (int c = 0; c < HCB_LOSS_UNDELIVERED && n; c++) {
		uint64_t fresh = seen.n[c] > v->told[c] ? seen.n[c] - v->told[c] : 0;

		if (fresh > n)
			fresh = n;
		if (!fresh)
			continue;
		v->told[c] += fresh;
		n -= fresh;
		out[k++] = (struct hcb_loss){ .cause = (enum hcb_loss_cause)c, .count = fresh };
	}
	if (n)
		out[k++] = (struct hcb_loss){ .cause = HCB_LOSS_UNDELIVERED, .count = n };
	return k;
}

/* A jump of n seqs: at most what the probe counted firing on d and this
 * session has not accounted for yet is lost; the rest is the target's lie
 * (counted in lies and lied, not lost).  The packet that shows the jump is
 * not taken off: its record is in the ring before the probe counts it (a
 * device's packets fire one at a time, so it is the only one). */
static uint64_t cap_lost(struct hcb_acct_dev *v, uint32_t d, uint64_t n,
			 const struct hcb_loss_source *src)
{
	uint64_t fired, used = v->delivered + v->dropped, room;

	if (!src || !src->fired)
		return n;
	fired = src->fired(src->ctx, d);
	room = fired > used ? fired - used : 0;
	if (n <= room)
		return n;
	v->lies++;
	v->lied += n - room;
	return room;
}

unsigned int hcb_acct_packet(struct hcb_acct *a, uint32_t d, uint64_t seq,
			     const struct hcb_loss_source *src, struct hcb_loss out[HCB_LOSS_CAUSES])
{
	struct hcb_acct_dev *v;
	uint64_t expect = hcb_acct_next(a, d);
	unsigned int k = 0;

	/* the device number is the target's word: no room past the table */
	if (d >= HCB_MAX_DEVICES) {
		a->stray++;
		return 0;
	}
	v = &a->dev[d];
	if (after(seq, expect) && !a->unordered) {
		uint64_t n = cap_lost(v, d, seq - expect, src);

		k = n ? lose(v, d, n, src, out) : 0;
	}
	if (!v->started || after(seq + 1, v->through))
		v->through = seq + 1;
	v->started = 1;
	v->delivered++;
	return k;
}

unsigned int hcb_acct_upto(struct hcb_acct *a, uint32_t d, uint64_t upto,
			   const struct hcb_loss_source *src, struct hcb_loss out[HCB_LOSS_CAUSES])
{
	struct hcb_acct_dev *v;
	uint64_t expect = hcb_acct_next(a, d), missing;

	if (d >= HCB_MAX_DEVICES)
		return 0;
	v = &a->dev[d];
	if (a->unordered) {
		/* what passed the probe since the base, less what is accounted for */
		missing = upto - v->base - v->delivered - v->dropped;
		if (after(upto, expect))
			v->through = upto;
		v->started |= upto != v->base;
		return (int64_t)missing > 0 ? lose(v, d, missing, src, out) : 0;
	}
	if (!after(upto, expect))
		return 0;
	v->through = upto;
	v->started = 1;
	missing = cap_lost(v, d, upto - expect, src);
	return missing ? lose(v, d, missing, src, out) : 0;
}

void hcb_acct_written(struct hcb_acct *a, uint32_t d)
{
	if (d < HCB_MAX_DEVICES)
		a->dev[d].written++;
}

void hcb_barrier_begin(struct hcb_barrier_point *b, uint64_t req, const uint64_t *issued)
{
	b->req = req;
	b->stage = 1;
	b->ring_mark = 0;
	memcpy(b->issued, issued, sizeof(b->issued));
}

/* Every packet the barrier waits for has gone through the probe. */
static int passed_probe(const struct hcb_barrier_point *b, const struct hcb_acct *a,
			const struct hcb_barrier_view *v)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		uint64_t want = b->issued[d];

		/* what this session has delivered or counted lost needs no look */
		if (!after(want, hcb_acct_next(a, d)))
			continue;
		if (after(want, v->handled(v->ctx, d)))
			return 0;
	}
	return 1;
}

int hcb_barrier_advance(struct hcb_barrier_point *b, const struct hcb_acct *a,
			const struct hcb_barrier_view *v)
{
	if (!b->req)
		return 0;
	if (b->stage == 1) {
		if (!passed_probe(b, a, v))
			return 0;
		/* their records are all in the ring, below here at most */
		b->ring_mark = v->ring_written(v->ctx);
		b->stage = 2;
	}
	return !after(b->ring_mark, v->ring_read(v->ctx));
}

int hcb_barrier_reachable(const struct hcb_barrier_point *b, const struct hcb_acct *a)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
		if (after(b->issued[d], hcb_acct_next(a, d)))
			return 0;
	return 1;
}

void hcb_barrier_answered(struct hcb_barrier_point *b)
{
	b->done = b->req;
	b->req = 0;
	b->stage = 0;
}
