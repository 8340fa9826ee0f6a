/* SPDX-License-Identifier: MIT */
/*
 * out.c - the engine's device copy times.
 *
 * With the CUPTI injection library active (`hcbtrace run --cuda`), the
 * device-side times of a CUDA tap's copy come after the tap, when CUPTI
 * hands its activity records over.  So that the tap's record carries them,
 * taps (and the drop records between them, to keep their order) wait in an
 * order queue (orderq.h) until their times come, or QUEUE_WAIT_NS passes,
 * or too much waits, or a barrier or the end needs everything written.
 * Without such times nothing waits: records go straight to the receiver.
 */
#include <errno.h>
#include <stdio.h>

#include "core/clock.h"
#include "capture_impl.h"
#include "orderq.h"

#define TIMING_CHECK_NS 100000000ull

static const struct hcb_orderq_limits queue_limits = {
	.wait_ns = 250000000ull,         /* CUPTI flushes its records every 100 ms */
	.max_records = 65536,
	.max_bytes = 64ull << 20,
};

/*
 * Whether some provider's taps get copy times now: asked now and then once
 * they do, and at every record while they do not, so that the first taps
 * after a device starts are queued too, however soon the program ends (a
 * read of the target's memory a tap, only under --cuda while none come).
 */
static int timing_active(struct hcb_capture *c, uint64_t now)
{
	if (!c->o.device_timing ||
	    (c->timing_active && now - c->timing_checked_ns < TIMING_CHECK_NS))
		return c->timing_active;
	c->timing_checked_ns = now;
	c->timing_active = 0;
	for (unsigned int i = 0; i < c->slots.n && !c->timing_active; i++) {
		struct hcb_slot *s = &c->slots.at[i];

		if (s->prov->timing && s->prov->timing(s->state, c->timing_why, sizeof(c->timing_why)))
			c->timing_active = 1;
	}
	return c->timing_active;
}

static int deliver(void *ctx, const struct hcb_record *rec)
{
	return hcb_capture_deliver(ctx, rec);
}

int hcb_capture_queue_flush(struct hcb_capture *c, int all)
{
	return c->queue ? hcb_orderq_flush(c->queue, hcb_clock_ns(CLOCK_MONOTONIC), all) : 0;
}

int hcb_capture_emit(struct hcb_capture *c, const struct hcb_record *rec)
{
	uint64_t now = hcb_clock_ns(CLOCK_MONOTONIC);
	int err;

	if ((rec->kind == HCB_REC_TAP || rec->kind == HCB_REC_DROP) && !c->rx_err &&
	    timing_active(c, now)) {
		if (!c->queue && !(c->queue = hcb_orderq_new(&queue_limits, deliver, c)))
			return hcb_capture_deliver(c, rec);
		if (hcb_orderq_put(c->queue, rec, now) == 0)
			return 0;
	}
	/* in order: what waits goes first */
	err = hcb_capture_queue_flush(c, 1);
	return err ? err : hcb_capture_deliver(c, rec);
}

void hcb_capture_copy_times(struct hcb_slot *s, uint32_t device, uint64_t seq, uint64_t start_ns,
			    uint64_t end_ns)
{
	uint64_t start = start_ns + s->c->mono_to_real, end = end_ns + s->c->mono_to_real;

	/* times from the target are not trusted: a copy that ends before it
	 * starts (or past the clock's range) is no time at all, and recordings
	 * refuse it */
	if (device >= HCB_MAX_DEVICES || !end_ns || start_ns > end_ns || start > end || !end)
		return;
	s->c->copies_seen = 1;
	hcb_orderq_set_times(s->c->queue, device, seq, start, end);
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

void hcb_capture_queue_free(struct hcb_capture *c)
{
	hcb_orderq_free(c->queue);
	c->queue = NULL;
}
