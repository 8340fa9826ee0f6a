/* SPDX-License-Identifier: MIT */
/* out.c - the capture engine's way out: the receiver, the warner, and
 * the records that wait for device copy times (out.h). */
#include <errno.h>
#include <stdio.h>

#include "core/clock.h"
#include "capture_impl.h"
#include "orderq.h"
#include "out.h"

#define TIMING_CHECK_NS 100000000ull

static const struct hcb_orderq_limits queue_limits = {
	.wait_ns = 250000000ull,         /* CUPTI flushes its records every 100 ms */
	.max_records = 65536,
	.max_bytes = 64ull << 20,
};

void hcb_out_init(struct hcb_out *o, struct hcb_receiver rx, struct hcb_warner warner,
		  int device_timing, const struct hcb_slots *slots)
{
	*o = (struct hcb_out){ .rx = rx, .warner = warner, .device_timing = device_timing,
			       .slots = slots };
}

/* To the receiver now, unless it failed before.  Returns its error. */
static int deliver(struct hcb_out *o, const struct hcb_record *rec)
{
	int err = o->err ? o->err : o->rx.ops->record(o->rx.ctx, rec);

	if (err && err != -ENOMEM)
		o->err = err;
	return err;
}

void hcb_out_warn(const struct hcb_out *o, const struct hcb_warning *w)
{
	if (o->warner.warn)
		o->warner.warn(o->warner.ctx, w);
}

int hcb_out_flush(struct hcb_out *o)
{
	int err;

	if (o->err || !o->rx.ops->flush)
		return 0;
	err = o->rx.ops->flush(o->rx.ctx);
	if (err)
		o->err = err;
	return err;
}

int hcb_out_sync(struct hcb_out *o)
{
	int err;

	if (!o->rx.ops->sync)
		return 0;
	err = o->rx.ops->sync(o->rx.ctx);
	if (err)
		o->err = err;
	return err;
}

/*
 * Whether some provider's taps get copy times now: asked now and then once
 * they do, and at every record while they do not, so that the first taps
 * after a device starts are queued too, however soon the program ends (a
 * read of the target's memory a tap, only under --cuda while none come).
 */
static int timing_active(struct hcb_out *o, uint64_t now)
{
	if (!o->device_timing ||
	    (o->timing_active && now - o->timing_checked_ns < TIMING_CHECK_NS))
		return o->timing_active;
	o->timing_checked_ns = now;
	o->timing_active = 0;
	for (unsigned int i = 0; i < o->slots->n && !o->timing_active; i++) {
		const struct hcb_slot *s = &o->slots->at[i];

		if (s->prov->timing && s->prov->timing(s->state, o->timing_why, sizeof(o->timing_why)))
			o->timing_active = 1;
	}
	return o->timing_active;
}

static int deliver_queued(void *ctx, const struct hcb_record *rec)
{
	return deliver(ctx, rec);
}

int hcb_out_release(struct hcb_out *o, int all)
{
	return o->queue ? hcb_orderq_flush(o->queue, hcb_clock_ns(CLOCK_MONOTONIC), all) : 0;
}

int hcb_out_emit(struct hcb_out *o, const struct hcb_record *rec)
{
	uint64_t now = hcb_clock_ns(CLOCK_MONOTONIC);
	int err;

	/* a session record again (whois.h) keeps its place among them too */
	if ((rec->kind == HCB_REC_TAP || rec->kind == HCB_REC_DROP ||
	     rec->kind == HCB_REC_SESSION) && !o->err && timing_active(o, now)) {
		if (!o->queue && !(o->queue = hcb_orderq_new(&queue_limits, deliver_queued, o)))
			return deliver(o, rec);
		if (hcb_orderq_put(o->queue, rec, now) == 0)
			return 0;
	}
	/* in order: what waits goes first */
	err = hcb_out_release(o, 1);
	return err ? err : deliver(o, rec);
}

void hcb_out_copy_times(struct hcb_out *o, uint32_t device, uint64_t seq, uint64_t start_ns,
			uint64_t end_ns, uint64_t mono_to_real)
{
	uint64_t start = start_ns + mono_to_real, end = end_ns + mono_to_real;

	/* times from the target are not trusted: a copy that ends before it
	 * starts (or past the clock's range) is no time at all, and recordings
	 * refuse it */
	if (device >= HCB_MAX_DEVICES || !end_ns || start_ns > end_ns || start > end || !end)
		return;
	o->copies_seen = 1;
	hcb_orderq_set_times(o->queue, device, seq, start, end);
}

void hcb_out_timing_check(struct hcb_out *o)
{
	timing_active(o, hcb_clock_ns(CLOCK_MONOTONIC));
}

void hcb_out_timing_recheck(struct hcb_out *o)
{
	o->timing_checked_ns = 0;
	hcb_out_timing_check(o);
}

void hcb_out_timing_notice(struct hcb_out *o)
{
	struct hcb_warning w = { .kind = HCB_WARN_NO_DEVICE_TIMING, .detail = o->timing_why };

	/* said when no copy time came at all, whatever the provider thought */
	if (!o->device_timing || o->copies_seen)
		return;
	/* the last word while the program ran: it may be gone by now */
	if (!o->timing_why[0])
		snprintf(o->timing_why, sizeof(o->timing_why), "the program ended before any was seen");
	hcb_out_warn(o, &w);
}

void hcb_out_free(struct hcb_out *o)
{
	hcb_orderq_free(o->queue);
	o->queue = NULL;
}
