/* SPDX-License-Identifier: MIT */
/*
 * lag.h - how far behind its output a session may run (--max-lag), as
 * the ring's backlog in bytes that the BPF side lets build up.
 *
 * Why: a program that taps faster than the output is written keeps the
 * ring full, and what waits in it waits at the writer's pace: 64 MiB is
 * 20 ms of .hcbcap but a second of JSONL.  A barrier waits for all of it,
 * and text on a terminal shows taps that old.  So the reader measures its
 * own rate while it has a backlog, and the BPF side turns packets away
 * once the backlog is what the reader takes max_ns to read (every one
 * counted lost).  The limit follows the rate: it is a time, whatever the
 * format, the machine or the other load.
 *
 * It applies only while the program outruns the reader: within
 * HCB_LAG_HOLD_NS of a packet turned away (a full ring, or the limit
 * itself, which keeps it on while the overload lasts).  So a burst the
 * ring holds is kept whole, as without the limit.  When it comes on, the
 * ring is full: the limit starts at the backlog there is and comes down
 * at half the reading rate, so taps still come in, at half that rate,
 * while the output catches up, rather than none at all until it has.
 *
 * Pure state, fed by src/bpf/probes.c; tests/unit/test_lag.c drives it.
 */
#ifndef HCB_LAG_H
#define HCB_LAG_H

#include <stdbool.h>
#include <stdint.h>

/* The least backlog allowed, however slow the reader: room for a burst
 * of small taps. */
#define HCB_LAG_FLOOR_BYTES (256u << 10)
/* How much must have been read with a backlog before the rate counts. */
#define HCB_LAG_MEASURED_BYTES (2u << 20)
/* How long the limit stays on after the last packet turned away. */
#define HCB_LAG_HOLD_NS 1000000000ull

struct hcb_lag {
	uint64_t max_ns;      /* 0: no limit but the ring's size */
	double bytes, ns;     /* decayed sums of what busy passes read, and their time */
	uint64_t start;       /* the backlog it came on with, less half of what was
			       * read since (0 once caught up); UINT64_MAX: off */
};

/* What one pass of the reader saw. */
struct hcb_lag_pass {
	uint64_t bytes, ns;        /* read, in that time */
	bool busy;                 /* it stopped with more to read, so it was reading
				    * all along (a pass that caught up also waited,
				    * and says nothing of the rate) */
	uint64_t backlog;          /* written and not yet read, at its end */
	uint64_t since_refusal_ns; /* since the BPF side last turned a packet away */
};

void hcb_lag_init(struct hcb_lag *l, uint64_t max_ns);

/*
 * Take in one pass of the reader; returns the backlog limit the BPF side
 * is to apply: UINT64_MAX while none applies (max_ns 0, the rate not yet
 * known, or no packet turned away within HCB_LAG_HOLD_NS).
 */
uint64_t hcb_lag_pass(struct hcb_lag *l, const struct hcb_lag_pass *pass);

#endif
