/* SPDX-License-Identifier: MIT */
/*
 * jsonl_tap.c - a JSONL tap record read back (formats/JSONL.md, "tap"):
 * its consumer rebuilt from the record (name, kwargs, tree, dtypes,
 * shapes) through the same validation as a registration read from a live
 * target, the same for a consumer id throughout a file; its arrays' data
 * read in each leaf's dtype, exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/consumer.h"
#include "core/dtype.h"
#include "core/grow.h"
#include "core/tree.h"
#include "json/jsonparse.h"
#include "jsonl.h"
#include "jsonl_fields.h"
#include "jsonl_num.h"
#include "jsonl_tap.h"

/* An integer element from its text: exactly, in range; a float here is an error. */
static int int_element(struct hcb_reader *r, const char *buf, unsigned int dtype, unsigned char *p,
		       uint64_t index)
{
	uint64_t max;
	int64_t min;
	char *end;

	hcb_dtype_int_range(dtype, &min, &max);
	errno = 0;
	if (hcb_dtype_is_signed(dtype)) {
		long long x = strtoll(buf, &end, 10);

		if (errno || *end || x > (long long)max || x < min)
			goto range;
		hcb_int_store(dtype, (uint64_t)x, p);
	} else {
		unsigned long long x = strtoull(buf, &end, 10);

		if (errno || *end || x > max || buf[0] == '-')
			goto range;
		hcb_int_store(dtype, x, p);
	}
	return 0;
range:
	return JSONL_BAD(r, "data[%llu] = %s is out of range for %s", (unsigned long long)index, buf,
		   hcb_dtype_name(dtype));
}

/* One number of an array's data, in its dtype, stored at p. */
static int element(struct hcb_reader *r, uint32_t i, unsigned int dtype, unsigned char *p,
		   uint64_t index)
{
	struct jsonl_reader *s = r->state;
	const struct jnode *n = &s->doc.nodes[i];
	size_t size = hcb_dtype_size(dtype);
	char buf[64], *end;
	double v;

	/* floats and plain integers in range: jsonl_num.h; the rest, and every error, below */
	if (n->kind == J_NUM && n->numlen < sizeof(buf) && !hcb_json_number(n->num, n->numlen, dtype, p))
		return 0;
	if (hcb_dtype_is_complex(dtype)) {
		unsigned int part = dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64;

		if (n->kind != J_ARR || n->count != 2)
			return JSONL_BAD(r, "data[%llu] of a %s array is not a [re, im] pair",
				   (unsigned long long)index, hcb_dtype_name(dtype));
		if (element(r, i + 1, part, p, index))
			return r->err;
		return element(r, s->doc.nodes[i + 1].end, part, p + size / 2, index);
	}
	if (dtype == HCB_DT_BOOL) {
		if (n->kind != J_TRUE && n->kind != J_FALSE)
			return JSONL_BAD(r, "data[%llu] of a bool array is not true or false", (unsigned long long)index);
		*p = n->kind == J_TRUE;
		return 0;
	}
	if (hcb_dtype_is_float(dtype) && n->kind == J_STR) {
		if (!hcb_json_nonfinite(jstr(&s->doc, i), &v))
			return JSONL_BAD(r, "data[%llu] is \"%s\": expected a number, \"nan\", \"inf\" or \"-inf\"",
				   (unsigned long long)index, jstr(&s->doc, i));
	} else {
		if (n->kind != J_NUM || n->numlen >= sizeof(buf))
			return JSONL_BAD(r, "data[%llu] of a %s array is not a number", (unsigned long long)index,
				   hcb_dtype_name(dtype));
		memcpy(buf, n->num, n->numlen);
		buf[n->numlen] = '\0';
		if (!hcb_dtype_is_float(dtype))
			return int_element(r, buf, dtype, p, index);
		v = strtod(buf, &end);
	}
	switch (dtype) {
	case HCB_DT_FLOAT64:
		memcpy(p, &v, 8);
		break;
	case HCB_DT_FLOAT32: {
		float f = n->kind == J_NUM ? strtof(buf, NULL) : (float)v;   /* rounded once */

		memcpy(p, &f, 4);
		break;
	}
	default: {
		uint32_t bits = hcb_double_to_narrow_bits(dtype, v);

		memcpy(p, &bits, size);
	}
	}
	return 0;
}

/*
 * The consumer a tap record describes, validated as a registration from a
 * live target would be; the first record of an id defines it, and every
 * later one must describe the same consumer.
 */
static int remember_consumer(struct hcb_reader *r, const struct hcb_consumer_spec *spec,
			     uint32_t id, const struct hcb_consumer **out)
{
	const struct hcb_consumer *old;
	struct hcb_consumer *c;
	size_t len;
	void *blob;
	int err;

	err = hcb_reg_build(spec, id, &blob, &len);
	if (err == -ENOMEM)
		return err;
	if (err)
		return JSONL_BAD(r, "consumer %u: invalid name, kwargs, tree or leaf shapes", id);
	err = hcb_consumer_from_reg(blob, len, &c);
	free(blob);
	if (err)
		return err == -ENOMEM ? err : JSONL_BAD(r, "consumer %u is invalid", id);
	old = hcb_registry_get(r->consumers, id);
	if (old) {
		int same = hcb_consumer_equal(old, c);

		hcb_consumer_free(c);
		if (!same)
			return JSONL_BAD(r, "consumer %u changes its name, kwargs, tree or shapes here; "
				   "a consumer is the same throughout a recording", id);
		*out = old;
		return 0;
	}
	err = hcb_registry_add(r->consumers, c);
	if (err)
		return err;
	*out = hcb_registry_get(r->consumers, id);
	return 0;
}

/* A tap's "copy_ns" (formats/JSONL.md): the device-side start and end of
 * its device-to-host copy, [START, END], two whole numbers with START <=
 * END; none: 0, 0.  NULL, or what is wrong with it. */
static const char *copy_ns(const struct jdoc *d, uint32_t obj, uint64_t out[2])
{
	uint32_t i = jget(d, obj, "copy_ns");

	out[0] = out[1] = 0;
	if (i == UINT32_MAX)
		return NULL;
	if (d->nodes[i].kind != J_ARR || d->nodes[i].count != 2 ||
	    jwhole(d, jfirst(i), UINT64_MAX, &out[0]) ||
	    jwhole(d, d->nodes[jfirst(i)].end, UINT64_MAX, &out[1])) {
		out[0] = out[1] = 0;
		return "'copy_ns' is not a list of two whole numbers from 0 to 18446744073709551615";
	}
	if (out[0] > out[1]) {
		out[0] = out[1] = 0;
		return "'copy_ns' ends before it starts";
	}
	return NULL;
}

/* A tap record's fields other than its arrays' contents. */
struct tap_fields {
	uint64_t device, id, ts, seq, copy[2];
	const char *name, *tree, *text;   /* text: a jax.debug.print's, NULL: none */
	uint32_t kw;                /* the kwargs object, UINT32_MAX: none */
	uint32_t arrays;            /* the list of arrays */
	unsigned int nleaves;
};

static int read_tap_fields(struct hcb_reader *r, struct tap_fields *t)
{
	struct jsonl_reader *s = r->state;
	struct jdoc *d = &s->doc;
	const char *why;
	uint32_t seq;

	if (hcb_jsonl_get_u64(r, 0, "device", UINT32_MAX, &t->device, 0) ||
	    hcb_jsonl_get_u64(r, 0, "consumer", UINT32_MAX, &t->id, 0) ||
	    hcb_jsonl_get_u64(r, 0, "ts_ns", UINT64_MAX, &t->ts, 1) ||
	    hcb_jsonl_get_str(r, 0, "name", &t->name, 0) || hcb_jsonl_get_str(r, 0, "tree", &t->tree, 0) ||
	    hcb_jsonl_get_str(r, 0, "text", &t->text, 1))
		return r->err;
	if (t->id == 0)
		return JSONL_BAD(r, "consumer id 0 is reserved");
	seq = jget(d, 0, "seq");
	if (seq == UINT32_MAX)
		return JSONL_BAD(r, "'seq' is missing");
	if (d->nodes[seq].kind != J_NULL && hcb_jsonl_get_u64(r, 0, "seq", UINT64_MAX - 1, &t->seq, 0))
		return r->err;
	if ((why = copy_ns(d, 0, t->copy)))
		return JSONL_BAD(r, "%s", why);
	t->kw = jget(d, 0, "kwargs");
	if (t->kw != UINT32_MAX && d->nodes[t->kw].kind != J_OBJ)
		return JSONL_BAD(r, "'kwargs' is not an object");
	t->arrays = jget(d, 0, "arrays");
	if (t->arrays == UINT32_MAX || d->nodes[t->arrays].kind != J_ARR)
		return JSONL_BAD(r, "'arrays' is missing or not a list");
	t->nleaves = d->nodes[t->arrays].count;
	if (t->nleaves > HCB_MAX_LEAVES)
		return JSONL_BAD(r, "%u arrays: at most %u", t->nleaves, HCB_MAX_LEAVES);
	return 0;
}

/* The kwargs object kw as key, value, ..., NULL into kwargs (room made). */
static int read_kwargs(struct hcb_reader *r, uint32_t kw, const char **kwargs)
{
	struct jsonl_reader *s = r->state;
	struct jdoc *d = &s->doc;
	uint32_t k = jfirst(kw);

	for (uint32_t i = 0; i < d->nodes[kw].count; i++, k = d->nodes[k].end) {
		if (d->nodes[k].kind != J_STR)
			return JSONL_BAD(r, "kwargs '%s' is not a string", jkey(d, k));
		kwargs[2 * i] = jkey(d, k);
		kwargs[2 * i + 1] = jstr(d, k);
	}
	return 0;
}

/* The dtype and shape of arrays[i] (node a). */
static int read_leaf_spec(struct hcb_reader *r, uint32_t a, unsigned int i,
			  struct hcb_leaf_spec *leaf)
{
	struct jsonl_reader *s = r->state;
	struct jdoc *d = &s->doc;
	uint32_t shape = jget(d, a, "shape"), dim;
	const char *dt;

	if (d->nodes[a].kind != J_OBJ)
		return JSONL_BAD(r, "arrays[%u] is not an object", i);
	if (hcb_jsonl_get_str(r, a, "dtype", &dt, 0))
		return r->err;
	leaf->dtype = hcb_dtype_from_name(dt);
	if (leaf->dtype == HCB_DT_INVALID)
		return JSONL_BAD(r, "arrays[%u]: unknown dtype '%s'", i, dt);
	if (shape == UINT32_MAX || d->nodes[shape].kind != J_ARR || d->nodes[shape].count > HCB_MAX_DIMS)
		return JSONL_BAD(r, "arrays[%u]: 'shape' is missing or not a list of at most %u sizes", i, HCB_MAX_DIMS);
	leaf->ndim = d->nodes[shape].count;
	dim = jfirst(shape);
	for (unsigned int k = 0; k < leaf->ndim; k++, dim = d->nodes[dim].end) {
		uint64_t v;

		if (jwhole(d, dim, UINT64_MAX, &v))
			return JSONL_BAD(r, "arrays[%u]: shape[%u] is not a size", i, k);
		leaf->dims[k] = v;
	}
	return 0;
}

/* arrays[i]'s 'data' (node a's) is a list of elems values. */
static int check_data(struct hcb_reader *r, uint32_t a, unsigned int i, uint64_t elems)
{
	struct jsonl_reader *s = r->state;
	struct jdoc *d = &s->doc;
	uint32_t data = jget(d, a, "data");

	if (data == UINT32_MAX || d->nodes[data].kind != J_ARR)
		return JSONL_BAD(r, "arrays[%u]: 'data' is missing or not a list", i);
	if (d->nodes[data].count != elems)
		return JSONL_BAD(r, "arrays[%u]: 'data' has %u values; its shape needs %llu", i,
			   d->nodes[data].count, (unsigned long long)elems);
	return 0;
}

/*
 * Say precisely what is wrong with the tree or a shape before the generic
 * validation of the consumer does, and before anything is allocated for
 * the shapes: a short line claiming a huge shape must not cost gigabytes.
 */
static int check_shapes(struct hcb_reader *r, const struct tap_fields *t,
			const struct hcb_leaf_spec *leaves)
{
	struct jsonl_reader *s = r->state;
	unsigned int tree_leaves;
	uint32_t a = jfirst(t->arrays);
	uint64_t elems;

	if (hcb_tree_validate(t->tree, strlen(t->tree), &tree_leaves))
		return JSONL_BAD(r, "'tree' \"%s\" is not a pytree structure such as \"( * * )\"", t->tree);
	if (tree_leaves != t->nleaves)
		return JSONL_BAD(r, "'tree' \"%s\" has %u leaves but 'arrays' has %u", t->tree, tree_leaves,
			   t->nleaves);
	for (unsigned int i = 0; i < t->nleaves; i++, a = s->doc.nodes[a].end) {
		if (hcb_shape_elems(leaves[i].ndim, leaves[i].dims, &elems) ||
		    elems > (UINT64_C(1) << 62) / hcb_dtype_size(leaves[i].dtype))
			return hcb_reader_fail(r, -E2BIG, hcb_jsonl_where(r), "arrays[%u]: its shape holds more elements than a tap can", i);
		if (check_data(r, a, i, elems))
			return r->err;
	}
	return 0;
}

/* The arrays' data, as c's leaves, into the reader's payload buffer. */
static int read_payload(struct hcb_reader *r, uint32_t arrays, const struct hcb_consumer *c)
{
	struct jsonl_reader *s = r->state;
	struct jdoc *d = &s->doc;
	uint32_t a = jfirst(arrays);
	uint64_t off = 0;

	/* never NULL, even for a tap of empty leaves: its users offset it */
	if (hcb_grow(&s->payload, &s->payload_cap, c->total_bytes ? c->total_bytes : 1, 1))
		return -ENOMEM;
	for (unsigned int i = 0; i < c->nleaves; i++, a = d->nodes[a].end) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		size_t size = hcb_dtype_size(l->dtype);
		uint32_t e;

		if (check_data(r, a, i, l->nelems))
			return r->err;
		e = jfirst(jget(d, a, "data"));
		/* float32/float64 data in one pass (jsonl_num.h), the rest by element */
		for (uint64_t k = hcb_json_reals_read(d, &e, l->dtype, s->payload + off, l->nelems);
		     k < l->nelems; k++, e = d->nodes[e].end)
			if (element(r, e, l->dtype, s->payload + off + k * size, k))
				return r->err;
		off += l->nbytes;
	}
	return 0;
}

int hcb_jsonl_read_tap(struct hcb_reader *r, struct hcb_record *rec)
{
	struct jsonl_reader *s = r->state;
	struct hcb_consumer_spec spec;
	struct hcb_leaf_spec *leaves;
	const struct hcb_consumer *c = NULL;
	struct tap_fields t = { .seq = UINT64_MAX };   /* ts_ns, text: none */
	const char **kwargs;
	uint32_t a;
	int err;

	if (read_tap_fields(r, &t))
		return r->err;
	kwargs = calloc(2 * (t.kw != UINT32_MAX ? s->doc.nodes[t.kw].count : 0) + 1, sizeof(*kwargs));
	leaves = calloc(t.nleaves + 1, sizeof(*leaves));
	err = -ENOMEM;
	if (!kwargs || !leaves)
		goto out;
	err = t.kw != UINT32_MAX ? read_kwargs(r, t.kw, kwargs) : 0;
	a = jfirst(t.arrays);
	for (unsigned int i = 0; !err && i < t.nleaves; i++, a = s->doc.nodes[a].end)
		err = read_leaf_spec(r, a, i, &leaves[i]);
	if (!err)
		err = check_shapes(r, &t, leaves);
	spec = (struct hcb_consumer_spec){ t.name, kwargs, t.tree, t.nleaves, leaves };
	if (!err)
		err = remember_consumer(r, &spec, (uint32_t)t.id, &c);
	if (!err)
		err = read_payload(r, t.arrays, c);
	if (err)
		goto out;
	rec->kind = HCB_REC_TAP;
	rec->tap = (struct hcb_tap){
		.device = (uint32_t)t.device, .seq = t.seq, .wall_ns = t.ts, .consumer = c,
		.payload = s->payload, .copy_start_ns = t.copy[0], .copy_end_ns = t.copy[1],
		.text = t.text, .text_len = t.text ? (uint32_t)strlen(t.text) : 0,
	};
	err = 1;
out:
	free(kwargs);
	free(leaves);
	return err;
}
