/* SPDX-License-Identifier: MIT */
/*
 * test_dtypes.c - the float8 kinds beyond e4m3fn and e5m2, float4_e2m1fn
 * and the sub-byte integers (int2, int4, uint2, uint4): src/core/dtype.c's
 * reading and rounding of their bits, and their trip through the formats:
 *
 *  - every code's value, and the code ml_dtypes rounds float32s and
 *    doubles to, against goldens ml_dtypes wrote (tests/data/narrow/,
 *    tests/tools/gen_narrow_golden.py);
 *  - the sub-byte integers' values, ranges and stores, and the unpacking
 *    of XLA's packed buffers;
 *  - every code as JSONL text and read back, bit for bit (a NaN as the
 *    dtype's one NaN that "nan" reads as);
 *  - recordings of every code of each: JSONL -> .hcbcap -> JSONL, bit for
 *    bit and text for text; values out of an integer's range refused;
 *  - the diff's isclose over them.
 * The print (arrayprint) goldens are test_arrayprint's, the .npz bits
 * test_npz's, the decoder's test_jaxffi's.
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
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "core/dtype.h"
#include "diff/diff.h"
#include "diff/isclose.h"
#include "jsonl.h"
#include "jsonl_num.h"
#include "recfile.h"
#include "testcons.h"

static const char *data_dir;
static char tmpdir[] = "/tmp/test_dtypes.XXXXXX";
#include "testtmp.h"

static const unsigned int NEW[] = {
	HCB_DT_FLOAT8_E3M4, HCB_DT_FLOAT8_E4M3, HCB_DT_FLOAT8_E4M3FNUZ,
	HCB_DT_FLOAT8_E4M3B11FNUZ, HCB_DT_FLOAT8_E5M2FNUZ, HCB_DT_FLOAT8_E8M0FNU,
	HCB_DT_FLOAT4_E2M1FN, HCB_DT_INT2, HCB_DT_INT4, HCB_DT_UINT2, HCB_DT_UINT4,
};
#define NNEW (sizeof(NEW) / sizeof(NEW[0]))

/* How many codes a dtype has: 256 for a float8, 16 or 4 for the rest. */
static unsigned int ncodes(unsigned int dt)
{
	return 1u << hcb_dtype_bits(dt);
}

/* What a code reads back as from JSONL: itself, or for a NaN the NaN that
 * "nan" reads as. */
static uint8_t via_text(unsigned int dt, uint8_t code)
{
	if (hcb_dtype_is_float(dt) && isnan(hcb_elem_to_double(dt, &code)))
		return (uint8_t)hcb_double_to_narrow_bits(dt, NAN);
	return code;
}

/* ---- the goldens of ml_dtypes ---- */

static void run_narrow_golden(void **state)
{
	const char *name = *state;
	unsigned int dt = hcb_dtype_from_name(name), code, ncases = 0;
	char path[4096], line[256], what[16], in[32], nan[32];
	FILE *f;

	assert_int_not_equal(dt, HCB_DT_INVALID);
	snprintf(path, sizeof(path), "%s/narrow/%s.txt", data_dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		uint64_t u64;
		uint32_t u32;
		uint8_t c;
		double d;
		float x;

		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%15s %31s %31s", what, in, nan), 3);
		ncases++;
		if (!strcmp(what, "decode")) {
			c = (uint8_t)strtoul(in, NULL, 16);
			d = hcb_elem_to_double(dt, &c);
			if (!strcmp(nan, "nan")) {
				if (!isnan(d))
					fail_msg("%s: code %02x is %g, ml_dtypes: nan", name, c, d);
				continue;
			}
			u64 = strtoull(nan, NULL, 16);
			if (memcmp(&d, &u64, 8))
				fail_msg("%s: code %02x is %a, ml_dtypes: %s", name, c, d, nan);
			continue;
		}
		code = (unsigned int)strtoul(nan, NULL, 16);
		if (!strcmp(what, "round")) {
			u32 = (uint32_t)strtoul(in, NULL, 16);
			memcpy(&x, &u32, 4);
			d = x;
		} else {
			assert_string_equal(what, "round64");
			u64 = strtoull(in, NULL, 16);
			memcpy(&d, &u64, 8);
		}
		if (hcb_double_to_narrow_bits(dt, d) != code)
			fail_msg("%s: %s %s (%a) rounds to %02x, ml_dtypes: %02x", name, what, in, d,
				 hcb_double_to_narrow_bits(dt, d), code);
	}
	fclose(f);
	print_message("%s: %u cases\n", name, ncases);
	assert_true(ncases > 256 / 16);
}

/* ---- the sub-byte integers ---- */

static void test_subbyte_ints(void **state)
{
	static const struct { unsigned int dt; int64_t min; uint64_t max; } ints[] = {
		{ HCB_DT_INT2, -2, 1 }, { HCB_DT_INT4, -8, 7 },
		{ HCB_DT_UINT2, 0, 3 }, { HCB_DT_UINT4, 0, 15 },
	};

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		unsigned int dt = ints[i].dt, bits = hcb_dtype_bits(dt);
		int64_t min;
		uint64_t max;

		assert_int_equal(hcb_dtype_size(dt), 1);
		assert_false(hcb_dtype_is_float(dt));
		hcb_dtype_int_range(dt, &min, &max);
		assert_int_equal(min, ints[i].min);
		assert_int_equal(max, ints[i].max);
		/* the low bits, whatever is above them */
		for (unsigned int b = 0; b < 256; b++) {
			uint8_t byte = (uint8_t)b, low = (uint8_t)(b & ((1u << bits) - 1));
			int64_t v = hcb_elem_to_i64(dt, &byte);
			uint8_t back;

			if (min < 0)
				assert_int_equal(v, low >= 1u << (bits - 1) ? low - (1 << bits) : low);
			else
				assert_int_equal(v, low);
			assert_true(v >= min && v <= (int64_t)max);
			assert_true(hcb_elem_to_double(dt, &byte) == (double)v);
			hcb_int_store(dt, (uint64_t)v, &back);
			assert_int_equal(back, low);
		}
	}
	assert_true(hcb_dtype_is_signed(HCB_DT_INT4) && hcb_dtype_is_unsigned(HCB_DT_UINT2));
	assert_int_equal(hcb_dtype_bits(HCB_DT_FLOAT4_E2M1FN), 4);
	assert_int_equal(hcb_dtype_bits(HCB_DT_FLOAT8_E8M0FNU), 8);
	assert_int_equal(hcb_dtype_bits(HCB_DT__COUNT), 0);
}

/* XLA's packing, low bits first, against a reference built bit by bit. */
static void test_unpack(void **state)
{
	static const unsigned int dts[] = { HCB_DT_INT2, HCB_DT_UINT2, HCB_DT_INT4, HCB_DT_UINT4,
					    HCB_DT_FLOAT4_E2M1FN };
	unsigned char packed[64], out[256];
	uint64_t r = 12345;

	(void)state;
	for (unsigned int k = 0; k < sizeof(dts) / sizeof(dts[0]); k++) {
		unsigned int bits = hcb_dtype_bits(dts[k]);

		for (uint64_t n = 0; n <= 64 * 8 / bits; n += 1 + n / 7) {
			assert_int_equal(hcb_packed_bytes(dts[k], n), (n * bits + 7) / 8);
			for (unsigned int i = 0; i < sizeof(packed); i++) {
				r = r * 6364136223846793005ull + 1442695040888963407ull;
				packed[i] = (unsigned char)(r >> 56);
			}
			memset(out, 0xaa, sizeof(out));
			hcb_unpack_subbyte(dts[k], out, packed, n);
			for (uint64_t i = 0; i < n; i++) {
				unsigned int want = 0;

				for (unsigned int b = 0; b < bits; b++) {
					uint64_t at = i * bits + b;

					want |= ((packed[at / 8] >> (at % 8)) & 1u) << b;
				}
				assert_int_equal(out[i], want);
			}
			if (n < sizeof(out))
				assert_int_equal(out[n], 0xaa);
		}
	}
	assert_int_equal(hcb_packed_bytes(HCB_DT_FLOAT32, 3), 12);
}

/* ---- JSONL text ---- */

static const char *elem_text(unsigned int dt, uint8_t code)
{
	static char s[64];
	struct hcb_buf b = HCB_BUF_INIT;

	assert_int_equal(hcb_json_element(&b, dt, &code), 0);
	snprintf(s, sizeof(s), "%s", hcb_buf_str(&b));
	hcb_buf_free(&b);
	return s;
}

/* Every code as JSONL text, and read back. */
static void test_json_every_code(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < NNEW; k++) {
		unsigned int dt = NEW[k];

		for (unsigned int c = 0; c < ncodes(dt); c++) {
			const char *t = elem_text(dt, (uint8_t)c);
			uint8_t back = 0xee;
			double v = hcb_elem_to_double(dt, &(uint8_t){ (uint8_t)c });

			if (isnan(v)) {
				assert_string_equal(t, "\"nan\"");
				continue;
			}
			if (isinf(v)) {
				assert_string_equal(t, v > 0 ? "\"inf\"" : "\"-inf\"");
				continue;
			}
			if (hcb_json_number(t, strlen(t), dt, &back) || back != c)
				fail_msg("%s: code %02x wrote %s, read back %02x", hcb_dtype_name(dt), c, t,
					 back);
			/* floats always carry a '.' or an exponent; integers never */
			assert_true(hcb_dtype_is_float(dt) == (strpbrk(t, ".e") != NULL));
		}
	}
	/* shortest in their own dtype: the fewest '%.*g' digits that
	 * ml_dtypes reads back as the same code (numpy 1.26.4, ml_dtypes 0.5.4) */
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E3M4, 0x06), "0.09");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E3M4, 0x15), "0.33");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E4M3, 0x1d), "0.1");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E4M3, 0x2b), "0.34");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E4M3FNUZ, 0x25), "0.1");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E4M3B11FNUZ, 0x3d), "0.1");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E5M2FNUZ, 0x32), "0.09");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E8M0FNU, 0x7c), "0.1");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E8M0FNU, 0x7f), "1.0");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E8M0FNU, 0xfe), "2e+38");
	/* 2^-127: ml_dtypes takes anything above it to 2^-126, so only the
	 * value itself (or less) reads back */
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E8M0FNU, 0x00), "5.877471754111438e-39");
	assert_string_equal(elem_text(HCB_DT_FLOAT4_E2M1FN, 0x01), "0.5");
	assert_string_equal(elem_text(HCB_DT_FLOAT4_E2M1FN, 0x0f), "-6.0");
	assert_string_equal(elem_text(HCB_DT_FLOAT4_E2M1FN, 0x08), "-0.0");
	/* the specials */
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E4M3FNUZ, 0x80), "\"nan\"");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E4M3, 0x78), "\"inf\"");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E3M4, 0xf0), "\"-inf\"");
	assert_string_equal(elem_text(HCB_DT_FLOAT8_E8M0FNU, 0xff), "\"nan\"");
	assert_string_equal(elem_text(HCB_DT_INT4, 0x08), "-8");
	assert_string_equal(elem_text(HCB_DT_INT2, 0x03), "-1");
	assert_string_equal(elem_text(HCB_DT_UINT4, 0x0f), "15");
	/* and the integers' ranges */
	{
		uint8_t b;

		assert_int_equal(hcb_json_number("8", 1, HCB_DT_INT4, &b), -EINVAL);
		assert_int_equal(hcb_json_number("-9", 2, HCB_DT_INT4, &b), -EINVAL);
		assert_int_equal(hcb_json_number("-2", 2, HCB_DT_INT2, &b), 0);
		assert_int_equal(b, 0x02);
		assert_int_equal(hcb_json_number("4", 1, HCB_DT_UINT2, &b), -EINVAL);
		assert_int_equal(hcb_json_number("-1", 2, HCB_DT_UINT4, &b), -EINVAL);
	}
}

/* ---- recordings ---- */

struct rec {
	struct hcb_consumer *c[NNEW];
	unsigned char payload[NNEW][512];
};

/* Per dtype one tap: every code (as a sub-byte element: one a byte), then
 * a 3x3 of them and a scalar. */
static void make_taps(struct rec *r)
{
	for (unsigned int k = 0; k < NNEW; k++) {
		unsigned int dt = NEW[k], n = ncodes(dt);
		const char *kwargs[] = { "what", hcb_dtype_name(dt), NULL };
		struct hcb_leaf_spec leaves[3] = {
			{ dt, 1, { n } }, { dt, 2, { 3, 3 } }, { dt, 0, { 0 } },
		};
		struct hcb_consumer_spec s = { .name = hcb_dtype_name(dt), .kwargs = kwargs,
					       .tree = "( * * * )", .nleaves = 3, .leaves = leaves };

		r->c[k] = test_consumer(&s, 100 + k);
		for (unsigned int i = 0; i < n + 10; i++)
			r->payload[k][i] = (unsigned char)(i < n ? i : (i * 37 + 11) % n);
	}
}

static void write_file(const char *path, enum hcb_file_format fmt, const struct rec *r)
{
	struct hcb_record rec = { .kind = HCB_REC_SESSION };
	struct hcb_writer *w;

	assert_int_equal(hcb_writer_open(&w, path, fmt), 0);
	rec.session = (struct hcb_session_info){ .version = 1, .pid = 42, .start_ns = 1 };
	strcpy(rec.session.provider, "jax-callback");
	strcpy(rec.session.platform, "cpu");
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	for (unsigned int k = 0; k < NNEW; k++) {
		rec = (struct hcb_record){ .kind = HCB_REC_TAP };
		rec.tap = (struct hcb_tap){ .device = k % 2, .seq = k, .wall_ns = 1000 + k,
					       .consumer = r->c[k], .payload = r->payload[k] };
		assert_int_equal(hcb_writer_write(w, &rec), 0);
	}
	assert_int_equal(hcb_writer_close(w), 0);
}

/* Read path back: a tap per dtype, whose payload is r's, through JSONL
 * text (NaNs made the one NaN) if text, and into r2 if given. */
static void read_file(const char *path, const struct rec *r, int text, struct rec *r2)
{
	struct hcb_reader *rd;
	struct hcb_record rec;
	unsigned int k = 0;
	int n;

	assert_int_equal(hcb_reader_open(&rd, path), 0);
	while ((n = hcb_reader_next(rd, &rec)) == 1) {
		const struct hcb_consumer *c;

		if (rec.kind != HCB_REC_TAP)
			continue;
		assert_true(k < NNEW);
		c = rec.tap.consumer;
		assert_int_equal(c->nleaves, 3);
		assert_string_equal(c->name, hcb_dtype_name(NEW[k]));
		for (unsigned int l = 0; l < 3; l++)
			assert_int_equal(c->leaves[l].dtype, NEW[k]);
		for (uint64_t i = 0; i < c->total_bytes; i++) {
			uint8_t want = r->payload[k][i];

			if (text)
				want = via_text(NEW[k], want);
			if (rec.tap.payload[i] != want)
				fail_msg("%s: %s byte %llu is %02x, wrote %02x", path, c->name,
					 (unsigned long long)i, rec.tap.payload[i], want);
		}
		if (r2)
			memcpy(r2->payload[k], rec.tap.payload, c->total_bytes);
		k++;
	}
	if (n < 0)
		fail_msg("%s: %s", path, hcb_reader_error(rd));
	assert_int_equal(k, NNEW);
	hcb_reader_close(rd);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

static void test_recordings(void **state)
{
	struct rec r, r2, r3;
	char *a, *b;

	(void)state;
	make_taps(&r);
	r2 = r3 = r;
	/* .hcbcap keeps every bit */
	write_file(tmp_path("a.hcbcap"), HCB_FMT_HCBCAP, &r);
	read_file(tmp_path("a.hcbcap"), &r, 0, NULL);
	/* JSONL: every bit but a NaN's */
	write_file(tmp_path("a.jsonl"), HCB_FMT_JSONL, &r);
	read_file(tmp_path("a.jsonl"), &r, 1, &r2);
	/* JSONL -> .hcbcap -> JSONL: the same bits, the same text */
	write_file(tmp_path("b.hcbcap"), HCB_FMT_HCBCAP, &r2);
	read_file(tmp_path("b.hcbcap"), &r2, 0, &r3);
	write_file(tmp_path("b.jsonl"), HCB_FMT_JSONL, &r3);
	read_file(tmp_path("b.jsonl"), &r3, 0, NULL);
	a = slurp(tmp_path("a.jsonl"));
	b = slurp(tmp_path("b.jsonl"));
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\"dtype\":\"float8_e8m0fnu\",\"shape\":[256]"));
	assert_non_null(strstr(a, "{\"dtype\":\"int4\",\"shape\":[16],\"data\":[0,1,2,3,4,5,6,7,"
			       "-8,-7,-6,-5,-4,-3,-2,-1]}"));
	assert_non_null(strstr(a, "{\"dtype\":\"uint2\",\"shape\":[3,3],\"data\":[3,0,1,2,3,0,1,2,3]},"
			       "{\"dtype\":\"uint2\",\"shape\":[],\"data\":[0]}"));
	free(a);
	free(b);
	for (unsigned int k = 0; k < NNEW; k++)
		hcb_consumer_free(r.c[k]);
}

/* A JSONL integer out of a sub-byte dtype's range is damage, named. */
static void test_out_of_range(void **state)
{
	static const struct { const char *dtype, *data; } bad[] = {
		{ "int4", "[7,8]" }, { "int4", "[-9]" }, { "int2", "[-3]" }, { "int2", "[2]" },
		{ "uint2", "[4]" }, { "uint4", "[-1]" }, { "uint4", "[16]" }, { "int4", "[1.5]" },
		{ "float8_e8m0fnu", "[true]" },
	};
	char line[256];

	(void)state;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = tmp_path("bad.jsonl");
		struct hcb_reader *rd;
		struct hcb_record rec;
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		snprintf(line, sizeof(line), "{\"type\":\"tap\",\"device\":0,\"seq\":0,\"consumer\":1,"
			 "\"name\":\"x\",\"tree\":\"*\",\"arrays\":[{\"dtype\":\"%s\",\"shape\":[%d],"
			 "\"data\":%s}]}\n", bad[i].dtype, strchr(bad[i].data, ',') ? 2 : 1, bad[i].data);
		fputs(line, f);
		fclose(f);
		assert_int_equal(hcb_reader_open(&rd, path), 0);
		assert_int_equal(hcb_reader_next(rd, &rec), -EBADMSG);
		if (strcmp(bad[i].dtype, "float8_e8m0fnu") &&
		    !strstr(hcb_reader_error(rd), "out of range for"))
			fail_msg("%s", hcb_reader_error(rd));
		hcb_reader_close(rd);
	}
}

/* ---- diff ---- */

static void test_isclose(void **state)
{
	struct hcb_diff_opts o;
	struct hcb_diff_example ex[4];
	struct hcb_diff_leaf out;
	const struct hcb_leaf_shape l = { .dtype = HCB_DT_FLOAT8_E8M0FNU, .ndim = 1, .dims = { 3 },
					  .nelems = 3, .nbytes = 3 };
	uint8_t a[3] = { 0x7f, 0x80, 0x00 }, b[3] = { 0x7f, 0x81, 0x00 };
	uint8_t x = 0x3c, y = 0x3c;

	(void)state;
	hcb_diff_opts_default(&o);
	/* e8m0 has no zero: equal values still match, their difference is
	 * taken in float32 */
	assert_int_equal(hcb_isclose_leaf(&l, a, a, &o, &out, ex), 0);
	assert_int_equal(hcb_isclose_leaf(&l, a, b, &o, &out, ex), 1);
	assert_int_equal(out.mismatched, 1);
	assert_int_equal(out.diff_dtype, HCB_DT_FLOAT32);
	assert_true(out.max_abs == 2.0 && out.max_rel == 1.0);
	/* the others in their own dtype, as their float8 siblings */
	for (unsigned int k = 0; k < NNEW; k++) {
		assert_int_equal(hcb_isclose(NEW[k], &x, &y, &o), 1);
	}
	x = 0x3d;
	assert_int_equal(hcb_isclose(HCB_DT_FLOAT8_E4M3, &x, &y, &o), 0);
	x = 0x80, y = 0x80;   /* fnuz's NaN */
	assert_int_equal(hcb_isclose(HCB_DT_FLOAT8_E4M3FNUZ, &x, &y, &o), 0);
	o.equal_nan = 1;
	assert_int_equal(hcb_isclose(HCB_DT_FLOAT8_E4M3FNUZ, &x, &y, &o), 1);
	x = 0x0e, y = 0x0f;   /* int4 -2 and -1: through float64 */
	o.atol = 1;
	assert_int_equal(hcb_isclose(HCB_DT_INT4, &x, &y, &o), 1);
	o.atol = 0.5;
	assert_int_equal(hcb_isclose(HCB_DT_INT4, &x, &y, &o), 0);
}


#define GOLDEN(name) cmocka_unit_test_prestate(run_narrow_golden, (void *)name)

/* numpy 1.26's isclose of a 0-d complex leaf: |x - y| by scalar math
 * (hypot), |y| by the array loop; a 1-d leaf of the same element, both by
 * the loop.  Values on the boundary, from gen_isclose_cases.py's seeds 210
 * and 11, where the two roads part in the last bit. */
static void test_isclose_scalar_complex(void **state)
{
	struct hcb_diff_opts o;
	struct hcb_diff_example ex[1];
	struct hcb_diff_leaf out;
	struct hcb_leaf_shape l = { .dtype = HCB_DT_COMPLEX128, .ndim = 0, .nelems = 1,
				    .nbytes = 16 };
	const double x1[2] = { 0.01652081074505818, -0.06936339498971164 };
	const double y1[2] = { 0.01237078506430767, -0.0706167523548168 };
	const double x2[2] = { -0.0027917083505624367, -7.564550340461953e-05 };
	const double y2[2] = { -0.002785592727453366, 0.00018171034612112885 };

	(void)state;
	hcb_diff_opts_default(&o);
	o.rtol = 0.025756603251815353, o.atol = 0.002488614802720795;
	/* numpy: isclose(array(x), array(y)) False; of shape (1,): True */
	assert_int_equal(hcb_isclose_leaf(&l, (const void *)y1, (const void *)x1, &o, &out, ex), 1);
	l.ndim = 1, l.dims[0] = 1;
	assert_int_equal(hcb_isclose_leaf(&l, (const void *)y1, (const void *)x1, &o, &out, ex), 0);
	/* and with |y| by hypot as well, this one would be refused */
	o.rtol = 0.09220307293791531, o.atol = 4.241523874537157e-08, o.equal_nan = 1;
	l.ndim = 0;
	assert_int_equal(hcb_isclose_leaf(&l, (const void *)y2, (const void *)x2, &o, &out, ex), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		GOLDEN("float8_e3m4"), GOLDEN("float8_e4m3"), GOLDEN("float8_e4m3fnuz"),
		GOLDEN("float8_e4m3b11fnuz"), GOLDEN("float8_e5m2fnuz"), GOLDEN("float8_e8m0fnu"),
		GOLDEN("float4_e2m1fn"),
		cmocka_unit_test(test_subbyte_ints),
		cmocka_unit_test(test_unpack),
		cmocka_unit_test(test_json_every_code),
		cmocka_unit_test(test_recordings),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_isclose),
		cmocka_unit_test(test_isclose_scalar_complex),
	};

	data_dir = argc > 1 ? argv[1] : getenv("HCB_TEST_DATA");
	if (!data_dir) {
		fprintf(stderr, "usage: %s DATA_DIR (or set HCB_TEST_DATA)\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
