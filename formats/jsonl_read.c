/* SPDX-License-Identifier: MIT */
/*
 * jsonl_read.c - the JSONL recording reader (formats/JSONL.md).
 *
 * One line at a time: parsed strictly, then checked against the schema.
 * Consumers are rebuilt from the tap records (name, kwargs, tree, dtypes,
 * shapes) through the same validation as a registration read from a live
 * target, and must stay the same for a consumer id throughout a file.
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
#include "jsonl_num.h"
#include "recfile_impl.h"

/* No line is longer than this (a 64 Mi-element float64 tap is ~1.5 GB of
 * text; past it a file is more likely damaged than real). */
#define MAX_LINE (4ull << 30)

struct jsonl_reader {
	char *line;
	size_t cap;
	uint64_t lineno;       /* after a seek (r->seeked), not known: messages name the offset */
	uint64_t records;      /* lines read so far */
	struct jdoc doc;
	unsigned char *payload;
	size_t payload_cap;
	char where[32];
};

static const char *where(struct hcb_reader *r)
{
	struct jsonl_reader *s = r->state;

	if (r->seeked)
		snprintf(s->where, sizeof(s->where), "offset %llu", (unsigned long long)r->rec_off);
	else
		snprintf(s->where, sizeof(s->where), "%llu", (unsigned long long)s->lineno);
	return s->where;
}

#define BAD(r, ...) hcb_reader_fail((r), -EBADMSG, where(r), __VA_ARGS__)

/* Field helpers: each returns 0 or fails the reader. */
static int get_u64(struct hcb_reader *r, uint32_t obj, const char *key, uint64_t max,
		   uint64_t *out, int optional)
{
	struct jsonl_reader *s = r->state;
	uint32_t i = jget(&s->doc, obj, key);
	char buf[32], *end;

	if (i == UINT32_MAX) {
		if (optional)
			return 0;
		return BAD(r, "'%s' is missing", key);
	}
	if (s->doc.nodes[i].kind != J_NUM || s->doc.nodes[i].numlen >= sizeof(buf) ||
	    s->doc.nodes[i].num[0] == '-')
		return BAD(r, "'%s' is not a whole number from 0 to %llu", key, (unsigned long long)max);
	memcpy(buf, s->doc.nodes[i].num, s->doc.nodes[i].numlen);
	buf[s->doc.nodes[i].numlen] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || *end || *out > max)
		return BAD(r, "'%s' is not a whole number from 0 to %llu", key, (unsigned long long)max);
	return 0;
}

static int get_str(struct hcb_reader *r, uint32_t obj, const char *key, const char **out,
		   int optional)
{
	struct jsonl_reader *s = r->state;
	uint32_t i = jget(&s->doc, obj, key);

	if (i == UINT32_MAX) {
		if (optional)
			return 0;
		return BAD(r, "'%s' is missing", key);
	}
	if (s->doc.nodes[i].kind != J_STR)
		return BAD(r, "'%s' is not a string", key);
	if (strlen(jstr(&s->doc, i)) != s->doc.nodes[i].slen)
		return BAD(r, "'%s' holds a NUL character", key);
	*out = jstr(&s->doc, i);
	return 0;
}

static int copy_str(struct hcb_reader *r, uint32_t obj, const char *key, char *dst, size_t size,
		    int optional)
{
	const char *v = NULL;

	if (get_str(r, obj, key, &v, optional))
		return r->err;
	if (!v)
		return 0;
	if (strlen(v) >= size)
		return BAD(r, "'%s' is longer than %zu bytes", key, size - 1);
	strcpy(dst, v);
	return 0;
}

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
	return BAD(r, "data[%llu] = %s is out of range for %s", (unsigned long long)index, buf,
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
			return BAD(r, "data[%llu] of a %s array is not a [re, im] pair",
				   (unsigned long long)index, hcb_dtype_name(dtype));
		if (element(r, i + 1, part, p, index))
			return r->err;
		return element(r, s->doc.nodes[i + 1].end, part, p + size / 2, index);
	}
	if (dtype == HCB_DT_BOOL) {
		if (n->kind != J_TRUE && n->kind != J_FALSE)
			return BAD(r, "data[%llu] of a bool array is not true or false", (unsigned long long)index);
		*p = n->kind == J_TRUE;
		return 0;
	}
	if (hcb_dtype_is_float(dtype) && n->kind == J_STR) {
		if (!hcb_json_nonfinite(jstr(&s->doc, i), &v))
			return BAD(r, "data[%llu] is \"%s\": expected a number, \"nan\", \"inf\" or \"-inf\"",
				   (unsigned long long)index, jstr(&s->doc, i));
	} else {
		if (n->kind != J_NUM || n->numlen >= sizeof(buf))
			return BAD(r, "data[%llu] of a %s array is not a number", (unsigned long long)index,
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
		return BAD(r, "consumer %u: invalid name, kwargs, tree or leaf shapes", id);
	err = hcb_consumer_from_reg(blob, len, &c);
	free(blob);
	if (err)
		return err == -ENOMEM ? err : BAD(r, "consumer %u is invalid", id);
	old = hcb_registry_get(r->consumers, id);
	if (old) {
		int same = hcb_consumer_equal(old, c);

		hcb_consumer_free(c);
		if (!same)
			return BAD(r, "consumer %u changes its name, kwargs, tree or shapes here; "
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

	if (get_u64(r, 0, "device", UINT32_MAX, &t->device, 0) ||
	    get_u64(r, 0, "consumer", UINT32_MAX, &t->id, 0) ||
	    get_u64(r, 0, "ts_ns", UINT64_MAX, &t->ts, 1) ||
	    get_str(r, 0, "name", &t->name, 0) || get_str(r, 0, "tree", &t->tree, 0) ||
	    get_str(r, 0, "text", &t->text, 1))
		return r->err;
	if (t->id == 0)
		return BAD(r, "consumer id 0 is reserved");
	seq = jget(d, 0, "seq");
	if (seq == UINT32_MAX)
		return BAD(r, "'seq' is missing");
	if (d->nodes[seq].kind != J_NULL && get_u64(r, 0, "seq", UINT64_MAX - 1, &t->seq, 0))
		return r->err;
	if ((why = hcb_jsonl_copy_ns(d, 0, t->copy)))
		return BAD(r, "%s", why);
	t->kw = jget(d, 0, "kwargs");
	if (t->kw != UINT32_MAX && d->nodes[t->kw].kind != J_OBJ)
		return BAD(r, "'kwargs' is not an object");
	t->arrays = jget(d, 0, "arrays");
	if (t->arrays == UINT32_MAX || d->nodes[t->arrays].kind != J_ARR)
		return BAD(r, "'arrays' is missing or not a list");
	t->nleaves = d->nodes[t->arrays].count;
	if (t->nleaves > HCB_MAX_LEAVES)
		return BAD(r, "%u arrays: at most %u", t->nleaves, HCB_MAX_LEAVES);
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
			return BAD(r, "kwargs '%s' is not a string", jkey(d, k));
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
		return BAD(r, "arrays[%u] is not an object", i);
	if (get_str(r, a, "dtype", &dt, 0))
		return r->err;
	leaf->dtype = hcb_dtype_from_name(dt);
	if (leaf->dtype == HCB_DT_INVALID)
		return BAD(r, "arrays[%u]: unknown dtype '%s'", i, dt);
	if (shape == UINT32_MAX || d->nodes[shape].kind != J_ARR || d->nodes[shape].count > HCB_MAX_DIMS)
		return BAD(r, "arrays[%u]: 'shape' is missing or not a list of at most %u sizes", i, HCB_MAX_DIMS);
	leaf->ndim = d->nodes[shape].count;
	dim = jfirst(shape);
	for (unsigned int k = 0; k < leaf->ndim; k++, dim = d->nodes[dim].end) {
		char buf[32], *end;

		if (d->nodes[dim].kind != J_NUM || d->nodes[dim].numlen >= sizeof(buf) ||
		    d->nodes[dim].num[0] == '-')
			return BAD(r, "arrays[%u]: shape[%u] is not a size", i, k);
		memcpy(buf, d->nodes[dim].num, d->nodes[dim].numlen);
		buf[d->nodes[dim].numlen] = '\0';
		errno = 0;
		leaf->dims[k] = strtoull(buf, &end, 10);
		if (errno || *end)
			return BAD(r, "arrays[%u]: shape[%u] is not a size", i, k);
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
		return BAD(r, "arrays[%u]: 'data' is missing or not a list", i);
	if (d->nodes[data].count != elems)
		return BAD(r, "arrays[%u]: 'data' has %u values; its shape needs %llu", i,
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
		return BAD(r, "'tree' \"%s\" is not a pytree structure such as \"( * * )\"", t->tree);
	if (tree_leaves != t->nleaves)
		return BAD(r, "'tree' \"%s\" has %u leaves but 'arrays' has %u", t->tree, tree_leaves,
			   t->nleaves);
	for (unsigned int i = 0; i < t->nleaves; i++, a = s->doc.nodes[a].end) {
		if (hcb_shape_elems(leaves[i].ndim, leaves[i].dims, &elems) ||
		    elems > (UINT64_C(1) << 62) / hcb_dtype_size(leaves[i].dtype))
			return hcb_reader_fail(r, -E2BIG, where(r), "arrays[%u]: its shape holds more elements than a tap can", i);
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

static int read_tap(struct hcb_reader *r, struct hcb_record *rec)
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

static int read_record(struct hcb_reader *r, struct hcb_record *rec)
{
	struct jsonl_reader *s = r->state;
	const char *type;
	uint64_t v;

	if (s->doc.nodes[0].kind != J_OBJ)
		return BAD(r, "a record is a JSON object");
	if (get_str(r, 0, "type", &type, 0))
		return r->err;
	memset(rec, 0, sizeof(*rec));
	if (!strcmp(type, "tap"))
		return read_tap(r, rec);
	if (!strcmp(type, "session")) {
		rec->kind = HCB_REC_SESSION;
		if (get_u64(r, 0, "version", UINT32_MAX, &v, 0))
			return r->err;
		if (v != HCB_JSONL_VERSION)
			return hcb_reader_fail(r, -EPROTO, where(r),
					       "recording format version %llu; this hcbtrace reads version %d",
					       (unsigned long long)v, HCB_JSONL_VERSION);
		rec->session.version = (int)v;
		strcpy(rec->session.platform, "cpu");
		v = 0;   /* no pid: not known (a recording made by hand, or elsewhere) */
		if (get_u64(r, 0, "pid", INT32_MAX, &v, 1))
			return r->err;
		rec->session.pid = (int32_t)v;
		v = 0;
		if (get_u64(r, 0, "start_ns", UINT64_MAX, &v, 1) ||
		    copy_str(r, 0, "provider", rec->session.provider, sizeof(rec->session.provider), 1) ||
		    copy_str(r, 0, "platform", rec->session.platform, sizeof(rec->session.platform), 1))
			return r->err;
		rec->session.start_ns = v;
		return 1;
	}
	if (!strcmp(type, "drop")) {
		rec->kind = HCB_REC_DROP;
		if (get_u64(r, 0, "device", UINT32_MAX, &v, 0))
			return r->err;
		rec->drop.device = (uint32_t)v;
		if (get_u64(r, 0, "count", UINT64_MAX, &rec->drop.count, 0) ||
		    copy_str(r, 0, "reason", rec->drop.reason, sizeof(rec->drop.reason), 1))
			return r->err;
		return 1;
	}
	if (!strcmp(type, "barrier")) {
		rec->kind = HCB_REC_BARRIER;
		if (get_u64(r, 0, "ts_ns", UINT64_MAX, &rec->barrier.wall_ns, 1) ||
		    get_u64(r, 0, "taps", UINT64_MAX, &rec->barrier.taps, 1))
			return r->err;
		return 1;
	}
	if (!strcmp(type, "trigger"))
		return hcb_jsonl_read_trigger(r, &s->doc, rec, where(r));
	if (!strcmp(type, "end")) {
		rec->kind = HCB_REC_END;
		if (get_u64(r, 0, "taps", UINT64_MAX, &rec->end.taps, 1) ||
		    get_u64(r, 0, "drops", UINT64_MAX, &rec->end.drops, 1) ||
		    get_u64(r, 0, "end_ns", UINT64_MAX, &rec->end.end_ns, 1))
			return r->err;
		return 1;
	}
	return BAD(r, "unknown record type '%s' (expected session, tap, drop, barrier, trigger or end)", type);
}

int hcb_jsonl_line(struct hcb_reader *r, char **line, size_t *len)
{
	struct jsonl_reader *s = r->state;
	ssize_t n;

	for (;;) {
		errno = 0;
		n = getline(&s->line, &s->cap, r->f);
		if (n < 0) {
			/* getline reports running out of memory through errno alone */
			if (errno == ENOMEM)
				return hcb_reader_fail(r, -ENOMEM, where(r), "out of memory reading the next line");
			if (ferror(r->f) || errno)
				return hcb_reader_fail(r, -EIO, NULL, "read error: %s", strerror(errno ? errno : EIO));
			return s->records || r->seeked ? 0 : hcb_reader_empty(r, NULL);
		}
		s->lineno++;
		r->rec_off = r->pos;
		r->pos += (uint64_t)n;
		if ((uint64_t)n > MAX_LINE)
			return hcb_reader_fail(r, -E2BIG, where(r), "a line of %zd bytes: more than this reader holds", n);
		if (s->line[n - 1] != '\n')
			return hcb_reader_fail(r, -ENODATA, where(r),
					       "the recording ends in the middle of a line (truncated?); "
					       "the %llu lines before it are complete",
					       (unsigned long long)s->lineno - 1);
		if (n == 1)
			continue;   /* blank lines carry nothing */
		s->records++;
		s->line[n - 1] = '\0';
		*line = s->line;
		*len = (size_t)n - 1;
		return 1;
	}
}

int hcb_jsonl_parse(struct hcb_reader *r, char *line, size_t len, struct hcb_record *rec)
{
	struct jsonl_reader *s = r->state;
	int err;

	if (memchr(line, '\0', len))
		return BAD(r, "a NUL byte in the line");
	err = jparse(&s->doc, line, len);
	if (err == -EBADMSG)
		return BAD(r, "not valid JSON: %s", s->doc.error);
	if (err)
		return err;
	return read_record(r, rec);
}

static int jsonl_next(struct hcb_reader *r, struct hcb_record *rec)
{
	char *line;
	size_t len;
	int n = hcb_jsonl_line(r, &line, &len);

	return n <= 0 ? n : hcb_jsonl_parse(r, line, len, rec);
}

static void jsonl_free(struct hcb_reader *r)
{
	struct jsonl_reader *s = r->state;

	if (!s)
		return;
	free(s->line);
	free(s->payload);
	jdoc_free(&s->doc);
	free(s);
}

int hcb_jsonl_reader_init(struct hcb_reader *r)
{
	r->state = calloc(1, sizeof(struct jsonl_reader));
	if (!r->state)
		return -ENOMEM;
	r->next = jsonl_next;
	r->skim = hcb_jsonl_skim;
	r->free = jsonl_free;
	return 0;
}
