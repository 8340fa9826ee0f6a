/* SPDX-License-Identifier: MIT */
/*
 * test_pyformat.c - jax.debug.print's line made in C (formats/text/
 * pyformat.h) against what real Python and numpy made of the same fmt,
 * options and leaves (tests/data/pyformat/, by
 * tests/tools/gen_pyformat_golden.py: np2.txt numpy 2.5.5, np126.txt
 * numpy 1.26.4), and each refusal.
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

#include "core/dtype.h"
#include "text/pyformat.h"

#define MAX_LEAVES 8

static const char *data_dir;

struct gcase {
	char name[32];
	struct hcb_buf fmt;
	struct hcb_print_opts opts;
	unsigned int nleaves;
	struct hcb_array leaves[MAX_LEAVES];
	uint64_t dims[MAX_LEAVES][8];
	struct hcb_buf data[MAX_LEAVES];
	struct hcb_buf expect;
	int error;       /* Python raised */
	int must;        /* in the proven subset */
};

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* hex ("-": empty) into b */
static void unhex(struct hcb_buf *b, const char *s)
{
	hcb_buf_reset(b);
	assert_int_equal(hcb_buf_add(b, "", 0), 0);
	if (!strcmp(s, "-"))
		return;
	for (; s[0] && s[1]; s += 2) {
		unsigned int v;

		assert_int_equal(sscanf(s, "%2x", &v), 1);
		assert_int_equal(hcb_buf_putc(b, (char)v), 0);
	}
}

static void read_leaf(struct gcase *g, char *rest)
{
	unsigned int i = g->nleaves++;
	struct hcb_array *a = &g->leaves[i];
	char *tok = strtok(rest, " ");

	assert_true(i < MAX_LEAVES);
	a->dtype = hcb_dtype_from_name(tok);
	assert_int_not_equal(a->dtype, HCB_DT_INVALID);
	a->ndim = (unsigned int)atoi(strtok(NULL, " "));
	assert_true(a->ndim <= 8);
	for (unsigned int d = 0; d < a->ndim; d++)
		g->dims[i][d] = strtoull(strtok(NULL, " "), NULL, 10);
	a->dims = g->dims[i];
	unhex(&g->data[i], strtok(NULL, " "));
	a->data = g->data[i].data;
}

/* The next case of f into g: 1, or 0 at the end. */
static int read_case(FILE *f, struct gcase *g)
{
	char *line = NULL;
	size_t cap = 0;
	int done = 0;

	g->nleaves = 0;
	g->name[0] = '\0';
	while (!done && getline(&line, &cap, f) >= 0) {
		chomp(line);
		if (!strncmp(line, "case ", 5))
			snprintf(g->name, sizeof(g->name), "%s", line + 5);
		else if (!strncmp(line, "fmt ", 4))
			unhex(&g->fmt, line + 4);
		else if (!strncmp(line, "opts ", 5))
			assert_int_equal(sscanf(line + 5, "%lu %d %d %d %d",
						&g->opts.threshold, &g->opts.precision,
						&g->opts.linewidth, &g->opts.edgeitems,
						&g->opts.suppress), 5);
		else if (!strncmp(line, "leaf ", 5))
			read_leaf(g, line + 5);
		else if (!strncmp(line, "expect ", 7)) {
			g->error = !strcmp(line + 7, "error");
			if (!g->error)
				unhex(&g->expect, line + 7);
		} else if (!strncmp(line, "must ", 5)) {
			g->must = atoi(line + 5);
			done = 1;
		}
	}
	free(line);
	return done;
}

struct golden_run {
	const char *file;
	int exp_cutoff_by_type;   /* the file's numpy's; -1: run as not known */
};

static void run_golden(void **state)
{
	const struct golden_run *run = *state;
	const char *file = run->file;
	struct gcase g = { .fmt = HCB_BUF_INIT, .expect = HCB_BUF_INIT };
	struct hcb_buf out = HCB_BUF_INIT;
	int ncases = 0, nbad = 0, nmade = 0, nmust = 0;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pyformat/%s", data_dir, file);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	while (read_case(f, &g)) {
		int err;

		hcb_buf_reset(&out);
		g.opts.exp_cutoff_by_type = run->exp_cutoff_by_type;
		err = hcb_pyformat(&out, g.fmt.data, g.fmt.len, &g.opts, g.leaves, g.nleaves);
		ncases++;
		nmust += g.must;
		nmade += !err;
		/* made: exactly Python's; Python raised: refused; in the
		 * subset: made */
		if ((!err && (g.error || strcmp(hcb_buf_str(&out), hcb_buf_str(&g.expect)))) ||
		    (err && g.must && run->exp_cutoff_by_type >= 0)) {
			if (nbad < 8)
				print_error("%s: case %s (err %d, must %d)\n--- python\n%s\n"
					    "--- ours\n%s\n", path, g.name, err, g.must,
					    g.error ? "(error)" : hcb_buf_str(&g.expect),
					    hcb_buf_str(&out));
			nbad++;
		}
	}
	fclose(f);
	print_message("%s: %d cases, %d in the subset, %d made, %d wrong\n", file, ncases,
		      nmust, nmade, nbad);
	hcb_buf_free(&g.fmt);
	hcb_buf_free(&g.expect);
	for (unsigned int i = 0; i < MAX_LEAVES; i++)
		hcb_buf_free(&g.data[i]);
	hcb_buf_free(&out);
	assert_true(nmust > 100 && nmade > nmust / 2);
	assert_int_equal(nbad, 0);
}

/* fmt with one float32 0-d leaf (0.1) and one int32 (-42): the line or
 * the error */
static int one(const char *fmt, struct hcb_buf *out, unsigned int nleaves)
{
	static const float f = 0.1f;
	static const int32_t i = -42;
	struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_array leaves[2] = {
		{ HCB_DT_FLOAT32, 0, NULL, &f },
		{ HCB_DT_INT32, 0, NULL, &i },
	};

	hcb_buf_reset(out);
	return hcb_pyformat(out, fmt, strlen(fmt), &o, leaves, nleaves);
}

/* What Python 3.12 and numpy 2.5.5 printed for these (by hand). */
static void test_examples(void **state)
{
	static const struct {
		const char *fmt, *line;
		unsigned int nleaves;
	} cases[] = {
		{ "{}", "0.10000000149011612", 1 },
		{ "{:.3f} {}", "0.100 -42", 2 },
		{ "{1} {0:e}", "-42 1.000000e-01", 2 },
		{ "{{x}} é {0:*^12.3g}|{1:>+6}", "{x} é ****0.1*****|   -42", 2 },
		{ "{:é<7.1%}{:.2f}", "10.0%éé-42.00", 2 },
		{ "日本 {} }}{{ {}", "日本 0.10000000149011612 }{ -42", 2 },
		/* a name is the leaf after the positional ones */
		{ "{0}{a}{0}", "0.10000000149011612-420.10000000149011612", 2 },
	};
	struct hcb_buf out = HCB_BUF_INIT;

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		assert_int_equal(one(cases[k].fmt, &out, cases[k].nleaves), 0);
		assert_string_equal(hcb_buf_str(&out), cases[k].line);
	}
	hcb_buf_free(&out);
}

/* Each thing outside the subset is refused, never guessed. */
static void test_refusals(void **state)
{
	static const char *const refused_one[] = {
		"{!r}", "{0!s}", "{.real}", "{[0]}", "{0.imag}", "{:{}}", "{", "}", "x{y",
		"{:=10}", "{:z.1f}", "{:#g}", "{:010.2f}", "{:,}", "{:_}", "{:x}", "{:E}",
		"{:n}", "{:d}", "{:.2}", "{:.}", "{:.101f}", "{:2000}", "{:ff}", "{:\xff<3}",
		"{} {}", "{1}", "{0} {1}", "{a}{b}", "{} {0}", "{é}",
	};
	struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_buf out = HCB_BUF_INIT;
	static const uint64_t dims[1] = { 2 };
	static const float pair[2] = { 1, 2 };
	static const uint16_t bf16 = 0x3f80;
	struct hcb_array arr = { HCB_DT_FLOAT32, 1, dims, pair };
	struct hcb_array bf = { HCB_DT_BFLOAT16, 0, NULL, &bf16 };
	struct hcb_array f0 = { HCB_DT_FLOAT32, 0, NULL, pair };

	(void)state;
	for (size_t k = 0; k < sizeof(refused_one) / sizeof(refused_one[0]); k++) {
		int err = one(refused_one[k], &out, 1);

		if (err != -ENOTSUP)
			fail_msg("%s: %d", refused_one[k], err);
	}
	/* an int's precision, an unused argument, a spec on an n-d array,
	 * a dtype whose scalar is not numpy's own */
	assert_int_equal(one("{1:.2d} {0}", &out, 2), -ENOTSUP);
	assert_int_equal(one("{}", &out, 2), -ENOTSUP);
	assert_int_equal(hcb_pyformat(&out, "{:>5}", 5, &o, &arr, 1), -ENOTSUP);
	assert_int_equal(hcb_pyformat(&out, "{}", 2, &o, &arr, 1), 0);
	assert_int_equal(hcb_pyformat(&out, "{}", 2, &o, &bf, 1), -ENOTSUP);
	assert_int_equal(hcb_pyformat(&out, NULL, 0, &o, &arr, 1), -EINVAL);
	/* a NUL in a spec; fmt read only within its length */
	assert_int_equal(hcb_pyformat(&out, "{:f\0}", 5, &o, &f0, 1), -ENOTSUP);
	assert_int_equal(hcb_pyformat(&out, "{}{", 2, &o, &arr, 1), 0);
	hcb_buf_free(&out);
}

static struct golden_run np2 = { "np2.txt", 1 }, np126 = { "np126.txt", 0 },
			  np2_unknown = { "np2.txt", -1 }, np126_unknown = { "np126.txt", -1 };

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test_prestate(run_golden, &np2),
		cmocka_unit_test_prestate(run_golden, &np126),
		cmocka_unit_test_prestate(run_golden, &np2_unknown),
		cmocka_unit_test_prestate(run_golden, &np126_unknown),
	};

	data_dir = argc > 1 ? argv[1] : getenv("HCB_TEST_DATA");
	if (!data_dir) {
		fprintf(stderr, "usage: %s DATA_DIR (or set HCB_TEST_DATA)\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
