/* SPDX-License-Identifier: MIT */
/*
 * text.c - the text a jax.debug.print's tap shows: the str the Python
 * side's probe sent (pycall_events.h: its characters as CPython holds
 * them) made UTF-8 and kept with its call, or the line hcbtrace made
 * (textproof.c decides which), handed to the tap of a print, and of a
 * print only.  A print whose text could not be had keeps
 * its operands, and its site is told why, once.
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

int hcb_jx_text_keep(struct jcall *c, const struct hcb_ev_jpytext *e, const unsigned char *d,
		     size_t avail)
{
	int err;

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
 * (names.c: the partial of _format_print_callback), on every jax.
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

/* Once per site: its print's text is not shown, and why (other: a reason
 * textproof.c gave, else the call's text state's). */
static void notice(struct hcb_jaxffi *x, const struct jcall *c, const struct hcb_consumer *con,
		   const char *other)
{
	static const char *const why[] = {
		[JX_TEXT_NONE] = "none was seen (a Python whose strings hcbtrace does not read, "
				 "or a print that did not end in sys.stdout.write(msg + \"\\n\"))",
		[JX_TEXT_LONG] = "it was longer than hcbtrace takes (64 KiB)",
		[JX_TEXT_BAD] = "the string did not read as CPython's str",
		[JX_TEXT_UNPROVEN] = "its Python side was not seen whole (attached while it "
				     "ran, or a ring buffer full)",
	};

	x->text_fallbacks++;
	x->text_unproven += c->text_state == JX_TEXT_UNPROVEN;
	for (unsigned int i = 0; i < x->ntext_noticed; i++)
		if (x->text_noticed[i] == con)
			return;
	if (x->ntext_noticed == JX_TEXT_NOTICES)
		return;
	x->text_noticed[x->ntext_noticed++] = con;
	if (x->b.ops->warn) {
		char msg[384];

		snprintf(msg, sizeof(msg), "device %u: %s: the text it printed is not shown, its "
			 "operands are: %s", c->h.device_id, c->h.op,
			 other ? other : why[c->text_state]);
		x->b.ops->warn(x->b.ctx, HCB_OVER_BOUND, c->h.device, con->id, msg);
	}
}

const char *hcb_jx_text_for(struct hcb_jaxffi *x, const struct jcall *c,
			    const struct hcb_consumer *con, int kind, uint32_t *len)
{
	const char *text, *why;

	*len = 0;
	/* a print's only: another callback's Python may end lines too (a
	 * traceback it logs), which are not what its tap holds; none asked
	 * for (--no-text) is no fallback to tell of */
	if (x->no_text)
		return NULL;
	if (!is_print(c, kind)) {
		if (kind == HCB_PYSITE_CALLBACK)
			hcb_jx_text_callback(x, con, c->h.ts_ns);
		return NULL;
	}
	text = hcb_jx_text_decide(x, c, con, len, &why);
	if (text)
		return text;
	/* a print whose Python side was seen to its end, and no text; or
	 * whose text cannot be told its own */
	if (why || c->text_state == JX_TEXT_UNPROVEN || (c->py_seen && !c->await_end))
		notice(x, c, con, why);
	return NULL;
}
