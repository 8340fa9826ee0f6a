/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/tree.h"
#include "arrayprint.h"
#include "idprint.h"
#include "pretty.h"

int hcb_idprint_device(struct hcb_buf *out, const char *platform, uint32_t device)
{
	const char *pct;

	if (!platform || !*platform)
		platform = "cpu";
	/* a pattern with one %u names devices as the program's runtime does
	 * (JAX's CPU devices print as TFRT_CPU_0); anything else is a name */
	pct = strchr(platform, '%');
	if (!pct || pct[1] != 'u' || strchr(pct + 2, '%'))
		return hcb_buf_put_visible(out, platform, strlen(platform)) ?:
		       hcb_buf_printf(out, ":%u", device);
	/* the platform is the target's word: shown, never acted on */
	return hcb_buf_put_visible(out, platform, (size_t)(pct - platform)) ?:
	       hcb_buf_printf(out, "%u", device) ?: hcb_buf_put_visible(out, pct + 2, strlen(pct + 2));
}

struct kv {
	const char *key;
	const char *value;
};

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* "k1: v1 k2: v2" sorted by key, as id_print joined sorted(kwargs.items()). */
static int kwargs_line(struct hcb_buf *out, const struct hcb_consumer *c, const char *device)
{
	struct kv *kv = calloc(c->nkwargs + 1, sizeof(*kv));
	unsigned int n = 0;
	int err = 0;

	if (!kv)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->nkwargs; i++)
		if (strcmp(c->kwargs[i].key, "device") != 0)   /* the tap's device wins */
			kv[n++] = (struct kv){ c->kwargs[i].key, c->kwargs[i].value };
	kv[n++] = (struct kv){ "device", device };
	qsort(kv, n, sizeof(*kv), kv_cmp);
	/* what the target named is shown, never acted on by a terminal */
	for (unsigned int i = 0; i < n && !err; i++) {
		err = hcb_buf_puts(out, i ? " " : "");
		if (!err)
			err = hcb_buf_put_visible(out, kv[i].key, strlen(kv[i].key));
		if (!err)
			err = hcb_buf_puts(out, ": ");
		if (!err)
			err = hcb_buf_put_visible(out, kv[i].value, strlen(kv[i].value));
	}
	if (!err)
		err = hcb_buf_putc(out, '\n');
	free(kv);
	return err;
}

struct build {
	struct hcb_doc_arena *arena;
	const struct hcb_consumer *c;
	const unsigned char *payload;
	const uint64_t *offsets;
	const struct hcb_print_opts *o;
	struct hcb_buf text;
	int err;
};

static int child_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct hcb_tree *const *)a)->key, (*(const struct hcb_tree *const *)b)->key);
}

static struct hcb_doc *build_doc(struct build *b, const struct hcb_tree *t)
{
	static const char *const opens[] = { [HCB_TREE_TUPLE] = "( ", [HCB_TREE_LIST] = "[ ", [HCB_TREE_DICT] = "{ " };
	static const char *const closes[] = { [HCB_TREE_TUPLE] = " )", [HCB_TREE_LIST] = " ]", [HCB_TREE_DICT] = " }" };
	struct hcb_doc **items, *parts[3], *doc;
	const struct hcb_tree **kids;

	if (t->kind == HCB_TREE_LEAF) {
		const struct hcb_leaf_shape *l = &b->c->leaves[t->leaf];
		struct hcb_array a = { l->dtype, l->ndim, l->dims, b->payload + b->offsets[t->leaf] };

		hcb_buf_reset(&b->text);
		b->err = hcb_array2string(&b->text, &a, b->o);
		if (b->err)
			return NULL;
		return hcb_doc_text(b->arena, hcb_buf_str(&b->text), b->text.len);
	}
	/* items separated by breaks: 2n-1 docs */
	items = calloc(t->nchildren ? 2 * t->nchildren : 1, sizeof(*items));
	kids = calloc(t->nchildren ? t->nchildren : 1, sizeof(*kids));
	if (!items || !kids) {
		free(items);
		free(kids);
		b->err = -ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < t->nchildren; i++)
		kids[i] = &t->children[i];
	if (t->kind == HCB_TREE_DICT)
		qsort(kids, t->nchildren, sizeof(*kids), child_cmp);
	for (unsigned int i = 0; i < t->nchildren; i++) {
		struct hcb_doc *v = build_doc(b, kids[i]);

		if (kids[i]->key) {
			struct hcb_doc *kv[2];

			hcb_buf_reset(&b->text);
			if (hcb_buf_put_visible(&b->text, kids[i]->key, strlen(kids[i]->key)) ||
			    hcb_buf_putc(&b->text, '=')) {
				b->err = -ENOMEM;
				v = NULL;
			} else {
				kv[0] = hcb_doc_text(b->arena, hcb_buf_str(&b->text), b->text.len);
				kv[1] = v;
				v = hcb_doc_concat(b->arena, kv, 2);
			}
		}
		if (i)
			items[2 * i - 1] = hcb_doc_brk(b->arena);
		items[2 * i] = v;
	}
	parts[0] = hcb_doc_text(b->arena, opens[t->kind], 2);
	parts[1] = hcb_doc_nest(b->arena, 2,
				hcb_doc_concat(b->arena, items, t->nchildren ? 2 * t->nchildren - 1 : 0));
	parts[2] = hcb_doc_text(b->arena, closes[t->kind], 2);
	doc = hcb_doc_group(b->arena, hcb_doc_concat(b->arena, parts, 3));
	free(items);
	free(kids);
	if (!doc && !b->err)
		b->err = -ENOMEM;
	return doc;
}

int hcb_idprint_text(struct hcb_buf *out, const struct hcb_consumer *c, const char *platform,
		     uint32_t device, const char *text, uint32_t len)
{
	struct hcb_buf dev = HCB_BUF_INIT;
	int err = hcb_idprint_device(&dev, platform, device);

	if (!err)
		err = kwargs_line(out, c, hcb_buf_str(&dev));
	if (!err)
		err = hcb_buf_add(out, text, len);
	if (!err)
		err = hcb_buf_putc(out, '\n');
	hcb_buf_free(&dev);
	return err;
}

int hcb_idprint(struct hcb_buf *out, const struct hcb_consumer *c, const char *platform,
		uint32_t device, const unsigned char *payload, const struct hcb_print_opts *o)
{
	struct build b = { .c = c, .payload = payload, .o = o };
	struct hcb_buf dev = HCB_BUF_INIT;
	struct hcb_tree *tree = NULL;
	uint64_t *offsets = NULL;
	struct hcb_doc *doc;
	int err;

	err = hcb_idprint_device(&dev, platform, device);
	if (!err)
		err = kwargs_line(out, c, hcb_buf_str(&dev));
	if (err)
		goto out;
	err = hcb_tree_parse(c->tree, strlen(c->tree), &tree, NULL);
	if (err)
		goto out;
	err = -ENOMEM;
	offsets = calloc(c->nleaves ? c->nleaves : 1, sizeof(*offsets));
	b.arena = hcb_doc_arena_new();
	if (!offsets || !b.arena)
		goto out;
	for (unsigned int i = 1; i < c->nleaves; i++)
		offsets[i] = offsets[i - 1] + c->leaves[i - 1].nbytes;
	b.offsets = offsets;
	doc = build_doc(&b, tree);
	if (!doc) {
		err = b.err ? b.err : -ENOMEM;
		goto out;
	}
	err = hcb_doc_render(out, doc, 80);
	if (!err)
		err = hcb_buf_putc(out, '\n');
out:
	hcb_doc_arena_free(b.arena);
	hcb_buf_free(&b.text);
	hcb_buf_free(&dev);
	hcb_tree_free(tree);
	free(offsets);
	return err;
}
