/* SPDX-License-Identifier: MIT */
/*
 * test_arrayprint.c - hcb_array2string against numpy 1.26.4's own output.
 *
 * Data: the golden files <dir>/arrayprint/<dtype>.txt, written by
 * tests/tools/gen_arrayprint_golden.py (the format is described there).
 * <dir> is argv[1], else the environment variable HCB_TEST_DATA; it is the
 * tests/data directory of the source tree:
 *
 *	./test_arrayprint tests/data
 *	HCB_TEST_DATA=tests/data ./test_arrayprint
 *
 * Each dtype is one cmocka test; it fails when any case's text differs,
 * after printing the first few differences.
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
#include "core/dtype.h"
#include "text/arrayprint.h"

static const char *data_dir;

struct golden {
	char name[128];
	unsigned int dtype;
	unsigned int ndim;
	uint64_t dims[HCB_MAX_DIMS];
	struct hcb_print_opts opts;
	unsigned char *data;
	size_t data_len;
	struct hcb_buf expect;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

/* Read the next case; 1 when one was read, 0 at the end of the file. */
static int read_case(FILE *f, struct golden *g, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int nexpect = -1, got = 0;

	struct hcb_print_opts defaults = HCB_PRINT_OPTS_IDPRINT;

	g->opts = defaults;
	free(g->data);
	g->data = NULL;
	g->data_len = 0;
	hcb_buf_reset(&g->expect);
	g->name[0] = '\0';

	while (nexpect < 0 && (n = getline(&line, &cap, f)) >= 0) {
		chomp(line);
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strncmp(line, "case ", 5) == 0) {
			snprintf(g->name, sizeof(g->name), "%s", line + 5);
			got = 1;
		} else if (strncmp(line, "dtype ", 6) == 0) {
			g->dtype = hcb_dtype_from_name(line + 6);
			if (g->dtype == HCB_DT_INVALID)
				fail_msg("%s: %s: unknown dtype %s", path, g->name, line + 6);
		} else if (strncmp(line, "shape", 5) == 0) {
			char *p = line + 5, *end;

			g->ndim = 0;
			for (;;) {
				unsigned long long d = strtoull(p, &end, 10);

				if (end == p)
					break;
				assert_true(g->ndim < HCB_MAX_DIMS);
				g->dims[g->ndim++] = d;
				p = end;
			}
		} else if (strncmp(line, "threshold ", 10) == 0) {
			g->opts.threshold = strtoull(line + 10, NULL, 10);
		} else if (strncmp(line, "precision ", 10) == 0) {
			g->opts.precision = atoi(line + 10);
		} else if (strncmp(line, "max_line_width ", 15) == 0) {
			g->opts.linewidth = atoi(line + 15);
		} else if (strncmp(line, "edgeitems ", 10) == 0) {
			g->opts.edgeitems = atoi(line + 10);
		} else if (strncmp(line, "suppress_small ", 15) == 0) {
			g->opts.suppress = atoi(line + 15);
		} else if (strncmp(line, "data", 4) == 0) {
			const char *h = line[4] ? line + 5 : line + 4;
			size_t len = strlen(h);

			g->data = calloc(1, len / 2 + 1);
			assert_non_null(g->data);
			for (size_t i = 0; i + 1 < len; i += 2) {
				int hi = hexval(h[i]), lo = hexval(h[i + 1]);

				assert_true(hi >= 0 && lo >= 0);
				g->data[g->data_len++] = (unsigned char)(hi << 4 | lo);
			}
		} else if (strncmp(line, "expect ", 7) == 0) {
			nexpect = atoi(line + 7);
		} else {
			fail_msg("%s: %s: cannot parse '%s'", path, g->name, line);
		}
	}
	for (int i = 0; i < nexpect; i++) {
		n = getline(&line, &cap, f);
		if (n < 0)
			fail_msg("%s: %s: file ends inside the expected text", path, g->name);
		chomp(line);
		if (i)
			assert_int_equal(hcb_buf_putc(&g->expect, '\n'), 0);
		assert_int_equal(hcb_buf_puts(&g->expect, line), 0);
	}
	free(line);
	if (got && nexpect < 0)
		fail_msg("%s: %s: no expect line", path, g->name);
	return got;
}

static void run_golden(void **state)
{
	const char *dtype = *state;
	struct golden g = { .expect = HCB_BUF_INIT };
	struct hcb_buf out = HCB_BUF_INIT;
	char path[4096];
	int ncases = 0, nbad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/arrayprint/%s.txt", data_dir, dtype);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));

	while (read_case(f, &g, path)) {
		struct hcb_array a = { g.dtype, g.ndim, g.dims, g.data };
		uint64_t n;
		int err;

		assert_int_equal(hcb_shape_elems(g.ndim, g.dims, &n), 0);
		assert_int_equal(n * hcb_dtype_size(g.dtype), g.data_len);
		hcb_buf_reset(&out);
		err = hcb_array2string(&out, &a, &g.opts);
		ncases++;
		if (err || strcmp(hcb_buf_str(&out), hcb_buf_str(&g.expect)) != 0) {
			if (nbad < 5)
				print_error("%s: case %s (err %d)\n--- numpy\n%s\n--- ours\n%s\n",
					    path, g.name, err, hcb_buf_str(&g.expect),
					    hcb_buf_str(&out));
			nbad++;
		}
	}
	fclose(f);
	free(g.data);
	hcb_buf_free(&g.expect);
	hcb_buf_free(&out);
	print_message("%s: %d cases, %d differ\n", dtype, ncases, nbad);
	assert_true(ncases > 0);
	assert_int_equal(nbad, 0);
}

/* Small cases written out by hand, so the rules read as documentation. */
static void check(unsigned int dtype, unsigned int ndim, const uint64_t *dims,
		  const void *data, const char *want)
{
	struct hcb_array a = { dtype, ndim, dims, data };
	struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_buf out = HCB_BUF_INIT;

	assert_int_equal(hcb_array2string(&out, &a, &o), 0);
	assert_string_equal(hcb_buf_str(&out), want);
	hcb_buf_free(&out);
}

static void test_examples(void **state)
{
	static const double f64[] = { 1.0, -0.5, 0.25 };
	static const float f32[] = { 0.1f, 1.5f };
	static const int32_t i32[] = { 7, -120, 3, 4 };
	static const uint8_t b[] = { 1, 0 };
	uint64_t d3 = 3, d2 = 2, d22[] = { 2, 2 }, d0 = 0;
	double one = 3.0;

	(void)state;
	check(HCB_DT_FLOAT64, 1, &d3, f64, "[ 1.   -0.5   0.25]");
	check(HCB_DT_FLOAT32, 1, &d2, f32, "[0.1 1.5]");
	check(HCB_DT_INT32, 2, d22, i32, "[[   7 -120]\n [   3    4]]");
	check(HCB_DT_BOOL, 1, &d2, b, "[ True False]");
	check(HCB_DT_BOOL, 0, NULL, b, "True");
	check(HCB_DT_FLOAT64, 0, NULL, &one, "3.");
	check(HCB_DT_FLOAT64, 1, &d0, NULL, "[]");
}

static void test_errors(void **state)
{
	struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_buf out = HCB_BUF_INIT;
	uint64_t d1 = 1;
	uint32_t x = 0;
	struct hcb_array a = { 99, 1, &d1, &x };

	(void)state;
	assert_int_equal(hcb_array2string(&out, &a, &o), -EINVAL);
	a.dtype = HCB_DT_INVALID;
	assert_int_equal(hcb_array2string(&out, &a, &o), -EINVAL);
	a.dtype = HCB_DT_INT32;
	o.precision = -1;
	assert_int_equal(hcb_array2string(&out, &a, &o), -EINVAL);
	hcb_buf_free(&out);
}

#define GOLDEN(name) cmocka_unit_test_prestate(run_golden, (void *)name)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_errors),
		GOLDEN("bool"),
		GOLDEN("int8"), GOLDEN("int16"), GOLDEN("int32"), GOLDEN("int64"),
		GOLDEN("uint8"), GOLDEN("uint16"), GOLDEN("uint32"), GOLDEN("uint64"),
		GOLDEN("float16"), GOLDEN("float32"), GOLDEN("float64"),
		GOLDEN("complex64"), GOLDEN("complex128"),
		GOLDEN("bfloat16"), GOLDEN("float8_e4m3fn"), GOLDEN("float8_e5m2"),
		GOLDEN("float8_e3m4"), GOLDEN("float8_e4m3"), GOLDEN("float8_e4m3fnuz"),
		GOLDEN("float8_e4m3b11fnuz"), GOLDEN("float8_e5m2fnuz"), GOLDEN("float8_e8m0fnu"),
		GOLDEN("float4_e2m1fn"), GOLDEN("int2"), GOLDEN("int4"), GOLDEN("uint2"),
		GOLDEN("uint4"),
	};

	data_dir = argc > 1 ? argv[1] : getenv("HCB_TEST_DATA");
	if (!data_dir) {
		fprintf(stderr, "usage: %s DATA_DIR (or set HCB_TEST_DATA)\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
