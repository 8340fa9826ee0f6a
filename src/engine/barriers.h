/* SPDX-License-Identifier: MIT */
/*
 * barriers.h - `hcbtrace barrier` served by a live session (acct.h says
 * what makes one exact): a request read from the session files, the losses
 * up to the counts the target had issued when it was asked, the barrier
 * record, on disk, and the request answered.  Served through the slot
 * whose target counts what it issued (struct hcb_slots' issuer), while the
 * session still looks and its receiver has not failed.
 *
 * A barrier the target's counts make unanswerable (it claims taps it never
 * sent: its issued counters ran ahead) is given up once every barrier that
 * asked for it has stopped waiting: unanswered, so that nobody takes it
 * for done, with a warning, and the next request is served afresh.
 */
#ifndef HCB_ENGINE_BARRIERS_H
#define HCB_ENGINE_BARRIERS_H

#include <stdint.h>

#include "acct.h"

struct hcb_losses;
struct hcb_out;
struct hcb_pub;
struct hcb_slots;

struct hcb_barriers {
	struct hcb_barrier_point bar;    /* the one being served */
	uint64_t taken;                  /* the request deadline is of */
	uint64_t deadline;               /* CLOCK_MONOTONIC: when bar is given up */
	struct hcb_slots *slots;         /* the issuer serves them */
	const struct hcb_losses *losses; /* what is missing at a barrier */
	struct hcb_pub *pub;             /* where requests come from and are answered */
	struct hcb_out *out;             /* the barrier record, the warning */
};

void hcb_barriers_init(struct hcb_barriers *b, struct hcb_slots *slots,
		       const struct hcb_losses *losses, struct hcb_pub *pub, struct hcb_out *out);
/* 1 while a barrier waits for packets to arrive: poll more often. */
int hcb_barriers_pending(const struct hcb_barriers *b);
/* After each poll: serve the requests, written taps so far (the barrier
 * record's count); looking: the session still takes taps (not after -c).
 * Returns the receiver's error. */
int hcb_barriers_serve(struct hcb_barriers *b, uint64_t written, int looking);
/* At the end, the rings drained: a barrier owed is answered if nothing it
 * waits for is still missing (the target exited), else never.  Returns the
 * receiver's error. */
int hcb_barriers_end(struct hcb_barriers *b, uint64_t written, int looking);

#endif
