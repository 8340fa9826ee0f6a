/* SPDX-License-Identifier: MIT */
/*
 * test_diff_series.c - what diff --plot gathers (src/diff/series.h): the
 * downsampling of long streams (bucket counts stay within
 * [HCB_SERIES_BUCKETS / 2, HCB_SERIES_BUCKETS], widths double, each
 * bucket's min, max, sum and counts are those of its taps), the engine's
 * findings marked in the right buckets through a real diff engine, and
 * the close-up of the first differing array (1-D exact and reduced, 2-D
 * blocks, mismatch flags).
 *
 *	gcc -D_GNU_SOURCE -Isrc src/diff*.c src/core/leafstats.c src/core/dtype.c src/core/consumer.c \
 *		src/core/registry.c src/core/tree.c src/core/buf.c tests/unit/test_diff_series.c -lcmocka -lm
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
#include "diff/series.h"
#include "testcons.h"

#define MAXC 8
static struct hcb_consumer *made[MAXC];
static unsigned int nmade;

static const struct hcb_consumer *consumer(uint32_t id, const char *name, unsigned int nleaves,
					   const struct hcb_leaf_spec *leaves)
{
	struct hcb_consumer_spec spec = { .name = name, .nleaves = nleaves, .leaves = leaves };
	struct hcb_consumer *c = test_consumer(&spec, id);

	assert_true(nmade < MAXC);
	made[nmade++] = c;
	return c;
}

static int teardown(void **state)
{
	(void)state;
	while (nmade)
		hcb_consumer_free(made[--nmade]);
	return 0;
}

static struct hcb_record tap(uint32_t device, uint64_t seq, const struct hcb_consumer *c, const void *p)
{
	struct hcb_record r = { .kind = HCB_REC_TAP };

	r.tap = (struct hcb_tap){ .device = device, .seq = seq, .consumer = c, .payload = p };
	return r;
}

/* ---- downsampling ---- */

static struct hcb_series_set *new_set(enum hcb_stat stat)
{
	struct hcb_diff_opts o;
	struct hcb_series_set *s;

	hcb_diff_opts_default(&o);
	assert_int_equal(hcb_series_new(&s, stat, &o), 0);
	return s;
}

static const struct hcb_series_stream *only_stream(struct hcb_series_set *s)
{
	const struct hcb_series_stream *const *all;

	assert_int_equal(hcb_series_streams(s, &all), 1);
	return all[0];
}

/* The value of tap i of a side: distinct and easy to recompute. */
static double value_of(int side, uint64_t i)
{
	return (double)((i * 7919) % 1000) - 500 + side * 0.5;
}

static void check_buckets(const struct hcb_series *se, const uint64_t taps[2])
{
	for (unsigned int b = 0; b < se->nbuckets; b++) {
		for (int k = 0; k < 2; k++) {
			double lo = INFINITY, hi = -INFINITY, sum = 0;
			uint32_t n = 0;

			for (uint64_t i = b * se->width; i < (b + 1) * se->width && i < taps[k]; i++) {
				double v = value_of(k, i);

				lo = fmin(lo, v), hi = fmax(hi, v), sum += v, n++;
			}
			assert_int_equal(se->b[b].taps[k], n);
			assert_int_equal(se->b[b].finite[k], n);
			if (n) {
				assert_true(se->b[b].min[k] == lo && se->b[b].max[k] == hi);
				assert_true(se->b[b].sum[k] == sum);   /* whole numbers and halves: exact */
			}
		}
	}
}

static void feed_long(struct hcb_series_set *s, const struct hcb_consumer *c, uint64_t nref, uint64_t nnew)
{
	for (int k = 0; k < 2; k++)
		for (uint64_t i = 0; i < (k ? nnew : nref); i++) {
			double v = value_of(k, i);
			struct hcb_record r = tap(3, i, c, &v);

			assert_int_equal(hcb_series_feed(s, (enum hcb_diff_side)k, &r), 0);
		}
}

static void test_downsampling_bounds(void **state)
{
	static const uint64_t lengths[] = { 1, 2, 255, 256, 257, 511, 512, 513, 1000, 4097, 100000 };
	struct hcb_leaf_spec leaf = { .dtype = HCB_DT_FLOAT64 };
	const struct hcb_consumer *c = consumer(7, "loss", 1, &leaf);

	(void)state;
	for (size_t t = 0; t < sizeof(lengths) / sizeof(lengths[0]); t++) {
		struct hcb_series_set *s = new_set(HCB_STAT_MEAN);
		uint64_t taps[2] = { lengths[t], lengths[t] / 3 + 1 };
		const struct hcb_series_stream *st;
		const struct hcb_series *se;

		feed_long(s, c, taps[0], taps[1]);
		st = only_stream(s);
		se = &st->series[0];
		assert_int_equal(st->taps[0], taps[0]);
		assert_int_equal(st->taps[1], taps[1]);
		assert_int_equal(se->taps[0], taps[0]);
		assert_true(se->nbuckets <= HCB_SERIES_BUCKETS);
		assert_true(se->capbuckets <= 2 * HCB_SERIES_BUCKETS);
		/* the width is the smallest power of two that fits the stream */
		assert_true((se->width & (se->width - 1)) == 0);
		assert_true((taps[0] - 1) / se->width < HCB_SERIES_BUCKETS);
		assert_true(se->width == 1 || (taps[0] - 1) / (se->width / 2) >= HCB_SERIES_BUCKETS);
		assert_int_equal(se->nbuckets, (taps[0] - 1) / se->width + 1);
		if (taps[0] > HCB_SERIES_BUCKETS)
			assert_true(se->nbuckets > HCB_SERIES_BUCKETS / 2);
		check_buckets(se, taps);
		/* x: the middle of each bucket's taps on a side */
		assert_true(hcb_series_bucket_x(se, 0, 0) == (double)((se->width < taps[0] ? se->width : taps[0]) - 1) / 2);
		hcb_series_free(s);
	}
}

static void test_streams_keyed_and_sorted(void **state)
{
	struct hcb_leaf_spec leaf = { .dtype = HCB_DT_FLOAT64 };
	const struct hcb_consumer *a = consumer(7, "b", 1, &leaf), *b = consumer(8, "a", 1, &leaf);
	const struct hcb_consumer *anon = consumer(9, "x", 1, &leaf);
	struct hcb_series_set *s = new_set(HCB_STAT_MEAN);
	const struct hcb_series_stream *const *all;
	double v = 1;
	struct hcb_record r;

	(void)state;
	made[nmade - 1]->name[0] = '\0';   /* a tap without a name (legacy outfeed): keyed by id */
	r = tap(1, 0, anon, &v);
	assert_int_equal(hcb_series_feed(s, HCB_DIFF_REF, &r), 0);
	r = tap(1, 0, a, &v);
	assert_int_equal(hcb_series_feed(s, HCB_DIFF_REF, &r), 0);
	r = tap(1, 1, b, &v);
	assert_int_equal(hcb_series_feed(s, HCB_DIFF_NEW, &r), 0);
	r = tap(0, 0, a, &v);
	assert_int_equal(hcb_series_feed(s, HCB_DIFF_NEW, &r), 0);
	assert_int_equal(hcb_series_streams(s, &all), 4);
	/* by device, named ones first by name, then by id */
	assert_int_equal(all[0]->device, 0);
	assert_string_equal(all[1]->name, "a");
	assert_string_equal(all[2]->name, "b");
	assert_null(all[3]->name);
	assert_int_equal(all[3]->consumer_id, 9);
	hcb_series_free(s);
}

/* ---- the engine's findings ---- */

struct both {
	struct hcb_series_set *s;
};

static int on_tap(void *ctx, const struct hcb_diff_tap *t)
{
	return hcb_series_tap_differs(((struct both *)ctx)->s, t);
}

static int on_unmatched(void *ctx, const struct hcb_diff_unmatched *u)
{
	return hcb_series_unmatched(((struct both *)ctx)->s, u);
}

static const struct hcb_diff_ops ops = { on_tap, on_unmatched };

static void feed_both(struct hcb_diff *d, struct hcb_series_set *s, enum hcb_diff_side side,
		      const struct hcb_record *r)
{
	assert_int_equal(hcb_series_feed(s, side, r), 0);
	assert_int_equal(hcb_diff_feed(d, side, r), 0);
}

static void test_differences_marked(void **state)
{
	struct hcb_leaf_spec leaves[2] = { { .dtype = HCB_DT_FLOAT32 }, { .dtype = HCB_DT_FLOAT32, .ndim = 1, .dims = { 3 } } };
	const struct hcb_consumer *c = consumer(5, "params", 2, leaves);
	struct both ctx = { new_set(HCB_STAT_MAX) };
	struct hcb_diff_opts o;
	struct hcb_diff *d;
	const struct hcb_series_stream *st;
	const struct hcb_sample *sm;

	(void)state;
	hcb_diff_opts_default(&o);
	assert_int_equal(hcb_diff_new(&d, &o, &ops, &ctx), 0);
	/* 600 pairs; leaf 1 differs from #300 on, in element 2; NEW has 3 more */
	for (uint64_t i = 0; i < 603; i++) {
		float p[2][4] = { { (float)i, 1, 2, (float)i }, { (float)i, 1, 2, (float)i + (i >= 300 ? 1.0f : 0) } };
		struct hcb_record r0 = tap(0, i, c, p[0]), r1 = tap(0, i, c, p[1]);

		if (i < 600)
			feed_both(d, ctx.s, HCB_DIFF_REF, &r0);
		feed_both(d, ctx.s, HCB_DIFF_NEW, &r1);
	}
	assert_int_equal(hcb_diff_finish(d), 0);
	st = only_stream(ctx.s);
	assert_int_equal(st->differ, 300);
	assert_int_equal(st->unmatched[1], 3);
	assert_int_equal(st->first_differ, 300);
	assert_int_equal(st->series[0].differ, 0);
	assert_int_equal(st->series[0].first_differ, HCB_SERIES_NONE);
	assert_int_equal(st->series[1].differ, 300);
	assert_int_equal(st->series[1].first_differ, 300);
	/* width 4 (603 taps): buckets 0..74 clean, 75.. all differ */
	assert_int_equal(st->series[1].width, 4);
	for (unsigned int b = 0; b < st->series[1].nbuckets; b++)
		assert_int_equal(st->series[1].b[b].differ, b < 75 ? 0 : b < 150 ? 4 : 0);
	/* the max of leaf 1 is the value of element 2 */
	assert_true(st->series[1].b[80].max[1] == 323 + 1);
	/* the close-up: #300's leaf 1, flattened, every element shown */
	sm = hcb_series_sample(ctx.s);
	assert_non_null(sm);
	assert_int_equal(sm->index, 300);
	assert_int_equal(sm->leaf, 1);
	assert_int_equal(sm->mismatched, 1);
	assert_false(sm->grid);
	assert_int_equal(sm->cols, 3);
	assert_int_equal(sm->block_cols, 1);
	assert_true(sm->mean[0][2] == 300 && sm->mean[1][2] == 301 && sm->mean[2][2] == 1);
	assert_true(sm->mismatch[2] && !sm->mismatch[0] && !sm->mismatch[1]);
	hcb_diff_free(d);
	hcb_series_free(ctx.s);
}

/* One pair of a leaf of dims that differs at element k; the sample taken. */
static const struct hcb_sample *sample_of(struct both *ctx, struct hcb_diff **d, unsigned int ndim,
					  const uint64_t *dims, uint64_t n, uint64_t k, float **bufs)
{
	struct hcb_leaf_spec leaf = { .dtype = HCB_DT_FLOAT32, .ndim = ndim };
	const struct hcb_consumer *c;
	struct hcb_diff_opts o;
	struct hcb_record r;

	memcpy(leaf.dims, dims, ndim * sizeof(*dims));
	c = consumer(11, "field", 1, &leaf);
	bufs[0] = malloc(n * sizeof(float));
	bufs[1] = malloc(n * sizeof(float));
	for (uint64_t i = 0; i < n; i++)
		bufs[0][i] = bufs[1][i] = (float)(i % 1000);
	bufs[1][k] += 100;
	hcb_diff_opts_default(&o);
	ctx->s = new_set(HCB_STAT_MEAN);
	assert_int_equal(hcb_diff_new(d, &o, &ops, ctx), 0);
	r = tap(0, 0, c, bufs[0]);
	feed_both(*d, ctx->s, HCB_DIFF_REF, &r);
	r = tap(0, 0, c, bufs[1]);
	feed_both(*d, ctx->s, HCB_DIFF_NEW, &r);
	return hcb_series_sample(ctx->s);
}

static void test_sample_reduced(void **state)
{
	static const uint64_t d1[] = { 100000 }, d2[] = { 300, 130 }, d3[] = { 10, 20, 30 };
	struct both ctx;
	struct hcb_diff *d;
	float *bufs[2];
	const struct hcb_sample *sm;

	(void)state;
	/* 1-D, long: 256 points at most of ceil(100000 / 256) elements */
	sm = sample_of(&ctx, &d, 1, d1, 100000, 99999, bufs);
	assert_non_null(sm);
	assert_int_equal(sm->block_cols, 391);
	assert_int_equal(sm->cols, 256);
	assert_true(sm->cols <= HCB_SAMPLE_POINTS);
	assert_true(sm->mismatch[255] && !sm->mismatch[254]);
	assert_true(sm->max[2][255] == 100 && sm->min[2][255] == 0 && sm->extreme[255] == 100);
	assert_true(sm->min[0][0] == 0 && sm->max[0][0] == 390);
	hcb_diff_free(d), hcb_series_free(ctx.s), free(bufs[0]), free(bufs[1]), teardown(NULL);

	/* 2-D: blocks of ceil(300/64) x ceil(130/64) = 5 x 3 elements */
	sm = sample_of(&ctx, &d, 2, d2, 300 * 130, 7 * 130 + 129, bufs);
	assert_true(sm->grid);
	assert_int_equal(sm->block_rows, 5);
	assert_int_equal(sm->block_cols, 3);
	assert_int_equal(sm->rows, 60);
	assert_int_equal(sm->cols, 44);
	assert_true(sm->rows <= HCB_SAMPLE_SIDE && sm->cols <= HCB_SAMPLE_SIDE);
	/* row 7, column 129: cell (1, 43), the last column's cell holds one column */
	assert_true(sm->mismatch[1 * 44 + 43]);
	assert_true(sm->extreme[1 * 44 + 43] == 100);
	assert_true(sm->extreme[0] == 0);
	hcb_diff_free(d), hcb_series_free(ctx.s), free(bufs[0]), free(bufs[1]), teardown(NULL);

	/* 3-D: flattened, every element (6000 > 512: reduced) */
	sm = sample_of(&ctx, &d, 3, d3, 6000, 0, bufs);
	assert_false(sm->grid);
	assert_int_equal(sm->block_cols, 24);
	assert_int_equal(sm->cols, 250);
	assert_true(sm->mismatch[0]);
	hcb_diff_free(d), hcb_series_free(ctx.s), free(bufs[0]), free(bufs[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_downsampling_bounds, teardown),
		cmocka_unit_test_teardown(test_streams_keyed_and_sorted, teardown),
		cmocka_unit_test_teardown(test_differences_marked, teardown),
		cmocka_unit_test_teardown(test_sample_reduced, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
