/* SPDX-License-Identifier: MIT */
/*
 * names.c - what a jax call site is called (issue 29): by the user's
 * code where the namer (names.h; namer.h: pysite.h's walker) reads it
 * from the call's Python callable, else by XLA's op, as before.
 *
 *   jax.debug.print      its format string ("step {i} loss={l:.3f}"),
 *                        kwargs callback (the name), op, module (and
 *                        ordered: true)
 *   a callback           its function's qualname ("train.<locals>.log"),
 *                        kwargs callback (the name), file, line, op, module
 *   not read             the op ("debug_print.3"), kwargs callback (the
 *                        op), module; ops->notice says why, once for the
 *                        site
 * The kwarg callback is the name, as it always was: what a header line
 * ("callback: NAME device: ...") and readers show of the site.
 *
 * A consumer's name holds no control character and at most HCB_MAX_NAME
 * - 1 bytes: a format string's controls are written as \n, \t, \xHH, and
 * one longer than JX_NAME_CUT bytes is cut (at a character) and ends in
 * "...".  Two sites of one name (the same format string, function, cut)
 * are told apart by order of first sight: the second is "NAME #2", the
 * third "NAME #3".  That is stable while the program first reaches them in
 * the same order; it is what diff pairs them by (src/diff/streamkey.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_impl.h"
#include "names.h"
#include "pysite.h"

#define JX_NAME_CUT 200u   /* bytes of a name kept before " #N" and "..." */

struct jx_name {                  /* a name given, and how many sites have it */
	struct jx_name *next;
	unsigned int count;
	char name[];
};

void hcb_jaxffi_set_namer(struct hcb_jaxffi *x, hcb_jaxffi_namer name, void (*release)(void *),
			  void *ctx)
{
	x->namer = name;
	x->namer_release = release;
	x->namer_ctx = ctx;
}

/* s made a name: controls escaped, cut at a character past JX_NAME_CUT */
static void visible_cut(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8] = "";

		if (n >= JX_NAME_CUT && (*p & 0xc0) != 0x80) {
			snprintf(out + n, cap - n, "...");
			return;
		}
		if (*p == '\n' || *p == '\t')
			snprintf(esc, sizeof(esc), "\\%c", *p == '\n' ? 'n' : 't');
		else if (*p < ' ' || *p == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
		if (esc[0]) {
			snprintf(out + n, cap - n, "%s", esc);
			n += strlen(esc);
		} else {
			out[n++] = (char)*p;
		}
	}
	out[n] = '\0';
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

/* Make base unique among the names given: " #N" for the Nth site of it. */
static int unique(struct hcb_jaxffi *x, char *base, size_t cap)
{
	struct jx_name **b = &x->names[name_hash(base) & (JX_SITE_BUCKETS - 1)], *n;
	size_t len = strlen(base);

	for (n = *b; n; n = n->next)
		if (!strcmp(n->name, base))
			break;
	if (!n) {
		n = malloc(sizeof(*n) + len + 1);
		if (!n)
			return -ENOMEM;
		n->count = 0;
		memcpy(n->name, base, len + 1);
		n->next = *b;
		*b = n;
	}
	if (++n->count > 1)
		snprintf(base + len, cap - len, " #%u", n->count);
	return 0;
}

/* What site s is, hashed: what tells two sites apart by the user's code
 * (never 0). */
static uint64_t pysite_ident(const struct hcb_pysite *s)
{
	uint64_t h = name_hash(s->kind == HCB_PYSITE_PRINT ? s->fmt : s->qualname);

	h = (h ^ name_hash(s->file)) * UINT64_C(0x100000001b3);
	h = (h ^ ((uint64_t)s->line << 8 | (uint64_t)s->kind << 1 | !!s->ordered)) *
	    UINT64_C(0x100000001b3);
	return h ? h : 1;
}

/* The site of call c as its Python callable says, into n; -EPROTO (why)
 * where it cannot be read. */
static int py_name(struct hcb_jaxffi *x, const struct jcall *c, struct hcb_jx_name *n,
		   char *why, size_t cap)
{
	struct hcb_pysite *s = malloc(sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	if (c->py_site) {   /* asked at the call's entry */
		memcpy(s, c->py_site, sizeof(*s));
		err = c->py_err;
	} else {
		err = x->namer(x->namer_ctx, c->py_callable, s);
	}
	if (err) {
		snprintf(why, cap, "%s", err == -EPROTO ? "its Python objects are not the ones "
			 "jax makes (or not of a layout hcbtrace knows)" : err == -ESTALE ||
			 err == -ESRCH || err == -EFAULT ? "its Python callable was gone by the "
			 "time hcbtrace read it (the program moved on, or ended)" : strerror(-err));
		free(s);
		return err == -ENOMEM ? err : -EPROTO;
	}
	visible_cut(s->kind == HCB_PYSITE_PRINT ? s->fmt : s->qualname, n->name, sizeof(n->name));
	n->kind = s->kind;
	n->ident = pysite_ident(s);
	snprintf(n->line, sizeof(n->line), "%u", s->line);
	snprintf(n->file, sizeof(n->file), "%s", s->file);
	if (s->kind == HCB_PYSITE_PRINT) {
		const char *kw[] = { "callback", n->name, "op", c->h.op, "module", c->h.module,
				     s->ordered ? "ordered" : NULL, "true", NULL };

		memcpy(n->kwargs, kw, sizeof(kw));
	} else {
		const char *kw[] = { "callback", n->name, "file", n->file, "line", n->line,
				     "op", c->h.op, "module", c->h.module, NULL };

		memcpy(n->kwargs, kw, sizeof(kw));
	}
	free(s);
	return unique(x, n->name, sizeof(n->name));
}

int hcb_jx_site_name(struct hcb_jaxffi *x, const struct jcall *c, struct hcb_jx_name *n)
{
	const char *kw[] = { "callback", c->h.op, "module", c->h.module, NULL };
	char why[160];
	int err;

	memset(n, 0, sizeof(*n));
	if (c->py_callable && x->namer) {
		err = py_name(x, c, n, why, sizeof(why));
		if (err != -EPROTO)
			return err;
		if (x->b.ops->notice) {
			char msg[400];

			snprintf(msg, sizeof(msg), "call site %s (module %s) keeps XLA's name: %s",
				 c->h.op, c->h.module, why);
			x->b.ops->notice(x->b.ctx, msg);
		}
		memset(n, 0, sizeof(*n));
	}
	snprintf(n->name, sizeof(n->name), "%s", c->h.op);
	memcpy(n->kwargs, kw, sizeof(kw));
	return 0;
}

int hcb_jx_name_early(struct hcb_jaxffi *x, struct jcall *c)
{
	if (!x->namer || !c->py_callable || c->py_site)
		return 0;
	c->py_site = malloc(sizeof(*c->py_site));
	if (!c->py_site)
		return -ENOMEM;
	c->py_err = x->namer(x->namer_ctx, c->py_callable, c->py_site);
	return c->py_err == -ENOMEM ? -ENOMEM : 0;
}

int hcb_jx_callable_ident(struct hcb_jaxffi *x, struct jcall *c, uint64_t *ident)
{
	int err = hcb_jx_name_early(x, c);

	if (err)
		return err;
	if (!c->py_site || c->py_err)
		return c->py_err == -ENOMEM || c->py_err == -ESRCH ? c->py_err : -EPROTO;
	*ident = pysite_ident(c->py_site);
	return 0;
}

int hcb_jx_callable_ident_now(struct hcb_jaxffi *x, struct jcall *c, uint64_t *ident)
{
	free(c->py_site);
	c->py_site = NULL;
	c->py_err = 0;
	return hcb_jx_callable_ident(x, c, ident);
}

void hcb_jx_names_free(struct hcb_jaxffi *x)
{
	for (unsigned int i = 0; i < JX_SITE_BUCKETS; i++)
		while (x->names[i]) {
			struct jx_name *n = x->names[i];

			x->names[i] = n->next;
			free(n);
		}
	if (x->namer_release)
		x->namer_release(x->namer_ctx);
	x->namer = NULL;
	x->namer_release = NULL;
}
