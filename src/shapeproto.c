/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
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

int hcb_shapeproto_decode(const void *buf, size_t len, struct hcb_xshape *out, char *msg,
			  size_t msg_size)
{
	struct reader r = { buf, (const unsigned char *)buf + len };
	uint64_t type = 0, dims[HCB_MAX_DIMS], m2m[HCB_MAX_DIMS];
	unsigned int ndims = 0, nm2m = 0;
	bool tuple_shapes = false, layout = false;
	uint64_t elems = 1;
	int err;

	if (!buf && len)
		return fail(msg, msg_size, -EBADMSG, "no shape");
	while (r.p < r.end) {
		uint64_t tag;
		unsigned int field, wt;

		if (varint(&r, &tag))
			return fail(msg, msg_size, -EBADMSG, "truncated field tag");
		field = (unsigned int)(tag >> 3);
		wt = (unsigned int)(tag & 7);
		if (field == 0 || tag >> 32)
			return fail(msg, msg_size, -EBADMSG, "field number %llu", (unsigned long long)(tag >> 3));
		switch (field) {
		case 2:
			if (wt != 0 || varint(&r, &type))
				return fail(msg, msg_size, -EBADMSG, "bad element_type");
			break;
		case 3:
			err = repeated(&r, wt, dims, HCB_MAX_DIMS, &ndims);
			if (err == -ENOTSUP)
				return fail(msg, msg_size, err, "more than %u dimensions", HCB_MAX_DIMS);
			if (err)
				return fail(msg, msg_size, err, "bad dimensions");
			break;
		case 4:
			tuple_shapes = true;
			if (wt != 2 || skip(&r, wt))
				return fail(msg, msg_size, -EBADMSG, "bad tuple_shapes");
			break;
		case 5: {
			uint64_t l;
			struct reader sub;

			if (wt != 2 || varint(&r, &l) || l > (uint64_t)(r.end - r.p))
				return fail(msg, msg_size, -EBADMSG, "bad layout");
			layout = true;
			sub = (struct reader){ r.p, r.p + l };
			r.p += l;
			while (sub.p < sub.end) {
				uint64_t t;

				if (varint(&sub, &t) || (t >> 3) == 0)
					return fail(msg, msg_size, -EBADMSG, "bad layout field");
				if ((t >> 3) == 1) {
					err = repeated(&sub, (unsigned int)(t & 7), m2m, HCB_MAX_DIMS, &nm2m);
					if (err == -ENOTSUP)
						return fail(msg, msg_size, err, "layout of more than %u dimensions",
							    HCB_MAX_DIMS);
					if (err)
						return fail(msg, msg_size, err, "bad minor_to_major");
				} else if (skip(&sub, (unsigned int)(t & 7))) {
					return fail(msg, msg_size, -EBADMSG, "bad layout field");
				}
			}
			break;
		}
		default:
			if (skip(&r, wt))
				return fail(msg, msg_size, -EBADMSG, "bad field %u", field);
		}
	}
	if (type == TUPLE || tuple_shapes)
		return fail(msg, msg_size, -ENOTSUP, "a tuple shape where an array was expected");
	out->dtype = dtype_of(type);
	if (out->dtype == HCB_DT_INVALID)
		return fail(msg, msg_size, -ENOTSUP, "element type %llu has no numpy name",
			    (unsigned long long)type);
	/* row-major is minor_to_major = [n-1, ..., 0]; no layout means that too */
	if (layout && nm2m) {
		if (nm2m != ndims)
			return fail(msg, msg_size, -EBADMSG, "layout of %u dimensions for %u", nm2m, ndims);
		for (unsigned int i = 0; i < nm2m; i++)
			if (m2m[i] != ndims - 1 - i)
				return fail(msg, msg_size, -ENOTSUP, "a layout other than row-major");
	}
	out->ndim = ndims;
	for (unsigned int i = 0; i < ndims; i++) {
		/* an int64 in the proto: negative means dynamic or broken */
		if (dims[i] >> 62)
			return fail(msg, msg_size, -EBADMSG, "dimension %u is %lld", i, (long long)dims[i]);
		out->dims[i] = dims[i];
		if (dims[i] && elems > (UINT64_C(1) << 62) / dims[i])
			return fail(msg, msg_size, -E2BIG, "too many elements");
		elems *= dims[i];
	}
	if (elems > (UINT64_C(1) << 62) / hcb_dtype_size(out->dtype))
		return fail(msg, msg_size, -E2BIG, "too many bytes");
	out->nbytes = elems * hcb_dtype_size(out->dtype);
	return 0;
}
