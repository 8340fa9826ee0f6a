/* SPDX-License-Identifier: MIT */
/*
 * test_leafstats.c - a leaf's figures (src/core/leafstats.h), the one definition
 * the diff's series, the timeline and the viewer share: nan-ignoring mean,
 * min, max, an inf counted; the norm; NaN and inf counts; complex, bool,
 * integers, empty; a tap's first leaf; the statistics' names.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/consumer.h"
#include "core/dtype.h"
#include "core/leafstats.h"

/* ---- figures ---- */

static void test_figures(void **state)
{
	struct hcb_leaf_shape l = { .dtype = HCB_DT_FLOAT32, .ndim = 1, .dims = { 5 }, .nelems = 5, .nbytes = 20 };
	float f[5] = { 1, NAN, -2, 4, 3 };
	struct hcb_leaf_figures g;

	(void)state;
	hcb_leaf_figures(&l, (const unsigned char *)f, &g);
	assert_int_equal(g.n, 5);
	assert_int_equal(g.nan, 1);
	assert_true(g.v[HCB_STAT_MEAN] == 1.5);          /* nanmean of 1, -2, 4, 3 */
	assert_true(g.v[HCB_STAT_MIN] == -2);
	assert_true(g.v[HCB_STAT_MAX] == 4);
	assert_true(fabs(g.v[HCB_STAT_NORM] - sqrt(30)) < 1e-12);
	assert_true(hcb_leaf_value(&l, (const unsigned char *)f, HCB_STAT_MAX) == 4);

	/* one element: the value, whatever the statistic */
	l.dims[0] = l.nelems = 1;
	assert_true(hcb_leaf_value(&l, (const unsigned char *)&f[2], HCB_STAT_NORM) == -2);

	/* all NaN, or empty: no number */
	l.dims[0] = l.nelems = 1;
	l.ndim = 1;
	l.nelems = 0;
	hcb_leaf_figures(&l, (const unsigned char *)f, &g);
	assert_true(isnan(g.v[HCB_STAT_MEAN]) && isnan(g.v[HCB_STAT_NORM]));
	l.nelems = 1;
	assert_true(isnan(hcb_leaf_value(&l, (const unsigned char *)&f[1], HCB_STAT_MEAN)));

	/* an inf counts: numpy's nanmean gives inf */
	f[0] = INFINITY;
	l.nelems = 5;
	hcb_leaf_figures(&l, (const unsigned char *)f, &g);
	assert_true(isinf(g.v[HCB_STAT_MEAN]) && g.v[HCB_STAT_MAX] == INFINITY);
}

static void test_figures_complex_bool(void **state)
{
	struct hcb_leaf_shape c = { .dtype = HCB_DT_COMPLEX64, .ndim = 1, .dims = { 2 }, .nelems = 2, .nbytes = 16 };
	struct hcb_leaf_shape b = { .dtype = HCB_DT_BOOL, .ndim = 1, .dims = { 4 }, .nelems = 4, .nbytes = 4 };
	float z[4] = { 3, 4, -1, NAN };   /* 3+4j, -1+nanj */
	unsigned char bits[4] = { 1, 0, 1, 1 };
	struct hcb_leaf_figures g;

	(void)state;
	hcb_leaf_figures(&c, (const unsigned char *)z, &g);
	assert_int_equal(g.nan, 1);                       /* a NaN part: the element is NaN */
	assert_true(g.v[HCB_STAT_MEAN] == 3);             /* real parts */
	assert_true(g.v[HCB_STAT_NORM] == 5);             /* |3+4j| */
	hcb_leaf_figures(&b, bits, &g);
	assert_true(g.v[HCB_STAT_MEAN] == 0.75 && g.v[HCB_STAT_MIN] == 0 && g.v[HCB_STAT_MAX] == 1);
}

static void test_stat_names(void **state)
{
	(void)state;
	for (int i = 0; i < (int)HCB_STATS; i++)
		assert_int_equal(hcb_stat_from_name(hcb_stat_name((enum hcb_stat)i)), i);
	assert_int_equal(hcb_stat_from_name("median"), -EINVAL);
	assert_null(hcb_stat_name(HCB_STATS));
}

/* ---- what the viewer shows of a leaf (tui/detail.c, its rows) ---- */

static void test_viewer_figures(void **state)
{
	float f[6] = { 1.5f, -2, NAN, INFINITY, 3, NAN };
	int32_t i32[4] = { -7, 0, 7, 4 };
	uint8_t bools[3] = { 1, 0, 1 };
	struct hcb_leaf_shape l = { .dtype = HCB_DT_FLOAT32, .ndim = 1, .dims = { 6 }, .nelems = 6 };
	struct hcb_leaf_figures s;

	(void)state;
	hcb_leaf_figures(&l, (const unsigned char *)f, &s);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.nan, 2);
	assert_int_equal(s.inf, 1);
	assert_true(s.v[HCB_STAT_MIN] == -2);
	assert_true(isinf(s.v[HCB_STAT_MAX]) && s.v[HCB_STAT_MAX] > 0);
	assert_true(isinf(s.v[HCB_STAT_MEAN]));
	/* finite values only */
	l.nelems = 2;
	hcb_leaf_figures(&l, (const unsigned char *)f, &s);
	assert_true(s.v[HCB_STAT_MEAN] == -0.25 && s.v[HCB_STAT_MIN] == -2 && s.v[HCB_STAT_MAX] == 1.5);
	/* all NaN: no min, max or mean */
	l.nelems = 1;
	hcb_leaf_figures(&l, (const unsigned char *)&f[2], &s);
	assert_int_equal(s.nan, 1);
	assert_true(isnan(s.v[HCB_STAT_MIN]) && isnan(s.v[HCB_STAT_MAX]) && isnan(s.v[HCB_STAT_MEAN]));
	/* integers and bools */
	l = (struct hcb_leaf_shape){ .dtype = HCB_DT_INT32, .ndim = 1, .dims = { 4 }, .nelems = 4 };
	hcb_leaf_figures(&l, (const unsigned char *)i32, &s);
	assert_true(s.v[HCB_STAT_MIN] == -7 && s.v[HCB_STAT_MAX] == 7 && s.v[HCB_STAT_MEAN] == 1);
	l = (struct hcb_leaf_shape){ .dtype = HCB_DT_BOOL, .ndim = 1, .dims = { 3 }, .nelems = 3 };
	hcb_leaf_figures(&l, bools, &s);
	assert_true(s.v[HCB_STAT_MIN] == 0 && s.v[HCB_STAT_MAX] == 1 && fabs(s.v[HCB_STAT_MEAN] - 2.0 / 3) < 1e-12);
	/* a tap's: its first leaf's; a scalar's mean is itself; no leaves, none */
	{
		struct hcb_leaf_shape one = { .dtype = HCB_DT_FLOAT32, .nelems = 1, .nbytes = 4 };
		struct hcb_consumer c = { .nleaves = 1, .leaves = &one };

		hcb_tap_figures(&c, (const unsigned char *)&f[0], &s);
		assert_true(s.v[HCB_STAT_MEAN] == 1.5);
		c.nleaves = 0;
		hcb_tap_figures(&c, (const unsigned char *)f, &s);
		assert_true(isnan(s.v[HCB_STAT_MEAN]) && s.n == 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_figures_complex_bool),
		cmocka_unit_test(test_stat_names),
		cmocka_unit_test(test_viewer_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
