/* SPDX-License-Identifier: MIT */
/*
 * pycall.c - the Python side of a JAX callback's call (pycall_events.h),
 * joined to the call its thread made just before: the FFI handler's
 * records come first, then jaxlib's inner function is entered (the Python
 * callable), runs the callable, returns (the end).
 * A call of the Python handler is held, whole, until that end, so what
 * the Python side said goes with the tap.  One thread's records come in
 * the order it made them, and its calls nest (a callback whose Python
 * runs jax makes calls before its own end): each record is of the newest
 * call of its thread that waits for its end.  An end that does not come
 * (a ring full, a probe gone) holds it no longer than a while without
 * progress (a tick) or the end of the input, or, where its entry did not
 * come either, the thread's next call: then it is handed on as it is,
 * counted, its text not shown.  The text it printed is text.c's.
 * Where the return is not probed (no text probe: --no-text, or once it
 * went off), a call is handed on at its entry; one that was waiting for
 * its end as the probe went still takes it, or goes without, uncounted.
 */
#include <string.h>

#include "decode_impl.h"
#include "pycall_events.h"

/* The call of thread (pid, tid) a record of its Python side is of: the
 * newest held that waits for its end (one made from inside another's
 * callback is newer, and ends first), or NULL. */
static struct jcall *awaiting(struct hcb_jaxffi *x, uint32_t pid, uint32_t tid)
{
	struct jcall *c = hcb_jx_call_of(x, pid, tid);

	while (c && !c->await_end)
		c = hcb_jx_call_older(c);
	if (c)
		c->touched_ns = x->b.now_ns;
	return c;
}

/* A text of the thread's call, while its callable runs. */
static int on_text(struct hcb_jaxffi *x, const struct hcb_ev_jpytext *e, const unsigned char *d,
		   size_t avail)
{
	struct jcall *c = awaiting(x, e->pid, e->tid);

	/* not its own: of a callback its Python ran, or after a lost entry */
	if (!c || !c->py_seen || c->foreign || c->text_state == JX_TEXT_UNPROVEN)
		return 0;
	return hcb_jx_text_keep(c, e, d, avail);
}

/*
 * The callable's entry: the thread's call waits for it, once.  Its own,
 * where the call's index attribute is known, has that index; another
 * (its own was lost, and its Python ran a callback whose call was not
 * sent) says nothing of it, and its text cannot be told its own.  An entry
 * after its own is of such a callback: its end comes before the call's.
 */
static int on_entry(struct hcb_jaxffi *x, const struct hcb_ev_jpycall *e)
{
	struct jcall *c = awaiting(x, e->pid, e->tid);

	if (!c)
		return 0;   /* its call was not sent (counted on its device) */
	if (c->py_seen || ((c->h.flags & HCB_JAXFFI_F_INDEX) && e->index != c->h.index)) {
		if (!c->py_seen)
			c->text_state = JX_TEXT_UNPROVEN;
		c->py_seen = 1;
		c->foreign++;
		return 0;
	}
	c->py_seen = 1;
	c->py_callable = e->flags & HCB_JPY_F_NOCALLABLE ? 0 : e->callable;
	/* now, while the callable runs: the tap may be handed on after the
	 * program ended, its objects gone; a site met before has its name */
	if (!hcb_jx_site_known(x, c)) {
		int err = hcb_jx_name_early(x, c);

		if (err)
			return err;
	}
	/* no end is probed (no text to wait for): the entry was all */
	if (!x->no_ends)
		return 0;
	c->await_end = 0;
	return c->whole ? hcb_jx_deliver(x, c) : 0;
}

static int on_end(struct hcb_jaxffi *x, const struct hcb_ev_jpyend *e)
{
	struct jcall *c = awaiting(x, e->pid, e->tid);

	if (!c)
		return 0;
	if (c->foreign) {   /* a callback's its Python ran */
		c->foreign--;
		return 0;
	}
	c->await_end = 0;
	/* its entry was lost: what texts came were not kept as its own */
	if (!c->py_seen)
		c->text_state = JX_TEXT_UNPROVEN;
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
