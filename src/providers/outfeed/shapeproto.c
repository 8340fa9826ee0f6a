/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/dtype.h"
#include "shapeproto.h"

/* xla.PrimitiveType values and the numpy dtypes they are. */
static unsigned int dtype_of(uint64_t t)
{
	switch (t) {
	case 1: return HCB_DT_BOOL;          /* PRED */
	case 2: return HCB_DT_INT8;
	case 3: return HCB_DT_INT16;
	case 4: return HCB_DT_INT32;
	case 5: return HCB_DT_INT64;
	case 6: return HCB_DT_UINT8;
	case 7: return HCB_DT_UINT16;
	case 8: return HCB_DT_UINT32;
	case 9: return HCB_DT_UINT64;
	case 10: return HCB_DT_FLOAT16;
	case 11: return HCB_DT_FLOAT32;
	case 12: return HCB_DT_FLOAT64;
	case 15: return HCB_DT_COMPLEX64;
	case 16: return HCB_DT_BFLOAT16;
	case 18: return HCB_DT_COMPLEX128;
	case 19: return HCB_DT_FLOAT8_E5M2;
	case 20: return HCB_DT_FLOAT8_E4M3FN;
	default: return HCB_DT_INVALID;
	}
}

#define TUPLE 13

struct reader {
	const unsigned char *p, *end;
};

static int varint(struct reader *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -EBADMSG;
		*v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return 0;
	}
	return -EBADMSG;
}

/* Skip a field of wire type wt (its tag read already). */
static int skip(struct reader *r, unsigned int wt)
{
	uint64_t v;

	switch (wt) {
	case 0:
		return varint(r, &v);
	case 1:
		if (r->end - r->p < 8)
			return -EBADMSG;
		r->p += 8;
		return 0;
	case 2:
		if (varint(r, &v) || v > (uint64_t)(r->end - r->p))
			return -EBADMSG;
		r->p += v;
		return 0;
	case 5:
		if (r->end - r->p < 4)
			return -EBADMSG;
		r->p += 4;
		return 0;
	default:
		return -EBADMSG;   /* groups (3, 4) are not in these messages */
	}
}

/* A repeated int64 field: one varint (wt 0) or a packed run (wt 2). */
static int repeated(struct reader *r, unsigned int wt, uint64_t *vals, unsigned int max,
		    unsigned int *n)
{
	uint64_t v, len;
	struct reader sub;

	if (wt == 0) {
		if (varint(r, &v))
			return -EBADMSG;
		if (*n >= max)
			return -ENOTSUP;
		vals[(*n)++] = v;
		return 0;
	}
	if (wt != 2 || varint(r, &len) || len > (uint64_t)(r->end - r->p))
		return -EBADMSG;
	sub = (struct reader){ r->p, r->p + len };
	r->p += len;
	while (sub.p < sub.end) {
		if (varint(&sub, &v))
			return -EBADMSG;
		if (*n >= max)
			return -ENOTSUP;
		vals[(*n)++] = v;
	}
	return 0;
}

static int fail(char *msg, size_t size, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && size) {
		va_start(ap, fmt);
		vsnprintf(msg, size, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* The fields of a ShapeProto as read, and where to word a failure. */
struct proto {
	uint64_t type, dims[HCB_MAX_DIMS], m2m[HCB_MAX_DIMS];
	unsigned int ndims, nm2m;
	bool tuple_shapes, layout;
	char *msg;
	size_t msg_size;
};

/* Field 5, a Layout (wire type wt): only its minor_to_major matters. */
static int read_layout(struct reader *r, unsigned int wt, struct proto *p)
{
	struct reader sub;
	uint64_t l;
	int err;

	if (wt != 2 || varint(r, &l) || l > (uint64_t)(r->end - r->p))
		return fail(p->msg, p->msg_size, -EBADMSG, "bad layout");
	p->layout = true;
	sub = (struct reader){ r->p, r->p + l };
	r->p += l;
	while (sub.p < sub.end) {
		uint64_t t;

		if (varint(&sub, &t) || (t >> 3) == 0)
			return fail(p->msg, p->msg_size, -EBADMSG, "bad layout field");
		if ((t >> 3) != 1) {
			if (skip(&sub, (unsigned int)(t & 7)))
				return fail(p->msg, p->msg_size, -EBADMSG, "bad layout field");
			continue;
		}
		err = repeated(&sub, (unsigned int)(t & 7), p->m2m, HCB_MAX_DIMS, &p->nm2m);
		if (err == -ENOTSUP)
			return fail(p->msg, p->msg_size, err, "layout of more than %u dimensions",
				    HCB_MAX_DIMS);
		if (err)
			return fail(p->msg, p->msg_size, err, "bad minor_to_major");
	}
	return 0;
}

/* One field of the ShapeProto (its tag read already) into p. */
static int read_field(struct reader *r, unsigned int field, unsigned int wt, struct proto *p)
{
	int err;

	switch (field) {
	case 2:
		if (wt != 0 || varint(r, &p->type))
			return fail(p->msg, p->msg_size, -EBADMSG, "bad element_type");
		return 0;
	case 3:
		err = repeated(r, wt, p->dims, HCB_MAX_DIMS, &p->ndims);
		if (err == -ENOTSUP)
			return fail(p->msg, p->msg_size, err, "more than %u dimensions", HCB_MAX_DIMS);
		if (err)
			return fail(p->msg, p->msg_size, err, "bad dimensions");
		return 0;
	case 4:
		p->tuple_shapes = true;
		if (wt != 2 || skip(r, wt))
			return fail(p->msg, p->msg_size, -EBADMSG, "bad tuple_shapes");
		return 0;
	case 5:
		return read_layout(r, wt, p);
	default:
		if (skip(r, wt))
			return fail(p->msg, p->msg_size, -EBADMSG, "bad field %u", field);
		return 0;
	}
}

/* The array shape the fields describe, if hcbtrace can hold it. */
static int to_xshape(const struct proto *p, struct hcb_xshape *out)
{
	uint64_t elems = 1;

	if (p->type == TUPLE || p->tuple_shapes)
		return fail(p->msg, p->msg_size, -ENOTSUP, "a tuple shape where an array was expected");
	out->dtype = dtype_of(p->type);
	if (out->dtype == HCB_DT_INVALID)
		return fail(p->msg, p->msg_size, -ENOTSUP, "element type %llu has no numpy name",
			    (unsigned long long)p->type);
	/* row-major is minor_to_major = [n-1, ..., 0]; no layout means that too */
	if (p->layout && p->nm2m) {
		if (p->nm2m != p->ndims)
			return fail(p->msg, p->msg_size, -EBADMSG, "layout of %u dimensions for %u",
				    p->nm2m, p->ndims);
		for (unsigned int i = 0; i < p->nm2m; i++)
			if (p->m2m[i] != p->ndims - 1 - i)
				return fail(p->msg, p->msg_size, -ENOTSUP, "a layout other than row-major");
	}
	out->ndim = p->ndims;
	for (unsigned int i = 0; i < p->ndims; i++) {
		/* an int64 in the proto: negative means dynamic or broken */
		if (p->dims[i] >> 62)
			return fail(p->msg, p->msg_size, -EBADMSG, "dimension %u is %lld", i,
				    (long long)p->dims[i]);
		out->dims[i] = p->dims[i];
		if (p->dims[i] && elems > (UINT64_C(1) << 62) / p->dims[i])
			return fail(p->msg, p->msg_size, -E2BIG, "too many elements");
		elems *= p->dims[i];
	}
	if (elems > (UINT64_C(1) << 62) / hcb_dtype_size(out->dtype))
		return fail(p->msg, p->msg_size, -E2BIG, "too many bytes");
	out->nbytes = elems * hcb_dtype_size(out->dtype);
	return 0;
}

int hcb_shapeproto_decode(const void *buf, size_t len, struct hcb_xshape *out, char *msg,
			  size_t msg_size)
{
	struct reader r = { buf, (const unsigned char *)buf + len };
	struct proto p = { .msg = msg, .msg_size = msg_size };
	int err;

	if (!buf && len)
		return fail(msg, msg_size, -EBADMSG, "no shape");
	while (r.p < r.end) {
		uint64_t tag;

		if (varint(&r, &tag))
			return fail(msg, msg_size, -EBADMSG, "truncated field tag");
		if ((tag >> 3) == 0 || tag >> 32)
			return fail(msg, msg_size, -EBADMSG, "field number %llu", (unsigned long long)(tag >> 3));
		err = read_field(&r, (unsigned int)(tag >> 3), (unsigned int)(tag & 7), &p);
		if (err)
			return err;
	}
	return to_xshape(&p, out);
}
