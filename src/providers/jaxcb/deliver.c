/* SPDX-License-Identifier: MIT */
/*
 * deliver.c - a jax callback's call, whole, handed on as a packet and let
 * go.  A call is whole in several ways, each found above this file: its
 * last operand's bytes came (decode.c), its Python side ended (pycall.c),
 * or its end never came and something else ended the wait: its thread's
 * next call, a while without progress, the end of the input (counted,
 * hcb_jx_deliver_unended, hcb_jx_deliver_final).  A call no thunk named
 * is named by its callable first (sites.c), or waits, whole, for a call of
 * that callable that had one.
 */
#include <errno.h>

#include "decode_impl.h"

/* Call c, whole, no thunk named: not its thread's any more, it waits for
 * a call of its callable with a thunk (hcb_jx_deliver wakes it), a while
 * without progress, or the end of the input. */
static void park(struct hcb_jaxffi *x, struct jcall *c)
{
	if (c->parked)
		return;
	hcb_jx_call_unthread(c);
	c->parked = 1;
	x->parked++;
}

/* Call c goes, its site named: by its callable, or (nothing more to wait
 * for) after its index, one problem.  0 and it is named; 1, it waits
 * (parked); -1, not shown (dropped, counted); -ENOMEM. */
static int name_unsited(struct hcb_jaxffi *x, struct jcall *c)
{
	int n = hcb_jx_site_by_callable(x, c);

	if (n < 0)
		return n;
	if (n) {
		x->named_by_callable++;
		return 0;
	}
	hcb_jx_thunk_wanted(x, c);
	if (!c->final && c->py_callable) {
		park(x, c);
		return 1;
	}
	if (x->check.state != HCB_JAXFFI_PROVEN && !x->check.device_proven) {
		/* its device is the execution context's, which only a call with
		 * a thunk proves here */
		hcb_bounds_problem(&x->b, HCB_UNKNOWN_CONSUMER, c->h.device, 0, "device %u: callback "
				   "call %llu: no call site, and the layout not yet proven (no thunk "
				   "ran on thread %u): not shown", c->h.device,
				   (unsigned long long)c->h.seq, c->h.tid);
		hcb_jx_call_drop(x, c);
		return -1;
	}
	hcb_bounds_problem(&x->b, HCB_UNKNOWN_CONSUMER, c->h.device, 0, "device %u: callback call "
			   "%llu: no call site (%s on thread %u, and its Python callable %s), named "
			   "after its index", c->h.device, (unsigned long long)c->h.seq,
			   c->h.flags & HCB_JAXFFI_F_THUNK ? "the thread's custom call was another" :
			   x->thunk_offs ? "no custom call thunk ran, or its probe was off" :
			   "no custom call thunk ran", c->h.tid, c->py_callable ?
			   "named no site a thunk named" : "was not seen");
	hcb_jx_name_unknown(&c->h, "unknown");
	return 0;
}

/* The calls waiting for callable's site's name, now that a call of it
 * with a thunk named it: handed on (each lets go of itself alone). */
static int wake_parked(struct hcb_jaxffi *x, uint64_t callable)
{
	int err = 0;

	for (struct jcall *c = x->oldest, *next; c && !err && x->parked; c = next) {
		next = c->newer;
		if (c->parked && c->py_callable == callable)
			err = hcb_jx_deliver(x, c);
	}
	return err;
}

int hcb_jx_deliver(struct hcb_jaxffi *x, struct jcall *c)
{
	const struct hcb_consumer *con = NULL;
	uint64_t callable = c->py_callable, ts_ns = c->h.ts_ns;
	struct hcb_packet p;
	int err, kind = 0, named_by_thunk = !c->unsited;

	if (c->got != c->h.total_bytes) {
		hcb_bounds_problem(&x->b, HCB_SHORT_PAYLOAD, c->h.device, 0, "device %u: callback "
				   "call %llu (%s): operands of %llu bytes, the call said %llu",
				   c->h.device_id, (unsigned long long)c->h.seq, c->h.op,
				   (unsigned long long)c->got, (unsigned long long)c->h.total_bytes);
		hcb_jx_call_drop(x, c);
		return 0;
	}
	if (c->unsited) {
		err = name_unsited(x, c);
		if (err)
			return err == -ENOMEM ? err : 0;
	}
	/* sub-byte operands come packed: one element a byte in a tap */
	err = hcb_xshape_unpack(c->shapes, c->h.nargs, &c->payload);
	if (!err)
		err = hcb_jx_consumer_for(x, c, &con, &kind);
	if (err == -ENOSPC) {
		hcb_bounds_lose(&x->b, HCB_BOUND_CONSUMERS, c->h.device, 0, "device %u: callback "
				"call %llu (%s): a call site past the %u hcbtrace keeps: not shown",
				c->h.device_id, (unsigned long long)c->h.seq, c->h.op, JX_MAX_SITES);
		hcb_jx_call_drop(x, c);
		return 0;
	}
	if (err || !con) {
		hcb_jx_call_drop(x, c);
		return -ENOMEM;
	}
	p = (struct hcb_packet){
		.device = c->h.device, .seq = c->h.seq, .mono_ns = c->h.ts_ns,
		.pid = c->h.pid, .tid = c->h.tid, .consumer = con,
		.payload = (const unsigned char *)(c->payload.data ? c->payload.data : ""),
		.py_callable = c->py_callable,
	};
	p.text = hcb_jx_text_for(x, c, con, kind, &p.text_len);
	hcb_bounds_delivered(&x->b, p.device, p.seq, con->total_bytes);
	x->delivered++;
	err = x->b.ops->packet(x->b.ctx, &p);
	hcb_jx_call_drop(x, c);
	/* (a call named by its callable names no other by it) */
	if (!err && x->parked && callable && named_by_thunk)
		err = wake_parked(x, callable);
	if (!err && named_by_thunk)
		hcb_jx_thunk_named(x, ts_ns, callable);
	return err;
}

int hcb_jx_deliver_unended(struct hcb_jaxffi *x, struct jcall *c, const char *why)
{
	/* its entry came, and its end is probed no more: nothing lost */
	if (x->no_ends && c->py_seen) {
		c->await_end = 0;
		return hcb_jx_deliver(x, c);
	}
	x->unended++;
	hcb_bounds_note(&x->b, HCB_BOUND_EXPIRED, c->h.device, 0, "device %u: callback call "
			"%llu (%s) shown before its Python side ended: %s", c->h.device_id,
			(unsigned long long)c->h.seq, c->h.op, why);
	c->await_end = 0;
	c->text_state = JX_TEXT_UNPROVEN;
	return hcb_jx_deliver(x, c);
}

int hcb_jx_deliver_final(struct hcb_jaxffi *x, struct jcall *c, const char *why)
{
	c->final = 1;
	return c->await_end ? hcb_jx_deliver_unended(x, c, why) : hcb_jx_deliver(x, c);
}
