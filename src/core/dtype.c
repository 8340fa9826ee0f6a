/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "dtype.h"

/*
 * How a narrow float's bits read, and what it holds in place of what it
 * cannot (ml_dtypes' rules, which jax.numpy's types are).
 */
enum nf_kind {
	NF_NONE,   /* not a narrow float */
	NF_IEEE,   /* the top exponent holds inf (mantissa 0) and the NaNs */
	NF_FN,     /* no inf; the top exponent holds numbers, S.1..1.1..1 is NaN */
	NF_FNUZ,   /* no inf, no -0: 0x80 alone is NaN, the top exponent numbers */
	NF_E8M0,   /* unsigned, no zero: bits b are 2^(b - 127), 0xff is NaN */
	NF_SAT,    /* no inf, no NaN (float4_e2m1fn): too large saturates */
};

struct nfmt {
	unsigned char ebits, mbits, bias, kind;
};

static const struct {
	const char *name;
	unsigned char size, bits;   /* bytes it takes, bits its value has */
	struct nfmt f;              /* floats: exponent, mantissa, bias, kind */
} dtypes[HCB_DT__COUNT] = {
	[HCB_DT_BOOL] = { "bool", 1, 8, { 0 } },
	[HCB_DT_INT8] = { "int8", 1, 8, { 0 } },
	[HCB_DT_INT16] = { "int16", 2, 16, { 0 } },
	[HCB_DT_INT32] = { "int32", 4, 32, { 0 } },
	[HCB_DT_INT64] = { "int64", 8, 64, { 0 } },
	[HCB_DT_UINT8] = { "uint8", 1, 8, { 0 } },
	[HCB_DT_UINT16] = { "uint16", 2, 16, { 0 } },
	[HCB_DT_UINT32] = { "uint32", 4, 32, { 0 } },
	[HCB_DT_UINT64] = { "uint64", 8, 64, { 0 } },
	[HCB_DT_FLOAT16] = { "float16", 2, 16, { 5, 10, 15, NF_IEEE } },
	[HCB_DT_BFLOAT16] = { "bfloat16", 2, 16, { 8, 7, 127, NF_IEEE } },
	[HCB_DT_FLOAT32] = { "float32", 4, 32, { 0 } },
	[HCB_DT_FLOAT64] = { "float64", 8, 64, { 0 } },
	[HCB_DT_COMPLEX64] = { "complex64", 8, 64, { 0 } },
	[HCB_DT_COMPLEX128] = { "complex128", 16, 128, { 0 } },
	[HCB_DT_FLOAT8_E4M3FN] = { "float8_e4m3fn", 1, 8, { 4, 3, 7, NF_FN } },
	[HCB_DT_FLOAT8_E5M2] = { "float8_e5m2", 1, 8, { 5, 2, 15, NF_IEEE } },
	[HCB_DT_FLOAT8_E3M4] = { "float8_e3m4", 1, 8, { 3, 4, 3, NF_IEEE } },
	[HCB_DT_FLOAT8_E4M3] = { "float8_e4m3", 1, 8, { 4, 3, 7, NF_IEEE } },
	[HCB_DT_FLOAT8_E4M3FNUZ] = { "float8_e4m3fnuz", 1, 8, { 4, 3, 8, NF_FNUZ } },
	[HCB_DT_FLOAT8_E4M3B11FNUZ] = { "float8_e4m3b11fnuz", 1, 8, { 4, 3, 11, NF_FNUZ } },
	[HCB_DT_FLOAT8_E5M2FNUZ] = { "float8_e5m2fnuz", 1, 8, { 5, 2, 16, NF_FNUZ } },
	[HCB_DT_FLOAT8_E8M0FNU] = { "float8_e8m0fnu", 1, 8, { 8, 0, 127, NF_E8M0 } },
	[HCB_DT_FLOAT4_E2M1FN] = { "float4_e2m1fn", 1, 4, { 2, 1, 1, NF_SAT } },
	[HCB_DT_INT2] = { "int2", 1, 2, { 0 } },
	[HCB_DT_INT4] = { "int4", 1, 4, { 0 } },
	[HCB_DT_UINT2] = { "uint2", 1, 2, { 0 } },
	[HCB_DT_UINT4] = { "uint4", 1, 4, { 0 } },
};

const char *hcb_dtype_name(unsigned int dtype)
{
	return dtype < HCB_DT__COUNT ? dtypes[dtype].name : NULL;
}

size_t hcb_dtype_size(unsigned int dtype)
{
	return dtype < HCB_DT__COUNT ? dtypes[dtype].size : 0;
}

unsigned int hcb_dtype_bits(unsigned int dtype)
{
	return dtype < HCB_DT__COUNT ? dtypes[dtype].bits : 0;
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
	return t == HCB_DT_FLOAT32 || t == HCB_DT_FLOAT64 ||
	       (t < HCB_DT__COUNT && dtypes[t].f.kind != NF_NONE);
}

int hcb_dtype_is_complex(unsigned int t)
{
	return t == HCB_DT_COMPLEX64 || t == HCB_DT_COMPLEX128;
}

int hcb_dtype_is_signed(unsigned int t)
{
	return (t >= HCB_DT_INT8 && t <= HCB_DT_INT64) || t == HCB_DT_INT2 || t == HCB_DT_INT4;
}

int hcb_dtype_is_unsigned(unsigned int t)
{
	return (t >= HCB_DT_UINT8 && t <= HCB_DT_UINT64) || t == HCB_DT_UINT2 || t == HCB_DT_UINT4;
}

int hcb_dtype_float_format(unsigned int t, int *mant_bits, int *min_exp)
{
	if (t == HCB_DT_FLOAT32 || t == HCB_DT_FLOAT64) {
		*mant_bits = t == HCB_DT_FLOAT32 ? 23 : 52;
		*min_exp = t == HCB_DT_FLOAT32 ? -126 : -1022;
		return 0;
	}
	if (t >= HCB_DT__COUNT || dtypes[t].f.kind == NF_NONE)
		return -EINVAL;
	*mant_bits = dtypes[t].f.mbits;
	*min_exp = 1 - dtypes[t].f.bias;
	return 0;
}

void hcb_dtype_int_range(unsigned int t, int64_t *min, uint64_t *max)
{
	unsigned int bits = hcb_dtype_bits(t);

	if (hcb_dtype_is_signed(t)) {
		*min = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
		*max = bits == 64 ? INT64_MAX : (UINT64_C(1) << (bits - 1)) - 1;
	} else {
		*min = 0;
		*max = t == HCB_DT_BOOL ? 1 : bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	}
}

void hcb_int_store(unsigned int t, uint64_t v, void *p)
{
	unsigned int bits = hcb_dtype_bits(t);

	/* two's complement, little endian: the low bytes; a sub-byte
	 * element's bits above its own are zero */
	if (bits < 8)
		v &= (1u << bits) - 1;
	memcpy(p, &v, hcb_dtype_size(t));
}

uint64_t hcb_packed_bytes(unsigned int t, uint64_t n)
{
	unsigned int bits = hcb_dtype_bits(t);

	return bits < 8 ? (n * bits + 7) / 8 : n * hcb_dtype_size(t);
}

void hcb_unpack_subbyte(unsigned int t, unsigned char *dst, const unsigned char *src, uint64_t n)
{
	unsigned int bits = hcb_dtype_bits(t), per = 8 / bits, mask = (1u << bits) - 1;

	for (uint64_t i = 0; i < n; i++)
		dst[i] = (unsigned char)(src[i / per] >> (i % per * bits) & mask);
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

/* One byte of a narrow float of format f (only its low ebits + mbits + 1
 * bits count, e8m0 all 8) as a double. */
static double nf_decode(const struct nfmt *f, unsigned int v)
{
	unsigned int top = f->ebits + f->mbits, emax = (1u << f->ebits) - 1;
	unsigned int mmask = (1u << f->mbits) - 1, e, m;
	double r;

	if (f->kind == NF_E8M0)
		return v == 0xff ? NAN : ldexp(1, (int)v - 127);
	v &= (2u << top) - 1;
	e = (v >> f->mbits) & emax;
	m = v & mmask;
	if (f->kind == NF_FNUZ && v == 1u << top)
		return NAN;
	if (f->kind == NF_IEEE && e == emax)
		return m ? NAN : (v >> top) ? -INFINITY : INFINITY;
	if (f->kind == NF_FN && e == emax && m == mmask)
		return NAN;
	r = e ? ldexp(m | (1u << f->mbits), (int)e - f->bias - f->mbits) :
		ldexp(m, 1 - f->bias - f->mbits);
	return (v >> top) ? -r : r;
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
		if (hcb_dtype_is_float(t))
			return nf_decode(&dtypes[t].f, LOAD(uint8_t, p));
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
	case HCB_DT_INT2:
	case HCB_DT_INT4: {
		/* the low bits, sign extended: the bits above are not looked at */
		unsigned int up = 8 - hcb_dtype_bits(t);

		return (int8_t)(uint8_t)(LOAD(uint8_t, p) << up) >> up;
	}
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
	case HCB_DT_UINT2:
	case HCB_DT_UINT4: return LOAD(uint8_t, p) & ((1u << hcb_dtype_bits(t)) - 1);
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

/* ---- ml_dtypes' conversion of a float32 into a narrow float ---- */

static uint32_t nf_top(const struct nfmt *f)
{
	return 1u << (f->ebits + f->mbits);   /* the sign bit (e8m0: none, 256) */
}

/* The largest finite value's bits. */
static uint32_t nf_max(const struct nfmt *f)
{
	uint32_t emax = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;

	switch (f->kind) {
	case NF_IEEE: return (emax - 1) << f->mbits | mmask;
	case NF_FN: return emax << f->mbits | (mmask - 1);
	case NF_E8M0: return 0xfe;
	default: return emax << f->mbits | mmask;
	}
}

/* What stands for infinity (and for a value too large): inf, NaN or the
 * largest value. */
static uint32_t nf_inf(const struct nfmt *f)
{
	switch (f->kind) {
	case NF_IEEE: return ((1u << f->ebits) - 1) << f->mbits;
	case NF_FN: return nf_top(f) - 1;
	case NF_FNUZ: return 0x80;
	case NF_E8M0: return 0xff;
	default: return nf_max(f);
	}
}

/* -r: fnuz has no -0 and its NaN stays; e8m0 has no sign. */
static uint32_t nf_neg(const struct nfmt *f, uint32_t sign, uint32_t r)
{
	if (!sign || f->kind == NF_E8M0 || (f->kind == NF_FNUZ && !(r & 0x7f)))
		return r;
	return r ^ nf_top(f);
}

/* NaN: the quiet NaN with its sign; float4 has none and stands -0 in for
 * it, which a negative NaN negates to +0 (as ml_dtypes does). */
static uint32_t nf_nan(const struct nfmt *f, uint32_t sign)
{
	switch (f->kind) {
	case NF_IEEE: return nf_neg(f, sign, nf_inf(f) | 1u << (f->mbits - 1));
	case NF_SAT: return nf_neg(f, sign, nf_top(f));
	default: return nf_neg(f, sign, nf_inf(f));
	}
}

/*
 * x rounded to the nearest value of f, ties to even, as ml_dtypes converts
 * a float32 (and a double, through float32); what f cannot hold becomes
 * what ml_dtypes makes of it: nf_inf() past the largest, NaN for zero or
 * a negative value in e8m0, +0 for a fnuz -0.
 */
static uint32_t round_f32(const struct nfmt *f, float x)
{
	uint32_t u, a, mant, sign, r;
	int unb, base, shift;

	memcpy(&u, &x, sizeof(u));
	sign = u >> 31;
	a = u & 0x7fffffff;
	if (a > 0x7f800000)
		return nf_nan(f, sign);
	if (a == 0x7f800000)
		return nf_neg(f, sign, nf_inf(f));
	if (f->kind == NF_E8M0 && (a == 0 || sign))
		return 0xff;
	if (a == 0)
		return nf_neg(f, sign, 0);
	if (a >> 23) {
		unb = (int)(a >> 23) - 127;
		mant = (a & 0x7fffff) | 0x800000;
	} else {   /* a float32 subnormal, normalized */
		int lz = __builtin_clz(a) - 8;

		mant = a << lz;
		unb = -126 - lz;
	}
	/* the target's biased exponent less one: the implicit bit, kept in
	 * mant, adds the one back (and a carry out of rounding one more) */
	base = unb + f->bias - 1;
	shift = 23 - f->mbits + (base < 0 ? -base : 0);
	if (shift > 25)
		shift = 25;   /* far below the smallest step: all rounds to 0 */
	mant += ((mant >> shift) & 1) + (1u << (shift - 1)) - 1;
	r = (mant >> shift) + ((uint32_t)(base > 0 ? base : 0) << f->mbits);
	if (r > nf_max(f))
		r = nf_inf(f);
	return nf_neg(f, sign, r);
}

uint32_t hcb_double_to_narrow_bits(unsigned int dtype, double v)
{
	switch (dtype) {
	case HCB_DT_FLOAT16: return round_to_format(v, 5, 10, 0);
	case HCB_DT_BFLOAT16: return round_to_format(v, 8, 7, 0);
	case HCB_DT_FLOAT8_E4M3FN: return round_to_format(v, 4, 3, 1);
	case HCB_DT_FLOAT8_E5M2: return round_to_format(v, 5, 2, 0);
	default:
		if (!hcb_dtype_is_float(dtype) || hcb_dtype_size(dtype) != 1)
			return 0;
		return round_f32(&dtypes[dtype].f, (float)v);
	}
}
