/* SPDX-License-Identifier: MIT */
/*
 * nanwatch.h - watching a session for NaN and infinity without keeping it:
 * a receiver (receiver.h) that wraps another and passes on only the taps
 * that hold a non-finite float (nonfinite.h), and every other record as it
 * comes (session, drops, barriers, triggers: the accounting is the
 * session's, untouched; the end record counts the taps passed on).  Per
 * call site (consumer) and device it keeps the first such tap (seq, time,
 * leaf, element, value) and how many there were: what `attach --nonfinite`
 * prints and sums up at the end.
 *
 * The check is one scan of each tap's payload, after decoding; the memory
 * is bounded (HCB_NANWATCH_MAX_SITES sites; taps of sites past that are
 * passed on and counted apart).
 */
#ifndef HCB_NANWATCH_H
#define HCB_NANWATCH_H

#include <stdint.h>

#include "core/receiver.h"
#include "nonfinite.h"

/* Call sites times devices kept apart in the tally: far more than any
 * program taps from; past it, a hostile one only costs a count. */
#define HCB_NANWATCH_MAX_SITES 4096u

/* One call site on one device that tapped a NaN or infinity. */
struct hcb_nanwatch_site {
	char consumer[128];           /* its name, cut to fit */
	uint32_t consumer_id;
	uint32_t device;
	uint64_t seq, wall_ns;        /* the first such tap's; wall_ns CLOCK_REALTIME */
	struct hcb_nonfinite_at at;   /* its first non-finite element */
	uint64_t taps;                /* its taps that held one */
};

struct hcb_nanwatch;

/* 0 or -ENOMEM. */
int hcb_nanwatch_new(struct hcb_nanwatch **out, struct hcb_receiver inner);
/* The watch as a receiver: records from the engine (or a reader) go here. */
struct hcb_receiver hcb_nanwatch_receiver(struct hcb_nanwatch *w);
/* Sites that tapped a non-finite value, in the order of their first. */
unsigned int hcb_nanwatch_sites(const struct hcb_nanwatch *w);
const struct hcb_nanwatch_site *hcb_nanwatch_site(const struct hcb_nanwatch *w, unsigned int i);
/* Taps seen, and those of them that held a non-finite value (passed on). */
uint64_t hcb_nanwatch_seen(const struct hcb_nanwatch *w);
uint64_t hcb_nanwatch_found(const struct hcb_nanwatch *w);
/* Non-finite taps of sites past HCB_NANWATCH_MAX_SITES (in found, in no site). */
uint64_t hcb_nanwatch_untallied(const struct hcb_nanwatch *w);
/* The session record's platform ("cpu"; "" before one came) and start. */
const char *hcb_nanwatch_platform(const struct hcb_nanwatch *w);
uint64_t hcb_nanwatch_start_ns(const struct hcb_nanwatch *w);
void hcb_nanwatch_free(struct hcb_nanwatch *w);

#endif
