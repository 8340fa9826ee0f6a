/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"
#include "dtype.h"
#include "grow.h"
#include "tree.h"

static int name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= HCB_MAX_NAME)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
			return 0;
	return 1;
}

static int leaf_ok(unsigned int dtype, unsigned int ndim, const uint64_t *dims,
		   uint64_t *nbytes)
{
	uint64_t n;

	if (!hcb_dtype_name(dtype) || ndim > HCB_MAX_DIMS)
		return 0;
	if (hcb_shape_elems(ndim, dims, &n))
		return 0;
	if (n > (UINT64_C(1) << 62) / hcb_dtype_size(dtype))
		return 0;
	*nbytes = n * hcb_dtype_size(dtype);
	return 1;
}

/* *len: the bytes kwargs take in a blob ("key\0value\0" each).  0 or -EINVAL. */
static int kwargs_len(const char *const *kwargs, size_t *len)
{
	*len = 0;
	for (const char *const *kw = kwargs; kw && kw[0]; kw += 2) {
		size_t kl = strlen(kw[0]);

		if (!kw[1] || !name_ok(kw[0], kl))
			return -EINVAL;
		*len += kl + 1 + strlen(kw[1]) + 1;
	}
	return 0;
}

/* The tree of a spec without one: one leaf a bare array, several a tuple
 * of them.  malloc'ed, or NULL. */
static char *default_tree(unsigned int nleaves)
{
	size_t n = nleaves == 1 ? 1 : 4 + 2 * (size_t)nleaves;
	char *tree = malloc(n + 1), *p;

	if (!tree)
		return NULL;
	if (nleaves == 1) {
		strcpy(tree, "*");
		return tree;
	}
	p = stpcpy(tree, "(");
	for (unsigned int i = 0; i < nleaves; i++)
		p = stpcpy(p, " *");
	strcpy(p, " )");
	return tree;
}

/* Does tree hold the spec's leaves, and are they valid, their bytes summing
 * without overflow? */
static int shapes_ok(const struct hcb_consumer_spec *spec, const char *tree, size_t treelen)
{
	unsigned int nleaves;
	uint64_t sum = 0;

	if (hcb_tree_validate(tree, treelen, &nleaves) || nleaves != spec->nleaves)
		return 0;
	for (unsigned int i = 0; i < spec->nleaves; i++) {
		const struct hcb_leaf_spec *l = &spec->leaves[i];
		uint64_t nb;

		if (!leaf_ok(l->dtype, l->ndim, l->dims, &nb) || sum + nb < sum)
			return 0;
		sum += nb;
	}
	return 1;
}

/* Lay out the blob whose header is reg at p (reg.total_len zeroed bytes). */
static void write_blob(char *p, const struct hcb_wire_reg *reg,
		       const struct hcb_consumer_spec *spec, const char *tree)
{
	memcpy(p, reg, sizeof(*reg));
	p += sizeof(*reg);
	for (unsigned int i = 0; i < spec->nleaves; i++) {
		struct hcb_wire_leaf leaf = { .dtype = spec->leaves[i].dtype, .ndim = spec->leaves[i].ndim };

		for (unsigned int d = 0; d < leaf.ndim; d++)
			leaf.dims[d] = spec->leaves[i].dims[d];
		memcpy(p, &leaf, sizeof(leaf));
		p += sizeof(leaf);
	}
	p = mempcpy(p, spec->name, reg->name_len);
	for (const char *const *kw = spec->kwargs; kw && kw[0]; kw += 2) {
		p = stpcpy(p, kw[0]) + 1;
		p = stpcpy(p, kw[1]) + 1;
	}
	memcpy(p, tree, reg->tree_len);
}

int hcb_reg_build(const struct hcb_consumer_spec *spec, uint32_t id,
		  void **blob, size_t *len)
{
	struct hcb_wire_reg reg = { .magic = HCB_REG_MAGIC, .version = HCB_REG_VERSION };
	size_t kwlen, treelen, namelen, total;
	char *dflt = NULL, *p;
	const char *tree = spec->tree;
	int err = -EINVAL;

	if (!spec->name || spec->nleaves > HCB_MAX_LEAVES)
		return -EINVAL;
	namelen = strlen(spec->name);
	if (!name_ok(spec->name, namelen) || kwargs_len(spec->kwargs, &kwlen))
		return -EINVAL;
	if (!tree) {
		tree = dflt = default_tree(spec->nleaves);
		if (!tree)
			return -ENOMEM;
	}
	treelen = strlen(tree);
	if (!shapes_ok(spec, tree, treelen))
		goto out;
	total = sizeof(reg) + spec->nleaves * sizeof(struct hcb_wire_leaf) + namelen + kwlen + treelen;
	if (total > HCB_MAX_REG_BYTES)
		goto out;
	err = -ENOMEM;
	p = calloc(1, total);
	if (!p)
		goto out;
	reg.total_len = (uint32_t)total;
	reg.consumer_id = id;
	reg.nleaves = spec->nleaves;
	reg.name_len = (uint32_t)namelen;
	reg.kwargs_len = (uint32_t)kwlen;
	reg.tree_len = (uint32_t)treelen;
	write_blob(p, &reg, spec, tree);
	*blob = p;
	*len = total;
	err = 0;
out:
	free(dflt);
	return err;
}

int hcb_consumer_to_reg(const struct hcb_consumer *c, void **blob, size_t *len)
{
	struct hcb_leaf_spec *leaves = calloc(c->nleaves + 1, sizeof(*leaves));
	const char **kwargs = calloc(2 * c->nkwargs + 1, sizeof(*kwargs));
	struct hcb_consumer_spec spec = {
		.name = c->name, .kwargs = kwargs, .tree = c->tree, .nleaves = c->nleaves,
		.leaves = leaves,
	};
	int err = -ENOMEM;

	if (leaves && kwargs) {
		for (unsigned int i = 0; i < c->nleaves; i++) {
			leaves[i].dtype = c->leaves[i].dtype;
			leaves[i].ndim = c->leaves[i].ndim;
			memcpy(leaves[i].dims, c->leaves[i].dims, sizeof(leaves[i].dims));
		}
		for (unsigned int i = 0; i < c->nkwargs; i++) {
			kwargs[2 * i] = c->kwargs[i].key;
			kwargs[2 * i + 1] = c->kwargs[i].value;
		}
		err = hcb_reg_build(&spec, c->id, blob, len);
	}
	free(leaves);
	free(kwargs);
	return err;
}

uint32_t hcb_reg_hash(const void *blob, size_t len)
{
	const unsigned char *p = blob;
	uint32_t h = 2166136261u;   /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		/* the id field itself must not change the hash */
		if (i >= offsetof(struct hcb_wire_reg, consumer_id) &&
		    i < offsetof(struct hcb_wire_reg, consumer_id) + 4)
			continue;
		h = (h ^ p[i]) * 16777619u;
	}
	return h ? h : 1;
}

void hcb_consumer_free(struct hcb_consumer *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < c->nkwargs; i++) {
		free(c->kwargs[i].key);
		free(c->kwargs[i].value);
	}
	free(c->kwargs);
	free(c->leaves);
	free(c->name);
	free(c->tree);
	free(c);
}

int hcb_consumer_dup(const struct hcb_consumer *c, struct hcb_consumer **out)
{
	struct hcb_consumer *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->id = c->id;
	n->total_bytes = c->total_bytes;
	n->name = strdup(c->name ? c->name : "");
	n->tree = strdup(c->tree ? c->tree : "");
	n->leaves = calloc(c->nleaves ? c->nleaves : 1, sizeof(*n->leaves));
	n->kwargs = calloc(c->nkwargs ? c->nkwargs : 1, sizeof(*n->kwargs));
	if (!n->name || !n->tree || !n->leaves || !n->kwargs)
		goto fail;
	n->nleaves = c->nleaves;
	if (c->nleaves)
		memcpy(n->leaves, c->leaves, c->nleaves * sizeof(*n->leaves));
	for (; n->nkwargs < c->nkwargs; n->nkwargs++) {
		struct hcb_kwarg *k = &n->kwargs[n->nkwargs];

		k->key = strdup(c->kwargs[n->nkwargs].key);
		k->value = strdup(c->kwargs[n->nkwargs].value);
		if (!k->key || !k->value) {
			n->nkwargs++;   /* so that what was copied is freed */
			goto fail;
		}
	}
	*out = n;
	return 0;
fail:
	hcb_consumer_free(n);
	return -ENOMEM;
}

static int str_equal(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

int hcb_consumer_equal(const struct hcb_consumer *a, const struct hcb_consumer *b)
{
	if (a->id != b->id || a->nleaves != b->nleaves || a->nkwargs != b->nkwargs ||
	    a->total_bytes != b->total_bytes || !str_equal(a->name, b->name) ||
	    !str_equal(a->tree, b->tree))
		return 0;
	for (unsigned int i = 0; i < a->nkwargs; i++)
		if (strcmp(a->kwargs[i].key, b->kwargs[i].key) ||
		    strcmp(a->kwargs[i].value, b->kwargs[i].value))
			return 0;
	for (unsigned int i = 0; i < a->nleaves; i++) {
		const struct hcb_leaf_shape *x = &a->leaves[i], *y = &b->leaves[i];

		if (x->dtype != y->dtype || x->ndim != y->ndim ||
		    memcmp(x->dims, y->dims, x->ndim * sizeof(x->dims[0])))
			return 0;
	}
	return 1;
}

static int parse_kwargs(struct hcb_consumer *c, const char *s, size_t n)
{
	const char *end = s + n;
	size_t cap = 0;

	if (n && s[n - 1] != '\0')
		return -EBADMSG;
	while (s < end) {
		const char *k = s, *v;
		struct hcb_kwarg *kw;

		v = k + strlen(k) + 1;
		if (v >= end || !name_ok(k, strlen(k)))
			return -EBADMSG;
		s = v + strlen(v) + 1;
		if (hcb_grow(&c->kwargs, &cap, c->nkwargs + 1, sizeof(*c->kwargs)))
			return -ENOMEM;
		kw = &c->kwargs[c->nkwargs++];
		kw->key = strdup(k);
		kw->value = strdup(v);
		if (!kw->key || !kw->value)
			return -ENOMEM;
	}
	return 0;
}

int hcb_consumer_from_reg(const void *blob, size_t len, struct hcb_consumer **out)
{
	const unsigned char *p = blob;
	struct hcb_wire_reg reg;
	struct hcb_consumer *c;
	unsigned int nleaves;
	uint64_t need;
	int err;

	if (len < sizeof(reg))
		return -EBADMSG;
	memcpy(&reg, p, sizeof(reg));
	if (reg.magic != HCB_REG_MAGIC || reg.version != HCB_REG_VERSION)
		return -EBADMSG;
	if (reg.nleaves > HCB_MAX_LEAVES || reg.total_len > HCB_MAX_REG_BYTES)
		return -E2BIG;
	need = (uint64_t)sizeof(reg) + (uint64_t)reg.nleaves * sizeof(struct hcb_wire_leaf) +
	       reg.name_len + reg.kwargs_len + reg.tree_len;
	if (need != reg.total_len || need > len || reg.consumer_id == HCB_CONSUMER_RESERVED)
		return -EBADMSG;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = -ENOMEM;
	c->id = reg.consumer_id;
	c->nleaves = reg.nleaves;
	c->leaves = calloc(reg.nleaves ? reg.nleaves : 1, sizeof(*c->leaves));
	if (!c->leaves)
		goto fail;
	p += sizeof(reg);
	err = -EBADMSG;
	for (unsigned int i = 0; i < reg.nleaves; i++) {
		struct hcb_wire_leaf wl;
		struct hcb_leaf_shape *l = &c->leaves[i];

		memcpy(&wl, p, sizeof(wl));
		p += sizeof(wl);
		if (!leaf_ok(wl.dtype, wl.ndim, wl.dims, &l->nbytes))
			goto fail;
		l->dtype = wl.dtype;
		l->ndim = wl.ndim;
		memcpy(l->dims, wl.dims, sizeof(l->dims));
		hcb_shape_elems(l->ndim, l->dims, &l->nelems);
		if (c->total_bytes + l->nbytes < c->total_bytes)
			goto fail;
		c->total_bytes += l->nbytes;
	}
	if (!name_ok((const char *)p, reg.name_len))
		goto fail;
	c->name = strndup((const char *)p, reg.name_len);
	if (!c->name) {
		err = -ENOMEM;
		goto fail;
	}
	p += reg.name_len;
	err = parse_kwargs(c, (const char *)p, reg.kwargs_len);
	if (err)
		goto fail;
	p += reg.kwargs_len;
	err = -EBADMSG;
	if (hcb_tree_validate((const char *)p, reg.tree_len, &nleaves) || nleaves != reg.nleaves)
		goto fail;
	c->tree = strndup((const char *)p, reg.tree_len);
	if (!c->tree) {
		err = -ENOMEM;
		goto fail;
	}
	*out = c;
	return 0;
fail:
	hcb_consumer_free(c);
	return err;
}

const char *hcb_consumer_kwarg(const struct hcb_consumer *c, const char *key)
{
	for (unsigned int i = 0; i < c->nkwargs; i++)
		if (strcmp(c->kwargs[i].key, key) == 0)
			return c->kwargs[i].value;
	return NULL;
}
