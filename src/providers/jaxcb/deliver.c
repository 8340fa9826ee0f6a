/* SPDX-License-Identifier: MIT */
/*
 * deliver.c - a jax callback's call, whole, handed on as a packet and let
 * go.  A call is whole in several ways, each found above this file: its
 * last operand's bytes came (decode.c), its Python side ended (pycall.c),
 * or its end never came and something else ended the wait: its thread's
 * next call, a while without progress, the end of the input (counted,
 * hcb_jx_deliver_unended).
 */
#include <errno.h>

#include "decode_impl.h"

int hcb_jx_deliver(struct hcb_jaxffi *x, struct jcall *c)
{
	const struct hcb_consumer *con = NULL;
	struct hcb_packet p;
	int err, kind = 0;

	if (c->got != c->h.total_bytes) {
		hcb_bounds_problem(&x->b, HCB_SHORT_PAYLOAD, c->h.device, 0, "device %u: callback "
				   "call %llu (%s): operands of %llu bytes, the call said %llu",
				   c->h.device_id, (unsigned long long)c->h.seq, c->h.op,
				   (unsigned long long)c->got, (unsigned long long)c->h.total_bytes);
		hcb_jx_call_drop(x, c);
		return 0;
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
	return err;
}

int hcb_jx_deliver_unended(struct hcb_jaxffi *x, struct jcall *c, const char *why)
{
	x->unended++;
	hcb_bounds_note(&x->b, HCB_BOUND_EXPIRED, c->h.device, 0, "device %u: callback call "
			"%llu (%s) shown before its Python side ended: %s", c->h.device_id,
			(unsigned long long)c->h.seq, c->h.op, why);
	return hcb_jx_deliver(x, c);
}
