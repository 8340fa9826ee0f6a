/* SPDX-License-Identifier: MIT */
/*
 * nfstop.h - record --on-trigger stop with --until nonfinite: the
 * conditions handed to the probes that check taps themselves (each
 * provider's stop_nonfinite and stop_arm, provider.h), so that the target
 * stops from its own thread at the very tap that holds a NaN or an
 * infinity.  What each returns is hcb_capture_stop_nonfinite()'s and
 * hcb_capture_nfstop_arm()'s (capture.h).
 */
#ifndef HCB_ENGINE_NFSTOP_H
#define HCB_ENGINE_NFSTOP_H

#include <stdint.h>

#include "core/filter.h"

struct hcb_consumer;
struct hcb_slots;

/* Every slot's probe that checks so, for cons's taps on the set's devices. */
int hcb_nfstop_set(const struct hcb_slots *slots, const struct hcb_consumer *cons,
		   const struct hcb_devset *devices);
/* Every slot's checks on or off. */
int hcb_nfstop_arm(const struct hcb_slots *slots, int on);

#endif
