/* SPDX-License-Identifier: MIT */
/*
 * test_jsonl.c - JSONL records (formats/jsonl.h, formats/JSONL.md): string
 * escaping, every dtype's element text, and whole records read back with
 * jansson field by field; a tap's copy_ns written only where known, read
 * back by the reader (formats/jsonl_read.c), and refused when malformed.
 *
 * Float texts must be the shortest that read back to the same value in the
 * element's own dtype.  The goldens name the Python (numpy 1.26.4,
 * ml_dtypes 0.4.1) value they come from; "shortest" is checked as the
 * fewest significant digits that round trip, whatever the notation.
 *
 *	gcc ... -Isrc -Iformats src/core/buf.c src/core/consumer.c src/core/dtype.c src/core/tree.c \
 *		formats/jsonl.c tests/unit/test_jsonl.c -lcmocka -ljansson -lm
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
#include <jansson.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "core/dtype.h"
#include "jsonl.h"
#include "recfile.h"
#include "testcons.h"

/* ---- helpers ---- */

static char text[1024];

/* The text of one element (bytes given little endian). */
static const char *elem(unsigned int dtype, const void *p)
{
	struct hcb_buf b = HCB_BUF_INIT;

	assert_int_equal(hcb_json_element(&b, dtype, p), 0);
	assert_true(b.len < sizeof(text));
	memcpy(text, hcb_buf_str(&b), b.len + 1);
	hcb_buf_free(&b);
	return text;
}

static const char *elem_f32(float v) { return elem(HCB_DT_FLOAT32, &v); }
static const char *elem_f64(double v) { return elem(HCB_DT_FLOAT64, &v); }
static const char *elem_u16(unsigned int dt, uint16_t bits) { return elem(dt, &bits); }
static const char *elem_u8(unsigned int dt, uint8_t bits) { return elem(dt, &bits); }

static const char *jstring(const char *s)
{
	struct hcb_buf b = HCB_BUF_INIT;

	assert_int_equal(hcb_json_string(&b, s), 0);
	assert_true(b.len < sizeof(text));
	memcpy(text, hcb_buf_str(&b), b.len + 1);
	hcb_buf_free(&b);
	return text;
}

/* s with bytes outside printable ASCII as \xNN, for failure messages. */
static const char *shown(const char *s)
{
	static char out[4 * sizeof(text) + 1];
	size_t n = 0;

	for (; *s && n + 5 < sizeof(out); s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x20 && ch < 0x7f)
			out[n++] = (char)ch;
		else
			n += (size_t)sprintf(out + n, "\\x%02x", ch);
	}
	out[n] = '\0';
	return out;
}

/* Parse one JSON value (any type) or fail the test with jansson's message. */
static json_t *parse_any(const char *s)
{
	json_error_t err;
	json_t *j = json_loads(s, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);

	if (!j)
		fail_msg("not JSON: %s at %d: '%s'", err.text, err.position, shown(s));
	return j;
}

/* Significant digits of a decimal text: "0.0100" -> 1, "16777216.0" -> 8. */
static int sig_digits(const char *s)
{
	char d[64];
	int n = 0, first = -1, last = -1;

	for (; *s && *s != 'e' && *s != 'E'; s++)
		if (*s >= '0' && *s <= '9' && n < 63)
			d[n++] = *s;
	for (int i = 0; i < n; i++)
		if (d[i] != '0') {
			if (first < 0)
				first = i;
			last = i;
		}
	return first < 0 ? 0 : last - first + 1;
}

/* Does x read back as the finite value with these bits in dtype (8 or
 * 16-bit floats)?  Round to nearest, ties to even, as numpy/ml_dtypes do. */
static int reads_back_narrow(unsigned int dtype, unsigned int bits, double x)
{
	unsigned int sign = hcb_dtype_size(dtype) == 1 ? 0x80 : 0x8000;
	unsigned int mag = bits & ~sign;
	double v, lo, hi, below, above;
	unsigned int next = mag + 1;

	if (!!signbit(x) != !!(bits & sign) && x != 0)
		return 0;
	x = fabs(x);
	if (hcb_dtype_size(dtype) == 1) {
		uint8_t b8 = (uint8_t)mag, n8 = (uint8_t)next, p8 = (uint8_t)(mag - 1);

		v = hcb_elem_to_double(dtype, &b8);
		above = hcb_elem_to_double(dtype, &n8);
		below = mag ? hcb_elem_to_double(dtype, &p8) : -hcb_elem_to_double(dtype, &n8);
	} else {
		uint16_t b16 = (uint16_t)mag, n16 = (uint16_t)next, p16 = (uint16_t)(mag - 1);

		v = hcb_elem_to_double(dtype, &b16);
		above = hcb_elem_to_double(dtype, &n16);
		below = mag ? hcb_elem_to_double(dtype, &p16) : -hcb_elem_to_double(dtype, &n16);
	}
	if (!isfinite(above))   /* the largest finite: the gap above as below */
		above = v + (v - below);
	lo = (below + v) / 2;
	hi = (v + above) / 2;
	if (x > lo && x < hi)
		return 1;
	return (x == lo || x == hi) && (mag & 1) == 0;
}

static int text_reads_back(unsigned int dtype, const void *p, double v, const char *s)
{
	if (dtype == HCB_DT_FLOAT64)
		return strtod(s, NULL) == v;
	if (dtype == HCB_DT_FLOAT32)
		return strtof(s, NULL) == (float)v;
	return reads_back_narrow(dtype, hcb_dtype_size(dtype) == 1 ? *(const uint8_t *)p
				 : (unsigned int)(*(const uint8_t *)p | ((const uint8_t *)p)[1] << 8),
				 strtod(s, NULL));
}

/*
 * Fewest significant digits p with which some decimal reads back as v: the
 * nearest p-digit decimal, or its p-digit neighbours (at the bottom of a
 * binade the interval reaches twice as far up as down, so the nearest can
 * miss where the one above still reads back).
 */
static int min_digits(unsigned int dtype, const void *p)
{
	double v = hcb_elem_to_double(dtype, p);
	char s[64], c[64];

	for (int d = 1; d <= 17; d++) {
		long long m;
		int e;

		snprintf(s, sizeof(s), "%.*e", d - 1, fabs(v));
		e = atoi(strchr(s, 'e') + 1) - (d - 1);
		m = 0;
		for (const char *q = s; *q != 'e'; q++)
			if (*q >= '0' && *q <= '9')
				m = m * 10 + (*q - '0');
		for (long long k = m - 1; k <= m + 1; k++) {
			snprintf(c, sizeof(c), "%s%llde%d", v < 0 ? "-" : "", k, e);
			if (k > 0 && text_reads_back(dtype, p, v, c))
				return d;
		}
	}
	return 17;
}

/* The element text of a finite float: JSON, a float (has '.' or 'e'),
 * reads back exactly in its own dtype, and has the fewest digits. */
static void check_float_text(unsigned int dtype, const void *p, int want_shortest)
{
	const char *t = elem(dtype, p);
	double v = hcb_elem_to_double(dtype, p), x;
	unsigned int bits = 0;
	json_t *j;

	memcpy(&bits, p, hcb_dtype_size(dtype) < 4 ? hcb_dtype_size(dtype) : 4);
	assert_true(isfinite(v));
	if (!strpbrk(t, ".eE"))
		fail_msg("%s %g: '%s' has no '.' or exponent", hcb_dtype_name(dtype), v, t);
	j = parse_any(t);
	if (!json_is_real(j))
		fail_msg("%s %g: '%s' is not a JSON real", hcb_dtype_name(dtype), v, t);
	json_decref(j);
	x = strtod(t, NULL);
	if (dtype == HCB_DT_FLOAT64) {
		if (memcmp(&x, &v, 8) != 0)
			fail_msg("float64 %.17g: '%s' reads back as %.17g", v, t, x);
	} else if (dtype == HCB_DT_FLOAT32) {
		float f = strtof(t, NULL), want = (float)v;

		if (memcmp(&f, &want, 4) != 0)
			fail_msg("float32 %.9g: '%s' reads back as %.9g", v, t, (double)f);
	} else if (v != 0 && !reads_back_narrow(dtype, bits, x)) {
		fail_msg("%s 0x%x (%g): '%s' does not read back", hcb_dtype_name(dtype), bits, v, t);
	}
	if (v == 0) {
		assert_string_equal(t, signbit(v) ? "-0.0" : "0.0");
		return;
	}
	if (want_shortest && sig_digits(t) != min_digits(dtype, p))
		fail_msg("%s %.17g: '%s' has %d digits, %d are enough", hcb_dtype_name(dtype), v, t,
			 sig_digits(t), min_digits(dtype, p));
}

static uint64_t rng = 0xa4093822299f31d0ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

/* ---- strings ---- */

static void test_string_escaping(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "nl\ntab\t", "\"nl\\ntab\\t\"" },
		{ "\r\b\f", "\"\\u000d\\u0008\\u000c\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "del\x7f", "\"del\\u007f\"" },
		{ "/ stays", "\"/ stays\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j;

		assert_string_equal(jstring(cases[i].in), cases[i].out);
		/* and jansson reads the original back */
		j = parse_any(text);
		assert_true(json_is_string(j));
		assert_string_equal(json_string_value(j), cases[i].in);
		json_decref(j);
	}
}

/* Every byte 1..127 survives a trip through JSON. */
static void test_string_all_ascii(void **state)
{
	char s[128];
	json_t *j;

	(void)state;
	for (int i = 1; i < 128; i++)
		s[i - 1] = (char)i;
	s[127] = '\0';
	j = parse_any(jstring(s));
	assert_string_equal(json_string_value(j), s);
	json_decref(j);
	/* nothing below 0x20 is written raw */
	for (const char *p = text; *p; p++)
		assert_true((unsigned char)*p >= 0x20);
}

/*
 * Names, kwargs and tree keys come from the target's memory and may hold
 * any byte but NUL; the record must stay JSON (RFC 8259: UTF-8 text) even
 * when they are not UTF-8.
 */
static void test_string_invalid_utf8(void **state)
{
	static const char *const bad[] = { "bad\xff", "\xc3", "\xc3(", "\xe2\x82", "\xed\xa0\x80",
					   "\xc0\xaf", "ok\x80ok" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j;

		print_message("case %zu\n", i);
		j = parse_any(jstring(bad[i]));
		assert_true(json_is_string(j));
		json_decref(j);
	}
}

/* ---- elements ---- */

static void test_integers(void **state)
{
	int8_t i8 = INT8_MIN;
	int16_t i16 = INT16_MIN;
	int32_t i32 = INT32_MIN;
	int64_t i64 = INT64_MIN;
	uint8_t u8 = UINT8_MAX;
	uint16_t u16 = UINT16_MAX;
	uint32_t u32 = UINT32_MAX;
	uint64_t u64 = UINT64_MAX;

	(void)state;
	assert_string_equal(elem(HCB_DT_INT8, &i8), "-128");
	assert_string_equal(elem(HCB_DT_INT16, &i16), "-32768");
	assert_string_equal(elem(HCB_DT_INT32, &i32), "-2147483648");
	assert_string_equal(elem(HCB_DT_INT64, &i64), "-9223372036854775808");
	assert_string_equal(elem(HCB_DT_UINT8, &u8), "255");
	assert_string_equal(elem(HCB_DT_UINT16, &u16), "65535");
	assert_string_equal(elem(HCB_DT_UINT32, &u32), "4294967295");
	assert_string_equal(elem(HCB_DT_UINT64, &u64), "18446744073709551615");
	i8 = INT8_MAX;
	i16 = INT16_MAX;
	i32 = INT32_MAX;
	i64 = INT64_MAX;
	assert_string_equal(elem(HCB_DT_INT8, &i8), "127");
	assert_string_equal(elem(HCB_DT_INT16, &i16), "32767");
	assert_string_equal(elem(HCB_DT_INT32, &i32), "2147483647");
	assert_string_equal(elem(HCB_DT_INT64, &i64), "9223372036854775807");
	i64 = 0;
	u64 = UINT64_C(9007199254740993);   /* 2^53 + 1: not a double */
	assert_string_equal(elem(HCB_DT_INT64, &i64), "0");
	assert_string_equal(elem(HCB_DT_UINT64, &u64), "9007199254740993");
	i32 = -1;
	assert_string_equal(elem(HCB_DT_INT32, &i32), "-1");
	/* unaligned is fine */
	{
		unsigned char raw[9] = { 0xee, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80 };

		assert_string_equal(elem(HCB_DT_INT64, raw + 1), "-9223372036854775808");
		assert_string_equal(elem(HCB_DT_UINT16, raw), "238");
	}
}

static void test_bools(void **state)
{
	uint8_t f = 0, t = 1, two = 2, ff = 0xff;

	(void)state;
	assert_string_equal(elem(HCB_DT_BOOL, &f), "false");
	assert_string_equal(elem(HCB_DT_BOOL, &t), "true");
	assert_string_equal(elem(HCB_DT_BOOL, &two), "true");
	assert_string_equal(elem(HCB_DT_BOOL, &ff), "true");
}

static void test_unknown_dtype(void **state)
{
	uint64_t zero = 0;
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	assert_int_equal(hcb_json_element(&b, HCB_DT_INVALID, &zero), -EINVAL);
	assert_int_equal(hcb_json_element(&b, HCB_DT__COUNT, &zero), -EINVAL);
	assert_int_equal(hcb_json_element(&b, 0xffffffffu, &zero), -EINVAL);
	hcb_buf_free(&b);
}

static void test_float_goldens(void **state)
{
	(void)state;
	/* repr(np.float32(x)) digits */
	assert_string_equal(elem_f32(1.0f), "1.0");
	assert_string_equal(elem_f32(2.5f), "2.5");
	assert_string_equal(elem_f32(0.1f), "0.1");                 /* np.float32(0.1) */
	assert_string_equal(elem_f32(1.0f / 3.0f), "0.33333334");   /* np.float32(1/3) */
	assert_string_equal(elem_f32(16777216.0f), "16777216.0");   /* np.float32(2**24) */
	assert_string_equal(elem_f32(-0.0f), "-0.0");
	assert_string_equal(elem_f32(0.0f), "0.0");
	assert_string_equal(elem_f32(-1.5f), "-1.5");
	assert_string_equal(elem_f32(3.14159f), "3.14159");         /* np.float32(3.14159) */
	assert_string_equal(elem_f32(1e-7f), "1e-07");              /* np.float32(1e-7) */
	assert_string_equal(elem_f32(3.4028235e38f), "3.4028235e+38"); /* np.finfo(np.float32).max */
	assert_string_equal(elem_f32(NAN), "\"nan\"");
	assert_string_equal(elem_f32(-NAN), "\"nan\"");
	assert_string_equal(elem_f32(INFINITY), "\"inf\"");
	assert_string_equal(elem_f32(-INFINITY), "\"-inf\"");
	/* repr(np.float64(x)) digits */
	assert_string_equal(elem_f64(0.1), "0.1");
	assert_string_equal(elem_f64(1.0 / 3.0), "0.3333333333333333");
	assert_string_equal(elem_f64(0.1 + 0.2), "0.30000000000000004");
	assert_string_equal(elem_f64(-0.0), "-0.0");
	assert_string_equal(elem_f64(123456789.0), "123456789.0");
	assert_string_equal(elem_f64(1e300), "1e+300");
	assert_string_equal(elem_f64(1.7976931348623157e308), "1.7976931348623157e+308");
	assert_string_equal(elem_f64(2.2250738585072014e-308), "2.2250738585072014e-308");
	assert_string_equal(elem_f64(NAN), "\"nan\"");
	assert_string_equal(elem_f64(-INFINITY), "\"-inf\"");
	/* float32 values are not printed with float64 digits */
	assert_string_not_equal(elem_f32(0.1f), "0.10000000149011612");
}

static void test_float32_random(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint32_t bits = rnd();
		float f;

		memcpy(&f, &bits, 4);
		if (!isfinite(f) || !isnormal(f))
			continue;
		check_float_text(HCB_DT_FLOAT32, &f, 1);
	}
	/* values with few digits */
	for (int i = -3000; i <= 3000; i++) {
		float f = (float)i / 100.0f;

		check_float_text(HCB_DT_FLOAT32, &f, 1);
	}
}

static void test_float64_random(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = (uint64_t)rnd() << 32 | rnd();
		double d;

		memcpy(&d, &bits, 8);
		if (!isfinite(d) || !isnormal(d))
			continue;
		check_float_text(HCB_DT_FLOAT64, &d, 1);
	}
	for (int i = -3000; i <= 3000; i++) {
		double d = i / 1000.0;

		check_float_text(HCB_DT_FLOAT64, &d, 1);
	}
}

/* Subnormals: the fewest digits too (repr(np.float32(1e-45)) is '1e-45',
 * repr(np.float64(5e-324)) is '5e-324'). */
static void test_subnormals_shortest(void **state)
{
	(void)state;
	assert_string_equal(elem_f32(1e-45f), "1e-45");
	assert_string_equal(elem_f64(5e-324), "5e-324");
	for (int i = 0; i < 2000; i++) {
		uint32_t b32 = 1 + rnd() % 0x7fffff;
		uint64_t b64 = 1 + (((uint64_t)rnd() << 32 | rnd()) & 0xfffffffffffffull);
		float f;
		double d;

		memcpy(&f, &b32, 4);
		memcpy(&d, &b64, 8);
		check_float_text(HCB_DT_FLOAT32, &f, 1);
		check_float_text(HCB_DT_FLOAT64, &d, 1);
	}
}

/* float16, bfloat16, float8: exact in their own dtype, every value. */
static void test_narrow_floats_read_back(void **state)
{
	(void)state;
	for (unsigned int b = 0; b < 0x10000; b++) {
		uint16_t h = (uint16_t)b;

		if (isfinite(hcb_half_to_double(h)))
			check_float_text(HCB_DT_FLOAT16, &h, 0);
		if (isfinite(hcb_bfloat16_to_double(h)))
			check_float_text(HCB_DT_BFLOAT16, &h, 0);
	}
	for (unsigned int b = 0; b < 0x100; b++) {
		uint8_t v = (uint8_t)b;

		if (isfinite(hcb_f8e4m3fn_to_double(v)))
			check_float_text(HCB_DT_FLOAT8_E4M3FN, &v, 0);
		if (isfinite(hcb_f8e5m2_to_double(v)))
			check_float_text(HCB_DT_FLOAT8_E5M2, &v, 0);
	}
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x7e00), "\"nan\"");
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x7c00), "\"inf\"");
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0xfc00), "\"-inf\"");
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x8000), "-0.0");
	assert_string_equal(elem_u16(HCB_DT_BFLOAT16, 0xff80), "\"-inf\"");
	assert_string_equal(elem_u16(HCB_DT_BFLOAT16, 0x7fc0), "\"nan\"");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E4M3FN, 0x7f), "\"nan\"");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E4M3FN, 0xff), "\"nan\"");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E5M2, 0x7c), "\"inf\"");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E5M2, 0x7e), "\"nan\"");
	/* exact small values */
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x3e00), "1.5");
	assert_string_equal(elem_u16(HCB_DT_BFLOAT16, 0xbfc0), "-1.5");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E4M3FN, 0x3c), "1.5");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E5M2, 0x3e), "1.5");
}

/*
 * Shortest in their own dtype (formats/JSONL.md: "the shortest
 * text that reads back to the same value" in their own dtype).  Goldens: the fewest '%.*g' digits p with
 * dtype(float('%.*g' % (p, v))) == v, for v = dtype(x):
 *   np.float16(0.1) -> '0.1', np.float16(1/3) -> '0.3333', np.float16(3.14159) -> '3.14',
 *   ml_dtypes.bfloat16(0.1) -> '0.1', bfloat16(1/3) -> '0.334',
 *   float8_e4m3fn(0.1) -> '0.1', float8_e4m3fn(1/3) -> '0.34',
 *   float8_e5m2(0.1) -> '0.09', float8_e5m2(1/3) -> '0.3'.
 */
static void test_narrow_floats_shortest(void **state)
{
	(void)state;
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x2e66), "0.1");
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x3555), "0.3333");
	assert_string_equal(elem_u16(HCB_DT_FLOAT16, 0x4248), "3.14");
	assert_string_equal(elem_u16(HCB_DT_BFLOAT16, 0x3dcd), "0.1");
	assert_string_equal(elem_u16(HCB_DT_BFLOAT16, 0x3eab), "0.334");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E4M3FN, 0x1d), "0.1");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E4M3FN, 0x2b), "0.34");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E5M2, 0x2e), "0.09");
	assert_string_equal(elem_u8(HCB_DT_FLOAT8_E5M2, 0x35), "0.3");
	for (unsigned int b = 0; b < 0x10000; b += 7) {
		uint16_t h = (uint16_t)b;

		if (isfinite(hcb_half_to_double(h)))
			check_float_text(HCB_DT_FLOAT16, &h, 1);
		if (isfinite(hcb_bfloat16_to_double(h)))
			check_float_text(HCB_DT_BFLOAT16, &h, 1);
	}
}

static void test_complex(void **state)
{
	float c64[2] = { 1.5f, -0.0f };
	double c128[2] = { 0.1, 1e300 };

	(void)state;
	assert_string_equal(elem(HCB_DT_COMPLEX64, c64), "[1.5,-0.0]");
	assert_string_equal(elem(HCB_DT_COMPLEX128, c128), "[0.1,1e+300]");
	c64[0] = NAN;
	c64[1] = 0.1f;
	assert_string_equal(elem(HCB_DT_COMPLEX64, c64), "[\"nan\",0.1]");   /* float32 digits */
	c128[0] = -INFINITY;
	c128[1] = 1.0 / 3.0;
	assert_string_equal(elem(HCB_DT_COMPLEX128, c128), "[\"-inf\",0.3333333333333333]");
}

/* ---- records ---- */

/* Parse one record line: exactly one '\n', at the end; "type" first. */
static json_t *parse_line(const struct hcb_buf *b, const char *type)
{
	const char *s = hcb_buf_str(b);
	char prefix[64];
	json_error_t err;
	json_t *j;

	assert_true(b->len > 0);
	assert_int_equal(s[b->len - 1], '\n');
	assert_ptr_equal(strchr(s, '\n'), s + b->len - 1);
	snprintf(prefix, sizeof(prefix), "{\"type\":\"%s\",", type);
	assert_memory_equal(s, prefix, strlen(prefix));
	j = json_loads(s, JSON_REJECT_DUPLICATES, &err);
	if (!j)
		fail_msg("not JSON: %s at %d: %s", err.text, err.position, shown(s));
	assert_true(json_is_object(j));
	assert_string_equal(json_string_value(json_object_get(j, "type")), type);
	return j;
}

static json_int_t get_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("field %s is not an integer", key);
	return json_integer_value(v);
}

static const char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("field %s is not a string", key);
	return json_string_value(v);
}

static void check_shape(json_t *arr, const json_int_t *dims, size_t n)
{
	json_t *shape = json_object_get(arr, "shape");

	assert_true(json_is_array(shape));
	assert_int_equal(json_array_size(shape), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(json_integer_value(json_array_get(shape, i)), dims[i]);
}

static void test_tap_record(void **state)
{
	static const char *const kw[] = { "what", "loss", "q\"uote", "tab\there", NULL };
	static const struct hcb_leaf_spec leaves[] = {
		{ HCB_DT_FLOAT32, 2, { 2, 3 } }, { HCB_DT_INT64, 0, { 0 } },
		{ HCB_DT_COMPLEX64, 1, { 2 } }, { HCB_DT_BOOL, 1, { 3 } },
		{ HCB_DT_UINT32, 1, { 2 } }, { HCB_DT_FLOAT16, 3, { 1, 0, 2 } },
	};
	const struct hcb_consumer_spec spec = {
		.name = "loss", .kwargs = kw, .tree = "{ a=* b=( * * ) c=[ * * ] d=* }",
		.nleaves = 6, .leaves = leaves,
	};
	struct hcb_consumer *c = test_consumer(&spec, 305419897);
	unsigned char payload[128], *p = payload;
	float f32[6] = { 1.0f, 2.5f, -0.0f, NAN, INFINITY, -INFINITY };
	int64_t i64 = INT64_MIN;
	float c64[4] = { 1.5f, -2.0f, 0.1f, 0.0f };
	uint8_t b8[3] = { 1, 0, 1 };
	uint32_t u32[2] = { 0, UINT32_MAX };
	struct hcb_buf b = HCB_BUF_INIT;
	json_t *j, *kwargs, *arrays, *a, *data;

	(void)state;
	p = mempcpy(p, f32, sizeof(f32));
	p = mempcpy(p, &i64, sizeof(i64));
	p = mempcpy(p, c64, sizeof(c64));
	p = mempcpy(p, b8, sizeof(b8));
	p = mempcpy(p, u32, sizeof(u32));
	assert_int_equal(p - payload, c->total_bytes);

	assert_int_equal(hcb_jsonl_tap(&b, c, 3, 17, UINT64_C(1732240000123456789), payload), 0);
	j = parse_line(&b, "tap");
	assert_int_equal(get_int(j, "device"), 3);
	assert_int_equal(get_int(j, "seq"), 17);
	assert_int_equal(get_int(j, "consumer"), 305419897);
	assert_string_equal(get_str(j, "name"), "loss");
	assert_string_equal(get_str(j, "tree"), "{ a=* b=( * * ) c=[ * * ] d=* }");
	assert_int_equal(get_int(j, "ts_ns"), 1732240000123456789LL);
	kwargs = json_object_get(j, "kwargs");
	assert_true(json_is_object(kwargs));
	assert_int_equal(json_object_size(kwargs), 2);
	assert_string_equal(get_str(kwargs, "what"), "loss");
	assert_string_equal(get_str(kwargs, "q\"uote"), "tab\there");
	arrays = json_object_get(j, "arrays");
	assert_true(json_is_array(arrays));
	assert_int_equal(json_array_size(arrays), 6);

	/* float32[2,3] = [1.0, 2.5, -0.0, "nan", "inf", "-inf"] */
	a = json_array_get(arrays, 0);
	assert_string_equal(get_str(a, "dtype"), "float32");
	check_shape(a, (const json_int_t[]){ 2, 3 }, 2);
	data = json_object_get(a, "data");
	assert_int_equal(json_array_size(data), 6);
	assert_true(json_is_real(json_array_get(data, 0)));
	assert_true(json_real_value(json_array_get(data, 0)) == 1.0);
	assert_true(json_real_value(json_array_get(data, 1)) == 2.5);
	assert_true(json_is_real(json_array_get(data, 2)));
	assert_true(json_real_value(json_array_get(data, 2)) == 0.0);
	assert_true(signbit(json_real_value(json_array_get(data, 2))));
	assert_string_equal(json_string_value(json_array_get(data, 3)), "nan");
	assert_string_equal(json_string_value(json_array_get(data, 4)), "inf");
	assert_string_equal(json_string_value(json_array_get(data, 5)), "-inf");

	/* int64[] = [-9223372036854775808]: a scalar has shape [] and one element */
	a = json_array_get(arrays, 1);
	assert_string_equal(get_str(a, "dtype"), "int64");
	check_shape(a, NULL, 0);
	data = json_object_get(a, "data");
	assert_int_equal(json_array_size(data), 1);
	assert_true(json_is_integer(json_array_get(data, 0)));
	assert_true(json_integer_value(json_array_get(data, 0)) == INT64_MIN);

	/* complex64[2] = [[1.5,-2.0],[0.1,0.0]] */
	a = json_array_get(arrays, 2);
	assert_string_equal(get_str(a, "dtype"), "complex64");
	check_shape(a, (const json_int_t[]){ 2 }, 1);
	data = json_object_get(a, "data");
	assert_int_equal(json_array_size(data), 2);
	assert_int_equal(json_array_size(json_array_get(data, 0)), 2);
	assert_true(json_real_value(json_array_get(json_array_get(data, 0), 0)) == 1.5);
	assert_true(json_real_value(json_array_get(json_array_get(data, 0), 1)) == -2.0);
	assert_true((float)json_real_value(json_array_get(json_array_get(data, 1), 0)) == 0.1f);
	assert_true(json_is_real(json_array_get(json_array_get(data, 1), 1)));

	/* bool[3] = [true,false,true] */
	a = json_array_get(arrays, 3);
	assert_string_equal(get_str(a, "dtype"), "bool");
	data = json_object_get(a, "data");
	assert_true(json_is_true(json_array_get(data, 0)));
	assert_true(json_is_false(json_array_get(data, 1)));
	assert_true(json_is_true(json_array_get(data, 2)));

	/* uint32[2] = [0, 4294967295] */
	a = json_array_get(arrays, 4);
	assert_string_equal(get_str(a, "dtype"), "uint32");
	data = json_object_get(a, "data");
	assert_int_equal(json_integer_value(json_array_get(data, 0)), 0);
	assert_int_equal(json_integer_value(json_array_get(data, 1)), 4294967295LL);

	/* float16[1,0,2]: no elements */
	a = json_array_get(arrays, 5);
	assert_string_equal(get_str(a, "dtype"), "float16");
	check_shape(a, (const json_int_t[]){ 1, 0, 2 }, 3);
	assert_int_equal(json_array_size(json_object_get(a, "data")), 0);

	json_decref(j);

	/* appended, not overwritten; an unknown seq is null */
	assert_int_equal(hcb_jsonl_tap(&b, c, 0, -1, 5, payload), 0);
	{
		const char *second = strchr(hcb_buf_str(&b), '\n') + 1;
		struct hcb_buf b2 = HCB_BUF_INIT;

		hcb_buf_puts(&b2, second);
		j = parse_line(&b2, "tap");
		assert_true(json_is_null(json_object_get(j, "seq")));
		assert_int_equal(get_int(j, "device"), 0);
		assert_int_equal(get_int(j, "ts_ns"), 5);
		json_decref(j);
		hcb_buf_free(&b2);
	}
	hcb_buf_free(&b);
	hcb_consumer_free(c);
}

/* A bare array ("*"), no kwargs; and a tap of no leaves. */
static void test_tap_record_small(void **state)
{
	static const struct hcb_leaf_spec leaf[] = { { HCB_DT_FLOAT64, 0, { 0 } } };
	const struct hcb_consumer_spec one = { .name = "x", .nleaves = 1, .leaves = leaf };
	const struct hcb_consumer_spec none = { .name = "nothing", .nleaves = 0 };
	struct hcb_consumer *c = test_consumer(&one, 1), *n = test_consumer(&none, 2);
	double v = 0.1;
	struct hcb_buf b = HCB_BUF_INIT;
	json_t *j, *a;

	(void)state;
	assert_int_equal(hcb_jsonl_tap(&b, c, 0, 0, 0, (const unsigned char *)&v), 0);
	j = parse_line(&b, "tap");
	assert_string_equal(get_str(j, "tree"), "*");
	assert_int_equal(json_object_size(json_object_get(j, "kwargs")), 0);
	a = json_array_get(json_object_get(j, "arrays"), 0);
	assert_string_equal(get_str(a, "dtype"), "float64");
	assert_true(json_real_value(json_array_get(json_object_get(a, "data"), 0)) == 0.1);
	json_decref(j);
	/* the exact text of a small record */
	assert_string_equal(hcb_buf_str(&b),
			    "{\"type\":\"tap\",\"device\":0,\"seq\":0,\"consumer\":1,\"name\":\"x\","
			    "\"kwargs\":{},\"tree\":\"*\",\"ts_ns\":0,"
			    "\"arrays\":[{\"dtype\":\"float64\",\"shape\":[],\"data\":[0.1]}]}\n");
	hcb_buf_reset(&b);
	assert_int_equal(hcb_jsonl_tap(&b, n, 1, 2, 3, (const unsigned char *)""), 0);
	j = parse_line(&b, "tap");
	assert_string_equal(get_str(j, "tree"), "( )");
	assert_int_equal(json_array_size(json_object_get(j, "arrays")), 0);
	json_decref(j);
	hcb_buf_free(&b);
	hcb_consumer_free(c);
	hcb_consumer_free(n);
}

/* A target's odd bytes in a name or key still give a JSON line. */
static void test_tap_record_hostile_text(void **state)
{
	static const char *const kw[] = { "k\x1b", "v\n\"\\\xff", NULL };
	const struct hcb_consumer_spec spec = { .name = "na\xffme\"", .kwargs = kw,
						.tree = "{ \xe9=( ) }", .nleaves = 0 };
	struct hcb_consumer *c;
	struct hcb_buf b = HCB_BUF_INIT;
	void *blob = NULL;
	size_t len = 0;
	json_t *j;

	(void)state;
	/* "k\x1b" is not a valid kwarg key; use a printable one */
	assert_int_equal(hcb_reg_build(&spec, 1, &blob, &len), -EINVAL);
	{
		static const char *const kw2[] = { "k", "v\n\"\\\xff", NULL };
		struct hcb_consumer_spec s2 = spec;

		s2.kwargs = kw2;
		c = test_consumer(&s2, 9);
	}
	assert_int_equal(hcb_jsonl_tap(&b, c, 0, 0, 0, (const unsigned char *)""), 0);
	hcb_consumer_free(c);
	/* a copy on the stack, so a failed parse leaks nothing */
	{
		struct hcb_buf line = { text, b.len, sizeof(text) };

		assert_true(b.len < sizeof(text));
		memcpy(text, b.data, b.len + 1);
		hcb_buf_free(&b);
		j = parse_line(&line, "tap");
	}
	assert_int_equal(get_int(j, "consumer"), 9);
	assert_int_equal(json_object_size(json_object_get(j, "kwargs")), 1);
	json_decref(j);
}

/* ---- copy_ns: the tap's device-side copy times ---- */

#define COPY_HEAD "{\"type\":\"tap\",\"device\":1,\"seq\":2,\"consumer\":1,\"name\":\"x\"," \
	"\"kwargs\":{},\"tree\":\"*\",\"ts_ns\":3000"
#define COPY_DATA "\"arrays\":[{\"dtype\":\"float64\",\"shape\":[],\"data\":[0.1]}]}\n"

/* Written right after "ts_ns", only when the end is known; the writer
 * refuses times that end before they start. */
static void test_copy_ns_written(void **state)
{
	static const struct hcb_leaf_spec leaf[] = { { HCB_DT_FLOAT64, 0, { 0 } } };
	const struct hcb_consumer_spec one = { .name = "x", .nleaves = 1, .leaves = leaf };
	struct hcb_consumer *c = test_consumer(&one, 1);
	struct hcb_record rec = { .kind = HCB_REC_TAP };
	struct hcb_buf b = HCB_BUF_INIT;
	double v = 0.1;

	(void)state;
	assert_int_equal(hcb_jsonl_tap_copy(&b, c, 1, 2, 3000, 1000, 2500,
					    (const unsigned char *)&v), 0);
	assert_string_equal(hcb_buf_str(&b), COPY_HEAD ",\"copy_ns\":[1000,2500]," COPY_DATA);
	hcb_buf_reset(&b);
	assert_int_equal(hcb_jsonl_tap_copy(&b, c, 1, 2, 3000, 0, UINT64_MAX,
					    (const unsigned char *)&v), 0);
	assert_string_equal(hcb_buf_str(&b),
			    COPY_HEAD ",\"copy_ns\":[0,18446744073709551615]," COPY_DATA);
	/* no end, no copy_ns: the line hcb_jsonl_tap writes, as before */
	hcb_buf_reset(&b);
	assert_int_equal(hcb_jsonl_tap_copy(&b, c, 1, 2, 3000, 0, 0, (const unsigned char *)&v), 0);
	assert_string_equal(hcb_buf_str(&b), COPY_HEAD "," COPY_DATA);
	hcb_buf_reset(&b);
	assert_int_equal(hcb_jsonl_tap_copy(&b, c, 1, 2, 3000, 5, 4, (const unsigned char *)&v),
			 -EINVAL);
	/* and a record through hcb_jsonl_record, as the writers write it */
	hcb_buf_reset(&b);
	rec.tap = (struct hcb_tap){ .device = 1, .seq = 2, .wall_ns = 3000, .consumer = c,
				       .payload = (const unsigned char *)&v,
				       .copy_start_ns = 7, .copy_end_ns = 7 };
	assert_int_equal(hcb_jsonl_record(&b, &rec), 0);
	assert_string_equal(hcb_buf_str(&b), COPY_HEAD ",\"copy_ns\":[7,7]," COPY_DATA);
	hcb_buf_free(&b);
	hcb_consumer_free(c);
}

/* Read text as a JSONL recording: the first record's result, its copy
 * times in copy[], the reader's message in msg. */
static int read_copy(const char *text, uint64_t copy[2], char *msg, size_t size)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct hcb_reader *r;
	struct hcb_record rec;
	int n;

	assert_non_null(f);
	assert_int_equal(hcb_reader_open_stream(&r, f, "t.jsonl", HCB_FMT_JSONL), 0);
	n = hcb_reader_next(r, &rec);
	copy[0] = copy[1] = UINT64_C(12345);
	if (n == 1) {
		assert_int_equal(rec.kind, HCB_REC_TAP);
		copy[0] = rec.tap.copy_start_ns;
		copy[1] = rec.tap.copy_end_ns;
	}
	snprintf(msg, size, "%s", hcb_reader_error(r));
	hcb_reader_close(r);
	return n;
}

static void test_copy_ns_read(void **state)
{
	static const char *const bad[] = {
		"\"1000\"", "[1000]", "[1,2,3]", "[-1,5]", "[1.5,2]", "[1e3,2000]", "{}", "null",
		"[1000,18446744073709551616]", "[1000,\"2000\"]", "[[1],2]",
	};
	const char *bad_msg = "t.jsonl:1: 'copy_ns' is not a list of two whole numbers "
			      "from 0 to 18446744073709551615";
	uint64_t copy[2];
	char line[512], msg[256];

	(void)state;
	assert_int_equal(read_copy(COPY_HEAD ",\"copy_ns\":[1000,2500]," COPY_DATA, copy, msg,
				   sizeof(msg)), 1);
	assert_int_equal(copy[0], 1000);
	assert_int_equal(copy[1], 2500);
	/* its extremes, spaces, and any place in the line */
	assert_int_equal(read_copy(COPY_HEAD "," COPY_DATA, copy, msg, sizeof(msg)), 1);
	assert_int_equal(copy[0], 0);
	assert_int_equal(copy[1], 0);
	assert_int_equal(read_copy(COPY_HEAD ",\"copy_ns\": [ 0 , 18446744073709551615 ] ,"
				   COPY_DATA, copy, msg, sizeof(msg)), 1);
	assert_int_equal(copy[0], 0);
	assert_true(copy[1] == UINT64_MAX);
	assert_int_equal(read_copy("{\"copy_ns\":[5,5],\"type\":\"tap\",\"device\":0,\"seq\":0,"
				   "\"consumer\":1,\"name\":\"x\",\"tree\":\"*\"," COPY_DATA,
				   copy, msg, sizeof(msg)), 1);
	assert_int_equal(copy[0], 5);
	assert_int_equal(copy[1], 5);
	/* anything else is one message naming the line */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), COPY_HEAD ",\"copy_ns\":%s," COPY_DATA, bad[i]);
		assert_int_equal(read_copy(line, copy, msg, sizeof(msg)), -EBADMSG);
		if (strcmp(msg, bad_msg))
			fail_msg("copy_ns %s: \"%s\"", bad[i], msg);
	}
	assert_int_equal(read_copy(COPY_HEAD ",\"copy_ns\":[2501,2500]," COPY_DATA, copy, msg,
				   sizeof(msg)), -EBADMSG);
	assert_string_equal(msg, "t.jsonl:1: 'copy_ns' ends before it starts");
}

/* What the reader takes, the writer writes back the same. */
static void test_copy_ns_round_trip(void **state)
{
	static const uint64_t times[][2] = {
		{ 1000, 2500 }, { 0, 1 }, { 0, UINT64_MAX }, { UINT64_MAX, UINT64_MAX }, { 9, 9 },
	};
	static const struct hcb_leaf_spec leaf[] = { { HCB_DT_FLOAT64, 0, { 0 } } };
	const struct hcb_consumer_spec one = { .name = "x", .nleaves = 1, .leaves = leaf };
	struct hcb_consumer *c = test_consumer(&one, 1);
	struct hcb_buf b = HCB_BUF_INIT;
	uint64_t copy[2];
	double v = 0.1;
	char msg[256];

	(void)state;
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		hcb_buf_reset(&b);
		assert_int_equal(hcb_jsonl_tap_copy(&b, c, 1, 2, 3000, times[i][0], times[i][1],
						    (const unsigned char *)&v), 0);
		assert_int_equal(read_copy(hcb_buf_str(&b), copy, msg, sizeof(msg)), 1);
		assert_true(copy[0] == times[i][0] && copy[1] == times[i][1]);
	}
	hcb_buf_free(&b);
	hcb_consumer_free(c);
}

static void test_other_records(void **state)
{
	struct hcb_buf b = HCB_BUF_INIT;
	json_t *j;

	(void)state;
	assert_int_equal(hcb_jsonl_session(&b, 1234, "hcbtap", "cu\"da", UINT64_C(1732240000000000000)), 0);
	j = parse_line(&b, "session");
	assert_int_equal(get_int(j, "version"), HCB_JSONL_VERSION);
	assert_int_equal(HCB_JSONL_VERSION, 1);
	assert_int_equal(get_int(j, "pid"), 1234);
	assert_string_equal(get_str(j, "provider"), "hcbtap");
	assert_string_equal(get_str(j, "platform"), "cu\"da");
	assert_int_equal(get_int(j, "start_ns"), 1732240000000000000LL);
	assert_string_equal(get_str(j, "hcbtrace"), HCB_VERSION);
	json_decref(j);

	hcb_buf_reset(&b);
	assert_int_equal(hcb_jsonl_drop(&b, 7, 3, "ring buffer \"full\""), 0);
	j = parse_line(&b, "drop");
	assert_int_equal(get_int(j, "device"), 7);
	assert_int_equal(get_int(j, "count"), 3);
	assert_string_equal(get_str(j, "reason"), "ring buffer \"full\"");
	json_decref(j);

	hcb_buf_reset(&b);
	assert_int_equal(hcb_jsonl_end(&b, 100, 3, 99), 0);
	j = parse_line(&b, "end");
	assert_int_equal(get_int(j, "taps"), 100);
	assert_int_equal(get_int(j, "drops"), 3);
	assert_int_equal(get_int(j, "end_ns"), 99);
	json_decref(j);
	hcb_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_escaping),
		cmocka_unit_test(test_string_all_ascii),
		cmocka_unit_test(test_string_invalid_utf8),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_bools),
		cmocka_unit_test(test_unknown_dtype),
		cmocka_unit_test(test_float_goldens),
		cmocka_unit_test(test_float32_random),
		cmocka_unit_test(test_float64_random),
		cmocka_unit_test(test_subnormals_shortest),
		cmocka_unit_test(test_narrow_floats_read_back),
		cmocka_unit_test(test_narrow_floats_shortest),
		cmocka_unit_test(test_complex),
		cmocka_unit_test(test_tap_record),
		cmocka_unit_test(test_tap_record_small),
		cmocka_unit_test(test_tap_record_hostile_text),
		cmocka_unit_test(test_other_records),
		cmocka_unit_test(test_copy_ns_written),
		cmocka_unit_test(test_copy_ns_read),
		cmocka_unit_test(test_copy_ns_round_trip),
	};

	return cmocka_run_group_tests_name("jsonl", tests, NULL, NULL);
}
