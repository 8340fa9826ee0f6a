/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "dtype.h"

static const struct {
	const char *name;
	size_t size;
} dtypes[HCB_DT__COUNT] = {
	[HCB_DT_BOOL] = { "bool", 1 },
	[HCB_DT_INT8] = { "int8", 1 },
	[HCB_DT_INT16] = { "int16", 2 },
	[HCB_DT_INT32] = { "int32", 4 },
	[HCB_DT_INT64] = { "int64", 8 },
	[HCB_DT_UINT8] = { "uint8", 1 },
	[HCB_DT_UINT16] = { "uint16", 2 },
	[HCB_DT_UINT32] = { "uint32", 4 },
	[HCB_DT_UINT64] = { "uint64", 8 },
	[HCB_DT_FLOAT16] = { "float16", 2 },
	[HCB_DT_BFLOAT16] = { "bfloat16", 2 },
	[HCB_DT_FLOAT32] = { "float32", 4 },
	[HCB_DT_FLOAT64] = { "float64", 8 },
	[HCB_DT_COMPLEX64] = { "complex64", 8 },
	[HCB_DT_COMPLEX128] = { "complex128", 16 },
	[HCB_DT_FLOAT8_E4M3FN] = { "float8_e4m3fn", 1 },
	[HCB_DT_FLOAT8_E5M2] = { "float8_e5m2", 1 },
};

const char *hcb_dtype_name(unsigned int dtype)
{
	return dtype < HCB_DT__COUNT ? dtypes[dtype].name : NULL;
}

size_t hcb_dtype_size(unsigned int dtype)
{
	return dtype < HCB_DT__COUNT ? dtypes[dtype].size : 0;
}

enum hcb_dtype hcb_dtype_from_name(const char *name)
{
	for (unsigned int i = 1; i < HCB_DT__COUNT; i++)
		if (strcmp(dtypes[i].name, name) == 0)
			return (enum hcb_dtype)i;
	return HCB_DT_INVALID;
}

int hcb_dtype_is_float(unsigned int t)
{
	return t == HCB_DT_FLOAT16 || t == HCB_DT_BFLOAT16 || t == HCB_DT_FLOAT32 ||
	       t == HCB_DT_FLOAT64 || t == HCB_DT_FLOAT8_E4M3FN || t == HCB_DT_FLOAT8_E5M2;
}

int hcb_dtype_is_complex(unsigned int t)
{
	return t == HCB_DT_COMPLEX64 || t == HCB_DT_COMPLEX128;
}

int hcb_dtype_is_signed(unsigned int t)
{
	return t >= HCB_DT_INT8 && t <= HCB_DT_INT64;
}

int hcb_dtype_is_unsigned(unsigned int t)
{
	return t >= HCB_DT_UINT8 && t <= HCB_DT_UINT64;
}

double hcb_half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m | 0x400, e - 25);
	return (h & 0x8000) ? -v : v;
}

double hcb_bfloat16_to_double(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* float8_e4m3fn: bias 7, no infinities, only S.1111.111 is NaN. */
double hcb_f8e4m3fn_to_double(uint8_t v)
{
	int e = (v >> 3) & 0xf, m = v & 7;
	double r;

	if (e == 15 && m == 7)
		return NAN;
	r = e ? ldexp(m | 8, e - 10) : ldexp(m, -9);
	return (v & 0x80) ? -r : r;
}

/* float8_e5m2: IEEE-like, bias 15. */
double hcb_f8e5m2_to_double(uint8_t v)
{
	return hcb_half_to_double((uint16_t)v << 8);
}

#define LOAD(T, p) ({ T _v; memcpy(&_v, (p), sizeof(_v)); _v; })

double hcb_elem_to_double(unsigned int t, const void *p)
{
	switch (t) {
	case HCB_DT_FLOAT16: return hcb_half_to_double(LOAD(uint16_t, p));
	case HCB_DT_BFLOAT16: return hcb_bfloat16_to_double(LOAD(uint16_t, p));
	case HCB_DT_FLOAT32:
	case HCB_DT_COMPLEX64: return LOAD(float, p);
	case HCB_DT_FLOAT64:
	case HCB_DT_COMPLEX128: return LOAD(double, p);
	case HCB_DT_FLOAT8_E4M3FN: return hcb_f8e4m3fn_to_double(LOAD(uint8_t, p));
	case HCB_DT_FLOAT8_E5M2: return hcb_f8e5m2_to_double(LOAD(uint8_t, p));
	default:
		if (hcb_dtype_is_unsigned(t) || t == HCB_DT_BOOL)
			return (double)hcb_elem_to_u64(t, p);
		return (double)hcb_elem_to_i64(t, p);
	}
}

int64_t hcb_elem_to_i64(unsigned int t, const void *p)
{
	switch (t) {
	case HCB_DT_BOOL: return LOAD(uint8_t, p) != 0;
	case HCB_DT_INT8: return LOAD(int8_t, p);
	case HCB_DT_INT16: return LOAD(int16_t, p);
	case HCB_DT_INT32: return LOAD(int32_t, p);
	case HCB_DT_INT64: return LOAD(int64_t, p);
	default: return hcb_dtype_is_unsigned(t) ? (int64_t)hcb_elem_to_u64(t, p) : 0;
	}
}

uint64_t hcb_elem_to_u64(unsigned int t, const void *p)
{
	switch (t) {
	case HCB_DT_BOOL: return LOAD(uint8_t, p) != 0;
	case HCB_DT_UINT8: return LOAD(uint8_t, p);
	case HCB_DT_UINT16: return LOAD(uint16_t, p);
	case HCB_DT_UINT32: return LOAD(uint32_t, p);
	case HCB_DT_UINT64: return LOAD(uint64_t, p);
	default: return hcb_dtype_is_signed(t) ? (uint64_t)hcb_elem_to_i64(t, p) : 0;
	}
}

int hcb_shape_elems(unsigned int ndim, const uint64_t *dims, uint64_t *count)
{
	uint64_t n = 1;

	for (unsigned int i = 0; i < ndim; i++) {
		if (dims[i] && n > (UINT64_C(1) << 62) / dims[i])
			return -EOVERFLOW;
		n *= dims[i];
	}
	*count = n;
	return 0;
}

/* Round a double into a small binary float format: ebits of exponent,
 * mbits of mantissa, IEEE layout.  fn: "finite" e4m3 style, where the top
 * exponent holds numbers and only all-ones is NaN. */
static uint32_t round_to_format(double v, int ebits, int mbits, int fn)
{
	uint32_t sign = signbit(v) ? 1u << (ebits + mbits) : 0;
	uint32_t expmax = (1u << ebits) - 1, nan = sign | (expmax << mbits) | ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1, e;
	double a = fabs(v), q;
	uint32_t biased, mant;

	if (isnan(v))
		return fn ? nan : (expmax << mbits) | (1u << (mbits - 1));
	if (a == 0)
		return sign;
	if (isinf(a))
		return fn ? nan : sign | (expmax << mbits);
	frexp(a, &e);
	e -= 1;   /* a = 1.f * 2^e */
	if (e < 1 - bias) {
		/* subnormal: a multiple of the smallest step; rounding up may
		 * reach the smallest normal, whose bits follow on directly */
		q = nearbyint(ldexp(a, bias - 1 + mbits));
		return sign | (uint32_t)q;
	}
	q = nearbyint(ldexp(a, mbits - e));
	if (q >= ldexp(1, mbits + 1)) {
		q /= 2;
		e++;
	}
	biased = (uint32_t)(e + bias);
	mant = (uint32_t)q - (1u << mbits);
	if (fn) {
		if (biased > expmax || (biased == expmax && mant == (1u << mbits) - 1))
			return nan;
	} else if (biased >= expmax) {
		return sign | (expmax << mbits);   /* inf */
	}
	return sign | biased << mbits | mant;
}

uint32_t hcb_double_to_narrow_bits(unsigned int dtype, double v)
{
	switch (dtype) {
	case HCB_DT_FLOAT16: return round_to_format(v, 5, 10, 0);
	case HCB_DT_BFLOAT16: return round_to_format(v, 8, 7, 0);
	case HCB_DT_FLOAT8_E4M3FN: return round_to_format(v, 4, 3, 1);
	case HCB_DT_FLOAT8_E5M2: return round_to_format(v, 5, 2, 0);
	default: return 0;
	}
}
