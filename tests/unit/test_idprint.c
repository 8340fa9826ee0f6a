/* SPDX-License-Identifier: MIT */
/*
 * test_idprint.c - whole taps laid out as id_print did (formats/text/idprint.h):
 * the sorted kwargs line with the device, then the pytree through JAX's
 * pretty printer with numpy's array2string leaves.
 *
 * Every expected text below is what real host_callback.id_print printed
 * (jax 0.4.25, numpy 1.26.4, x64 enabled) for the Python expression in its
 * comment; tests/data/unit/gen_idprint_golden.py reruns them:
 *
 *	def idp(arg, **kw):   # returns what id_print wrote
 *	    id_print(arg, tap_with_device=True, output_stream=out, **kw)
 *	    inside jax.jit, then barrier_wait()
 *
 * with f32 = np.float32.  jax 0.4.25 calls the device "TFRT_CPU_0"; the
 * goldens say "cpu:0", the name hcbtrace prints (README.md).
 *
 *	gcc ... -Isrc -Iformats src/core/buf.c src/core/consumer.c src/core/dtype.c src/core/tree.c \
 *		formats/text/idprint.c formats/text/arrayprint.c formats/text/floatformat.c \
 *		formats/text/dragon4.c formats/text/pretty.c \
 *		tests/unit/test_idprint.c -lcmocka -lm
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "text/idprint.h"
#include "text/print_opts.h"

static const struct hcb_print_opts opts = HCB_PRINT_OPTS_IDPRINT;

/* ---- building a tap ---- */

#define MAXL 8

struct tap {
	const char *const *kwargs;
	const char *tree;
	unsigned int nleaves;
	struct hcb_leaf_spec leaves[MAXL];
};

static struct hcb_consumer *consumer(const struct tap *t)
{
	struct hcb_consumer_spec s = { .name = "tap", .kwargs = t->kwargs, .tree = t->tree,
				       .nleaves = t->nleaves, .leaves = t->leaves };
	struct hcb_consumer *c = NULL;
	void *blob = NULL;
	size_t len = 0;

	assert_int_equal(hcb_reg_build(&s, 42, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

/* The payload, leaves back to back. */
struct payload {
	unsigned char bytes[16384];
	size_t len;
};

static void put(struct payload *p, const void *v, size_t n)
{
	assert_true(p->len + n <= sizeof(p->bytes));
	memcpy(p->bytes + p->len, v, n);
	p->len += n;
}

static void f32(struct payload *p, float v) { put(p, &v, 4); }
static void f64(struct payload *p, double v) { put(p, &v, 8); }
static void i32(struct payload *p, int32_t v) { put(p, &v, 4); }
static void i64(struct payload *p, int64_t v) { put(p, &v, 8); }
static void u8(struct payload *p, uint8_t v) { put(p, &v, 1); }

/* Print the tap on cpu:0 and compare. */
static void expect(const struct tap *t, const struct payload *p, const char *want)
{
	struct hcb_consumer *c = consumer(t);
	struct hcb_buf out = HCB_BUF_INIT;
	int err;

	assert_int_equal(c->total_bytes, p->len);
	err = hcb_idprint(&out, c, "cpu", 0, p->bytes, &opts);
	hcb_consumer_free(c);
	if (err) {
		hcb_buf_free(&out);
		fail_msg("hcb_idprint: %d", err);
	}
	if (strcmp(hcb_buf_str(&out), want) != 0) {
		print_error("want:\n%s--\ngot:\n%s--\n", want, hcb_buf_str(&out));
		hcb_buf_free(&out);
		fail();
	}
	hcb_buf_free(&out);
}

/* ---- golden taps ---- */

/* idp(f32(3.0), what='x') */
static void test_scalar(void **state)
{
	static const char *const kw[] = { "what", "x", NULL };
	const struct tap t = { .kwargs = kw, .tree = "*", .nleaves = 1,
			       .leaves = { { HCB_DT_FLOAT32 } } };
	struct payload p = { .len = 0 };

	(void)state;
	f32(&p, 3.0f);
	expect(&t, &p, "device: cpu:0 what: x\n3.\n");
}

/* idp((f32(3.0), f32(9.0))) */
static void test_tuple(void **state)
{
	const struct tap t = { .tree = "( * * )", .nleaves = 2,
			       .leaves = { { HCB_DT_FLOAT32 }, { HCB_DT_FLOAT32 } } };
	struct payload p = { .len = 0 };

	(void)state;
	f32(&p, 3.0f);
	f32(&p, 9.0f);
	expect(&t, &p, "device: cpu:0\n( 3. 9. )\n");
}

/* idp([np.int32(1), np.int32(-2), np.int32(30)], b='2', a='1')
 * (kwargs registered b first: the line sorts them) */
static void test_list_sorted_kwargs(void **state)
{
	static const char *const kw[] = { "b", "2", "a", "1", NULL };
	const struct tap t = { .kwargs = kw, .tree = "[ * * * ]", .nleaves = 3,
			       .leaves = { { HCB_DT_INT32 }, { HCB_DT_INT32 }, { HCB_DT_INT32 } } };
	struct payload p = { .len = 0 };

	(void)state;
	i32(&p, 1);
	i32(&p, -2);
	i32(&p, 30);
	expect(&t, &p, "a: 1 b: 2 device: cpu:0\n[ 1 -2 30 ]\n");
}

/* idp({'w': np.array([1.0, 2.0], f32), 'b': f32(0.5)})
 * (the structure string lists w first: the printer sorts the keys) */
static void test_dict_sorted(void **state)
{
	const struct tap t = { .tree = "{ w=* b=* }", .nleaves = 2,
			       .leaves = { { HCB_DT_FLOAT32, 1, { 2 } }, { HCB_DT_FLOAT32 } } };
	struct payload p = { .len = 0 };

	(void)state;
	f32(&p, 1.0f);
	f32(&p, 2.0f);
	f32(&p, 0.5f);
	expect(&t, &p, "device: cpu:0\n{ b=0.5 w=[1. 2.] }\n");
}

/* idp({'b': (f32(1.5), [np.int32(7), np.array([True, False, True])]),
 *      'a': {'z': f32(-2.0), 'y': np.bool_(True)}}) */
static void test_nested(void **state)
{
	const struct tap t = { .tree = "{ b=( * [ * * ] ) a={ z=* y=* } }", .nleaves = 5,
			       .leaves = { { HCB_DT_FLOAT32 }, { HCB_DT_INT32 }, { HCB_DT_BOOL, 1, { 3 } },
					   { HCB_DT_FLOAT32 }, { HCB_DT_BOOL } } };
	struct payload p = { .len = 0 };

	(void)state;
	f32(&p, 1.5f);
	i32(&p, 7);
	u8(&p, 1);
	u8(&p, 0);
	u8(&p, 1);
	f32(&p, -2.0f);
	u8(&p, 1);
	expect(&t, &p, "device: cpu:0\n{ a={ y=True z=-2. } b=( 1.5 [ 7 [ True False  True] ] ) }\n");
}

/* idp(tuple(np.arange(3 * i, 3 * i + 3, dtype=f32) / 7 for i in range(6)), what='big')
 * wider than 80 columns: the tuple breaks, items indented by 2 */
static void test_breaks_at_80(void **state)
{
	static const char *const kw[] = { "what", "big", NULL };
	struct tap t = { .kwargs = kw, .tree = "( * * * * * * )", .nleaves = 6 };
	struct payload p = { .len = 0 };

	(void)state;
	for (int i = 0; i < 6; i++) {
		t.leaves[i] = (struct hcb_leaf_spec){ HCB_DT_FLOAT32, 1, { 3 } };
		for (int k = 0; k < 3; k++)
			f32(&p, (float)(3 * i + k) / 7.0f);
	}
	expect(&t, &p,
	       "device: cpu:0 what: big\n"
	       "( [0.         0.14285715 0.2857143 ]\n"
	       "  [0.42857143 0.5714286  0.71428573]\n"
	       "  [0.85714287 1.         1.1428572 ]\n"
	       "  [1.2857143 1.4285715 1.5714285]\n"
	       "  [1.7142857 1.8571428 2.       ]\n"
	       "  [2.142857  2.2857144 2.4285715] )\n");
}

/* idp((np.array([[1.0, 2.0], [3.0, 4.0]], f32), np.int32(5)))
 * a multi-line leaf: its own newlines are not indented */
static void test_matrix_leaf(void **state)
{
	const struct tap t = { .tree = "( * * )", .nleaves = 2,
			       .leaves = { { HCB_DT_FLOAT32, 2, { 2, 2 } }, { HCB_DT_INT32 } } };
	struct payload p = { .len = 0 };

	(void)state;
	f32(&p, 1.0f);
	f32(&p, 2.0f);
	f32(&p, 3.0f);
	f32(&p, 4.0f);
	i32(&p, 5);
	expect(&t, &p, "device: cpu:0\n( [[1. 2.]\n [3. 4.]] 5 )\n");
}

/* idp((np.array([1.5, -2.25, 100.0], f32), np.array([1e-5, 1.0], f32),
 *      np.array([0.1, 1e9], np.float64))) */
static void test_float_padding(void **state)
{
	const struct tap t = { .tree = "( * * * )", .nleaves = 3,
			       .leaves = { { HCB_DT_FLOAT32, 1, { 3 } }, { HCB_DT_FLOAT32, 1, { 2 } },
					   { HCB_DT_FLOAT64, 1, { 2 } } } };
	struct payload p = { .len = 0 };

	(void)state;
	f32(&p, 1.5f);
	f32(&p, -2.25f);
	f32(&p, 100.0f);
	f32(&p, 1e-5f);
	f32(&p, 1.0f);
	f64(&p, 0.1);
	f64(&p, 1e9);
	expect(&t, &p, "device: cpu:0\n( [  1.5   -2.25 100.  ] [1.e-05 1.e+00] [1.e-01 1.e+09] )\n");
}

/* idp((np.bool_(True), np.bool_(False), np.array([[1, -20], [300, 4]], np.int32))) */
static void test_bools_ints(void **state)
{
	const struct tap t = { .tree = "( * * * )", .nleaves = 3,
			       .leaves = { { HCB_DT_BOOL }, { HCB_DT_BOOL }, { HCB_DT_INT32, 2, { 2, 2 } } } };
	struct payload p = { .len = 0 };

	(void)state;
	u8(&p, 1);
	u8(&p, 0);
	i32(&p, 1);
	i32(&p, -20);
	i32(&p, 300);
	i32(&p, 4);
	expect(&t, &p, "device: cpu:0\n( True False [[  1 -20]\n [300   4]] )\n");
}

/* idp({'params': {'w1': np.arange(20, dtype=f32).reshape(4, 5) / 3,
 *                 'b1': np.zeros(5, f32)}, 'step': np.int32(42)},
 *     device='gpu:7', zz='last', aa='first')
 * nested groups break at 80; a user kwarg "device" gives way to the tap's */
static void test_params_tree(void **state)
{
	static const char *const kw[] = { "zz", "last", "device", "gpu:7", "aa", "first", NULL };
	const struct tap t = { .kwargs = kw, .tree = "{ params={ w1=* b1=* } step=* }", .nleaves = 3,
			       .leaves = { { HCB_DT_FLOAT32, 2, { 4, 5 } }, { HCB_DT_FLOAT32, 1, { 5 } },
					   { HCB_DT_INT32 } } };
	struct payload p = { .len = 0 };

	(void)state;
	for (int i = 0; i < 20; i++)
		f32(&p, (float)i / 3.0f);
	for (int i = 0; i < 5; i++)
		f32(&p, 0.0f);
	i32(&p, 42);
	expect(&t, &p,
	       "aa: first device: cpu:0 zz: last\n"
	       "{ params={ b1=[0. 0. 0. 0. 0.]\n"
	       "    w1=[[0.         0.33333334 0.6666667  1.         1.3333334 ]\n"
	       " [1.6666666  2.         2.3333333  2.6666667  3.        ]\n"
	       " [3.3333333  3.6666667  4.         4.3333335  4.6666665 ]\n"
	       " [5.         5.3333335  5.6666665  6.         6.3333335 ]] }\n"
	       "  step=42 }\n");
}

/* idp((np.arange(2000, dtype=f32),)): over the threshold of 1024, summarized */
static void test_summarized(void **state)
{
	const struct tap t = { .tree = "( * )", .nleaves = 1,
			       .leaves = { { HCB_DT_FLOAT32, 1, { 2000 } } } };
	static struct payload p;

	(void)state;
	p.len = 0;
	for (int i = 0; i < 2000; i++)
		f32(&p, (float)i);
	expect(&t, &p, "device: cpu:0\n( [0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03] )\n");
}

/* idp(()) */
static void test_empty_tuple(void **state)
{
	const struct tap t = { .tree = "( )", .nleaves = 0 };
	struct payload p = { .len = 0 };

	(void)state;
	expect(&t, &p, "device: cpu:0\n(  )\n");
}

/* idp((np.float64(0.1), np.int64(-9223372036854775808), np.uint8(255))) */
static void test_wide_ints(void **state)
{
	const struct tap t = { .tree = "( * * * )", .nleaves = 3,
			       .leaves = { { HCB_DT_FLOAT64 }, { HCB_DT_INT64 }, { HCB_DT_UINT8 } } };
	struct payload p = { .len = 0 };

	(void)state;
	f64(&p, 0.1);
	i64(&p, INT64_MIN);
	u8(&p, 255);
	expect(&t, &p, "device: cpu:0\n( 0.1 -9223372036854775808 255 )\n");
}

/* ---- the device and the kwargs line ---- */

static void test_device_names(void **state)
{
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	assert_int_equal(hcb_idprint_device(&b, "cpu", 0), 0);
	assert_string_equal(hcb_buf_str(&b), "cpu:0");
	hcb_buf_reset(&b);
	assert_int_equal(hcb_idprint_device(&b, "cuda", 7), 0);
	assert_string_equal(hcb_buf_str(&b), "cuda:7");
	hcb_buf_reset(&b);
	assert_int_equal(hcb_idprint_device(&b, NULL, 3), 0);   /* unknown platform: cpu */
	assert_string_equal(hcb_buf_str(&b), "cpu:3");
	hcb_buf_reset(&b);
	assert_int_equal(hcb_idprint_device(&b, "", 4294967295u), 0);
	assert_string_equal(hcb_buf_str(&b), "cpu:4294967295");
	hcb_buf_free(&b);
}

/* Other devices and platforms; output appended; kwarg keys sorted by byte. */
static void test_kwargs_line(void **state)
{
	static const char *const kw[] = { "z", "1", "B", "2", "a10", "3", "a9", "4", "dev", "5",
					  "devicf", "6", NULL };
	const struct tap t = { .kwargs = kw, .tree = "*", .nleaves = 1, .leaves = { { HCB_DT_INT8 } } };
	struct hcb_consumer *c = consumer(&t);
	struct hcb_buf out = HCB_BUF_INIT;
	const unsigned char v = 0xff;   /* int8 -1 */

	(void)state;
	hcb_buf_puts(&out, "before\n");
	assert_int_equal(hcb_idprint(&out, c, "cuda", 3, &v, &opts), 0);
	/* sorted(kwargs.items()) in Python: code point order */
	assert_string_equal(hcb_buf_str(&out),
			    "before\nB: 2 a10: 3 a9: 4 dev: 5 device: cuda:3 devicf: 6 z: 1\n-1\n");
	hcb_buf_reset(&out);
	assert_int_equal(hcb_idprint(&out, c, NULL, 12, &v, &opts), 0);
	assert_string_equal(hcb_buf_str(&out),
			    "B: 2 a10: 3 a9: 4 dev: 5 device: cpu:12 devicf: 6 z: 1\n-1\n");
	hcb_buf_free(&out);
	hcb_consumer_free(c);
}

/* The same tap printed twice gives the same text (no state kept). */
static void test_repeatable(void **state)
{
	const struct tap t = { .tree = "{ w=* b=* }", .nleaves = 2,
			       .leaves = { { HCB_DT_FLOAT32, 1, { 2 } }, { HCB_DT_FLOAT32 } } };
	struct hcb_consumer *c = consumer(&t);
	struct payload p = { .len = 0 };
	struct hcb_buf a = HCB_BUF_INIT, b = HCB_BUF_INIT;

	(void)state;
	f32(&p, 1.0f);
	f32(&p, 2.0f);
	f32(&p, 0.5f);
	assert_int_equal(hcb_idprint(&a, c, "cpu", 0, p.bytes, &opts), 0);
	assert_int_equal(hcb_idprint(&b, c, "cpu", 0, p.bytes, &opts), 0);
	assert_string_equal(hcb_buf_str(&a), hcb_buf_str(&b));
	assert_string_equal(hcb_buf_str(&a), "device: cpu:0\n{ b=0.5 w=[1. 2.] }\n");
	hcb_buf_free(&a);
	hcb_buf_free(&b);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalar),
		cmocka_unit_test(test_tuple),
		cmocka_unit_test(test_list_sorted_kwargs),
		cmocka_unit_test(test_dict_sorted),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_breaks_at_80),
		cmocka_unit_test(test_matrix_leaf),
		cmocka_unit_test(test_float_padding),
		cmocka_unit_test(test_bools_ints),
		cmocka_unit_test(test_params_tree),
		cmocka_unit_test(test_summarized),
		cmocka_unit_test(test_empty_tuple),
		cmocka_unit_test(test_wide_ints),
		cmocka_unit_test(test_device_names),
		cmocka_unit_test(test_kwargs_line),
		cmocka_unit_test(test_repeatable),
	};

	return cmocka_run_group_tests_name("idprint", tests, NULL, NULL);
}
