/* SPDX-License-Identifier: MIT */
/*
 * textproof.c - a jax.debug.print's line without the text probe: the probe
 * on the target's str concatenation traps on every `a + b` of every thread
 * while attached (5 to 20 times the cost of a plain concatenation loop),
 * so it stays only until it is no longer needed.
 *
 * Each print site's line is made by hcbtrace from its fmt and options (read
 * with its callable, pysite.h) and the call's operands, by the formatter
 * the program hands in (formats/text/pyformat.h).  While the probe is on,
 * a site's first call with a probed text compares the two: equal, the site
 * is proven; not made, or not equal (counted, told once), the site needs
 * the probe, whose text it keeps.  Once every print site seen is proven
 * and one of them is called again (the program's loop has shown its
 * sites), the probe is taken off (probe_off: its link alone) and proven
 * sites show the made line.  A site first seen after that is shown with its made line
 * where one is made, else with its operands and one notice.  A program
 * whose callbacks come round before any print (a loop with none) has the
 * probe taken off too: every concatenation would pay for a print that may
 * never come (hcb_jx_text_callback).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_impl.h"
#include "pysite.h"

/* A print's operands formatted at most: more makes no line. */
#define JX_FMT_LEAVES 64u

static hcb_jaxffi_formatter formatter;

void hcb_jaxffi_use_formatter(hcb_jaxffi_formatter f)
{
	formatter = f;
}

void hcb_jaxffi_text_mode(struct hcb_jaxffi *x, enum hcb_jaxffi_text_mode mode,
			  void (*probe_off)(void *ctx), void *ctx)
{
	x->text_mode = mode;
	x->probe_off = probe_off;
	x->probe_ctx = ctx;
}

/* Site con's entry (made on its first call, its fmt from the call's
 * pysite), or NULL: more sites than are kept, or no memory. */
static struct jx_proof *proof_of(struct hcb_jaxffi *x, const struct jcall *c,
				 const struct hcb_consumer *con)
{
	const struct hcb_pysite *s = c->py_site;
	struct jx_proof *p;

	for (unsigned int i = 0; i < x->nproofs; i++)
		if (x->proofs[i].con == con)
			return &x->proofs[i];
	if (!x->proofs)
		x->proofs = calloc(JX_TEXT_NOTICES, sizeof(*x->proofs));
	if (!x->proofs || x->nproofs == JX_TEXT_NOTICES)
		return NULL;
	p = &x->proofs[x->nproofs++];
	p->con = con;
	/* seen after the probe went off: nothing to prove it against */
	p->state = x->probe_taken_off ? JX_PROOF_LATE : JX_PROOF_NONE;
	if (s && !c->py_err && s->kind == HCB_PYSITE_PRINT && s->opts_ok) {
		p->fmt = strdup(s->fmt);
		p->opts = s->opts;
		p->fmt_ok = !!p->fmt;
	}
	return p;
}

/* The line of call c made into x->line: 0, or why not (-ENOTSUP). */
static int make(struct hcb_jaxffi *x, const struct jcall *c, const struct hcb_consumer *con,
		const struct jx_proof *p)
{
	struct hcb_array leaves[JX_FMT_LEAVES];
	const char *d = c->payload.data ? c->payload.data : "";
	uint64_t off = 0;

	if (!formatter || !p || !p->fmt_ok || x->text_mode == HCB_JAXFFI_TEXT_PROBE ||
	    con->nleaves > JX_FMT_LEAVES)
		return -ENOTSUP;
	for (unsigned int i = 0; i < con->nleaves; i++) {
		const struct hcb_leaf_shape *l = &con->leaves[i];

		if (l->nbytes > c->payload.len - off)
			return -ENOTSUP;
		leaves[i] = (struct hcb_array){ l->dtype, l->ndim, l->dims, d + off };
		off += l->nbytes;
	}
	hcb_buf_reset(&x->line);
	return formatter(&x->line, p->fmt, strlen(p->fmt), &p->opts, leaves, con->nleaves);
}

/* The site's first probed text against its made line (made: make's). */
static void judge(struct hcb_jaxffi *x, const struct jcall *c, struct jx_proof *p, int made)
{
	char msg[320];

	if (!p || p->state != JX_PROOF_NONE)
		return;
	if (!made && x->line.len == c->text.len &&
	    !memcmp(x->line.data ? x->line.data : "", c->text.data ? c->text.data : "",
		    c->text.len)) {
		p->state = JX_PROOF_EQUAL;
		return;
	}
	p->state = JX_PROOF_PROBE;
	if (made)
		return;
	x->text_mismatch++;
	if (x->b.ops->warn) {
		snprintf(msg, sizeof(msg), "%s: the line hcbtrace made differs from the one the "
			 "program printed: its text keeps coming from the probe on str "
			 "concatenation", p->con->name);
		x->b.ops->warn(x->b.ctx, HCB_OVER_BOUND, c->h.device, p->con->id, msg);
	}
}

/* The probe goes off (AUTO, while on), said once in what. */
static void take_off(struct hcb_jaxffi *x, const char *what)
{
	x->probe_off(x->probe_ctx);
	x->probe_off = NULL;
	x->probe_taken_off = 1;
	/* and the return with it: a call goes at its entry from now on */
	if (x->ends_with_text)
		x->no_ends = 1;
	if (x->b.ops->info)
		x->b.ops->info(x->b.ctx, what);
}

/*
 * Every print site seen is proven, and the program came back to one of
 * them (repeat: this call's site was proven before it), so the sites of
 * its loop have all been seen: the probe goes off, said once.
 */
static void maybe_off(struct hcb_jaxffi *x, int repeat)
{
	char msg[320];

	if (x->text_mode != HCB_JAXFFI_TEXT_AUTO || !x->probe_off || !x->nproofs || !repeat)
		return;
	for (unsigned int i = 0; i < x->nproofs; i++)
		if (x->proofs[i].state != JX_PROOF_EQUAL)
			return;
	snprintf(msg, sizeof(msg), "jax.debug.print: the line hcbtrace makes is the program's own "
		 "at each of its %u print sites: the text probe on str concatenation is off "
		 "(--text-probe keeps it on)", x->nproofs);
	take_off(x, msg);
}

void hcb_jx_text_callback(struct hcb_jaxffi *x, const struct hcb_consumer *con, uint64_t ts_ns)
{
	unsigned int i;

	if (x->text_mode != HCB_JAXFFI_TEXT_AUTO || !x->probe_off || x->nproofs)
		return;
	if (!x->ncallbacks)
		x->callbacks_from_ns = ts_ns;
	for (i = 0; i < x->ncallbacks && x->callbacks[i] != con; i++)
		;
	if (i == x->ncallbacks && i < JX_LOOP_CALLBACKS) {
		x->callbacks[x->ncallbacks++] = con;
		return;
	}
	/* one seen again (or more than are kept), for a while, and no print
	 * yet: the loop has none (threads of a pmap, or a tracer attached
	 * mid-step, may show a callback twice before their prints) */
	if (ts_ns < x->callbacks_from_ns + JX_NO_PRINT_NS)
		return;
	take_off(x, "jax.debug.print: the program's callbacks came round with no print among "
		 "them: the text probe on str concatenation is off, and a print site first "
		 "seen later shows the line hcbtrace makes (--text-probe keeps it on)");
}

const char *hcb_jx_text_decide(struct hcb_jaxffi *x, const struct jcall *c,
			       const struct hcb_consumer *con, uint32_t *len, const char **why)
{
	struct jx_proof *p = proof_of(x, c, con);
	int probed = x->text_mode != HCB_JAXFFI_TEXT_FORMAT && c->text_state == JX_TEXT_OK &&
		     c->text.len <= UINT32_MAX;
	int repeat = p && p->state == JX_PROOF_EQUAL;
	int made = -ENOTSUP;

	/* made only where it is compared or shown */
	if (!probed || (p && p->state == JX_PROOF_NONE))
		made = make(x, c, con, p);
	*why = NULL;
	if (probed) {
		if (x->text_mode == HCB_JAXFFI_TEXT_AUTO) {
			judge(x, c, p, made);
			maybe_off(x, repeat);
		}
		*len = (uint32_t)c->text.len;
		return c->text.data ? c->text.data : "";
	}
	if (!made && p && x->line.len <= UINT32_MAX &&
	    (x->text_mode == HCB_JAXFFI_TEXT_FORMAT || p->state == JX_PROOF_EQUAL ||
	     p->state == JX_PROOF_LATE)) {
		x->text_made++;
		*len = (uint32_t)x->line.len;
		return x->line.data ? x->line.data : "";
	}
	if (x->text_mode == HCB_JAXFFI_TEXT_FORMAT)
		*why = "hcbtrace cannot make its line (HCBTRACE_TEST_TEXT=format)";
	else if (p && p->state == JX_PROOF_LATE)
		*why = "its site was first seen after the text probe on str concatenation was "
		       "taken off, and hcbtrace cannot make its line (--text-probe keeps the "
		       "probe on)";
	return NULL;
}

void hcb_jx_proofs_free(struct hcb_jaxffi *x)
{
	for (unsigned int i = 0; i < x->nproofs; i++)
		free(x->proofs[i].fmt);
	free(x->proofs);
	x->proofs = NULL;
	x->nproofs = 0;
	hcb_buf_free(&x->line);
}
