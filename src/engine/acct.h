/* SPDX-License-Identifier: MIT */
/*
 * acct.h - a live session's delivery accounting and barrier points, as
 * pure state: fed sequence numbers and counters, it says what was lost
 * and when a barrier is reached.  No BPF, no I/O: the capture engine
 * (losses.c, barriers.c) feeds it, and tests/unit/test_acct.c drives every
 * rule.
 *
 * The rules.  A provider numbers each device's packets (libhcbtap's seq,
 * or the probe's own count) and its probe counts, per device, the packets
 * that went through it, sent or lost (handled).  From the session's base
 * on (what the target had issued when the probe was in place), every seq
 * is either delivered or lost:
 *   - a packet whose seq jumps past the next one expected reveals losses,
 *     recorded where they happened;
 *   - a packet below the next expected (one that arrived while the attach
 *     was finishing) is a bonus, not a loss;
 *   - at a barrier and at the end, seqs below the probe's handled count
 *     that never arrived are lost (the tail, which no later packet shows);
 *   - losses are split by cause as far as the probe's and the decoder's
 *     counters tell (ring full, output too far behind, target memory
 *     unreadable, malformed), the rest "not delivered" (e.g. issued
 *     while the detach was under way);
 *   - seqs compare modulo 2^64, so a counter that wraps keeps counting;
 *   - a seq is the target's word: a jump is lost only as far as the probe
 *     counted packets firing on the device (hcb_loss_source.fired) that
 *     are not accounted for yet; the excess is a lie, counted once per
 *     packet that tells it (lies), never as losses.
 * Where a device's packets may arrive out of seq order (its calls run on
 * several threads at once), a jump in seq says nothing: such accounting is
 * unordered, and counts instead: at a barrier and at the end, what went
 * through the probe and was neither delivered nor recorded lost is lost.
 */
#ifndef HCB_ACCT_H
#define HCB_ACCT_H

#include <stdint.h>

#include "core/wire.h"

enum hcb_loss_cause {
	HCB_LOSS_RING,          /* the ring buffer was full */
	HCB_LOSS_UNREADABLE,    /* the target's memory could not be read */
	HCB_LOSS_MALFORMED,     /* a malformed or incomplete packet */
	HCB_LOSS_STAGING,       /* the emitter's device staging memory was full */
	HCB_LOSS_DEVICE_COPY,   /* the emitter's copy off the device failed */
	HCB_LOSS_NO_RUNTIME,    /* the emitter had no device runtime */
	HCB_LOSS_LAG,           /* turned away: the output was over --max-lag */
	HCB_LOSS_NO_MEMORY,     /* the kernel had no memory for the probe's state */
	HCB_LOSS_UNDELIVERED,   /* no counter says why */
	/* not a device's: its calls were not recorded for want of a slot
	 * (bpf/ring.h), each such device's in a drop record at the end */
	HCB_LOSS_TOO_MANY_DEVICES,
	HCB_LOSS_CAUSES
};

/* What a device's counters say was lost so far, per counted cause. */
struct hcb_loss_seen {
	uint64_t n[HCB_LOSS_UNDELIVERED];
};

struct hcb_loss {
	enum hcb_loss_cause cause;
	uint64_t count;
};

/* The words a drop record gives for a cause (they are part of the
 * recording format, formats/JSONL.md). */
const char *hcb_loss_reason(enum hcb_loss_cause cause);

struct hcb_acct_dev {
	uint64_t base;          /* issued when the session attached */
	uint64_t through;       /* seqs below are delivered or recorded as lost */
	int started;            /* a packet of it (or a loss) has been seen */
	uint64_t delivered;     /* packets decoded */
	uint64_t written;       /* of those, written out (the rest: filtered) */
	uint64_t dropped;       /* packets recorded as lost */
	uint64_t told[HCB_LOSS_UNDELIVERED];   /* losses already attributed, per cause */
	uint64_t lies;          /* seqs past what the probe handled: a problem each */
	uint64_t lied;          /* the seqs they claimed beyond it, not counted lost */
};

struct hcb_acct {
	struct hcb_acct_dev dev[HCB_MAX_DEVICES];
	int unordered;          /* losses counted, not placed (see above) */
	uint64_t stray;         /* packets of a device out of range: refused */
};

/* Where the counters of losses come from: asked only when a loss is
 * found, for device d's counters now.  fired (optional; none: no cap) is
 * how many packets the probe counted firing on device d since the
 * session attached, sent or lost: no more than those can be lost. */
struct hcb_loss_source {
	void (*seen)(void *ctx, uint32_t d, struct hcb_loss_seen *out);
	void *ctx;
	uint64_t (*fired)(void *ctx, uint32_t d);
};

/* Start accounting; base: what each device had issued at the attach
 * (HCB_MAX_DEVICES of them), or NULL for a probe that counts from 0;
 * unordered: the device's packets may arrive out of seq order. */
void hcb_acct_init(struct hcb_acct *a, const uint64_t *base, int unordered);
/* A device d of HCB_MAX_DEVICES or more has no figures here: a packet of
 * one is refused (counted in stray), a loss or a write ignored. */
/* The seq device d's next packet should have. */
uint64_t hcb_acct_next(const struct hcb_acct *a, uint32_t d);
/*
 * Packet seq of device d arrived.  The losses before it go into out, by
 * cause as src's counters tell; returns how many entries.
 */
unsigned int hcb_acct_packet(struct hcb_acct *a, uint32_t d, uint64_t seq,
			     const struct hcb_loss_source *src, struct hcb_loss out[HCB_LOSS_CAUSES]);
/* Every seq of device d below upto went through the probe: those that did
 * not arrive are lost.  Returns the entries in out, as hcb_acct_packet. */
unsigned int hcb_acct_upto(struct hcb_acct *a, uint32_t d, uint64_t upto,
			   const struct hcb_loss_source *src, struct hcb_loss out[HCB_LOSS_CAUSES]);
/* A delivered packet of device d was written out. */
void hcb_acct_written(struct hcb_acct *a, uint32_t d);

/*
 * A barrier being served: every packet the target had issued when it was
 * asked for must be written, or recorded as lost, before the barrier
 * record.  Stage 1 waits for those packets to go through the probe; then
 * their records are in the ring below its written position at that
 * moment (the mark), and stage 2 waits for the reader to pass the mark.
 * One request at a time; requests made meanwhile are answered by the next.
 */
struct hcb_barrier_point {
	uint64_t req;           /* the request being served, 0: none */
	uint64_t done;          /* the last request answered */
	int stage;
	uint64_t ring_mark;
	uint64_t issued[HCB_MAX_DEVICES];
};

/* Serve request req against these issued counts (HCB_MAX_DEVICES). */
void hcb_barrier_begin(struct hcb_barrier_point *b, uint64_t req, const uint64_t *issued);

/* What a barrier looks at, read when it is asked, in this order: the
 * probe's handled counts first, and only once they reach the barrier's
 * counts the ring's written position (records reserved after a probe
 * returned are below a written position read later, never the reverse). */
struct hcb_barrier_view {
	uint64_t (*handled)(void *ctx, uint32_t d);   /* the probe's count for device d */
	uint64_t (*ring_written)(void *ctx);
	uint64_t (*ring_read)(void *ctx);
	void *ctx;
};

/* Move the barrier on: 1 once it can be written (every packet it waits for
 * has gone through the probe and the ring is read past the mark), else 0. */
int hcb_barrier_advance(struct hcb_barrier_point *b, const struct hcb_acct *a,
			const struct hcb_barrier_view *v);
/* At the end, with the ring drained: 1 if nothing the barrier waits for
 * is still missing, so that it can be answered; 0 if it never will be. */
int hcb_barrier_reachable(const struct hcb_barrier_point *b, const struct hcb_acct *a);
/* The barrier record is written and on disk: the request is answered. */
void hcb_barrier_answered(struct hcb_barrier_point *b);

#endif
