/* SPDX-License-Identifier: MIT */
/*
 * nfstop.h - the jax-callback FFI probe's own NaN check (--on-trigger stop
 * with --until nonfinite): on the devices of a set, by id, the probe checks the
 * float operands of every call alike (the first HCB_JAXFFI_NF_OPERANDS
 * of at most HCB_JAXFFI_NF_BYTES each: map jaxffi_nf, events.h) after
 * sending the call, and stops the target from its own thread at a NaN or
 * an infinity.
 */
#ifndef HCB_JAXCB_NFSTOP_H
#define HCB_JAXCB_NFSTOP_H

#include <stdint.h>

#include "core/filter.h"

struct hcb_probes;

/* Check every call on the devices of the set.  0; -ENOENT: an empty set;
 * -errno from BPF. */
int hcb_jaxcb_stop_nonfinite(struct hcb_probes *probes, const struct hcb_devset *devices);
/* The checks on (1) or off (0).  0; -ENOENT: no device set; -errno. */
int hcb_jaxcb_stop_arm(struct hcb_probes *probes, int on);

#endif
