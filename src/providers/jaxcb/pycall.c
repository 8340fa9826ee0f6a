/* SPDX-License-Identifier: MIT */
/*
 * pycall.c - the Python side of a JAX callback's call (pycall_events.h),
 * joined to the call its thread made just before: the FFI handler's
 * records come first, then jaxlib's inner function is entered (the Python
 * callable), runs the callable, returns (the end).
 * A call of the Python handler is held, whole, until that end, so what
 * the Python side said goes with the tap; an end that does not come (a
 * ring full, a probe gone) holds it no longer than the thread's next call,
 * a while without progress (a tick) or the end of the input: then it is
 * handed on as it is, counted.  The text it printed is text.c's.
 */
#include <string.h>

#include "decode_impl.h"
#include "pycall_events.h"

/* A text of the thread's call, while its callable runs. */
static int on_text(struct hcb_jaxffi *x, const struct hcb_ev_jpytext *e, const unsigned char *d,
		   size_t avail)
{
	struct jcall *c = hcb_jx_call_of(x, e->pid, e->tid);

	if (!c || !c->await_end || !c->py_seen)
		return 0;
	return hcb_jx_text_keep(c, e, d, avail);
}

/* The callable's entry: the thread's call waits for it, once. */
static int on_entry(struct hcb_jaxffi *x, const struct hcb_ev_jpycall *e)
{
	struct jcall *c = hcb_jx_call_of(x, e->pid, e->tid);

	if (!c || !c->await_end)
		return 0;   /* its call was not sent (counted on its device) */
	if (c->py_seen)
		/* a second entry: the first one's end was lost */
		return c->whole ? hcb_jx_deliver_unended(x, c, "a second entry came") : 0;
	c->py_seen = 1;
	c->py_callable = e->flags & HCB_JPY_F_NOCALLABLE ? 0 : e->callable;
	/* now, while the callable runs: the tap may be handed on after the
	 * program ended, its objects gone; a site met before has its name */
	if (hcb_jx_site_known(x, c))
		return 0;
	return hcb_jx_name_early(x, c);
}

static int on_end(struct hcb_jaxffi *x, const struct hcb_ev_jpyend *e)
{
	struct jcall *c = hcb_jx_call_of(x, e->pid, e->tid);

	if (!c || !c->await_end)
		return 0;
	c->await_end = 0;
	/* not whole: its operands stopped short, as the thread's next call
	 * or the end of the input will find */
	return c->whole ? hcb_jx_deliver(x, c) : 0;
}

int hcb_jx_on_pycall(struct hcb_jaxffi *x, const void *rec, size_t len)
{
	uint32_t type;

	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_JPYCALL && len >= sizeof(struct hcb_ev_jpycall)) {
		struct hcb_ev_jpycall e;

		memcpy(&e, rec, sizeof(e));
		return on_entry(x, &e);
	}
	if (type == HCB_EV_JPYEND && len >= sizeof(struct hcb_ev_jpyend)) {
		struct hcb_ev_jpyend e;

		memcpy(&e, rec, sizeof(e));
		return on_end(x, &e);
	}
	if (type == HCB_EV_JPYTEXT && len >= sizeof(struct hcb_ev_jpytext)) {
		struct hcb_ev_jpytext e;

		memcpy(&e, rec, sizeof(e));
		return on_text(x, &e, (const unsigned char *)rec + sizeof(e), len - sizeof(e));
	}
	hcb_bounds_problem(&x->b, HCB_BAD_RECORD, HCB_MAX_DEVICES, 0, "a Python callback "
			   "record of %zu bytes that is none", len);
	return 0;
}
