/* SPDX-License-Identifier: MIT */
/*
 * diff_isclose.c - numpy's isclose rule, element by element, and the statistics
 * of a difference (assert_allclose's max absolute and relative difference,
 * the first mismatches): what the diff engine (diff.c) asks of each pair of
 * leaves of one dtype and shape.  diff.h words the rule.
 */
#include <math.h>
#include <string.h>

#include "core/dtype.h"
#include "isclose.h"

/* numpy runs each operation as its own ufunc: never fuse a*b+c */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Tolerances for one dtype: rtol and atol rounded to the compute type. */
struct tol {
	unsigned int ct;        /* compute type: float16 ... float64 */
	unsigned int rct;       /* assert_allclose's: the dtype's own */
	int cplx;
	int equal_nan;
	int nonneg;             /* rtol, atol >= 0: equal values always match */
	int scalar;             /* a 0-d leaf: numpy's scalar math */
	double rtol, atol;
};

/* The dtype numpy computes isclose in (result_type(ref, 1.0)), as a real
 * type.  float8_e8m0fnu holds no zero, so no difference of two equal
 * values: float32, which ml_dtypes' ufuncs compute its values in. */
static unsigned int compute_type(unsigned int dtype)
{
	if (dtype == HCB_DT_FLOAT8_E8M0FNU)
		return HCB_DT_FLOAT32;
	if (hcb_dtype_is_float(dtype))
		return dtype;
	if (dtype == HCB_DT_COMPLEX64)
		return HCB_DT_FLOAT32;
	return HCB_DT_FLOAT64;   /* complex128, integers, bool */
}

/* v rounded to the compute type ct, as storing a ufunc's result would. */
static inline __attribute__((always_inline)) double rnd(unsigned int ct, double v)
{
	uint32_t bits;

	switch (ct) {
	case HCB_DT_FLOAT64:
		return v;
	case HCB_DT_FLOAT32:
		return (float)v;
	default:
		bits = hcb_double_to_narrow_bits(ct, v);
		return hcb_elem_to_double(ct, &bits);
	}
}

/*
 * ndim 0: numpy's value-based casting treats a 0-d array like a scalar, so
 * result_type(ref, 1.0) is float64 (complex128) whatever the dtype, and
 * isclose computes in double; assert_allclose's differences do not.
 */
static void tol_init(struct tol *t, unsigned int dtype, unsigned int ndim,
		     const struct hcb_diff_opts *o)
{
	t->rct = compute_type(dtype);
	t->ct = ndim == 0 ? HCB_DT_FLOAT64 : t->rct;
	t->cplx = hcb_dtype_is_complex(dtype);
	t->scalar = ndim == 0;
	t->equal_nan = o->equal_nan;
	t->rtol = rnd(t->ct, o->rtol);
	t->atol = rnd(t->ct, o->atol);
	/* then |x - y| = 0 <= atol + rtol*|y| always (rtol = inf: inf*0 is NaN) */
	t->nonneg = t->rtol >= 0 && t->atol >= 0 && isfinite(t->rtol);
}

/* An element as numpy sees it after promotion: (re, im) in double. */
static inline __attribute__((always_inline)) void load(unsigned int dtype, const unsigned char *p, double *re, double *im)
{
	switch (dtype) {
	case HCB_DT_FLOAT64: {
		double v;

		memcpy(&v, p, sizeof(v));
		*re = v, *im = 0;
		return;
	}
	case HCB_DT_FLOAT32: {
		float v;

		memcpy(&v, p, sizeof(v));
		*re = v, *im = 0;
		return;
	}
	case HCB_DT_COMPLEX64:
		*re = hcb_elem_to_double(HCB_DT_FLOAT32, p);
		*im = hcb_elem_to_double(HCB_DT_FLOAT32, p + 4);
		return;
	case HCB_DT_COMPLEX128:
		*re = hcb_elem_to_double(HCB_DT_FLOAT64, p);
		*im = hcb_elem_to_double(HCB_DT_FLOAT64, p + 8);
		return;
	default:
		*re = hcb_elem_to_double(dtype, p);
		*im = 0;
	}
}

static inline int both_nan(const struct tol *t, double xr, double xi, double yr, double yi)
{
	return (isnan(xr) || (t->cplx && isnan(xi))) && (isnan(yr) || (t->cplx && isnan(yi)));
}

/*
 * |re + i im| as numpy 1.26 computes complex absolute values (its SIMD loop,
 * loops_unary_complex.dispatch.c.src, taken on every x86-64 CPU for
 * contiguous arrays): an infinite part makes it inf, else a NaN part NaN,
 * else larger * sqrt(fma(ratio, ratio, 1)) with ratio = smaller / larger, in
 * the part's type (the FMA as on CPUs with AVX2/FMA3 or AVX-512).
 */
static inline double np_cabs(unsigned int ct, double re, double im)
{
	double larger, smaller, ratio;

	re = fabs(re);
	im = fabs(im);
	if (isinf(re) || isinf(im))
		return INFINITY;
	if (isnan(re) || isnan(im))
		return NAN;
	larger = re > im ? re : im;
	smaller = re > im ? im : re;
	if (larger == 0)
		return 0;
	if (ct == HCB_DT_FLOAT32) {
		float ratio32 = (float)smaller / (float)larger;

		return sqrtf(fmaf(ratio32, ratio32, 1.0f)) * (float)larger;
	}
	ratio = smaller / larger;
	return sqrt(fma(ratio, ratio, 1.0)) * larger;
}

/*
 * |x - y| of isclose's within_tol: for a 0-d leaf, x - y of two 0-d arrays
 * is a numpy scalar, whose abs is scalar math's npy_hypot (C's hypot), not
 * the array loop's (abs(y) stays the loop's: y is still an array); the two
 * differ in the last bit, which decides a value on the boundary.
 * assert_allclose's differences are of x[~flagged], 1-d: the loop's.
 */
static inline double leaf_cabs(const struct tol *t, unsigned int ct, double re, double im)
{
	if (t->scalar)
		return ct == HCB_DT_FLOAT32 ? (double)hypotf((float)re, (float)im) : hypot(re, im);
	return np_cabs(ct, re, im);
}

/*
 * numpy.isclose(x=new, y=ref) for one element (numpy/core/numeric.py,
 * v1.26.4): within_tol(x, y) = |x - y| <= atol + rtol * |y| where both are
 * finite, else x == y, and NaN == NaN with equal_nan.
 *
 * Complex, faithfully: when an array holds a non-finite element, numpy
 * multiplies both by ones_like() first, and (inf + 0j) * (1 + 0j) is
 * inf + nanj.  So a complex infinity never equals another, and with
 * equal_nan it matches any non-finite complex value.
 */
static inline __attribute__((always_inline)) int close_elem(const struct tol *t, double xr, double xi, double yr, double yi)
{
	unsigned int ct = t->ct;
	double d, ay;

	if (t->cplx) {
		double r;

		r = xr * 1 - xi * 0, xi = xr * 0 + xi * 1, xr = r;
		r = yr * 1 - yi * 0, yi = yr * 0 + yi * 1, yr = r;
	}
	if (xr == yr && xi == yi && t->nonneg)
		return 1;
	if (isfinite(xr) && isfinite(yr) && (!t->cplx || (isfinite(xi) && isfinite(yi)))) {
		if (t->cplx) {
			d = leaf_cabs(t, ct, rnd(ct, xr - yr), rnd(ct, xi - yi));
			ay = np_cabs(ct, yr, yi);   /* abs(y): y stays an array */
		} else {
			d = fabs(rnd(ct, xr - yr));
			ay = fabs(yr);
		}
		return d <= rnd(ct, t->atol + rnd(ct, t->rtol * ay));
	}
	if (xr == yr && xi == yi)
		return 1;
	return t->equal_nan && both_nan(t, xr, xi, yr, yi);
}

int hcb_isclose(unsigned int dtype, const void *ref, const void *new,
		const struct hcb_diff_opts *o)
{
	struct tol t;
	double xr, xi, yr, yi;

	tol_init(&t, dtype, 1, o);
	load(dtype, new, &xr, &xi);
	load(dtype, ref, &yr, &yi);
	return close_elem(&t, xr, xi, yr, yi);
}

/* Elements of n elements not close: the fast first pass over a leaf. */
static uint64_t count_mismatches(const struct tol *t, unsigned int dtype, size_t size,
				 const unsigned char *ref, const unsigned char *new, uint64_t n)
{
	uint64_t bad = 0;
	double xr, xi, yr, yi;

	if (!n)
		return 0;
	/* integers and bools hold no NaN: equal bytes are equal values */
	if (!hcb_dtype_is_float(dtype) && !hcb_dtype_is_complex(dtype) && t->nonneg &&
	    memcmp(ref, new, n * size) == 0)
		return 0;
	switch (dtype) {
	case HCB_DT_FLOAT64:
		for (uint64_t i = 0; i < n; i++) {
			load(HCB_DT_FLOAT64, new + i * 8, &xr, &xi);
			load(HCB_DT_FLOAT64, ref + i * 8, &yr, &yi);
			bad += !close_elem(t, xr, 0, yr, 0);
		}
		break;
	case HCB_DT_FLOAT32:
		for (uint64_t i = 0; i < n; i++) {
			load(HCB_DT_FLOAT32, new + i * 4, &xr, &xi);
			load(HCB_DT_FLOAT32, ref + i * 4, &yr, &yi);
			bad += !close_elem(t, xr, 0, yr, 0);
		}
		break;
	default:
		for (uint64_t i = 0; i < n; i++) {
			load(dtype, new + i * size, &xr, &xi);
			load(dtype, ref + i * size, &yr, &yi);
			bad += !close_elem(t, xr, xi, yr, yi);
		}
	}
	return bad;
}

/* |a - b| of two integers (or bools) of dtype, exactly. */
static uint64_t int_absdiff(unsigned int dtype, const unsigned char *a, const unsigned char *b)
{
	if (hcb_dtype_is_signed(dtype)) {
		int64_t x = hcb_elem_to_i64(dtype, a), y = hcb_elem_to_i64(dtype, b);

		return x >= y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
	} else {
		uint64_t x = hcb_elem_to_u64(dtype, a), y = hcb_elem_to_u64(dtype, b);

		return x >= y ? x - y : y - x;
	}
}

static double int_abs(unsigned int dtype, const unsigned char *a)
{
	if (hcb_dtype_is_signed(dtype)) {
		int64_t x = hcb_elem_to_i64(dtype, a);

		return (double)(x < 0 ? 0 - (uint64_t)x : (uint64_t)x);
	}
	return (double)hcb_elem_to_u64(dtype, a);
}

/* np.max: a NaN anywhere wins. */
static inline double nanmax(double m, double v)
{
	return isnan(m) || isnan(v) ? NAN : (v > m ? v : m);
}

/*
 * The second pass, over a leaf known to differ: mismatches with examples,
 * and assert_allclose's max absolute and relative differences.
 */
static void leaf_details(const struct tol *t, const struct hcb_leaf_shape *l, unsigned int max_examples,
			 const unsigned char *ref, const unsigned char *new, struct hcb_diff_leaf *out,
			 struct hcb_diff_example *ex)
{
	unsigned int dtype = l->dtype, ct = t->rct;
	size_t size = hcb_dtype_size(dtype);
	int isint = !hcb_dtype_is_float(dtype) && !hcb_dtype_is_complex(dtype);
	double max_abs = -INFINITY, max_rel = -INFINITY;
	int any_nonzero = 0, any = 0;

	out->mismatched = 0;
	out->nexamples = 0;
	out->examples = ex;
	out->diff_dtype = isint ? HCB_DT_INT64 : ct;
	for (uint64_t i = 0; i < l->nelems; i++) {
		const unsigned char *pr = ref + i * size, *pn = new + i * size;
		double xr, xi, yr, yi, err, ay;

		load(dtype, pn, &xr, &xi);
		load(dtype, pr, &yr, &yi);
		if (!close_elem(t, xr, xi, yr, yi)) {
			if (out->nexamples < max_examples) {
				struct hcb_diff_example *e = &ex[out->nexamples++];
				uint64_t rest = i;

				e->flat = i;
				for (unsigned int dim = l->ndim; dim-- > 0;) {
					e->index[dim] = l->dims[dim] ? rest % l->dims[dim] : 0;
					rest = l->dims[dim] ? rest / l->dims[dim] : 0;
				}
				memset(e->ref, 0, sizeof(e->ref));
				memset(e->new, 0, sizeof(e->new));
				memcpy(e->ref, pr, size);
				memcpy(e->new, pn, size);
			}
			out->mismatched++;
		}
		/* assert_array_compare leaves out NaN/NaN (equal_nan) and equal
		 * infinities ("xy == +inf": for complex, (inf, 0) only) */
		if (t->equal_nan && both_nan(t, xr, xi, yr, yi))
			continue;
		if (xr == yr && xi == yi && isinf(xr) && xi == 0)
			continue;
		any = 1;
		if (isint) {
			err = (double)int_absdiff(dtype, pn, pr);
			ay = int_abs(dtype, pr);
		} else if (t->cplx) {
			/* assert_allclose takes x[~flagged]: a 1-d array, the
			 * array loop's abs even for a 0-d leaf */
			err = np_cabs(ct, rnd(ct, xr - yr), rnd(ct, xi - yi));
			ay = np_cabs(ct, yr, yi);
		} else {
			err = fabs(rnd(ct, xr - yr));
			ay = fabs(yr);
		}
		max_abs = nanmax(max_abs, err);
		if (yr != 0 || yi != 0 || isnan(ay)) {
			any_nonzero = 1;
			max_rel = nanmax(max_rel, isint ? err / ay : rnd(ct, err / ay));
		}
	}
	out->max_abs = any ? max_abs : 0;
	out->max_rel = any_nonzero ? max_rel : INFINITY;
}

int hcb_isclose_leaf(const struct hcb_leaf_shape *l, const unsigned char *ref,
		     const unsigned char *new, const struct hcb_diff_opts *o,
		     struct hcb_diff_leaf *out, struct hcb_diff_example *ex)
{
	struct tol t;

	tol_init(&t, l->dtype, l->ndim, o);
	if (!count_mismatches(&t, l->dtype, hcb_dtype_size(l->dtype), ref, new, l->nelems))
		return 0;
	leaf_details(&t, l, o->max_examples, ref, new, out, ex);
	return 1;
}
