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
 * counted lost, as for a full ring).  The limit follows the rate: it is
 * a time, whatever the format, the machine or the other load.
 *
 * Pure state, fed by src/probes.c; tests/unit/test_lag.c drives it.
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

struct hcb_lag {
	uint64_t max_ns;      /* 0: no limit but the ring's size */
	double bytes, ns;     /* decayed sums of what busy passes read, and their time */
};

void hcb_lag_init(struct hcb_lag *l, uint64_t max_ns);

/*
 * One pass of the reader: bytes read in ns.  busy: it stopped with more
 * to read, so it was reading all along (a pass that caught up also
 * waited, and says nothing of the rate).  Returns the backlog limit:
 * UINT64_MAX while none applies (max_ns 0, or the rate not yet known).
 */
uint64_t hcb_lag_pass(struct hcb_lag *l, uint64_t bytes, uint64_t ns, bool busy);

#endif
