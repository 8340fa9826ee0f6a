/* SPDX-License-Identifier: MIT */
/*
 * out.h - the capture engine's way out: every record to the receiver, in
 * the order it was made, and every warning to the warner.
 *
 * The receiver's first error sticks (but -ENOMEM, which a receiver may
 * get over): nothing more is handed to a receiver that failed, and the
 * session ends on it.
 *
 * With the CUPTI injection library active (`hcbtrace run --cuda`), the
 * device-side times of a CUDA tap's copy come after the tap, when CUPTI
 * hands its activity records over.  So that the tap's record carries them,
 * taps (and the drop records between them, to keep their order) wait in an
 * order queue (orderq.h) until their times come, or they waited long
 * enough, or too much waits, or a barrier or the end needs everything
 * written.  Without such times nothing waits: records go straight to the
 * receiver.
 */
#ifndef HCB_ENGINE_OUT_H
#define HCB_ENGINE_OUT_H

#include <stdint.h>

#include "core/receiver.h"

struct hcb_orderq;
struct hcb_slots;

struct hcb_out {
	struct hcb_receiver rx;
	int err;                         /* the receiver's sticky error */
	struct hcb_warner warner;        /* {0}: nobody is told */
	/* device copy times */
	int device_timing;               /* asked for (hcb_capture_opts) */
	const struct hcb_slots *slots;   /* whose providers say whether they come */
	struct hcb_orderq *queue;        /* records waiting for them, NULL: none yet */
	int timing_active, copies_seen;
	uint64_t timing_checked_ns;
	char timing_why[160];            /* why they do not come */
};

/* Records to rx, warnings to warner; device_timing: wait for the copy
 * times that slots's providers say come.  Nothing to fail. */
void hcb_out_init(struct hcb_out *o, struct hcb_receiver rx, struct hcb_warner warner,
		  int device_timing, const struct hcb_slots *slots);
/* Let what waits go undelivered (the end record was written, or the
 * session failed). */
void hcb_out_free(struct hcb_out *o);

/* Hand rec on in order: straight to the receiver, or queued for the
 * device copy times of taps.  Returns the receiver's error. */
int hcb_out_emit(struct hcb_out *o, const struct hcb_record *rec);
/* Deliver what waits for its copy times and waited long enough (all:
 * every record: a barrier or the end comes).  Returns the receiver's error. */
int hcb_out_release(struct hcb_out *o, int all);
/* After a poll: what was delivered is out of the receiver's hands
 * (receiver.h: flush).  Returns its error, which sticks. */
int hcb_out_flush(struct hcb_out *o);
/* A barrier is answered: what was delivered is durable (receiver.h:
 * sync).  Returns its error, which sticks. */
int hcb_out_sync(struct hcb_out *o);
/* Tell the user; the session goes on. */
void hcb_out_warn(const struct hcb_out *o, const struct hcb_warning *w);

/* The copy times of tap seq of device, on CLOCK_MONOTONIC; mono_to_real
 * puts them on the records' clock.  Untrusted: nonsense is dropped. */
void hcb_out_copy_times(struct hcb_out *o, uint32_t device, uint64_t seq, uint64_t start_ns,
			uint64_t end_ns, uint64_t mono_to_real);
/* Ask now and then whether device copy times come; after every poll. */
void hcb_out_timing_check(struct hcb_out *o);
/* Ask now, however recently it was asked: a provider was just attached,
 * and its target surely runs. */
void hcb_out_timing_recheck(struct hcb_out *o);
/* At the end: if they were asked for and never came, say why, once. */
void hcb_out_timing_notice(struct hcb_out *o);

#endif
