/* SPDX-License-Identifier: MIT */
/*
 * flight.h - a flight recorder: a receiver (receiver.h) that wraps another
 * and holds a session's most recent records back until a condition on a
 * tap's values (trigger.h) fires, so that a long run leaves only the steps
 * that led up to its first NaN.
 *
 * With a byte budget (keep_bytes), nothing reaches the inner receiver until
 * a trigger fires: it keeps the session record, and the most recent taps
 * (whole, their payloads copied) with the drop records between them, in
 * arrival order, evicting the oldest to stay within the budget.  What it
 * holds stays within keep_bytes, or is one tap larger than that, kept
 * alone (and flagged in the trigger record).  With a duration too
 * (keep_ns), a record is also let go once it is more than keep_ns older
 * than the newest tap (a drop record is as old as the newest tap when it
 * came): whichever bound is tighter wins.  When a tap fires a trigger it
 * writes the session record, what it kept oldest first (the firing tap
 * last), a trigger record, then passes on the next `after` taps, and is
 * done: the caller ends the session, and the end record passes through.  A
 * session that ends unfired writes nothing at all.
 *
 * Re-armed (firings > 1, which needs a budget and files): when a firing's
 * `after` taps have passed, it hands the inner receiver an end record
 * of its own (the counts of that recording), closes it (files.close),
 * and arms again with an empty ring; the next firing opens the next
 * recording (files.open) and writes the session record there first, so
 * that each firing is a whole recording.  Done after the last firing.
 *
 * Without a budget (keep_bytes 0) every record passes at once, and the
 * trigger record follows the tap that fired; the same `after` and done.
 */
#ifndef HCB_FLIGHT_H
#define HCB_FLIGHT_H

#include <stdint.h>

#include "core/receiver.h"
#include "trigger.h"

/* Where re-armed firings go: firing n (1, 2, ...: the first, 0, goes to
 * the inner receiver given) gets *inner from open; close is told when the
 * recording of a firing is whole.  Each returns 0 or -errno. */
struct hcb_flight_files {
	int (*open)(void *ctx, uint64_t n, struct hcb_receiver *inner);
	int (*close)(void *ctx);
	void *ctx;
};

#define HCB_FLIGHT_NO_LIMIT UINT64_MAX

struct hcb_flight_opts {
	uint64_t keep_bytes;                 /* 0: hold nothing back */
	uint64_t keep_ns;                    /* with keep_bytes: hold only the taps
					      * of the last keep_ns before the
					      * newest (by wall_ns: the probe's
					      * clock, offset once); 0: the bytes
					      * alone bound it */
	const struct hcb_trigger *triggers;  /* any one fires; copied */
	unsigned int n_triggers;
	uint64_t after;                      /* taps passed on after the trigger */
	uint64_t firings;                    /* recordings at most (0 as 1;
					      * HCB_FLIGHT_NO_LIMIT) */
	struct hcb_flight_files files;       /* with firings > 1 */
};

struct hcb_flight;

/* 0, -ENOMEM, -EINVAL (keep_ns without keep_bytes, firings > 1 without
 * keep_bytes or files).  No trigger and no
 * way to fire but a signal is fine: n_triggers may be 0. */
int hcb_flight_new(struct hcb_flight **out, const struct hcb_flight_opts *o,
		   struct hcb_receiver inner);
/* The recorder as a receiver: records from the capture engine go here. */
struct hcb_receiver hcb_flight_receiver(struct hcb_flight *f);
/*
 * Fire now, with no tap (a signal): why names it in the trigger record
 * ("signal"), wall_ns is when.  0; 1 if it had fired already; -EAGAIN
 * before the session record has come (nothing to write yet: try again
 * later); or the inner receiver's -errno.
 */
int hcb_flight_fire(struct hcb_flight *f, const char *why, uint64_t wall_ns);
/* The same with the trigger record's words given whole (its condition,
 * wall_ns, and what a job's or an exit's trigger says: by_pid,
 * by_process, exited, exit_status, exit_signal); the tap's members are
 * the recorder's. */
int hcb_flight_fire_as(struct hcb_flight *f, const struct hcb_trigger_info *why);
/* The last session record come (NULL: none yet), valid until the next. */
const struct hcb_session_info *hcb_flight_session(const struct hcb_flight *f);
/* The condition of the latest firing ("" before the first). */
const char *hcb_flight_condition(const struct hcb_flight *f);
/* 1 once a trigger fired (re-armed: while a firing is being written). */
int hcb_flight_fired(const struct hcb_flight *f);
/* The firings so far: the recordings begun. */
uint64_t hcb_flight_firings(const struct hcb_flight *f);
/* 1 once the last firing's `after` taps passed on: end the session. */
int hcb_flight_done(const struct hcb_flight *f);
/* Bytes held back now (the payloads and the records' bookkeeping). */
uint64_t hcb_flight_held(const struct hcb_flight *f);
/* The most hcb_flight_held() has been: at most keep_bytes plus one tap. */
uint64_t hcb_flight_peak(const struct hcb_flight *f);
void hcb_flight_free(struct hcb_flight *f);

#endif
