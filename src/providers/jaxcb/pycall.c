/* SPDX-License-Identifier: MIT */
/*
 * jaxffi_pycall.c - the Python side of a JAX callback's call
 * (bpf/pycall_events.h), joined to the call its thread made just before:
 * the FFI handler's records come first, then jaxlib's inner function is
 * entered (the Python callable), runs the callable, returns (the end).
 * A call of the Python handler is held, whole, until that end, so what
 * the Python side said goes with the tap; an end that does not come (a
 * ring full, a probe gone) holds it no longer than the thread's next call,
 * a while without progress (a tick) or the end of the input: then it is
 * handed on as it is, counted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/utf8.h"
#include "decode_impl.h"
#include "pycall_events.h"
#include "pysite.h"

/* A str's characters (kind bytes each, little-endian as CPython keeps
 * them on x86-64) into out as UTF-8.  0; -EINVAL for a character that is
 * none, or an ASCII str that is not; -ENOMEM. */
static int to_utf8(struct hcb_buf *out, const unsigned char *d, uint64_t n, uint32_t kind,
		   int ascii)
{
	unsigned char o[4];
	int err = 0;

	hcb_buf_reset(out);
	if (kind == 1 && ascii) {
		for (uint64_t i = 0; i < n; i++)
			if (d[i] >= 0x80)
				return -EINVAL;
		return hcb_buf_add(out, d, n);
	}
	for (uint64_t i = 0; (i + 1) * kind <= n && !err; i++) {
		unsigned int m = hcb_utf8_put(hcb_pystr_char(d, kind, i), o);

		if (!m)
			return -EINVAL;
		err = hcb_buf_add(out, o, m);
	}
	return err;
}

/* A text of the thread's call: the last one is kept, or why there is
 * none. */
static int on_text(struct hcb_jaxffi *x, const struct hcb_ev_jpytext *e, const unsigned char *d,
		   size_t avail)
{
	struct jcall *c = hcb_jx_call_of(x, e->pid, e->tid);
	int err;

	if (!c || !c->await_end || !c->py_seen)
		return 0;
	if (e->flags & HCB_JPY_T_LONG) {
		c->text_state = JX_TEXT_LONG;
		return 0;
	}
	if ((e->flags & HCB_JPY_T_BAD) || (e->kind != 1 && e->kind != 2 && e->kind != 4) ||
	    (e->ascii && e->kind != 1) || e->nbytes > HCB_JPY_TEXT_MAX || e->nbytes > avail ||
	    e->length > HCB_JPY_TEXT_MAX || e->nbytes != e->length * e->kind) {
		c->text_state = JX_TEXT_BAD;
		return 0;
	}
	err = to_utf8(&c->text, d, e->nbytes, e->kind, !!e->ascii);
	if (err == -ENOMEM)
		return err;
	c->text_state = err ? JX_TEXT_BAD : JX_TEXT_OK;
	return 0;
}

/*
 * Whether the call is a jax.debug.print's: as its site's objects say
 * (jaxffi_names.c: the partial of _format_print_callback), on every jax.
 * Where they were not read (no namer, a layout that did not check out) by
 * its op: jax 0.8 on names a print's custom call debug_print.N; jax 0.6
 * and 0.7 name every callback's custom-call.N, whose taps then keep their
 * operands.
 */
static int is_print(const struct jcall *c, int kind)
{
	if (kind)
		return kind == HCB_PYSITE_PRINT;
	return !strncmp(c->h.op, "debug_print", 11);
}

/* Once per site: its print's text is not shown, and why. */
static void notice(struct hcb_jaxffi *x, const struct jcall *c, const struct hcb_consumer *con)
{
	static const char *const why[] = {
		[JX_TEXT_NONE] = "none was seen (a Python whose strings hcbtrace does not read, "
				 "or a print that did not end in sys.stdout.write(msg + \"\\n\"))",
		[JX_TEXT_LONG] = "it was longer than hcbtrace takes (64 KiB)",
		[JX_TEXT_BAD] = "the string did not read as CPython's str",
	};

	x->text_fallbacks++;
	for (unsigned int i = 0; i < x->ntext_noticed; i++)
		if (x->text_noticed[i] == con)
			return;
	if (x->ntext_noticed == JX_TEXT_NOTICES)
		return;
	x->text_noticed[x->ntext_noticed++] = con;
	if (x->b.ops->warn) {
		char msg[384];

		snprintf(msg, sizeof(msg), "device %u: %s: the text it printed is not shown, its "
			 "operands are: %s", c->h.device, c->h.op, why[c->text_state]);
		x->b.ops->warn(x->b.ctx, HCB_OVER_BOUND, c->h.device, con->id, msg);
	}
}

const char *hcb_jx_text_for(struct hcb_jaxffi *x, const struct jcall *c,
			    const struct hcb_consumer *con, int kind, uint32_t *len)
{
	*len = 0;
	/* a print's only: another callback's Python may end lines too (a
	 * traceback it logs), which are not what its tap holds; none asked
	 * for (--no-text) is no fallback to tell of */
	if (x->no_text || !is_print(c, kind))
		return NULL;
	if (c->text_state == JX_TEXT_OK && c->text.len <= UINT32_MAX) {
		*len = (uint32_t)c->text.len;
		return c->text.data ? c->text.data : "";
	}
	/* a print whose Python side was seen to its end, and no text */
	if (c->py_seen && !c->await_end)
		notice(x, c, con);
	return NULL;
}

int hcb_jx_deliver_unended(struct hcb_jaxffi *x, struct jcall *c, const char *why)
{
	x->unended++;
	hcb_bounds_note(&x->b, HCB_BOUND_EXPIRED, c->h.device, 0, "device %u: callback call "
			"%llu (%s) shown before its Python side ended: %s", c->h.device,
			(unsigned long long)c->h.seq, c->h.op, why);
	return hcb_jx_deliver(x, c);
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
