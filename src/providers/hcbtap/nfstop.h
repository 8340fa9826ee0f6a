/* SPDX-License-Identifier: MIT */
/*
 * nfstop.h - the hcbtap probe's own NaN check (--on-trigger stop with
 * --until nonfinite): a consumer's small packets (at most
 * HCB_WIRE_INLINE_MAX bytes) have their float leaves checked by the probe
 * as it copies them (map nf_stop, struct hcb_nf_layout), which stops the
 * target from its own thread at a NaN or an infinity.
 */
#ifndef HCB_HCBTAP_NFSTOP_H
#define HCB_HCBTAP_NFSTOP_H

#include <stdint.h>

#include "core/consumer.h"
#include "core/filter.h"

struct hcb_probes;

/* Check cons's taps on the devices of the set.  0; -E2BIG: its packets
 * are not small, or hold no float the probe checks (or too many spans);
 * -ENOENT: no device of the set is below HCB_MAX_DEVICES (none can be
 * libhcbtap's); -errno from BPF. */
int hcb_hcbtap_stop_nonfinite(struct hcb_probes *probes, const struct hcb_consumer *cons,
			      const struct hcb_devset *devices);
/* The checks on (1) or off (0).  0 or -errno from BPF. */
int hcb_hcbtap_stop_arm(struct hcb_probes *probes, int on);

#endif
