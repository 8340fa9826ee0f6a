/* SPDX-License-Identifier: MIT */
/*
 * sites.c - the jax-callback decoder's call sites: each (op, module,
 * target, operand shapes) met becomes a consumer of its own, found again
 * in a hash of what it says; at most JX_MAX_SITES of them are kept (the
 * target names them: a call of one more is not shown, counted), each
 * named as names.c says.  Legacy calls without a thunk are named after
 * their descriptor's number, found in a hash too.  A call of the FFI
 * handler without a thunk is named by its Python callable: as the site
 * the calls of that callable with a thunk had (a cache of callables),
 * where that is proven (hcb_jx_site_by_callable).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "decode_impl.h"

_Static_assert((JX_SITE_BUCKETS & (JX_SITE_BUCKETS - 1)) == 0, "a power of two");
_Static_assert((JX_LEGACY_SLOTS & (JX_LEGACY_SLOTS - 1)) == 0, "a power of two");
_Static_assert((JX_CALLABLES & (JX_CALLABLES - 1)) == 0, "a power of two");

/* FNV-1a, over n bytes, on from h */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return h;
}

static uint64_t site_hash(const struct jcall *c)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	h = fnv(h, c->h.op, strnlen(c->h.op, sizeof(c->h.op)) + 1);
	h = fnv(h, c->h.module, strnlen(c->h.module, sizeof(c->h.module)) + 1);
	h = fnv(h, c->h.target[0], strnlen(c->h.target[0], sizeof(c->h.target[0])) + 1);
	h = fnv(h, &c->h.nargs, sizeof(c->h.nargs));
	return fnv(h, c->shapes, c->h.nargs * sizeof(*c->shapes));
}

static bool same_site(const struct site *s, const struct jcall *c)
{
	return !strcmp(s->op, c->h.op) && !strcmp(s->module, c->h.module) &&
	       !strcmp(s->target, c->h.target[0]) && s->nleaves == c->h.nargs &&
	       (!s->nleaves || !memcmp(s->shapes, c->shapes, s->nleaves * sizeof(*s->shapes)));
}

/* The consumer for spec, under an id of its own: the hash of what it says,
 * or the next free one if another site's consumer has that. */
static const struct hcb_consumer *register_spec(struct hcb_jaxffi *x,
						const struct hcb_consumer_spec *spec)
{
	struct hcb_consumer *c = NULL;
	void *blob = NULL;
	uint32_t id;
	size_t len;
	int err;

	err = hcb_reg_build(spec, 0, &blob, &len);
	if (err)
		return NULL;
	for (id = hcb_reg_hash(blob, len); !id || hcb_registry_get(x->reg, id); id++)
		;
	free(blob);
	err = hcb_reg_build(spec, id, &blob, &len);
	if (!err)
		err = hcb_consumer_from_reg(blob, len, &c);
	free(blob);
	if (!err && hcb_registry_add(x->reg, c))
		c = NULL;
	return err ? NULL : c;
}

/* A new site for call c, its consumer registered; NULL for no memory. */
static struct site *site_new(struct hcb_jaxffi *x, const struct jcall *c)
{
	struct hcb_jx_name *n = malloc(sizeof(*n));
	struct hcb_consumer_spec spec = {
		.nleaves = c->h.nargs, .tree = c->h.nargs ? NULL : "( )",
	};
	struct hcb_leaf_spec *leaves = calloc(c->h.nargs + 1, sizeof(*leaves));
	struct site *s = calloc(1, sizeof(*s));

	if (s)
		s->shapes = calloc(c->h.nargs + 1, sizeof(*s->shapes));
	if (n && leaves && s && s->shapes && !hcb_jx_site_name(x, c, n)) {
		spec.name = n->name;
		spec.kwargs = n->kwargs;
		hcb_xshape_specs(c->shapes, c->h.nargs, leaves);
		spec.leaves = leaves;
		s->c = register_spec(x, &spec);
		s->kind = n->kind;
		s->ident = n->ident;
	}
	free(leaves);
	free(n);
	if (!s || !s->c) {
		if (s)
			free(s->shapes);
		free(s);
		return NULL;
	}
	memcpy(s->op, c->h.op, sizeof(s->op));
	memcpy(s->module, c->h.module, sizeof(s->module));
	memcpy(s->target, c->h.target[0], sizeof(s->target));
	s->nleaves = c->h.nargs;
	if (c->h.nargs)
		memcpy(s->shapes, c->shapes, c->h.nargs * sizeof(*s->shapes));
	return s;
}

int hcb_jx_site_known(const struct hcb_jaxffi *x, const struct jcall *c)
{
	uint64_t h;

	if (c->nseen != c->h.nargs || c->arg_left)
		return 0;
	h = site_hash(c);
	for (const struct site *s = x->sites[h & (JX_SITE_BUCKETS - 1)]; s; s = s->next)
		if (s->hash == h && same_site(s, c))
			return 1;
	return 0;
}

/* The cache slot of callable (an address: its low bits are alignment). */
static struct jx_callable *callable_slot(struct hcb_jaxffi *x, uint64_t callable)
{
	uint64_t h = callable * UINT64_C(0x9e3779b97f4a7c15);

	return &x->callables[(h >> 40) & (JX_CALLABLES - 1)];
}

/* A thunk named call c's site s: what its callable's calls without one
 * are named, the times its calls with one had s kept. */
static void learn(struct hcb_jaxffi *x, const struct jcall *c, const struct site *s)
{
	struct jx_callable *e = callable_slot(x, c->py_callable);
	uint64_t index = c->h.flags & HCB_JAXFFI_F_INDEX ? c->h.index : ~0ull;

	if (e->callable != c->py_callable || e->s != s || e->index != index) {
		*e = (struct jx_callable){ c->py_callable, s, index, c->h.ts_ns, c->h.ts_ns };
		return;
	}
	if (c->h.ts_ns < e->first_ns)
		e->first_ns = c->h.ts_ns;
	if (c->h.ts_ns > e->last_ns)
		e->last_ns = c->h.ts_ns;
}

/* Whether the callable of call c (its cache entry e) was still e's site's
 * when c was made: a call of it with a thunk came before and after c; or
 * its objects say the site's words now; or, the process gone (its last
 * calls read after it ended), c has the site's index in its executable's
 * list.  1, 0, or -ENOMEM. */
static int proven_by(const struct jx_callable *e, const struct jcall *c, int err,
		     uint64_t ident)
{
	if (err == -ENOMEM)
		return err;
	if (err == -ESRCH)
		return e->index != ~0ull && (c->h.flags & HCB_JAXFFI_F_INDEX) &&
		       c->h.index == e->index;
	return !err && e->s->ident && ident == e->s->ident;
}

static int callable_proven(struct hcb_jaxffi *x, struct jcall *c, const struct jx_callable *e)
{
	uint64_t ident = 0;
	int err, n;

	if (c->h.ts_ns >= e->first_ns && c->h.ts_ns <= e->last_ns)
		return 1;
	err = hcb_jx_callable_ident(x, c, &ident);
	n = proven_by(e, c, err, ident);
	/* Its last chance, nothing more to come (the program's end): a call
	 * read as the program finalized found its objects freed; asked again,
	 * the process is gone, and its index says. */
	if (!n && c->final && err != -ESRCH) {
		err = hcb_jx_callable_ident_now(x, c, &ident);
		n = proven_by(e, c, err, ident);
	}
	return n;
}

int hcb_jx_consumer_for(struct hcb_jaxffi *x, const struct jcall *c,
			const struct hcb_consumer **out, int *kind)
{
	uint64_t h = site_hash(c);
	struct site **b = &x->sites[h & (JX_SITE_BUCKETS - 1)], *s;

	for (s = *b; s; s = s->next)
		if (s->hash == h && same_site(s, c))
			break;
	if (!s && x->nsites >= JX_MAX_SITES)
		return -ENOSPC;
	if (!s) {
		s = site_new(x, c);
		if (!s)
			return -ENOMEM;
		s->hash = h;
		s->next = *b;
		*b = s;
		x->nsites++;
		/* the thunk probe stays while sites are new (thunkoff.c) */
		if (c->h.ts_ns > x->site_new_ns)
			x->site_new_ns = c->h.ts_ns;
		if (!s->ident)
			x->sites_unread++;
	}
	if (c->py_callable && !c->unsited)
		learn(x, c, s);
	*out = s->c;
	*kind = s->kind;
	return 0;
}

int hcb_jx_site_by_callable(struct hcb_jaxffi *x, struct jcall *c)
{
	const struct jx_callable *e = callable_slot(x, c->py_callable);
	const struct site *s = e->s;
	int n;

	if (!c->py_callable || e->callable != c->py_callable || s->nleaves != c->h.nargs ||
	    (s->nleaves && memcmp(s->shapes, c->shapes, s->nleaves * sizeof(*s->shapes))))
		return 0;
	/* the address may be another callable's since (the first freed) */
	n = callable_proven(x, c, e);
	if (n <= 0)
		return n;
	memcpy(c->h.op, s->op, sizeof(c->h.op));
	memcpy(c->h.module, s->module, sizeof(c->h.module));
	memcpy(c->h.target[0], s->target, sizeof(c->h.target[0]));
	c->unsited = 0;
	return 1;
}

/* The number + 1 of descriptor desc, numbered on first sight while there
 * are numbers; 0: past them. */
static unsigned int legacy_number(struct hcb_jaxffi *x, uint64_t desc)
{
	uint64_t h = desc * UINT64_C(0x9e3779b97f4a7c15);
	unsigned int i = (unsigned int)(h >> 40) & (JX_LEGACY_SLOTS - 1);

	/* never full: at most half the slots are ever taken */
	for (; x->legacy_num[i]; i = (i + 1) & (JX_LEGACY_SLOTS - 1))
		if (x->legacy_desc[i] == desc)
			return x->legacy_num[i];
	if (x->nlegacy >= JX_MAX_LEGACY_SITES)
		return 0;
	x->legacy_desc[i] = desc;
	x->legacy_num[i] = ++x->nlegacy;
	return x->legacy_num[i];
}

void hcb_jx_name_legacy(struct hcb_jaxffi *x, struct hcb_ev_jcall *h)
{
	unsigned int n = legacy_number(x, h->desc);

	if (n)
		snprintf(h->op, sizeof(h->op), "callback.%u", n);
	else
		snprintf(h->op, sizeof(h->op), "callback");
	snprintf(h->module, sizeof(h->module), "unknown");
	snprintf(h->target[0], sizeof(h->target[0]), "xla_python_cpu_callback");
}

void hcb_jx_name_unknown(struct hcb_ev_jcall *h, const char *target)
{
	if (h->flags & HCB_JAXFFI_F_INDEX)
		snprintf(h->op, sizeof(h->op), "callback-%llu", (unsigned long long)h->index);
	else
		snprintf(h->op, sizeof(h->op), "callback");
	snprintf(h->module, sizeof(h->module), "unknown");
	snprintf(h->target[0], sizeof(h->target[0]), "%s", target);
}

void hcb_jx_sites_free(struct hcb_jaxffi *x)
{
	for (unsigned int i = 0; i < JX_SITE_BUCKETS; i++)
		while (x->sites[i]) {
			struct site *s = x->sites[i];

			x->sites[i] = s->next;
			free(s->shapes);
			free(s);
		}
}
