/* SPDX-License-Identifier: MIT */
/*
 * check.h - the layout check of the jax-callback provider: XLA internals
 * (layout.h) proven on the running process by what the probes read with
 * them, never trusted for a jaxlib version's sake.
 *
 * A call's record (events.h) carries the custom call target's name read
 * at each place it may be in the thunk, the op and module names,
 * and the device ordinal read twice (execution context, thunk's execute
 * parameters).  The layout holds when exactly those agree with what the
 * thunk must be: the name at one place is a Python callback's custom call
 * target (23 to 39 exact characters: no stray bytes read as a std::string
 * make one), the op and module names are HLO names, and both ordinals are
 * the same.  The first call so checked decides it for the session: proven,
 * or refused (nothing is shown, not even the values the C API gave, since
 * a process whose XLA is not the one hcbtrace knows may differ anywhere).
 * A later call that disagrees with the proven layout is one malformed
 * call, not a refusal.
 *
 * A legacy callback's call (HCB_JAXFFI_F_LEGACY, legacy.h) carries its
 * descriptor as read, which must read as an xla::CpuCallback (its vectors
 * whole, each operand's dims, row-major strides and size agreeing, checked
 * by the probe: h->layout; its callable a Python function), and, where a
 * thunk made the call, the same as above, but that the thunk's
 * backend_config must be the descriptor's address in decimal (jax writes
 * it there) and the device the same in the custom call and the collective
 * parameters.  Where the classic runtime made it, the device is the run's.
 */
#ifndef HCB_JAXFFI_CHECK_H
#define HCB_JAXFFI_CHECK_H

#include <stddef.h>

#include "events.h"

struct hcb_jaxffi_check {
	int state;               /* HCB_JAXFFI_UNPROVEN, _PROVEN, _REFUSED */
	unsigned int place;      /* proven: where the target name is */
	int place_known;         /* legacy: a thunk proved place (the classic
				  * runtime proves the rest without one) */
	int device_proven;       /* the context's ordinal proven apart (decode.h) */
};

enum { HCB_JAXFFI_UNPROVEN, HCB_JAXFFI_PROVEN, HCB_JAXFFI_REFUSED };

/*
 * Check call h's site, and make its names printable; on success the target
 * name found is h->target[0].  Returns
 *   0        the thunk named the call site, and the layout holds;
 *   1        no thunk of a callback ran on the call's thread: the call has
 *            no site (the caller names it after its index; a legacy call
 *            after its descriptor, h->desc);
 *   2        a legacy call whose device is not known (no thunk, no run):
 *            not to be shown;
 *   -EINVAL  this call disagrees with the layout proven before (msg: why);
 *   -EPROTO  the layout is refused, by this call or an earlier one (msg:
 *            why, the first time).
 */
int hcb_jaxffi_check_site(struct hcb_jaxffi_check *k, struct hcb_ev_jcall *h, char *msg,
			  size_t cap);

/*
 * The layout check of a legacy call's operand e (the probe checked the
 * rest of its Arg): its strides must be the row-major byte strides of its
 * dims.  NULL if they are (or its type has no whole bytes an element),
 * else why not.
 */
const char *hcb_jaxffi_check_strides(const struct hcb_ev_jarg *e);

#endif
