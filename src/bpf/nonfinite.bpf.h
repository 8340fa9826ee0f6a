/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * nonfinite.bpf.h - record --on-trigger stop with --until nonfinite: the
 * probes' own check of a few floats of the target for NaN or infinity, so
 * that the probe stops the target from the target's thread at that very
 * tap (bpf_send_signal), not steps later when user space reads it.  Shared
 * by hcbtap.bpf.c (a small packet's float leaves) and jaxffi.bpf.c (a JAX
 * callback's small float operands): one span of at most HCB_NF_SPAN bytes
 * of one float kind (nonfinite.h) at a time, a bounded loop each.
 */
#ifndef HCB_NONFINITE_BPF_H
#define HCB_NONFINITE_BPF_H

#include "nonfinite.h"

#define NF_SIGSTOP 19

/* Is every exponent bit of an element set (a NaN or an infinity)? */
#define NF_SCAN(T, MASK)							\
	for (__u32 j = 0; j < HCB_NF_SPAN / sizeof(T); j++) {			\
		T v;								\
		if (j * sizeof(T) >= len)					\
			break;							\
		__builtin_memcpy(&v, buf + j * sizeof(T), sizeof(T));		\
		if ((v & (MASK)) == (MASK))					\
			return 1;						\
	}

/*
 * The len bytes (whole elements, 1..HCB_NF_SPAN) of kind at src in the
 * target: 1 if one is not finite; 0 if all are, or they could not be read
 * (nothing stops then: user space still checks the tap when it reads it).
 * Read again from the target into buf (HCB_NF_SPAN bytes of the run's
 * state, never the stack: state.bpf.h): they were just copied, they are in
 * cache.
 */
static __always_inline int nf_scan_span(const void *src, __u32 len, __u32 kind, unsigned char *buf)
{
	if (len == 0 || len > HCB_NF_SPAN)
		return 0;
	if (bpf_probe_read_user(buf, len, src))
		return 0;
	if (kind == HCB_NF_F32)
		NF_SCAN(__u32, 0x7f800000u)
	else if (kind == HCB_NF_F64)
		NF_SCAN(__u64, 0x7ff0000000000000ull)
	else if (kind == HCB_NF_F16)
		NF_SCAN(__u16, 0x7c00u)
	else if (kind == HCB_NF_BF16)
		NF_SCAN(__u16, 0x7f80u)
	return 0;
}

#endif
