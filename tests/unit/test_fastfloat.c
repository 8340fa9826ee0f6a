/* SPDX-License-Identifier: MIT */
/*
 * test_fastfloat.c - the fast float digits against Dragon4, the path they
 * replace (formats/text/digits.h, formats/jsonl_num.h).
 *
 * On float32 and float64 bit patterns of every kind (random, subnormal,
 * binade bottoms and tops, extremes, powers of two and of ten and their
 * neighbours, values with few digits, large integers, the typical range):
 *
 *  - a JSONL element's text, dragonbox's against the Dragon4 path of
 *    jsonl.c, byte for byte, and the text reads back to the same bits;
 *  - hcb_unique_digits (and hcb_unique_count) against hcb_dragon4 in every
 *    mode arrayprint.c calls it in (positional sizing and printing,
 *    scientific sizing and printing, any precision): the same digits and
 *    exponent;
 *  - whole hcb_array2string texts with the fast digits on and off.
 *
 * HCB_FASTFLOAT_CASES=N runs N values of each type (default 200000 float32
 * and half as many float64) and HCB_FASTFLOAT_SEED=S another sequence;
 * HCB_FASTFLOAT_F32_STRIDE=K (1: all 2^31) walks the positive float32
 * patterns in steps of K through the JSONL text (every 16th of them also
 * through the two modes id_print uses most), and checks every eight-digit
 * block: a long run, not part of the default one.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/dtype.h"
#include "jsonl.h"
#include "jsonl_num.h"
#include "text/arrayprint.h"
#include "text/digits.h"
#include "text/dragon4.h"
#include "text/fastfloat.h"
#include "testrand.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t ncases = 200000;

/* the test's own stream, from seed */
#define next64() testrand_next(&seed)
#define below(n) testrand_below(&seed, (n))

/* ---- values worth testing ---- */

static const uint32_t f32_edges[] = {
	0x00000000, 0x80000000, 0x00000001, 0x00000002, 0x00000003, 0x007fffff, 0x007ffffe,
	0x00800000, 0x00800001, 0x00ffffff, 0x01000000, 0x7f7fffff, 0x7f7ffffe, 0x7f000000,
	0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x3f800000, 0x3f7fffff,
	0x3f800001, 0x4b800000, 0x4b7fffff, 0x4b800001, 0x38d1b717, 0x38d1b718, 0x5a0e1bca,
	0x59ddb16c, 0x4cbebc20, 0x3dcccccd, 0x3a83126f, 0x3c23d70a, 0x33d6bf95, 0x26901d7d,
};

static const uint64_t f64_edges[] = {
	0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
	0x0000000000000002ull, 0x000fffffffffffffull, 0x0010000000000000ull,
	0x0010000000000001ull, 0x7fefffffffffffffull, 0x7fe0000000000000ull,
	0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
	0x3ff0000000000000ull, 0x3fefffffffffffffull, 0x3ff0000000000001ull,
	0x4340000000000000ull, 0x433fffffffffffffull, 0x4340000000000001ull,
	0x3fb999999999999aull, 0x3f1a36e2eb1c432dull, 0x3f1a36e2eb1c432cull,
	0x4341c37937e08000ull, 0x4341c37937e07fffull, 0x44b52d02c7e14af6ull,
	0x44b52d02c7e14af7ull, 0x3e45798ee2308c3aull, 0x0000000000000003ull,
	0x4310000000000001ull, 0x430c6bf526340000ull, 0x430c6bf526340001ull,
	0x432c6bf526340000ull, 0x432c6bf52633ffffull, 0x3ee4f8b588e368f1ull,
};

/* Around the JSONL positional/scientific switch (1e-5 ... 1e17), any
 * digit count: exponents of two from -20 to 57, random mantissas. */
static double near_switch(void)
{
	return ldexp(1 + (double)(next64() >> 12) / 4503599627370496.0, (int)below(78) - 20);
}

/* A float32 pattern of kind i % 10. */
static uint32_t pick_f32(uint64_t i)
{
	uint32_t r = (uint32_t)next64(), sign = r & 0x80000000u;
	float f;

	switch (i % 10) {
	case 0: case 1:
		return r;                                          /* anything */
	case 8:
		f = (float)near_switch();
		memcpy(&r, &f, 4);
		return sign | r;
	case 2:
		return sign | (r & 0x7fffff);                      /* subnormal */
	case 3: {                                                  /* binade ends */
		uint32_t e = (uint32_t)below(255) << 23;
		static const uint32_t m[] = { 0, 1, 2, 3, 0x7fffff, 0x7ffffe, 0x400000 };

		return sign | e | m[below(7)];
	}
	case 4:                                                    /* near 10^k */
		f = (float)pow(10, (double)below(84) - 45);
		memcpy(&r, &f, 4);
		return sign | (r + (uint32_t)below(7) - 3);
	case 5:                                                    /* few digits */
		f = (float)((double)below(100000) / pow(10, (double)below(12)));
		memcpy(&r, &f, 4);
		return sign | (r + (uint32_t)below(3) - 1);
	case 6:                                                    /* large integers */
		f = (float)(next64() >> below(64));
		memcpy(&r, &f, 4);
		return sign | r;
	default:                                                   /* typical */
		return sign | ((uint32_t)(100 + below(60)) << 23) | (r & 0x7fffff);
	}
}

static uint64_t pick_f64(uint64_t i)
{
	uint64_t r = next64(), sign = r & 0x8000000000000000ull, mask = 0xfffffffffffffull;
	double d;

	switch (i % 10) {
	case 0: case 1:
		return r;
	case 8:
		d = near_switch();
		memcpy(&r, &d, 8);
		return sign | r;
	case 2:
		return sign | (r & mask);
	case 3: {
		uint64_t e = below(2047) << 52;
		static const uint64_t m[] = { 0, 1, 2, 3, 0xfffffffffffffull, 0xffffffffffffeull,
					      0x8000000000000ull };

		return sign | e | m[below(7)];
	}
	case 4:
		d = pow(10, (double)below(632) - 323);
		memcpy(&r, &d, 8);
		return sign | (r + below(7) - 3);
	case 5:
		d = (double)below(10000000000ull) / pow(10, (double)below(20));
		memcpy(&r, &d, 8);
		return sign | (r + below(3) - 1);
	case 6:
		d = (double)(next64() >> below(64)) * (below(2) ? 1 : 1e10);
		memcpy(&r, &d, 8);
		return sign | r;
	default:
		return sign | ((1000 + below(60)) << 52) | (r & mask);
	}
}

/* ---- the checks ---- */

static uint64_t nbad, ncalls;

/* The JSONL element text: the fast path's and the Dragon4 path's. */
static void check_json(unsigned int dtype, const void *p)
{
	struct hcb_buf fast = HCB_BUF_INIT, ref = HCB_BUF_INIT;
	const char *t;

	assert_int_equal(hcb_json_element(&fast, dtype, p), 0);
	assert_int_equal(hcb_json_real_d4(&ref, dtype, p), 0);
	t = hcb_buf_str(&fast);
	if (strcmp(t, hcb_buf_str(&ref))) {
		if (nbad++ < 10)
			print_error("%s %s: fast '%s', Dragon4 '%s'\n", hcb_dtype_name(dtype),
				    dtype == HCB_DT_FLOAT32 ? "f32" : "f64", t, hcb_buf_str(&ref));
	} else if (t[0] != '"') {
		/* and it reads back to the same bits */
		unsigned char back[8];

		assert_int_equal(hcb_json_number(t, strlen(t), dtype, back), 0);
		if (memcmp(back, p, hcb_dtype_size(dtype)) && nbad++ < 10)
			print_error("%s '%s' does not read back\n", hcb_dtype_name(dtype), t);
	}
	hcb_buf_free(&fast);
	hcb_buf_free(&ref);
}

static void strip(struct hcb_decimal *d)
{
	while (d->n > 1 && d->d[d->n - 1] == '0')
		d->n--;
}

/* One mode: hcb_unique_digits against hcb_dragon4. */
static void check_mode(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff, int cmax, int cmin)
{
	struct hcb_d4_float f = hcb_d4_split(v, t.mant_bits, t.min_exp);
	struct hcb_decimal a, b;
	int ce, cn = hcb_unique_count(v, t, cutoff, cmax, cmin, &ce);

	hcb_unique_digits(v, t, cutoff, cmax, cmin, &a);
	ncalls += 2;
	hcb_dragon4(&f, HCB_D4_UNIQUE, cutoff, cmax, cmin, &b);
	strip(&b);
	if (a.n != b.n || a.e != b.e || memcmp(a.d, b.d, (size_t)a.n) || cn != b.n || ce != b.e) {
		if (nbad++ < 10)
			print_error("%.17g (%s) %s max %d min %d: fast %.*s e%d, Dragon4 %.*s e%d\n",
				    v, t.mant_bits == 23 ? "f32" : "f64",
				    cutoff == HCB_D4_TOTAL ? "total" : "fraction", cmax, cmin,
				    a.n, a.d, a.e, b.n, b.d, b.e);
	}
}

/* Every mode arrayprint.c uses, at the default precision or another. */
static void check_modes(double v, int mant_bits)
{
	struct hcb_d4_type t = { mant_bits, mant_bits == 23 ? -126 : -1022 };
	int prec = below(2) ? 8 : (int)below(18);

	if (!isfinite(v) || v == 0)
		return;
	v = fabs(v);
	check_mode(v, t, HCB_D4_TOTAL, -1, -1);
	check_mode(v, t, HCB_D4_FRACTION, prec, -1);                 /* positional */
	check_mode(v, t, HCB_D4_FRACTION, prec, 0);
	check_mode(v, t, HCB_D4_TOTAL, prec + 1, -1);                /* scientific */
	prec = (int)below((uint64_t)prec + 1);
	check_mode(v, t, HCB_D4_TOTAL, prec + 1, prec + 1);
}

static void test_digits_u64(void **state)
{
	uint32_t step = getenv("HCB_FASTFLOAT_F32_STRIDE") ? 1 : 37;
	char a[32], b[32];

	(void)state;
	/* the eight-digit blocks against division: every x < 10^8 in the
	 * long run, every 37th in the default one */
	for (uint32_t x = 0; x < 100000000; x += step) {
		uint64_t want = 0, y = x;

		for (int k = 7; k >= 0; k--, y /= 10)
			want |= (y % 10) << (8 * k);
		if (hcb_eight_digits(x) != want)
			fail_msg("hcb_eight_digits(%u)", x);
	}
	for (int i = 0; i < 200000; i++) {
		uint64_t x = i < 64 ? (1ull << i) - (i & 1) : next64() >> below(64);
		int n = hcb_digits_u64(x, a);

		assert_int_equal(n, snprintf(b, sizeof(b), "%" PRIu64, x));
		assert_memory_equal(a, b, (size_t)n);
	}
	assert_int_equal(hcb_digits_u64(UINT64_MAX, a), 20);
	assert_int_equal(hcb_digits_u64(0, a), 1);
	assert_int_equal(a[0], '0');
}

static void test_f32(void **state)
{
	uint64_t fb = hcb_fast_digits_fallbacks();

	(void)state;
	nbad = ncalls = 0;
	for (size_t i = 0; i < sizeof(f32_edges) / sizeof(f32_edges[0]); i++) {
		float f;

		memcpy(&f, &f32_edges[i], 4);
		check_json(HCB_DT_FLOAT32, &f);
		check_modes(f, 23);
	}
	for (uint64_t i = 0; i < ncases; i++) {
		uint32_t bits = pick_f32(i);
		float f;

		memcpy(&f, &bits, 4);
		check_json(HCB_DT_FLOAT32, &f);
		check_modes(f, 23);
	}
	print_message("float32: %" PRIu64 " values, %" PRIu64 " differ; %" PRIu64 " of %" PRIu64
		      " digit calls went to Dragon4\n", ncases, nbad, hcb_fast_digits_fallbacks() - fb,
		      ncalls);
	assert_int_equal(nbad, 0);
}

static void test_f64(void **state)
{
	uint64_t fb = hcb_fast_digits_fallbacks();

	(void)state;
	nbad = ncalls = 0;
	for (size_t i = 0; i < sizeof(f64_edges) / sizeof(f64_edges[0]); i++) {
		double d;

		memcpy(&d, &f64_edges[i], 8);
		check_json(HCB_DT_FLOAT64, &d);
		check_modes(d, 52);
	}
	for (uint64_t i = 0; i < ncases / 2; i++) {
		uint64_t bits = pick_f64(i);
		double d;

		memcpy(&d, &bits, 8);
		check_json(HCB_DT_FLOAT64, &d);
		check_modes(d, 52);
	}
	print_message("float64: %" PRIu64 " values, %" PRIu64 " differ; %" PRIu64 " of %" PRIu64
		      " digit calls went to Dragon4\n", ncases / 2, nbad, hcb_fast_digits_fallbacks() - fb,
		      ncalls);
	assert_int_equal(nbad, 0);
}

/* The printf replacements arrayprint.c uses. */
static void test_put_text(void **state)
{
	struct hcb_buf a = HCB_BUF_INIT;
	char want[128];

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint64_t u = next64() >> below(64);
		int64_t s = (int64_t)(next64() >> below(64)) * (below(2) ? -1 : 1);
		int width = (int)below(25), e = (int)below(700) - 350, n = 1 + (int)below(20);
		int ew = 2 + (int)below(3), pad = (int)below(8);
		const char *sign = below(3) ? "" : below(2) ? "-" : "+";
		char d[24];

		if (i < 4)
			s = i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : i == 2 ? 0 : -1;
		if (i < 4)
			u = i == 0 ? UINT64_MAX : (uint64_t)i - 1;
		hcb_buf_reset(&a);
		assert_int_equal(hcb_put_i64(&a, s, width), 0);
		snprintf(want, sizeof(want), "%*lld", width, (long long)s);
		assert_string_equal(hcb_buf_str(&a), want);
		hcb_buf_reset(&a);
		assert_int_equal(hcb_put_u64(&a, u, width), 0);
		snprintf(want, sizeof(want), "%*llu", width, (unsigned long long)u);
		assert_string_equal(hcb_buf_str(&a), want);
		for (int k = 0; k < n; k++)
			d[k] = (char)('0' + below(10));
		hcb_buf_reset(&a);
		assert_int_equal(hcb_buf_puts(&a, "x"), 0);
		assert_int_equal(hcb_put_sci(&a, pad - 2, sign, d, n, e, ew), 0);
		snprintf(want, sizeof(want), "x%*s%s%c.%.*se%c%0*d", pad > 2 ? pad - 2 : 0, "", sign,
			 d[0], n - 1, d + 1, e < 0 ? '-' : '+', ew, abs(e));
		assert_string_equal(hcb_buf_str(&a), want);
	}
	hcb_buf_free(&a);
}

/* The bulk writer is the per-element one joined with commas. */
static void test_reals_bulk(void **state)
{
	struct hcb_buf bulk = HCB_BUF_INIT, each = HCB_BUF_INIT;
	static uint64_t f64[5000];
	static uint32_t f32[10000];
	uint8_t u8 = 1;

	(void)state;
	for (size_t i = 0; i < 10000; i++)
		f32[i] = pick_f32(i);
	for (size_t i = 0; i < 5000; i++)
		f64[i] = pick_f64(i);
	for (int t = 0; t < 2; t++) {
		unsigned int dt = t ? HCB_DT_FLOAT64 : HCB_DT_FLOAT32;
		size_t n = t ? 5000 : 10000, size = t ? 8 : 4;
		const char *p = t ? (const char *)f64 : (const char *)f32;

		hcb_buf_reset(&bulk);
		hcb_buf_reset(&each);
		assert_int_equal(hcb_buf_puts(&bulk, "["), 0);
		assert_int_equal(hcb_json_reals(&bulk, dt, p, n), 0);
		assert_int_equal(hcb_buf_puts(&each, "["), 0);
		for (size_t i = 0; i < n; i++) {
			if (i)
				assert_int_equal(hcb_buf_putc(&each, ','), 0);
			assert_int_equal(hcb_json_real_d4(&each, dt, p + i * size), 0);
		}
		assert_string_equal(hcb_buf_str(&bulk), hcb_buf_str(&each));
		assert_int_equal(bulk.len, strlen(bulk.data));
		assert_int_equal(hcb_json_reals(&bulk, dt, p, 0), 0);
		assert_int_equal(bulk.len, each.len);
	}
	assert_int_equal(hcb_json_reals(&bulk, HCB_DT_UINT8, &u8, 1), -EINVAL);
	assert_int_equal(bulk.len, each.len);
	hcb_buf_free(&bulk);
	hcb_buf_free(&each);
}

/* ---- whole array texts, fast digits on and off ---- */

/* A column of values at one scale, with some zeros, nans, infs. */
static double pick_elem(int profile, double scale)
{
	uint64_t k = below(100);
	double x;

	if (k < 3)
		return 0;
	if (k < 4)
		return below(2) ? NAN : below(2) ? INFINITY : -INFINITY;
	switch (profile) {
	case 0: {                                           /* normal-ish, signed */
		double u = ((double)(next64() >> 11) + 0.5) / 9007199254740992.0;

		x = sqrt(-2 * log(u)) * cos(6.283185307179586 * (double)(next64() >> 11) / 9007199254740992.0);
		return x * scale;
	}
	case 1:                                             /* few digits */
		return (double)((int64_t)below(20001) - 10000) / 100 * scale;
	case 2:                                             /* wide range */
		return pow(10, (double)below(40) - 20) * (double)(below(1000) + 1) / 1000;
	default: {                                          /* any pattern */
		uint64_t b = pick_f64(next64());

		memcpy(&x, &b, 8);
		return x;
	}
	}
}

static void fill(unsigned int dtype, unsigned char *data, size_t n)
{
	int profile = (int)below(4);
	double scale = pow(10, (double)below(24) - 12);

	for (size_t i = 0; i < n; i++) {
		double x = pick_elem(profile, scale);
		float f = (float)x;

		if (profile == 3 && dtype != HCB_DT_FLOAT64 && dtype != HCB_DT_COMPLEX128) {
			uint32_t b = pick_f32(next64());

			memcpy(&f, &b, 4);
		}
		if (dtype == HCB_DT_FLOAT32 || dtype == HCB_DT_COMPLEX64)
			memcpy(data + 4 * i, &f, 4);
		else
			memcpy(data + 8 * i, &x, 8);
	}
}

static void test_array_text(void **state)
{
	static const unsigned int types[] = { HCB_DT_FLOAT32, HCB_DT_FLOAT64, HCB_DT_COMPLEX64,
					      HCB_DT_COMPLEX128 };
	struct hcb_buf fast = HCB_BUF_INIT, ref = HCB_BUF_INIT;
	static unsigned char data[2 * 8 * 600];
	uint64_t narrays = ncases / 50, bad = 0;

	(void)state;
	for (uint64_t i = 0; i < narrays; i++) {
		unsigned int dt = types[below(4)];
		uint64_t dims[2] = { 1 + below(below(10) ? 40 : 300), 1 + below(2) };
		struct hcb_array a = { dt, 1 + (unsigned int)below(2), dims, data };
		struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
		size_t n = dims[0] * (a.ndim == 2 ? dims[1] : 1);

		if (below(3) == 0)
			o.precision = (int)below(14);
		o.suppress = below(5) == 0;
		fill(dt, data, hcb_dtype_is_complex(dt) ? 2 * n : n);
		hcb_buf_reset(&fast);
		hcb_buf_reset(&ref);
		hcb_fast_digits_enable(true);
		assert_int_equal(hcb_array2string(&fast, &a, &o), 0);
		hcb_fast_digits_enable(false);
		assert_int_equal(hcb_array2string(&ref, &a, &o), 0);
		hcb_fast_digits_enable(true);
		if (strcmp(hcb_buf_str(&fast), hcb_buf_str(&ref)) && bad++ < 5)
			print_error("%s precision %d suppress %d:\n--- Dragon4\n%s\n--- fast\n%s\n",
				    hcb_dtype_name(dt), o.precision, o.suppress, hcb_buf_str(&ref),
				    hcb_buf_str(&fast));
	}
	hcb_buf_free(&fast);
	hcb_buf_free(&ref);
	print_message("%" PRIu64 " arrays, %" PRIu64 " differ\n", narrays, bad);
	assert_int_equal(bad, 0);
}

/* ---- the long run: positive float32 patterns in order ---- */

static void test_f32_walk(void **state)
{
	const char *s = getenv("HCB_FASTFLOAT_F32_STRIDE");
	uint64_t stride = s ? strtoull(s, NULL, 0) : 0, n = 0;

	(void)state;
	if (!stride) {
		skip();
		return;
	}
	nbad = 0;
	for (uint64_t b = 0; b < 0x7f800000u; b += stride, n++) {
		struct hcb_d4_type t = { 23, -126 };
		uint32_t bits = (uint32_t)b;
		float x;

		memcpy(&x, &bits, 4);
		check_json(HCB_DT_FLOAT32, &x);
		/* Dragon4 is the time: every 16th value through these */
		if (x == 0 || n % 16)
			continue;
		check_mode(x, t, HCB_D4_TOTAL, 9, 9);             /* scientific, 8 digits */
		check_mode(x, t, HCB_D4_FRACTION, 8, 0);          /* positional */
	}
	print_message("float32 walk: %" PRIu64 " values, %" PRIu64 " differ\n", n, nbad);
	assert_int_equal(nbad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digits_u64),
		cmocka_unit_test(test_put_text),
		cmocka_unit_test(test_f32),
		cmocka_unit_test(test_f64),
		cmocka_unit_test(test_reals_bulk),
		cmocka_unit_test(test_array_text),
		cmocka_unit_test(test_f32_walk),
	};

	testrand_env(&ncases, &seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
