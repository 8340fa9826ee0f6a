/* SPDX-License-Identifier: MIT */
/*
 * capture_impl.h - what the capture engine's parts share: the slots, the
 * providers attached to the target.  Each part keeps its own state in a
 * struct of its own header (out.h, publish.h, losses.h, barriers.h,
 * late.h, nfstop.h) and is handed the slot table, and the parts below it,
 * as arguments; capture.c, the session's life, holds them all and calls
 * down into them, never the reverse.  Private to src/engine/.
 */
#ifndef HCB_CAPTURE_IMPL_H
#define HCB_CAPTURE_IMPL_H

#include "bpf/probes.h"
#include "core/wire.h"
#include "providers/provider.h"
#include "acct.h"
#include "capture.h"

/*
 * One provider attached to the target: its own BPF object (only its
 * programs), ring buffer and counters, so that two providers in one
 * process (libhcbtap, and JAX's own callbacks) neither mix their counts
 * nor their sequence numbers.
 */
struct hcb_slot {
	const struct hcb_provider *prov;
	struct hcb_target_info ti;
	void *state;                     /* the provider's */
	struct hcb_probes *probes;
	struct hcb_acct acct;
	/* the id of each device slot (provider.h: HCB_PROV_DEVIDS), read from
	 * the probes once, where the slot first shows (devices.h) */
	uint32_t dev_id[HCB_MAX_DEVICES];
	uint8_t dev_id_known[HCB_MAX_DEVICES];
	int nodev_told;                  /* said: 1, devices past the slots;
					  * 2, calls of no device known */
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

#endif
