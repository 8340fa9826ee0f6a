/* SPDX-License-Identifier: MIT */
/*
 * test_trigger.c - finding NaN and inf in every float dtype
 * (src/watch/nonfinite.h), and the flight recorder's conditions
 * (src/watch/trigger.h): every form of the grammar, every error with its
 * column, and which taps fire.
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
#include "watch/nonfinite.h"
#include "watch/trigger.h"

/* A consumer called name of one leaf per dtypes[i] of n elements each. */
static struct hcb_consumer *consumer(const char *name, const unsigned int *dtypes,
				     unsigned int nleaves, uint64_t n)
{
	struct hcb_leaf_spec leaves[4] = { 0 };
	struct hcb_consumer_spec spec = { .name = name, .nleaves = nleaves, .leaves = leaves };
	struct hcb_consumer *c;
	void *blob;
	size_t len;

	for (unsigned int i = 0; i < nleaves; i++) {
		leaves[i].dtype = dtypes[i];
		leaves[i].ndim = 1;
		leaves[i].dims[0] = n;
	}
	assert_int_equal(hcb_reg_build(&spec, 7, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

/* One element of each float dtype that is not finite, where it is. */
static void test_nonfinite_every_dtype(void **state)
{
	static const struct { unsigned int dtype; uint64_t bits; int bad; } cases[] = {
		{ HCB_DT_FLOAT16, 0x7c00, 1 }, { HCB_DT_FLOAT16, 0x7bff, 0 },
		{ HCB_DT_FLOAT16, 0xfe01, 1 },
		{ HCB_DT_BFLOAT16, 0x7f80, 1 }, { HCB_DT_BFLOAT16, 0xffc1, 1 },
		{ HCB_DT_BFLOAT16, 0x7f7f, 0 },
		{ HCB_DT_FLOAT32, 0x7f800000, 1 }, { HCB_DT_FLOAT32, 0x7fc00000, 1 },
		{ HCB_DT_FLOAT32, 0x7f7fffff, 0 },
		{ HCB_DT_FLOAT64, 0xfff0000000000000ull, 1 }, { HCB_DT_FLOAT64, 0x7fefffffffffffffull, 0 },
		{ HCB_DT_FLOAT8_E4M3FN, 0x7f, 1 }, { HCB_DT_FLOAT8_E4M3FN, 0x7e, 0 },
		{ HCB_DT_FLOAT8_E5M2, 0x7c, 1 }, { HCB_DT_FLOAT8_E5M2, 0x7b, 0 },
		{ HCB_DT_FLOAT8_E4M3FNUZ, 0x80, 1 }, { HCB_DT_FLOAT8_E4M3FNUZ, 0x7f, 0 },
		{ HCB_DT_FLOAT8_E5M2FNUZ, 0x80, 1 }, { HCB_DT_FLOAT8_E4M3B11FNUZ, 0x80, 1 },
		{ HCB_DT_FLOAT8_E4M3, 0x78, 1 }, { HCB_DT_FLOAT8_E4M3, 0x77, 0 },
		{ HCB_DT_FLOAT8_E3M4, 0x70, 1 }, { HCB_DT_FLOAT8_E3M4, 0x6f, 0 },
		{ HCB_DT_FLOAT8_E8M0FNU, 0xff, 1 }, { HCB_DT_FLOAT8_E8M0FNU, 0xfe, 0 },
		{ HCB_DT_FLOAT4_E2M1FN, 0x07, 0 }, { HCB_DT_FLOAT4_E2M1FN, 0x0f, 0 },
		{ HCB_DT_INT32, 0x7f800000, 0 },
	};
	unsigned char buf[200 * 8];
	double v;

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t size = hcb_dtype_size(cases[k].dtype);

		/* 200 zeros (finite in every dtype but e8m0fnu's: 2^-127),
		 * the case's bits at 137: past the first blocks */
		memset(buf, 0, sizeof(buf));
		memcpy(buf + 137 * size, &cases[k].bits, size);
		assert_int_equal(hcb_first_nonfinite(cases[k].dtype, buf, 200, &v),
				 cases[k].bad ? 137 : -1);
		if (cases[k].bad)
			assert_false(isfinite(v));
		/* and not past n */
		assert_int_equal(hcb_first_nonfinite(cases[k].dtype, buf, 137, NULL), -1);
	}
}

/* Complex: either part, the element's index; a tap: the leaf and index. */
static void test_nonfinite_complex_and_taps(void **state)
{
	static const unsigned int dts[] = { HCB_DT_INT8, HCB_DT_COMPLEX64, HCB_DT_BFLOAT16 };
	float c64[10] = { 0 };
	unsigned char payload[4 + 32 + 8] = { 0 };
	struct hcb_consumer *c = consumer("x", dts, 3, 4);
	struct hcb_nonfinite_at at;
	double v;

	(void)state;
	c64[7] = -INFINITY;     /* element 3's imaginary part */
	assert_int_equal(hcb_first_nonfinite(HCB_DT_COMPLEX64, c64, 5, &v), 3);
	assert_true(isinf(v) && v < 0);
	assert_int_equal(hcb_tap_nonfinite(c, payload, &at), 0);
	payload[4 + 32 + 5] = 0x7f;     /* bfloat16 element 2: 0x7f80 */
	payload[4 + 32 + 4] = 0x80;
	assert_int_equal(hcb_tap_nonfinite(c, payload, &at), 1);
	assert_int_equal(at.leaf, 2);
	assert_int_equal(at.index, 2);
	assert_true(isinf(at.value));
	hcb_consumer_free(c);
}

static void parses(const char *s, const char *name, int64_t device, int nonfinite, int absolute,
		   enum hcb_trigger_stat stat, enum hcb_trigger_cmp cmp, double number)
{
	struct hcb_trigger t, again;
	const char *why;
	size_t col;
	char buf[256];

	assert_int_equal(hcb_trigger_parse(s, &t, &col, &why), 0);
	assert_string_equal(t.name, name);
	assert_int_equal(t.device, device);
	assert_int_equal(t.nonfinite, nonfinite);
	if (!nonfinite) {
		assert_int_equal(t.absolute, absolute);
		assert_int_equal(t.stat, stat);
		assert_int_equal(t.cmp, cmp);
		assert_true(t.number == number || (isnan(number) && isnan(t.number)));
	}
	/* written back, it reads the same */
	hcb_trigger_format(&t, buf, sizeof(buf));
	assert_int_equal(hcb_trigger_parse(buf, &again, &col, &why), 0);
	assert_int_equal(memcmp(&t, &again, offsetof(struct hcb_trigger, number)), 0);
}

static void test_grammar(void **state)
{
	(void)state;
	parses("nonfinite", "", -1, 1, 0, 0, 0, 0);
	parses("  loss : nonfinite ", "loss", -1, 1, 0, 0, 0, 0);
	parses("@3: nonfinite", "", 3, 1, 0, 0, 0, 0);
	parses("@4294967295: nonfinite", "", 4294967295, 1, 0, 0, 0, 0);
	parses("loss: max > 1e4", "loss", -1, 0, 0, HCB_TRIG_MAX, HCB_TRIG_GT, 1e4);
	parses("abs max > 1e30", "", -1, 0, 1, HCB_TRIG_MAX, HCB_TRIG_GT, 1e30);
	parses("mean < 0", "", -1, 0, 0, HCB_TRIG_MEAN, HCB_TRIG_LT, 0);
	parses("params@1: abs mean >= 3.5", "params", 1, 0, 1, HCB_TRIG_MEAN, HCB_TRIG_GE, 3.5);
	parses("debug_print.1@0:min<=-2", "debug_print.1", 0, 0, 0, HCB_TRIG_MIN, HCB_TRIG_LE, -2);
	parses("sum == 0x1p4", "", -1, 0, 0, HCB_TRIG_SUM, HCB_TRIG_EQ, 16);
	parses("sum != inf", "", -1, 0, 0, HCB_TRIG_SUM, HCB_TRIG_NE, INFINITY);
}

/* Each error: its column and what was expected there. */
static void fails(const char *s, size_t want_col, const char *want_why)
{
	struct hcb_trigger t;
	const char *why;
	size_t col;

	assert_int_equal(hcb_trigger_parse(s, &t, &col, &why), -EINVAL);
	assert_int_equal(col, want_col);
	assert_non_null(strstr(why, want_why));
}

static void test_grammar_errors(void **state)
{
	(void)state;
	fails("", 1, "nonfinite, abs, or a statistic");
	fails("median > 1", 1, "nonfinite, abs, or a statistic");
	fails("abs nonfinite", 5, "a statistic: min, max, mean or sum");
	fails("max 1", 5, "a comparison");
	fails("max =< 1", 5, "a comparison");
	fails("max > one", 7, "a number");
	fails("max > 1 2", 9, "the end of the condition");
	fails("loss@x: max > 1", 6, "a device number after '@'");
	/* any u32 is a device (jax's 2048 on), past it is none */
	fails("loss@4294967296: max > 1", 6, "a device number of at most 4294967295");
	fails("loss@99999999999999999999999: max > 1", 6, "at most 4294967295");
	fails("loss x: max > 1", 6, "':' after the consumer name");
	fails("nonfinite!", 10, "the end of the condition");
}

static void test_fires(void **state)
{
	static const unsigned int dts[] = { HCB_DT_FLOAT32, HCB_DT_INT32 };
	struct hcb_consumer *c = consumer("loss", dts, 2, 3);
	float f[3] = { 1.5f, -7.0f, 2.0f };
	int32_t i[3] = { 4, 0, -1 };
	unsigned char p[24];
	struct hcb_trigger t;
	struct hcb_trigger_hit hit;
	const char *why;
	size_t col;

	(void)state;
	memcpy(p, f, 12);
	memcpy(p + 12, i, 12);
	assert_int_equal(hcb_trigger_parse("loss: max > 3", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 1);
	assert_int_equal(hit.leaf, 1);
	assert_int_equal(hit.element, 0);
	assert_true(hit.value == 4);
	assert_int_equal(hcb_trigger_parse("abs max > 6.5", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 1);
	assert_int_equal(hit.leaf, 0);
	assert_int_equal(hit.element, 1);
	assert_true(hit.value == 7);
	/* (1.5 - 7 + 2 + 4 + 0 - 1) / 6 */
	assert_int_equal(hcb_trigger_parse("mean > 0", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 0);
	assert_int_equal(hcb_trigger_parse("mean < 0", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 1);
	assert_true(fabs(hit.value + 0.5 / 6) < 1e-15);
	assert_int_equal(hcb_trigger_parse("sum == -0.5", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 1);
	assert_int_equal(hit.element, -1);
	/* another consumer, another device: not this tap */
	assert_int_equal(hcb_trigger_parse("params: max > 3", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 0);
	assert_int_equal(hcb_trigger_parse("@1: max > 3", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 1, p, &hit), 1);
	/* a NaN: no statistic holds but !=, nonfinite does */
	f[2] = NAN;
	memcpy(p, f, 12);
	assert_int_equal(hcb_trigger_parse("max > 3", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 0);
	assert_int_equal(hcb_trigger_parse("nonfinite", &t, &col, &why), 0);
	assert_int_equal(hcb_trigger_fires(&t, c, 0, p, &hit), 1);
	assert_int_equal(hit.element, 2);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonfinite_every_dtype),
		cmocka_unit_test(test_nonfinite_complex_and_taps),
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_grammar_errors),
		cmocka_unit_test(test_fires),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
