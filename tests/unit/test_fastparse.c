/* SPDX-License-Identifier: MIT */
/*
 * test_fastparse.c - reading JSONL numbers fast (formats/text/fastfloat.h,
 * formats/jsonl_num.h) against what the reader did before: glibc's strtod
 * and strtof, and strtoll / strtoull with its range checks.
 *
 * Decimal strings: random ones in JSON's grammar (1 to 60 digits, any
 * point, exponents past both ends of float64), the exact midpoints between
 * neighbouring float32 and float64 values and strings just above and below
 * them, short decimals whose nearest double is a float32 midpoint,
 * subnormal and overflow boundaries, long runs of zeros.  Every float
 * dtype takes every string, alone and as a parsed array's element;
 * integers of every size at and around their limits.
 * HCB_FASTFLOAT_CASES=N: N random strings (default 300000),
 * HCB_FASTFLOAT_SEED=S another sequence.
 */
#include <errno.h>
#include <float.h>
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

#include "core/dtype.h"
#include "json/jsonparse.h"
#include "jsonl_num.h"
#include "text/fastfloat.h"
#include "testrand.h"

static uint64_t seed = 0x243f6a8885a308d3ull;
static uint64_t ncases = 300000;
static uint64_t nbad, nstrings;

/* the test's own stream, from seed */
#define next64() testrand_next(&seed)
#define below(n) testrand_below(&seed, (n))

/* ---- one string through every float dtype ---- */

/* s as a data array's element, read through its parsed node: the
 * decimal jsonscan.h kept, or the text when it kept none. */
static void check_nodes(const char *s, size_t len, float want_f, double want_d)
{
	static struct jdoc d;
	char arr[80];
	uint32_t node = 1;
	double v = 0;
	float f = 0;

	/* past the reader's limit on a number's length, the general path's */
	if (len >= 64)
		return;
	arr[0] = '[';
	memcpy(arr + 1, s, len);
	arr[len + 1] = ']';
	assert_int_equal(jparse(&d, arr, len + 2), 0);
	assert_int_equal(hcb_json_reals_read(&d, &node, HCB_DT_FLOAT32, &f, 1), 1);
	node = 1;
	assert_int_equal(hcb_json_reals_read(&d, &node, HCB_DT_FLOAT64, &v, 1), 1);
	if (memcmp(&f, &want_f, 4) && nbad++ < 10)
		print_error("'%s': float32 node %a, strtof %a\n", s, (double)f, (double)want_f);
	if (memcmp(&v, &want_d, 8) && nbad++ < 10)
		print_error("'%s': float64 node %a, strtod %a\n", s, v, want_d);
}

static void check_float(const char *s)
{
	static const unsigned int narrow[] = { HCB_DT_FLOAT16, HCB_DT_BFLOAT16,
					       HCB_DT_FLOAT8_E4M3FN, HCB_DT_FLOAT8_E5M2 };
	size_t len = strlen(s);
	double d, want_d = strtod(s, NULL);
	float f, want_f = strtof(s, NULL);
	unsigned char got[8];

	nstrings++;
	if (hcb_parse_f64(s, len, &d) || memcmp(&d, &want_d, 8)) {
		if (nbad++ < 10)
			print_error("'%s': float64 %a, strtod %a\n", s, d, want_d);
	}
	if (hcb_parse_f32(s, len, &f) || memcmp(&f, &want_f, 4)) {
		if (nbad++ < 10)
			print_error("'%s': float32 %a, strtof %a\n", s, (double)f, (double)want_f);
	}
	check_nodes(s, len, want_f, want_d);
	/* the reader's entry point, which the narrow floats go through */
	assert_int_equal(hcb_json_number(s, len, HCB_DT_FLOAT64, got), 0);
	assert_memory_equal(got, &want_d, 8);
	assert_int_equal(hcb_json_number(s, len, HCB_DT_FLOAT32, got), 0);
	assert_memory_equal(got, &want_f, 4);
	for (size_t i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++) {
		uint32_t want = hcb_double_to_narrow_bits(narrow[i], want_d), bits = 0;

		assert_int_equal(hcb_json_number(s, len, narrow[i], &bits), 0);
		if (bits != want && nbad++ < 10)
			print_error("'%s': %s 0x%x, want 0x%x\n", s, hcb_dtype_name(narrow[i]), bits, want);
	}
}

static char digit(void)
{
	/* runs of zeros and nines make the cases near a decision */
	return below(4) ? (char)('0' + below(10)) : below(2) ? '0' : '9';
}

/* A random number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static void random_number(char *s)
{
	static const char *const sign[] = { "", "+", "-" };
	int nint = (int)below(below(8) ? 20 : 60), nfrac = below(3) ? (int)below(below(4) ? 20 : 60) : 0;
	char *w = s;

	if (below(2))
		*w++ = '-';
	if (nint == 0)
		*w++ = '0';
	else
		*w++ = (char)('1' + below(9));
	for (int i = 1; i < nint; i++)
		*w++ = digit();
	if (nfrac)
		*w++ = '.';
	for (int i = 0; i < nfrac; i++)
		*w++ = digit();
	if (below(3))
		w += sprintf(w, "%c%s%" PRIu64, below(2) ? 'e' : 'E', sign[below(3)],
			     below(4) ? below(400) : below(100000));
	*w = '\0';
}

static void test_random_strings(void **state)
{
	char s[160];

	(void)state;
	nbad = nstrings = 0;
	for (uint64_t i = 0; i < ncases; i++) {
		random_number(s);
		check_float(s);
	}
	print_message("%" PRIu64 " random strings, %" PRIu64 " differ\n", nstrings, nbad);
	assert_int_equal(nbad, 0);
}

/* The exact decimal of x (a long double holds any float32 or float64
 * midpoint exactly, and glibc prints it exactly), then just above it, then
 * just below it (its last digit dropped). */
static void check_around(long double x)
{
	char s[1200], t[1300], *e;
	int n;

	snprintf(s, sizeof(s), "%.1100Le", x);
	e = strchr(s, 'e');
	n = (int)(e - s);
	while (s[n - 1] == '0')
		n--;
	if (s[n - 1] == '.')
		n--;
	snprintf(t, sizeof(t), "%.*s%s", n, s, e);
	check_float(t);
	snprintf(t, sizeof(t), "%.*s%s0000001%s", n, s, n > 1 ? "" : ".", e);
	check_float(t);
	if (n > 3) {
		snprintf(t, sizeof(t), "%.*s%s", n - 1, s, e);
		check_float(t);
	}
}

/* Short decimals (16 to 19 digits) near x, a float32 midpoint: their
 * nearest double is often x itself, where rounding that double to float32
 * would tie to even whichever side of x the decimal is on. */
static void check_short(double x)
{
	char s[64], t[80], *e;

	for (int prec = 16; prec <= 19; prec++) {
		snprintf(s, sizeof(s), "%.*e", prec - 1, x);
		check_float(s);
		/* the last digit one up and one down (no carry or borrow past it) */
		e = strchr(s, 'e');
		for (int delta = -1; delta <= 1; delta += 2) {
			if ((delta < 0 && e[-1] == '0') || (delta > 0 && e[-1] == '9'))
				continue;
			snprintf(t, sizeof(t), "%.*s%c%s", (int)(e - s - 1), s, e[-1] + delta, e);
			check_float(t);
		}
	}
}

static void test_halfway(void **state)
{
	(void)state;
	nbad = nstrings = 0;
	for (uint64_t i = 0; i < ncases / 60; i++) {
		uint32_t b32 = (uint32_t)below(0x7f7fffff);
		uint64_t b64 = below(0x7fefffffffffffffull);
		float f, g;
		double d, h;

		/* some of them near the bottom of a binade or subnormal */
		if (i % 4 == 1)
			b32 = (b32 & 0xff800000u) | (uint32_t)below(3);
		if (i % 4 == 2)
			b32 &= 0x007fffff;
		if (i % 4 == 1)
			b64 = (b64 & 0xfff0000000000000ull) | below(3);
		if (i % 4 == 2)
			b64 &= 0x000fffffffffffffull;
		memcpy(&f, &b32, 4);
		b32++;
		memcpy(&g, &b32, 4);
		memcpy(&d, &b64, 8);
		b64++;
		memcpy(&h, &b64, 8);
		/* exact: a float32 midpoint fits a double, a float64 one a long double */
		check_around(((long double)f + g) / 2);
		check_around(((long double)d + h) / 2);
		check_around(f);
		check_around(d);
		check_short((double)f / 2 + (double)g / 2);
	}
	print_message("%" PRIu64 " strings at and around halfway points, %" PRIu64 " differ\n",
		      nstrings, nbad);
	assert_int_equal(nbad, 0);
}

static void test_edges(void **state)
{
	static const char *cases[] = {
		"0", "-0", "0.0", "-0.0", "0e0", "-0e-999999", "0.000000e+400", "1", "-1",
		"1e308", "1.7976931348623157e308", "1.7976931348623158e308",
		"1.7976931348623159e308", "179769313486231580793728971405301e276", "1e309",
		"-1e309", "1e400", "1e99999999999999999999", "4.9406564584124654e-324",
		"2.4703282292062327e-324", "2.4703282292062328e-324", "2.47032822920623272e-324",
		"5e-324", "3e-324", "1e-324", "1e-400", "1e-99999999999999999999",
		"2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
		"2.225073858507201136057409796709131975934819546351645648e-308",
		"3.4028234663852886e38", "3.4028235e38", "3.4028235677973366e38",
		"3.4028235677973367e38", "3.40282356779733661637539395458142568448e38", "3.5e38",
		"1.401298464324817e-45", "7.006492321624085e-46", "7.006492321624086e-46",
		"7.0064923216240854e-46", "1e-45", "1.1754943508222875e-38", "1.1754942e-38",
		"9007199254740993", "9007199254740992.5", "9007199254740993.0000000000000000001",
		"16777217", "16777217.000000000000000000001", "33554431", "0.1", "0.2", "0.3",
		"123456789012345678901234567890", "0.000000000000000000000000000000000001",
		"100000000000000000000000000000000000000000000000000000000000e-60",
		"0.00000000000000000000000000000000000000000000000000000000001e60",
		"8.589973e9", "8.589974e9", "1.00000005960464477539062", "1.0000000596046447753906",
		"1.00000005960464477539063", "7.038531e-26", "2.2250738585072011e-308",
		"1448997445238699", "1e23", "8.98846567431158e307",
	};

	(void)state;
	nbad = nstrings = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_float(cases[i]);
	/* long mantissas: many digits, the decision far out */
	for (int k = 1; k < 400; k++) {
		char s[512];

		snprintf(s, sizeof(s), "1.%0*de-%d", k, 1, k % 330);
		check_float(s);
		snprintf(s, sizeof(s), "9.%0*d5e%d", k, 0, k % 300);
		check_float(s);
	}
	print_message("%" PRIu64 " edge strings, %" PRIu64 " differ\n", nstrings, nbad);
	assert_int_equal(nbad, 0);
}

/* ---- integers ---- */

/* What the reader did before: strtoll / strtoull and its range checks;
 * 0 and the value at p, or -1. */
static int int_before(const char *buf, unsigned int dtype, void *p)
{
	size_t size = hcb_dtype_size(dtype);
	char *end;

	errno = 0;
	if (hcb_dtype_is_signed(dtype)) {
		long long x = strtoll(buf, &end, 10);
		long long lim = size == 8 ? INT64_MAX : (1ll << (size * 8 - 1)) - 1;

		if (errno || *end || x > lim || x < -lim - 1)
			return -1;
		memcpy(p, &x, size);
	} else {
		unsigned long long x = strtoull(buf, &end, 10);
		unsigned long long lim = size == 8 ? UINT64_MAX : (1ull << (size * 8)) - 1;

		if (errno || *end || x > lim || buf[0] == '-')
			return -1;
		memcpy(p, &x, size);
	}
	return 0;
}

static void check_int(const char *s, uint64_t *nfast)
{
	static const unsigned int types[] = { HCB_DT_INT8, HCB_DT_INT16, HCB_DT_INT32, HCB_DT_INT64,
					      HCB_DT_UINT8, HCB_DT_UINT16, HCB_DT_UINT32, HCB_DT_UINT64 };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		unsigned char a[8] = { 0 }, b[8] = { 0 };
		int fast = hcb_json_number(s, strlen(s), types[i], a);
		int before = int_before(s, types[i], b);

		/* where the fast path takes a number, it reads what strtoll did;
		 * anything else is left to that general path */
		if (fast == 0 && (before || memcmp(a, b, 8)))
			fail_msg("'%s' as %s: fast %d, before %d", s, hcb_dtype_name(types[i]), fast, before);
		if (fast)
			assert_int_equal(fast, -EINVAL);
		*nfast += fast == 0;
	}
}

static void test_integers(void **state)
{
	static const char *cases[] = {
		"0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768",
		"-32768", "-32769", "65535", "65536", "2147483647", "2147483648", "-2147483648",
		"-2147483649", "4294967295", "4294967296", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999",
		"1000000000000000000", "9999999999999999999", "-9999999999999999999", "1.0", "1e3",
		"-1.5", "0.0", "1E2", "123456789012345678901234567890",
	};
	uint64_t nfast = 0;
	char s[48];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_int(cases[i], &nfast);
	for (uint64_t i = 0; i < ncases / 5; i++) {
		uint64_t x = next64() >> below(64);

		snprintf(s, sizeof(s), "%s%" PRIu64, below(2) ? "-" : "", x);
		check_int(s, &nfast);
	}
	/* the plain ones are taken: 8 dtypes each for "0" to "127" */
	assert_true(nfast > 8 * 100);
	print_message("%" PRIu64 " integer readings by the fast path, all as before\n", nfast);
}

/* ---- the parser around the numbers ---- */

/* Number spans and the messages about bad ones: what jsonparse.c said
 * before its number scanning was rewritten (columns included). */
static void test_parser_numbers(void **state)
{
	static const struct { const char *in, *error; } cases[] = {
		{ "[1,2,-]", "bad number at column 7" },
		{ "[1,-a]", "bad number at column 5" },
		{ "[1.]", "bad number at column 4" },
		{ "[1.e5]", "bad number at column 4" },
		{ "[1e]", "bad number at column 4" },
		{ "[1e+]", "bad number at column 5" },
		{ "[01]", "expected ',' or ']' at column 3" },
		{ "[1.5x]", "expected ',' or ']' at column 5" },
		{ "[-0.12345678,0.5,", "unexpected end at column 18" },
		{ "[1,2,3,,4]", "bad number at column 8" },
		{ "-", "bad number at column 2" },
		{ "[1,2 ,3]", NULL },
		{ "[ -1 ]", NULL },
		{ "1.5e+07", NULL },
		{ "{\"a\":[1,2e5,-3.5E-2,[7,8]],\"b\":-0}", NULL },
		{ "[0.12345678901234567890123456789012345678901234567890123456789012345]", NULL },
	};
	struct jdoc d = { 0 };
	const char *text;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = jparse(&d, cases[i].in, strlen(cases[i].in));

		if (cases[i].error) {
			assert_int_equal(rc, -EBADMSG);
			assert_string_equal(d.error, cases[i].error);
		} else {
			assert_int_equal(rc, 0);
		}
	}
	/* the nodes of a data array: spans, ends, counts */
	assert_int_equal(jparse(&d, "[-0.5,1e-3, 2,[3,4],\"nan\",7]", 28), 0);
	assert_int_equal(d.n, 9);
	assert_int_equal(d.nodes[0].count, 6);
	assert_int_equal(d.nodes[0].end, 9);
	assert_int_equal(d.nodes[1].kind, J_NUM);
	assert_int_equal(d.nodes[1].numlen, 4);
	assert_memory_equal(d.nodes[2].num, "1e-3", 4);
	assert_int_equal(d.nodes[2].end, 3);
	assert_int_equal(d.nodes[4].kind, J_ARR);
	assert_int_equal(d.nodes[4].end, 7);
	assert_int_equal(d.nodes[7].kind, J_STR);
	assert_memory_equal(d.nodes[8].num, "7", 1);
	/* their decimals: sig * 10^exp10, the sign left to the text */
	assert_true(d.nodes[1].sig == 5 && d.nodes[1].exp10 == -1);
	assert_true(d.nodes[2].sig == 1 && d.nodes[2].exp10 == -3);
	assert_true(d.nodes[8].sig == 7 && d.nodes[8].exp10 == 0);
	text = "[12345678.901234567e-2,0.0000000000000000001,1234567890.1234567890,"
	       "1e1234567890,0e-0000000001]";
	assert_int_equal(jparse(&d, text, strlen(text)), 0);
	assert_true(d.nodes[1].sig == 12345678901234567ull && d.nodes[1].exp10 == -11);
	assert_true(d.nodes[2].sig == 1 && d.nodes[2].exp10 == -19);
	assert_int_equal(d.nodes[3].exp10, JNUM_LONG);   /* 20 digits */
	assert_int_equal(d.nodes[4].exp10, JNUM_LONG);   /* a 10-digit exponent */
	assert_int_equal(d.nodes[5].exp10, JNUM_LONG);
	jdoc_free(&d);
}

/* A float array read in one pass: what element by element reading stores,
 * up to the first element it cannot take. */
static void test_reals_read(void **state)
{
	const char *text = "[1.5,\"nan\",\"-inf\",-0.0,1e999,\"inf\",3.4028235677973366e38,"
			   "2.5e-46,0.1,\"x\",7]";
	struct jdoc d = { 0 };
	float f[16];
	double v[16];
	uint32_t node = 1;
	uint64_t n;

	(void)state;
	assert_int_equal(jparse(&d, text, strlen(text)), 0);
	n = hcb_json_reals_read(&d, &node, HCB_DT_FLOAT32, f, 11);
	assert_int_equal(n, 9);
	assert_int_equal(node, 10);
	assert_true(f[0] == 1.5f && isnan(f[1]) && f[2] == -INFINITY && f[3] == 0 && signbit(f[3]));
	assert_true(f[4] == INFINITY && f[5] == INFINITY && f[6] == FLT_MAX && f[7] == 0);
	assert_true(f[8] == strtof("0.1", NULL));
	node = 1;
	n = hcb_json_reals_read(&d, &node, HCB_DT_FLOAT64, v, 11);
	assert_int_equal(n, 9);
	assert_true(v[0] == 1.5 && isnan(v[1]) && v[4] == INFINITY && v[6] == 3.4028235677973366e38);
	assert_true(v[7] == 2.5e-46 && v[8] == 0.1);
	/* stops at n */
	node = 1;
	assert_int_equal(hcb_json_reals_read(&d, &node, HCB_DT_FLOAT64, v, 3), 3);
	assert_int_equal(node, 4);
	/* other dtypes: nothing */
	node = 1;
	assert_int_equal(hcb_json_reals_read(&d, &node, HCB_DT_FLOAT16, v, 11), 0);
	assert_int_equal(node, 1);
	jdoc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_strings),
		cmocka_unit_test(test_halfway),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_parser_numbers),
		cmocka_unit_test(test_reals_read),
	};

	testrand_env(&ncases, &seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
