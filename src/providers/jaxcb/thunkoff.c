/* SPDX-License-Identifier: MIT */
/*
 * thunkoff.c - the probe on XLA's custom-call thunks, while a call site's
 * naming needs it.  It traps on every custom call of every executable, a
 * trap and a program a callback's call more (some 0.9 µs of kernel time,
 * bench/callback_kernel.py), for what a site says once: its op and module
 * names.  A call without a
 * thunk is named by its Python callable, as the calls of that callable
 * with a thunk named it, where its objects say the site's words on the
 * call (sites.c: hcb_jx_site_by_callable).  So once the layout is proven,
 * every site seen has its objects read, no call waits for its name, and a
 * call named by its thunk comes quiet_ns or more after the newest site's
 * first (its site met before: the program's loop has shown its sites), the
 * probe goes off (thunkprobe.h takes it off beside the session).  A call
 * whose callable names no site puts it on again: it waits, whole, for a
 * call of its callable with a thunk (deliver.c), and the probe stays on
 * until the sites are quiet once more.
 */
#include <stdint.h>

#include "decode_impl.h"

void hcb_jaxffi_thunk_switch(struct hcb_jaxffi *x, int (*set)(void *ctx, int on), void *ctx,
			     uint64_t quiet_ns)
{
	x->thunk_set = set;
	x->thunk_ctx = ctx;
	x->thunk_quiet_ns = quiet_ns;
}

void hcb_jx_thunk_named(struct hcb_jaxffi *x, uint64_t ts_ns, uint64_t callable)
{
	/* every call would be named by a callable: its Python side is read */
	if (!x->thunk_set || x->thunk_off || !x->inner || !x->namer || !callable ||
	    x->check.state != HCB_JAXFFI_PROVEN || x->sites_unread || x->parked)
		return;
	if (x->thunk_quiet_ns == UINT64_MAX || ts_ns <= x->site_new_ns ||
	    ts_ns - x->site_new_ns < x->thunk_quiet_ns)
		return;
	if (x->thunk_set(x->thunk_ctx, 0))
		return;
	x->thunk_off = 1;
	if (!x->thunk_offs++ && x->b.ops->info)
		x->b.ops->info(x->b.ctx, "call sites: each one seen is named by its Python "
			       "callable: the probe on XLA's custom-call thunks is off, on again "
			       "for a callable not seen");
}

void hcb_jx_thunk_wanted(struct hcb_jaxffi *x, const struct jcall *c)
{
	if (c->h.ts_ns > x->site_new_ns)
		x->site_new_ns = c->h.ts_ns;
	if (!x->thunk_off)
		return;
	/* not put on: its calls are named by their index (deliver.c) */
	if (x->thunk_set(x->thunk_ctx, 1))
		return;
	x->thunk_off = 0;
	if (!x->thunk_ons++ && x->b.ops->info)
		x->b.ops->info(x->b.ctx, "call sites: a callable not seen: the probe on XLA's "
			       "custom-call thunks is on again, until its site is named");
}
