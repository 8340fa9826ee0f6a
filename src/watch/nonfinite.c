/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "core/dtype.h"
#include "nonfinite.h"

/*
 * A dtype whose non-finite values are exactly the lanes (elements) where
 * (v & mask) == value: an exponent field all ones (float16 to float64,
 * float8_e5m2, _e4m3, _e3m4), one NaN pattern (float8_e4m3fn: S1111111,
 * the fnuz kinds: 0x80, e8m0fnu: 0xff).  Words of 8 bytes are tested a
 * block at a time with the has-a-zero-lane trick on (x & mask) ^ value,
 * branch-free; only a block where some lane may match is looked at lane by
 * lane.
 */
struct lanes {
	unsigned int width;      /* bytes a lane */
	uint64_t mask, value;
};

static uint64_t repeat(uint64_t v, unsigned int width)
{
	uint64_t r = 0;

	for (unsigned int i = 0; i < 8 / width; i++)
		r |= v << (i * width * 8);
	return r;
}

static bool lane_matches(const struct lanes *l, const unsigned char *p)
{
	uint64_t v = 0;

	memcpy(&v, p, l->width);   /* little endian */
	return (v & l->mask) == l->value;
}

#define BLOCK_BYTES 64u

static int64_t scan_lanes(const struct lanes *l, const unsigned char *p, uint64_t n)
{
	const uint64_t m = repeat(l->mask, l->width), v = repeat(l->value, l->width);
	const uint64_t ones = repeat(1, l->width);
	const uint64_t highs = repeat(1ull << (l->width * 8 - 1), l->width);
	uint64_t bytes = n * l->width, i = 0;

	for (; i + BLOCK_BYTES <= bytes; i += BLOCK_BYTES) {
		uint64_t any = 0;

		for (unsigned int k = 0; k < BLOCK_BYTES; k += 8) {
			uint64_t x, y;

			memcpy(&x, p + i + k, 8);
			y = (x & m) ^ v;
			any |= (y - ones) & ~y & highs;
		}
		/* a lane may match (the trick can flag a lane next to one
		 * that does, never miss one): look lane by lane */
		for (uint64_t k = i; any && k < i + BLOCK_BYTES; k += l->width)
			if (lane_matches(l, p + k))
				return (int64_t)(k / l->width);
	}
	for (; i < bytes; i += l->width)
		if (lane_matches(l, p + i))
			return (int64_t)(i / l->width);
	return -1;
}

/* The rule of each float dtype whose non-finite values are lanes so,
 * checked against the decoder's values at first use (narrow_init). */
static const struct lanes rules[HCB_DT__COUNT] = {
	[HCB_DT_FLOAT16] = { 2, 0x7c00, 0x7c00 },
	[HCB_DT_BFLOAT16] = { 2, 0x7f80, 0x7f80 },
	[HCB_DT_FLOAT32] = { 4, 0x7f800000, 0x7f800000 },
	[HCB_DT_COMPLEX64] = { 4, 0x7f800000, 0x7f800000 },
	[HCB_DT_FLOAT64] = { 8, 0x7ff0000000000000ull, 0x7ff0000000000000ull },
	[HCB_DT_COMPLEX128] = { 8, 0x7ff0000000000000ull, 0x7ff0000000000000ull },
	[HCB_DT_FLOAT8_E4M3FN] = { 1, 0x7f, 0x7f },
	[HCB_DT_FLOAT8_E5M2] = { 1, 0x7c, 0x7c },
	[HCB_DT_FLOAT8_E4M3] = { 1, 0x78, 0x78 },
	[HCB_DT_FLOAT8_E3M4] = { 1, 0x70, 0x70 },
	[HCB_DT_FLOAT8_E4M3FNUZ] = { 1, 0xff, 0x80 },
	[HCB_DT_FLOAT8_E4M3B11FNUZ] = { 1, 0xff, 0x80 },
	[HCB_DT_FLOAT8_E5M2FNUZ] = { 1, 0xff, 0x80 },
	[HCB_DT_FLOAT8_E8M0FNU] = { 1, 0xff, 0xff },
};

/* The byte-wide floats: which of the 256 values are not finite, per dtype,
 * as the decoder reads them (one truth for what is shown and what fires). */
static unsigned char narrow[HCB_DT__COUNT][256];
/* rules[t] says what the table does (byte-wide) or is a wide type's */
static bool rule_ok[HCB_DT__COUNT];
static pthread_once_t narrow_once = PTHREAD_ONCE_INIT;

static void narrow_init(void)
{
	for (unsigned int t = 0; t < HCB_DT__COUNT; t++) {
		if (!hcb_dtype_is_float(t))
			continue;
		rule_ok[t] = rules[t].width > 1;
		if (hcb_dtype_size(t) != 1)
			continue;
		rule_ok[t] = rules[t].width == 1;
		for (unsigned int v = 0; v < 256; v++) {
			unsigned char b = (unsigned char)v;

			/* sub-byte floats: their value in the low bits */
			if (hcb_dtype_bits(t) < 8 && v >> hcb_dtype_bits(t))
				continue;
			narrow[t][v] = !isfinite(hcb_elem_to_double(t, &b));
			if (rules[t].width == 1 && narrow[t][v] != ((v & rules[t].mask) == rules[t].value))
				rule_ok[t] = false;
		}
	}
}

static int64_t scan_narrow(unsigned int t, const unsigned char *p, uint64_t n)
{
	const unsigned char *bad = narrow[t];

	for (uint64_t i = 0; i < n; i++)
		if (bad[p[i]])
			return (int64_t)i;
	return -1;
}

/* Where in n elements of dtype t the first is, as an index into the
 * scalars (a complex element is two). */
static int64_t scan(unsigned int t, const unsigned char *p, uint64_t n)
{
	if (hcb_dtype_is_complex(t))
		return scan_lanes(&rules[t], p, 2 * n);
	if (!hcb_dtype_is_float(t))
		return -1;
	pthread_once(&narrow_once, narrow_init);
	if (rules[t].width && rule_ok[t])
		return scan_lanes(&rules[t], p, n);
	return hcb_dtype_size(t) == 1 ? scan_narrow(t, p, n) : -1;
}

int64_t hcb_first_nonfinite(unsigned int dtype, const void *p, uint64_t n, double *value)
{
	bool cplx = dtype == HCB_DT_COMPLEX64 || dtype == HCB_DT_COMPLEX128;
	int64_t i = dtype < HCB_DT__COUNT ? scan(dtype, p, n) : -1;

	if (i < 0 || !value)
		return cplx && i >= 0 ? i / 2 : i;
	if (cplx) {
		unsigned int part = dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64;

		*value = hcb_elem_to_double(part, (const unsigned char *)p + i * hcb_dtype_size(part));
		return i / 2;
	}
	*value = hcb_elem_to_double(dtype, (const unsigned char *)p + i * hcb_dtype_size(dtype));
	return i;
}

int hcb_tap_nonfinite(const struct hcb_consumer *c, const unsigned char *p,
		      struct hcb_nonfinite_at *at)
{
	for (unsigned int l = 0; l < c->nleaves; l++) {
		const struct hcb_leaf_shape *s = &c->leaves[l];
		int64_t i = hcb_first_nonfinite(s->dtype, p, s->nelems, &at->value);

		if (i >= 0) {
			at->leaf = l;
			at->index = (uint64_t)i;
			return 1;
		}
		p += s->nbytes;
	}
	return 0;
}
