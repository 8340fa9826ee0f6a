/* SPDX-License-Identifier: MIT */
/*
 * capture_hold.c - taps held back for their device copy times.
 *
 * With the CUPTI injection library active (`hcbtrace run --cuda`), the
 * device-side times of a CUDA tap's copy come after the tap, when CUPTI
 * hands its activity records over.  So that the tap's record carries them,
 * taps (and the drop records between them, to keep their order) wait here
 * until their times come, or HOLD_NS passes, or too much waits, or a
 * barrier or the end needs everything written.  Without such times nothing
 * waits: records go straight to the receiver.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_impl.h"
#include "clock.h"

#define HOLD_NS 250000000ull         /* CUPTI flushes its records every 100 ms */
#define HOLD_MAX_RECORDS 65536
#define HOLD_MAX_BYTES (64ull << 20)
#define TIMING_CHECK_NS 100000000ull

struct hcb_held {
	struct hcb_record rec;
	unsigned char *payload;          /* the tap's own copy */
	uint64_t since_ns;
	struct hcb_held *next;           /* in arrival order */
	struct hcb_held *dnext;          /* the next held tap of its device */
};

struct hcb_hold {
	struct hcb_held *head, *tail;
	struct hcb_held *dhead[HCB_MAX_DEVICES], *dtail[HCB_MAX_DEVICES];
	size_t n;
	uint64_t bytes;
};

/*
 * Whether some provider's taps get copy times now: asked now and then once
 * they do, and at every record while they do not, so that the first taps
 * after a device starts are held too, however soon the program ends (a
 * read of the target's memory a tap, only under --cuda while none come).
 */
static int timing_active(struct hcb_capture *c, uint64_t now)
{
	if (!c->o.device_timing ||
	    (c->timing_active && now - c->timing_checked_ns < TIMING_CHECK_NS))
		return c->timing_active;
	c->timing_checked_ns = now;
	c->timing_active = 0;
	for (unsigned int i = 0; i < c->nslots && !c->timing_active; i++) {
		struct hcb_slot *s = &c->slot[i];

		if (s->prov->timing && s->prov->timing(s->state, c->timing_why, sizeof(c->timing_why)))
			c->timing_active = 1;
	}
	return c->timing_active;
}

/* Take rec into the hold: 0, or -ENOMEM (then it is written at once). */
static int hold_put(struct hcb_capture *c, const struct hcb_record *rec, uint64_t now)
{
	struct hcb_hold *h = c->hold;
	struct hcb_held *e = calloc(1, sizeof(*e));
	uint64_t n = rec->kind == HCB_REC_TAP ? rec->tap.consumer->total_bytes : 0;
	uint32_t d = rec->kind == HCB_REC_TAP ? rec->tap.device : 0;

	if (!e || (n && !(e->payload = malloc(n)))) {
		free(e);
		return -ENOMEM;
	}
	e->rec = *rec;
	e->since_ns = now;
	if (n) {
		memcpy(e->payload, rec->tap.payload, n);
		e->rec.tap.payload = e->payload;
	}
	*(h->tail ? &h->tail->next : &h->head) = e;
	h->tail = e;
	if (rec->kind == HCB_REC_TAP && d < HCB_MAX_DEVICES) {
		*(h->dtail[d] ? &h->dtail[d]->dnext : &h->dhead[d]) = e;
		h->dtail[d] = e;
	}
	h->n++;
	h->bytes += n;
	return 0;
}

/* Write the oldest held record and let it go. */
static int hold_pop(struct hcb_capture *c)
{
	struct hcb_hold *h = c->hold;
	struct hcb_held *e = h->head;
	int err;

	h->head = e->next;
	if (!h->head)
		h->tail = NULL;
	if (e->rec.kind == HCB_REC_TAP && e->rec.tap.device < HCB_MAX_DEVICES) {
		uint32_t d = e->rec.tap.device;

		h->dhead[d] = e->dnext;
		if (!h->dhead[d])
			h->dtail[d] = NULL;
		h->bytes -= e->rec.tap.consumer->total_bytes;
	}
	h->n--;
	err = hcb_capture_deliver(c, &e->rec);
	free(e->payload);
	free(e);
	return err;
}

int hcb_capture_hold_flush(struct hcb_capture *c, int all)
{
	struct hcb_hold *h = c->hold;
	uint64_t now = hcb_clock_ns(CLOCK_MONOTONIC);
	int err = 0;

	while (h && h->head && !err) {
		const struct hcb_held *e = h->head;

		if (!all && e->rec.kind == HCB_REC_TAP && !e->rec.tap.copy_end_ns &&
		    now - e->since_ns < HOLD_NS && h->n < HOLD_MAX_RECORDS && h->bytes < HOLD_MAX_BYTES)
			break;
		err = hold_pop(c);
	}
	return err;
}

int hcb_capture_emit(struct hcb_capture *c, const struct hcb_record *rec)
{
	uint64_t now = hcb_clock_ns(CLOCK_MONOTONIC);
	int err;

	if ((rec->kind == HCB_REC_TAP || rec->kind == HCB_REC_DROP) && !c->rx_err &&
	    timing_active(c, now)) {
		if (!c->hold && !(c->hold = calloc(1, sizeof(*c->hold))))
			return hcb_capture_deliver(c, rec);
		if (hold_put(c, rec, now) == 0)
			return 0;
	}
	/* in order: what waits goes first */
	err = hcb_capture_hold_flush(c, 1);
	return err ? err : hcb_capture_deliver(c, rec);
}

void hcb_capture_copy_times(struct hcb_slot *s, uint32_t device, uint64_t seq, uint64_t start_ns,
			    uint64_t end_ns)
{
	struct hcb_hold *h = s->c->hold;
	uint64_t start = start_ns + s->c->mono_to_real, end = end_ns + s->c->mono_to_real;

	/* times from the target are not trusted: a copy that ends before it
	 * starts (or past the clock's range) is no time at all, and recordings
	 * refuse it */
	if (device >= HCB_MAX_DEVICES || !end_ns || start_ns > end_ns || start > end || !end)
		return;
	s->c->copies_seen = 1;
	if (!h)
		return;
	/* a device's taps are held in seq order, their times come in it too */
	for (struct hcb_held *e = h->dhead[device]; e; e = e->dnext)
		if (e->rec.tap.seq == seq) {
			e->rec.tap.copy_start_ns = start;
			e->rec.tap.copy_end_ns = end;
			return;
		}
}

void hcb_capture_timing_check(struct hcb_capture *c)
{
	timing_active(c, hcb_clock_ns(CLOCK_MONOTONIC));
}

void hcb_capture_timing_notice(struct hcb_capture *c)
{
	struct hcb_warning w = { .kind = HCB_WARN_NO_DEVICE_TIMING, .detail = c->timing_why };

	/* said when no copy time came at all, whatever the provider thought */
	if (!c->o.device_timing || c->copies_seen)
		return;
	/* the last word while the program ran: it may be gone by now */
	if (!c->timing_why[0])
		snprintf(c->timing_why, sizeof(c->timing_why), "the program ended before any was seen");
	hcb_capture_warn(c, &w);
}

void hcb_capture_hold_free(struct hcb_capture *c)
{
	struct hcb_hold *h = c->hold;

	while (h && h->head) {
		struct hcb_held *e = h->head;

		h->head = e->next;
		free(e->payload);
		free(e);
	}
	free(h);
	c->hold = NULL;
}
