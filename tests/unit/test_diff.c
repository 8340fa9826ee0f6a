/* SPDX-License-Identifier: MIT */
/*
 * test_diff.c - the diff engine (src/diff/diff.h) on taps built in memory:
 * numpy.isclose's rule at its edges (the tolerance boundary exactly, NaN,
 * inf, -0.0, integers through float64, float16 tolerances, complex),
 * assert_allclose's max differences, dtype and shape mismatches, and the
 * alignment by (device, consumer, occurrence) with missing and extra taps.
 * Expected values were checked against numpy 1.26.4; the exhaustive check
 * against numpy is tests/tools/check_diff_isclose.py (tests/bats/diff.bats).
 *
 *	gcc -D_GNU_SOURCE -Isrc src/diff/diff.c src/diff/isclose.c src/core/dtype.c src/core/consumer.c src/core/registry.c \
 *		src/core/tree.c src/core/buf.c tests/unit/test_diff.c -lcmocka -lm
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/consumer.h"
#include "core/dtype.h"
#include "core/record.h"
#include "diff/diff.h"
#include "testcons.h"

/* ---- building consumers and taps ---- */

#define MAXC 16
static struct hcb_consumer *made[MAXC];
static unsigned int nmade;

/* A consumer of the given leaves; tree "*" or a tuple. */
static const struct hcb_consumer *consumer(uint32_t id, const char *name, unsigned int nleaves,
					   const struct hcb_leaf_spec *leaves)
{
	struct hcb_consumer_spec spec = { .name = name, .nleaves = nleaves, .leaves = leaves };
	struct hcb_consumer *c = test_consumer(&spec, id);

	assert_true(nmade < MAXC);
	made[nmade++] = c;
	return c;
}

static const struct hcb_consumer *leaf1(uint32_t id, const char *name, unsigned int dtype,
					unsigned int ndim, const uint64_t *dims)
{
	struct hcb_leaf_spec leaf = { .dtype = dtype, .ndim = ndim };

	if (ndim)
		memcpy(leaf.dims, dims, ndim * sizeof(*dims));
	return consumer(id, name, 1, &leaf);
}

static const uint64_t D2x3[] = { 2, 3 }, D1[] = { 1 }, D2[] = { 2 }, D3x2[] = { 3, 2 }, D4[] = { 4 };

/* What the callbacks saw. */
struct seen {
	unsigned int ntaps;
	struct hcb_diff_key key;
	char name[64];
	uint64_t seq[2];
	int leaves_differ, tree_differs;
	unsigned int nleaves;
	struct hcb_diff_leaf leaf[4];
	struct hcb_diff_example ex[4][8];
	unsigned int nun;
	struct {
		enum hcb_diff_side side;
		uint32_t device, id;
		char name[64];
		uint64_t index, count, first_seq, last_seq;
	} un[16];
};

static int on_tap(void *ctx, const struct hcb_diff_tap *t)
{
	struct seen *s = ctx;

	s->ntaps++;
	s->key = t->key;
	snprintf(s->name, sizeof(s->name), "%s", t->key.name ? t->key.name : "");
	s->key.name = NULL;
	memcpy(s->seq, t->seq, sizeof(s->seq));
	s->leaves_differ = t->leaves_differ;
	s->tree_differs = t->tree_differs;
	s->nleaves = t->nleaves;
	for (unsigned int i = 0; i < t->nleaves && i < 4; i++) {
		s->leaf[i] = t->leaves[i];
		for (unsigned int e = 0; e < t->leaves[i].nexamples && e < 8; e++)
			s->ex[i][e] = t->leaves[i].examples[e];
		s->leaf[i].examples = s->ex[i];
	}
	return 0;
}

static int on_unmatched(void *ctx, const struct hcb_diff_unmatched *u)
{
	struct seen *s = ctx;

	assert_true(s->nun < 16);
	s->un[s->nun].side = u->side;
	s->un[s->nun].device = u->key.device;
	s->un[s->nun].id = u->key.consumer_id;
	snprintf(s->un[s->nun].name, sizeof(s->un[0].name), "%s", u->key.name ? u->key.name : "");
	s->un[s->nun].index = u->key.index;
	s->un[s->nun].count = u->count;
	s->un[s->nun].first_seq = u->first_seq;
	s->un[s->nun].last_seq = u->last_seq;
	s->nun++;
	return 0;
}

static const struct hcb_diff_ops ops = { on_tap, on_unmatched };

static struct hcb_diff *new_diff(struct seen *s, double rtol, double atol, int equal_nan)
{
	struct hcb_diff_opts o;
	struct hcb_diff *d;

	hcb_diff_opts_default(&o);
	o.rtol = rtol;
	o.atol = atol;
	o.equal_nan = equal_nan;
	memset(s, 0, sizeof(*s));
	assert_int_equal(hcb_diff_new(&d, &o, &ops, s), 0);
	return d;
}

static void feed(struct hcb_diff *d, enum hcb_diff_side side, uint32_t device, uint64_t seq,
		 const struct hcb_consumer *c, const void *payload)
{
	struct hcb_record rec = { .kind = HCB_REC_TAP };

	rec.tap.device = device;
	rec.tap.seq = seq;
	rec.tap.consumer = c;
	rec.tap.payload = payload;
	assert_int_equal(hcb_diff_feed(d, side, &rec), 0);
}

/* One pair of one-leaf taps; returns the engine for inspection. */
static struct hcb_diff *pair(struct seen *s, double rtol, double atol, int equal_nan,
			     const struct hcb_consumer *cr, const void *ref,
			     const struct hcb_consumer *cn, const void *new)
{
	struct hcb_diff *d = new_diff(s, rtol, atol, equal_nan);

	feed(d, HCB_DIFF_REF, 0, 1, cr, ref);
	feed(d, HCB_DIFF_NEW, 0, 2, cn, new);
	assert_int_equal(hcb_diff_finish(d), 0);
	return d;
}

/* Mismatched elements of one float64 pair of scalars-as-[1]. */
static int close64(double ref, double new, double rtol, double atol, int equal_nan)
{
	struct hcb_diff_opts o;

	hcb_diff_opts_default(&o);
	o.rtol = rtol, o.atol = atol, o.equal_nan = equal_nan;
	return hcb_isclose(HCB_DT_FLOAT64, &ref, &new, &o);
}

static int close32(float ref, float new, double rtol, double atol, int equal_nan)
{
	struct hcb_diff_opts o;

	hcb_diff_opts_default(&o);
	o.rtol = rtol, o.atol = atol, o.equal_nan = equal_nan;
	return hcb_isclose(HCB_DT_FLOAT32, &ref, &new, &o);
}

static int teardown(void **state)
{
	(void)state;
	while (nmade)
		hcb_consumer_free(made[--nmade]);
	return 0;
}

/* ---- the isclose rule ---- */

static void test_equal(void **state)
{
	const struct hcb_consumer *c = leaf1(7, "loss", HCB_DT_FLOAT32, 2, D2x3);
	float a[6] = { 1, 2, 3, -4, INFINITY, -INFINITY };
	struct seen s;
	struct hcb_diff *d = pair(&s, 1e-5, 1e-8, 0, c, a, c, a);

	(void)state;
	assert_int_equal(s.ntaps, 0);
	assert_int_equal(s.nun, 0);
	assert_int_equal(hcb_diff_counts(d)->compared, 1);
	assert_int_equal(hcb_diff_counts(d)->same, 1);
	assert_false(hcb_diff_differs(d));
	hcb_diff_free(d);
}

static void test_one_element_off(void **state)
{
	const struct hcb_consumer *c = leaf1(7, "loss", HCB_DT_FLOAT64, 2, D2x3);
	double a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 1, 2, 3, 4, 5, 6.5 };
	struct seen s;
	struct hcb_diff *d = pair(&s, 1e-5, 1e-8, 0, c, a, c, b);

	(void)state;
	assert_int_equal(s.ntaps, 1);
	assert_string_equal(s.name, "loss");
	assert_int_equal(s.key.device, 0);
	assert_int_equal(s.key.index, 0);
	assert_int_equal(s.seq[0], 1);
	assert_int_equal(s.seq[1], 2);
	assert_int_equal(s.nleaves, 1);
	assert_int_equal(s.leaf[0].verdict, HCB_LEAF_VALUES);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_int_equal(s.leaf[0].nexamples, 1);
	assert_int_equal(s.leaf[0].examples[0].flat, 5);
	assert_int_equal(s.leaf[0].examples[0].index[0], 1);
	assert_int_equal(s.leaf[0].examples[0].index[1], 2);
	/* assert_allclose: max |new - ref| = 0.5, relative 0.5 / 6 */
	assert_true(s.leaf[0].max_abs == 0.5);
	assert_true(s.leaf[0].max_rel == 0.5 / 6);
	assert_int_equal(s.leaf[0].diff_dtype, HCB_DT_FLOAT64);
	assert_true(hcb_diff_differs(d));
	hcb_diff_free(d);
}

static void test_tolerance_boundary(void **state)
{
	(void)state;
	/* |new - ref| == atol + rtol*|ref| exactly: close (numpy's <=) */
	assert_true(close64(1.0, 1.75, 0.5, 0.25, 0));
	assert_false(close64(1.0, nextafter(1.75, 2), 0.5, 0.25, 0));
	assert_true(close64(1.0, 0.25, 0.5, 0.25, 0));
	assert_false(close64(1.0, 1.0 - nextafter(0.75, 1), 0.5, 0.25, 0));
	/* rtol scales |ref|, not |new| */
	assert_true(close64(-2.0, -1.0, 0.5, 0, 0));
	assert_false(close64(-1.0, -2.0, 0.5, 0, 0));
	/* float32 in float32 */
	assert_true(close32(2.0f, 3.0f, 0.25, 0.5, 0));
	assert_false(close32(2.0f, nextafterf(3.0f, 4), 0.25, 0.5, 0));
	/* the defaults: 1e-5 relative, 1e-8 absolute */
	assert_true(close64(1.0, 1.0 + 1e-5, 1e-5, 1e-8, 0));
	assert_false(close64(1.0, 1.0 + 2e-5, 1e-5, 1e-8, 0));
	assert_true(close64(0.0, 1e-8, 1e-5, 1e-8, 0));
	assert_false(close64(0.0, 1.1e-8, 1e-5, 1e-8, 0));
	/* rtol = inf: inf * |0| is NaN, so even 0 and 0 differ (as in numpy) */
	assert_false(close64(0.0, 0.0, INFINITY, 0, 0));
}

static void test_nan(void **state)
{
	const struct hcb_consumer *c = leaf1(7, "x", HCB_DT_FLOAT32, 1, D2);
	float a[2] = { NAN, 1 }, b[2] = { NAN, 1 };
	struct seen s;
	struct hcb_diff *d;

	(void)state;
	assert_false(close64(NAN, NAN, 1e-5, 1e-8, 0));
	assert_true(close64(NAN, NAN, 1e-5, 1e-8, 1));
	assert_false(close64(NAN, 1, 1e-5, 1e-8, 1));
	assert_false(close64(1, NAN, 1e-5, 1e-8, 1));
	assert_false(close64(NAN, INFINITY, 1e5, 1e5, 1));

	d = pair(&s, 1e-5, 1e-8, 0, c, a, c, b);
	assert_int_equal(s.ntaps, 1);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_true(isnan(s.leaf[0].max_abs));   /* np.max propagates NaN */
	hcb_diff_free(d);
	d = pair(&s, 1e-5, 1e-8, 1, c, a, c, b);
	assert_int_equal(s.ntaps, 0);
	assert_false(hcb_diff_differs(d));
	hcb_diff_free(d);
}

static void test_inf(void **state)
{
	const struct hcb_consumer *c = leaf1(7, "x", HCB_DT_FLOAT64, 1, D4);
	double a[4] = { INFINITY, -INFINITY, 1, 5 }, b[4] = { INFINITY, -INFINITY, 1, 4 };
	struct seen s;
	struct hcb_diff *d;

	(void)state;
	assert_true(close64(INFINITY, INFINITY, 1e-5, 1e-8, 0));
	assert_true(close64(-INFINITY, -INFINITY, 1e-5, 1e-8, 0));
	assert_false(close64(INFINITY, -INFINITY, 1e-5, 1e-8, 0));
	assert_false(close64(INFINITY, 1e308, 1e-5, 1e-8, 0));
	assert_false(close64(1e308, INFINITY, 1e-5, 1e-8, 0));
	/* even an infinite tolerance does not make inf close to a number */
	assert_false(close64(1, INFINITY, INFINITY, INFINITY, 0));
	/* finite, but the difference overflows */
	assert_false(close64(1.7e308, -1.7e308, 1e-5, 1e-8, 0));

	/* equal infinities are left out of the max differences */
	d = pair(&s, 1e-5, 1e-8, 0, c, a, c, b);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_true(s.leaf[0].max_abs == 1);
	assert_true(s.leaf[0].max_rel == 0.2);
	hcb_diff_free(d);
}

static void test_negative_zero(void **state)
{
	const struct hcb_consumer *c = leaf1(7, "x", HCB_DT_FLOAT32, 1, D2);
	float a[2] = { -0.0f, 0.0f }, b[2] = { 0.0f, -0.0f };
	struct seen s;
	struct hcb_diff *d = pair(&s, 0, 0, 0, c, a, c, b);

	(void)state;
	assert_int_equal(s.ntaps, 0);
	assert_true(close64(-0.0, 0.0, 0, 0, 0));
	hcb_diff_free(d);
}

static void test_ints(void **state)
{
	const struct hcb_consumer *c32 = leaf1(7, "i", HCB_DT_INT32, 1, D2);
	const struct hcb_consumer *c8 = leaf1(8, "i8", HCB_DT_INT8, 1, D2);
	const struct hcb_consumer *cu = leaf1(9, "u", HCB_DT_UINT64, 1, D1);
	const struct hcb_consumer *ci64 = leaf1(10, "l", HCB_DT_INT64, 1, D1);
	const struct hcb_consumer *cb = leaf1(11, "b", HCB_DT_BOOL, 1, D2);
	int32_t a[2] = { 5, 7 }, b[2] = { 6, 7 };
	int8_t a8[2] = { 100, 1 }, b8[2] = { -100, 1 };
	uint64_t ua = UINT64_MAX, ub = 0;
	int64_t la = INT64_C(1) << 53, lb = (INT64_C(1) << 53) + 1;
	uint8_t ba[2] = { 1, 0 }, bb[2] = { 0, 0 };
	struct hcb_diff_opts o;
	struct seen s;
	struct hcb_diff *d;

	(void)state;
	/* through float64: 5 and 6 are close with atol 1, not by default */
	d = pair(&s, 0, 1, 0, c32, a, c32, b);
	assert_int_equal(s.ntaps, 0);
	hcb_diff_free(d);
	d = pair(&s, 1e-5, 1e-8, 0, c32, a, c32, b);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_true(s.leaf[0].max_abs == 1);
	assert_true(s.leaf[0].max_rel == 0.2);
	assert_int_equal(s.leaf[0].diff_dtype, HCB_DT_INT64);
	hcb_diff_free(d);
	/* the difference is exact (numpy's int8 arithmetic would wrap to 56) */
	d = pair(&s, 1e-5, 1e-8, 0, c8, a8, c8, b8);
	assert_true(s.leaf[0].max_abs == 200);
	hcb_diff_free(d);
	d = pair(&s, 1e-5, 1e-8, 0, cu, &ua, cu, &ub);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_true(s.leaf[0].max_abs == 18446744073709551615.0);
	assert_true(s.leaf[0].max_rel == 1);
	hcb_diff_free(d);
	/* 2^53 and 2^53 + 1 are the same float64: numpy calls them close */
	d = pair(&s, 0, 0, 0, ci64, &la, ci64, &lb);
	assert_int_equal(s.ntaps, 0);
	hcb_diff_free(d);
	d = pair(&s, 1e-5, 1e-8, 0, cb, ba, cb, bb);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_true(s.leaf[0].max_abs == 1);
	hcb_diff_free(d);
	hcb_diff_opts_default(&o);
	assert_true(hcb_isclose(HCB_DT_INT16, &(int16_t){ -3 }, &(int16_t){ -3 }, &o));
}

static void test_float16_tolerance(void **state)
{
	struct hcb_diff_opts o;
	uint16_t zero = 0, tiny = 1;   /* the smallest subnormal, 5.96e-8 */
	float fz = 0, ft = 5.96e-8f;

	(void)state;
	/* numpy: atol 4e-8 rounds to 5.96e-8 in float16, so they are close;
	 * in float32 they are not */
	hcb_diff_opts_default(&o);
	o.rtol = 0;
	o.atol = 4e-8;
	assert_true(hcb_isclose(HCB_DT_FLOAT16, &zero, &tiny, &o));
	assert_false(hcb_isclose(HCB_DT_FLOAT32, &fz, &ft, &o));
	o.atol = 1e-8;   /* rounds to 0 in float16 */
	assert_false(hcb_isclose(HCB_DT_FLOAT16, &zero, &tiny, &o));
}

static void test_complex(void **state)
{
	struct hcb_diff_opts o;
	double r[2] = { 3, 4 }, n1[2] = { 3, 4.5 }, n2[2] = { 3, 4.6 };
	double nan_re[2] = { NAN, 0 }, nan_im[2] = { 0, NAN };
	const struct hcb_consumer *c = leaf1(7, "z", HCB_DT_COMPLEX128, 0, NULL);
	struct seen s;
	struct hcb_diff *d;

	(void)state;
	/* |new - ref| = 0.5 = rtol * |3+4j| */
	hcb_diff_opts_default(&o);
	o.rtol = 0.1;
	o.atol = 0;
	assert_true(hcb_isclose(HCB_DT_COMPLEX128, r, n1, &o));
	assert_false(hcb_isclose(HCB_DT_COMPLEX128, r, n2, &o));
	/* a NaN in either part is a NaN */
	assert_false(hcb_isclose(HCB_DT_COMPLEX128, nan_re, nan_im, &o));
	o.equal_nan = 1;
	assert_true(hcb_isclose(HCB_DT_COMPLEX128, nan_re, nan_im, &o));

	d = pair(&s, 0.05, 0, 0, c, r, c, n1);
	assert_int_equal(s.leaf[0].mismatched, 1);
	assert_true(s.leaf[0].max_abs == 0.5);
	assert_true(s.leaf[0].max_rel == 0.1);
	assert_int_equal(s.leaf[0].nexamples, 1);
	hcb_diff_free(d);
}

/* ---- dtype, shape, structure ---- */

static void test_dtype_mismatch(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "x", HCB_DT_FLOAT32, 1, D2);
	const struct hcb_consumer *b = leaf1(8, "x", HCB_DT_FLOAT64, 1, D2);
	float pa[2] = { 1, 2 };
	double pb[2] = { 1, 2 };
	struct seen s;
	struct hcb_diff *d = pair(&s, 1e-5, 1e-8, 0, a, pa, b, pb);

	(void)state;
	assert_int_equal(s.ntaps, 1);
	assert_int_equal(s.nleaves, 1);
	assert_int_equal(s.leaf[0].verdict, HCB_LEAF_DTYPE);
	assert_int_equal(s.leaf[0].shape[0]->dtype, HCB_DT_FLOAT32);
	assert_int_equal(s.leaf[0].shape[1]->dtype, HCB_DT_FLOAT64);
	assert_int_equal(s.key.consumer_id, 7);
	hcb_diff_free(d);
}

static void test_shape_mismatch(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "x", HCB_DT_FLOAT32, 2, D2x3);
	const struct hcb_consumer *b = leaf1(8, "x", HCB_DT_FLOAT32, 2, D3x2);
	float p[6] = { 0 };
	struct seen s;
	struct hcb_diff *d = pair(&s, 1e-5, 1e-8, 0, a, p, b, p);

	(void)state;
	assert_int_equal(s.ntaps, 1);
	assert_int_equal(s.leaf[0].verdict, HCB_LEAF_SHAPE);
	hcb_diff_free(d);
}

static void test_leaf_count_and_second_leaf(void **state)
{
	const struct hcb_leaf_spec leaves2[2] = { { HCB_DT_INT32, 1, { 2 } }, { HCB_DT_FLOAT32, 1, { 2 } } };
	const struct hcb_consumer *two = consumer(7, "t", 2, leaves2);
	const struct hcb_consumer *one = leaf1(8, "t", HCB_DT_INT32, 1, D2);
	struct { int32_t i[2]; float f[2]; } __attribute__((packed)) a = { { 1, 2 }, { 1, 2 } },
		b = { { 1, 2 }, { 1, 3 } };
	struct seen s;
	struct hcb_diff *d = pair(&s, 1e-5, 1e-8, 0, two, &a, two, &b);

	(void)state;
	/* only the differing leaf is reported, with its position */
	assert_int_equal(s.nleaves, 1);
	assert_int_equal(s.leaf[0].leaf, 1);
	assert_int_equal(s.leaf[0].examples[0].index[0], 1);
	hcb_diff_free(d);
	d = pair(&s, 1e-5, 1e-8, 0, two, &a, one, &a);
	assert_int_equal(s.ntaps, 1);
	assert_true(s.leaves_differ);
	assert_true(s.tree_differs);
	hcb_diff_free(d);
}

/* ---- alignment ---- */

static void test_missing_and_extra(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "a", HCB_DT_INT32, 0, NULL);
	const struct hcb_consumer *b = leaf1(8, "b", HCB_DT_INT32, 0, NULL);
	const struct hcb_consumer *anon = leaf1(99, "anon", HCB_DT_INT32, 0, NULL);
	int32_t v = 1;
	struct seen s;
	struct hcb_diff *d = new_diff(&s, 1e-5, 1e-8, 0);

	(void)state;
	/* a tap without a name (legacy outfeed taps): keyed by its id */
	made[nmade - 1]->name[0] = '\0';
	for (int i = 0; i < 3; i++)
		feed(d, HCB_DIFF_REF, 0, 10 + i, a, &v);
	feed(d, HCB_DIFF_NEW, 0, 20, a, &v);
	feed(d, HCB_DIFF_NEW, 1, 21, b, &v);
	feed(d, HCB_DIFF_NEW, 1, 22, anon, &v);
	assert_int_equal(hcb_diff_counts(d)->pending, 4);
	assert_int_equal(hcb_diff_finish(d), 0);
	assert_int_equal(s.ntaps, 0);
	assert_int_equal(s.nun, 3);
	/* missing: REF's a #1..#2 */
	assert_int_equal(s.un[0].side, HCB_DIFF_REF);
	assert_string_equal(s.un[0].name, "a");
	assert_int_equal(s.un[0].index, 1);
	assert_int_equal(s.un[0].count, 2);
	assert_int_equal(s.un[0].first_seq, 11);
	assert_int_equal(s.un[0].last_seq, 12);
	/* extra: NEW's b, then the tap without a name by its id */
	assert_int_equal(s.un[1].side, HCB_DIFF_NEW);
	assert_string_equal(s.un[1].name, "b");
	assert_int_equal(s.un[1].device, 1);
	assert_int_equal(s.un[2].side, HCB_DIFF_NEW);
	assert_string_equal(s.un[2].name, "");
	assert_int_equal(s.un[2].id, 99);
	assert_int_equal(hcb_diff_counts(d)->unmatched[0], 2);
	assert_int_equal(hcb_diff_counts(d)->unmatched[1], 2);
	assert_int_equal(hcb_diff_counts(d)->pending, 0);
	assert_true(hcb_diff_devices_differ(d));
	assert_true(hcb_diff_differs(d));
	hcb_diff_free(d);
}

static void test_end_drops_pending(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "a", HCB_DT_FLOAT64, 1, D4);
	double v[4] = { 1, 2, 3, 4 };
	struct seen s;
	struct hcb_diff *d = new_diff(&s, 1e-5, 1e-8, 0);

	(void)state;
	feed(d, HCB_DIFF_REF, 0, 0, a, v);
	for (int i = 0; i < 5; i++)
		feed(d, HCB_DIFF_NEW, 0, (uint64_t)i, a, v);
	assert_int_equal(hcb_diff_counts(d)->pending, 4);
	assert_int_equal(hcb_diff_end(d, HCB_DIFF_REF), 0);
	/* NEW's queued taps can never pair: their payloads go at once */
	assert_int_equal(hcb_diff_counts(d)->pending, 0);
	assert_int_equal(hcb_diff_counts(d)->pending_bytes, 0);
	/* and later NEW taps are not queued */
	feed(d, HCB_DIFF_NEW, 0, 5, a, v);
	assert_int_equal(hcb_diff_counts(d)->pending, 0);
	{
		struct hcb_record rec = { .kind = HCB_REC_TAP };

		rec.tap.consumer = a;
		rec.tap.payload = (const unsigned char *)v;
		assert_int_equal(hcb_diff_feed(d, HCB_DIFF_REF, &rec), -EINVAL);
	}
	assert_int_equal(hcb_diff_finish(d), 0);
	assert_int_equal(s.nun, 1);
	assert_int_equal(s.un[0].side, HCB_DIFF_NEW);
	assert_int_equal(s.un[0].index, 1);
	assert_int_equal(s.un[0].count, 5);
	assert_int_equal(s.un[0].first_seq, 1);
	assert_int_equal(s.un[0].last_seq, 5);
	assert_int_equal(hcb_diff_counts(d)->same, 1);
	hcb_diff_free(d);
}

/* Values that identify (device, occurrence): misaligned pairs would differ. */
static void test_interleaved_devices(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "a", HCB_DT_INT32, 0, NULL);
	const struct hcb_consumer *a2 = leaf1(8, "a", HCB_DT_INT32, 0, NULL);   /* other id, same name */
	int32_t v[2][3] = { { 0, 1, 2 }, { 10, 11, 12 } };
	struct seen s;
	struct hcb_diff *d = new_diff(&s, 0, 0, 0);

	(void)state;
	/* REF: round robin over devices; NEW: device 1 first, then device 0 */
	for (int i = 0; i < 3; i++)
		for (uint32_t dev = 0; dev < 2; dev++)
			feed(d, HCB_DIFF_REF, dev, (uint64_t)i, a, &v[dev][i]);
	for (uint32_t dev = 2; dev-- > 0;)
		for (int i = 0; i < 3; i++)
			feed(d, HCB_DIFF_NEW, dev, (uint64_t)i + 100, a2, &v[dev][i]);
	assert_int_equal(hcb_diff_finish(d), 0);
	assert_int_equal(s.ntaps, 0);
	assert_int_equal(s.nun, 0);
	assert_int_equal(hcb_diff_counts(d)->same, 6);
	assert_false(hcb_diff_differs(d));
	hcb_diff_free(d);
}

static void test_occurrence_alignment(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "a", HCB_DT_INT32, 0, NULL);
	const struct hcb_consumer *b = leaf1(8, "b", HCB_DT_INT32, 0, NULL);
	int32_t x0 = 0, x1 = 1, y0 = 5, y1 = 6, bad = 99;
	struct seen s;
	struct hcb_diff *d = new_diff(&s, 0, 0, 0);

	(void)state;
	/* REF: a0 b0 a1 b1 on device 0; NEW: b0 b1 a0 a1, a1 changed */
	feed(d, HCB_DIFF_REF, 0, 0, a, &x0);
	feed(d, HCB_DIFF_NEW, 0, 0, b, &y0);
	feed(d, HCB_DIFF_REF, 0, 1, b, &y0);
	feed(d, HCB_DIFF_NEW, 0, 1, b, &y1);
	feed(d, HCB_DIFF_REF, 0, 2, a, &x1);
	feed(d, HCB_DIFF_NEW, 0, 2, a, &x0);
	feed(d, HCB_DIFF_REF, 0, 3, b, &y1);
	feed(d, HCB_DIFF_NEW, 0, 3, a, &bad);
	assert_int_equal(hcb_diff_finish(d), 0);
	assert_int_equal(s.ntaps, 1);
	assert_string_equal(s.name, "a");
	assert_int_equal(s.key.index, 1);
	assert_int_equal(s.seq[0], 2);
	assert_int_equal(s.seq[1], 3);
	assert_int_equal(hcb_diff_counts(d)->same, 3);
	assert_int_equal(hcb_diff_counts(d)->pending_max, 3);   /* a0, b1, a1 */
	hcb_diff_free(d);
}

static void test_streaming_stays_flat(void **state)
{
	const struct hcb_consumer *a = leaf1(7, "a", HCB_DT_FLOAT32, 1, D4);
	float v[4] = { 1, 2, 3, 4 };
	struct seen s;
	struct hcb_diff *d = new_diff(&s, 1e-5, 1e-8, 0);

	(void)state;
	for (int i = 0; i < 10000; i++) {
		feed(d, HCB_DIFF_REF, (uint32_t)(i % 4), (uint64_t)i, a, v);
		feed(d, HCB_DIFF_NEW, (uint32_t)(i % 4), (uint64_t)i, a, v);
	}
	assert_int_equal(hcb_diff_finish(d), 0);
	assert_int_equal(hcb_diff_counts(d)->same, 10000);
	assert_int_equal(hcb_diff_counts(d)->pending_max, 1);
	assert_int_equal(hcb_diff_counts(d)->pending_bytes_max, 16);
	hcb_diff_free(d);
}

static void test_examples_limit(void **state)
{
	const struct hcb_consumer *c = leaf1(7, "a", HCB_DT_FLOAT64, 2, D2x3);
	double a[6] = { 0 }, b[6] = { 1, 1, 1, 1, 1, 1 };
	struct seen s;
	struct hcb_diff *d = pair(&s, 1e-5, 1e-8, 0, c, a, c, b);

	(void)state;
	assert_int_equal(s.leaf[0].mismatched, 6);
	assert_int_equal(s.leaf[0].nexamples, 5);
	assert_int_equal(s.leaf[0].examples[4].index[0], 1);
	assert_int_equal(s.leaf[0].examples[4].index[1], 1);
	/* ref is 0 everywhere: assert_allclose's relative difference is inf */
	assert_true(isinf(s.leaf[0].max_rel));
	hcb_diff_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_equal, teardown),
		cmocka_unit_test_teardown(test_one_element_off, teardown),
		cmocka_unit_test_teardown(test_tolerance_boundary, teardown),
		cmocka_unit_test_teardown(test_nan, teardown),
		cmocka_unit_test_teardown(test_inf, teardown),
		cmocka_unit_test_teardown(test_negative_zero, teardown),
		cmocka_unit_test_teardown(test_ints, teardown),
		cmocka_unit_test_teardown(test_float16_tolerance, teardown),
		cmocka_unit_test_teardown(test_complex, teardown),
		cmocka_unit_test_teardown(test_dtype_mismatch, teardown),
		cmocka_unit_test_teardown(test_shape_mismatch, teardown),
		cmocka_unit_test_teardown(test_leaf_count_and_second_leaf, teardown),
		cmocka_unit_test_teardown(test_missing_and_extra, teardown),
		cmocka_unit_test_teardown(test_end_drops_pending, teardown),
		cmocka_unit_test_teardown(test_interleaved_devices, teardown),
		cmocka_unit_test_teardown(test_occurrence_alignment, teardown),
		cmocka_unit_test_teardown(test_streaming_stays_flat, teardown),
		cmocka_unit_test_teardown(test_examples_limit, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
