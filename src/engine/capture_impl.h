/* SPDX-License-Identifier: MIT */
/* capture_impl.h - the capture engine's state, shared by its own files
 * (capture.c: the session's life; losses.c: losses, barriers and
 * the session files; out.c: device copy times, records queued
 * for them in an order queue, orderq.h; late.c: libraries mapped
 * after the attach).  Nothing outside src/capture*.c
 * includes it. */
#ifndef HCB_CAPTURE_IMPL_H
#define HCB_CAPTURE_IMPL_H

#include "bpf/probes.h"
#include "session/session.h"
#include "acct.h"
#include "capture.h"
#include "barriers.h"
#include "late.h"
#include "losses.h"
#include "out.h"
#include "publish.h"

/*
 * One provider attached to the target: its own BPF object (only its
 * programs), ring buffer and counters, so that two providers in one
 * process (libhcbtap, and JAX's own callbacks) neither mix their counts
 * nor their sequence numbers.
 */
struct hcb_slot {
	struct hcb_capture *c;
	const struct hcb_provider *prov;
	struct hcb_target_info ti;
	void *state;                     /* the provider's */
	struct hcb_probes *probes;
	struct hcb_acct acct;
};

/* The providers attached to the target, in the order they were. */
struct hcb_slots {
	struct hcb_slot at[HCB_CAPTURE_SLOTS];
	unsigned int n;
	struct hcb_slot *issuer;         /* the slot whose target counts what it
					  * issued (barriers), NULL if none */
};

/* The slot that speaks for the target (the session record's platform,
 * the figures in the session files): the one a barrier waits on, else
 * the first. */
static inline const struct hcb_slot *hcb_slots_main(const struct hcb_slots *s)
{
	return s->issuer ? s->issuer : &s->at[0];
}

struct hcb_capture {
	struct hcb_capture_opts o;
	struct hcb_out out;              /* the receiver and the warner */
	struct hcb_slots slots;
	struct hcb_probes *ring;         /* made by new() for the first slot, not yet used */
	struct hcb_target_info found;    /* what the last attach found, for messages */
	uint64_t mono_to_real;           /* add to CLOCK_MONOTONIC for CLOCK_REALTIME */
	uint64_t written;                /* taps handed to the receiver */
	enum hcb_capture_stop stop;
	struct hcb_pub pub;              /* the session files */
	struct hcb_losses losses;        /* where the slots' losses go */
	struct hcb_barriers barriers;    /* `hcbtrace barrier` served */
	struct hcb_late late;            /* libraries mapped after the attach */
	/* a provider that refused to read on (hcbtap_decode.h: refuse), and why */
	const struct hcb_slot *refused;
	char refusal[384];
};

#endif
