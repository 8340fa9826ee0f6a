/* SPDX-License-Identifier: MIT */
/*
 * thunks.c - call sites learned once (events.h): a thunk whose call was
 * named by its own reads and proven by the layout check is kept here,
 * keyed by process and thunk, and handed to the probe (learn, the
 * provider's: it writes jaxffi_sites), which then sends that thunk's
 * later calls without their names (F_KNOWN) as long as its name strings
 * read as they did.  Such a call gets its names back here, and goes
 * through the layout check as one read whole would: its device is still
 * proven on every call.  Kept only what the probe keeps: a thunk the
 * probe could not take is not kept, so that every F_KNOWN call finds
 * its names.  At most HCB_JAXFFI_SITES, never forgotten (a process's
 * sites are a few dozen); a thunk proven again (its executable freed,
 * another's at its address) is written over.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_impl.h"

_Static_assert((JX_THUNK_SLOTS & (JX_THUNK_SLOTS - 1)) == 0, "a power of two");
_Static_assert(JX_THUNK_SLOTS >= 2 * HCB_JAXFFI_SITES, "room to probe");

void hcb_jaxffi_site_cache(struct hcb_jaxffi *x, hcb_jaxffi_learn learn, void *ctx)
{
	x->learn = learn;
	x->learn_ctx = ctx;
}

/* The slot of (pid, thunk), or the free slot where it would go; NULL if
 * neither (the table full). */
static struct jx_thunk *slot(struct hcb_jaxffi *x, uint32_t pid, uint64_t thunk)
{
	uint64_t h = (thunk ^ ((uint64_t)pid << 40)) * UINT64_C(0x9e3779b97f4a7c15);

	for (unsigned int i = 0; i < JX_THUNK_SLOTS; i++) {
		struct jx_thunk *t = &x->thunks[((h >> 40) + i) & (JX_THUNK_SLOTS - 1)];

		if (!t->used || (t->pid == pid && t->thunk == thunk))
			return t;
	}
	return NULL;
}

int hcb_jx_thunk_names(struct hcb_jaxffi *x, struct hcb_ev_jcall *h)
{
	const struct jx_thunk *t = x->thunks ? slot(x, h->pid, h->thunk) : NULL;
	unsigned int place = x->check.place;

	if (!t || !t->used || place >= HCB_JAXFFI_TARGET_PLACES)
		return 0;
	memcpy(h->op, t->op, sizeof(h->op));
	memcpy(h->module, t->module, sizeof(h->module));
	memcpy(h->target[place], t->target, sizeof(h->target[place]));
	h->op_len = t->op_len;
	h->module_len = t->module_len;
	h->target_len[place] = (uint32_t)strnlen(t->target, sizeof(t->target));
	x->known_calls++;
	return 1;
}

/* What the probe compares a later call's thunk with: the heads it read,
 * and the first characters of the names (zero past them). */
static void site_of(const struct hcb_ev_jcall *h, struct hcb_jaxffi_site *v)
{
	memset(v, 0, sizeof(*v));
	memcpy(v->head, h->head, sizeof(v->head));
	memcpy(v->op, h->op, strnlen(h->op, sizeof(v->op)));
	memcpy(v->module, h->module, strnlen(h->module, sizeof(v->module)));
	v->index = h->index;
	v->has_index = !!(h->flags & HCB_JAXFFI_F_INDEX);
}

int hcb_jx_thunk_learn(struct hcb_jaxffi *x, const struct hcb_ev_jcall *h)
{
	struct hcb_jaxffi_site_key k = { .pid = h->pid, .thunk = h->thunk };
	struct hcb_jaxffi_site v;
	struct jx_thunk *t, was;

	if (!h->thunk || (h->flags & (HCB_JAXFFI_F_KNOWN | HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_GPU)))
		return 0;
	if (!x->thunks) {
		x->thunks = calloc(JX_THUNK_SLOTS, sizeof(*x->thunks));
		if (!x->thunks)
			return -ENOMEM;
	}
	t = slot(x, h->pid, h->thunk);
	if (!t || (!t->used && x->nthunks >= HCB_JAXFFI_SITES))
		return 0;   /* past the probe's room: read whole, as before */
	site_of(h, &v);
	/* the same again (a call under way as it was learned): nothing to write */
	if (t->used && !memcmp(&t->site, &v, sizeof(v)) && !strcmp(t->target, h->target[0]))
		return 0;
	was = *t;
	*t = (struct jx_thunk){ .thunk = h->thunk, .pid = h->pid, .used = 1,
				.op_len = h->op_len, .module_len = h->module_len, .site = v };
	memcpy(t->op, h->op, sizeof(t->op));
	memcpy(t->module, h->module, sizeof(t->module));
	memcpy(t->target, h->target[0], sizeof(t->target));
	/* not taken by the probe: no call will ask for it */
	if (x->learn && x->learn(x->learn_ctx, &k, &v)) {
		*t = was;
		return 0;
	}
	if (!was.used)
		x->nthunks++;
	return 0;
}

uint64_t hcb_jaxffi_known_calls(const struct hcb_jaxffi *x)
{
	return x->known_calls;
}

void hcb_jx_thunks_free(struct hcb_jaxffi *x)
{
	free(x->thunks);
	x->thunks = NULL;
	x->nthunks = 0;
}
