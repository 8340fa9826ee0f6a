/* SPDX-License-Identifier: MIT */
/*
 * nonfinite.h - record --on-trigger stop with --until nonfinite, as the
 * probes check it themselves (nonfinite.bpf.h): the float leaves a probe
 * checks in a small tap, so that it stops the target (SIGSTOP from the
 * target's own thread) at the tap with a NaN or infinity, not steps
 * later.  Spans of one float kind, at most HCB_NF_SPAN bytes each,
 * offsets into the payload; devices the condition is on, a bit each.
 * Filled by the user side of the provider whose probe checks them.
 */
#ifndef HCB_BPF_NONFINITE_H
#define HCB_BPF_NONFINITE_H

#include "core/wire.h"

#define HCB_NF_SPAN 64u
#define HCB_NF_MAX_SPANS 32u
#define HCB_NF_MAX_CONSUMERS 4096u

enum hcb_nf_kind { HCB_NF_F16 = 1, HCB_NF_BF16 = 2, HCB_NF_F32 = 3, HCB_NF_F64 = 4 };

struct hcb_nf_span {
	HCB_WIRE_U32 off;          /* into the payload, < HCB_WIRE_INLINE_MAX */
	HCB_WIRE_U32 len;          /* 1..HCB_NF_SPAN, whole elements */
	HCB_WIRE_U32 kind;         /* enum hcb_nf_kind */
	HCB_WIRE_U32 pad;
};

struct hcb_nf_layout {
	HCB_WIRE_U32 nspans;
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 device_mask[HCB_MAX_DEVICES / 64];
	struct hcb_nf_span span[HCB_NF_MAX_SPANS];
};

#endif
