/* SPDX-License-Identifier: MIT */
/*
 * test_svgplot.c - the chart library (formats/svg/svgplot.h): escaping (XML's
 * five, control characters, invalid UTF-8, surrogates, non-characters,
 * cuts), scales and ranges, labels that tell two values apart, line charts
 * (a polyline per run of finite points, their data, bands, marks, flags,
 * the legend), heatmaps (a cell per value, one scale for the sequential
 * maps), bad charts refused, and the file written whole with mode 0600.
 * The documents are parsed as XML by tests/bats/plot.bats.
 *
 *	gcc -D_GNU_SOURCE -Isrc -Iformats src/core/buf.c formats/svgplot*.c \
 *		tests/unit/test_svgplot.c -lcmocka -lm
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "svg/svgplot.h"

static void escaped(const char *in, size_t max, const char *want)
{
	struct hcb_buf b = HCB_BUF_INIT;

	assert_int_equal(svgplot_escape(&b, in, max), 0);
	assert_string_equal(hcb_buf_str(&b), want);
	hcb_buf_free(&b);
}

static void test_escape(void **state)
{
	(void)state;
	escaped("a<b>&\"c'", 0, "a&lt;b&gt;&amp;&quot;c&#39;");
	escaped("tab\there\nnl", 0, "tab here nl");
	escaped("bell\a del\x7f", 0, "bell\xef\xbf\xbd del\xef\xbf\xbd");
	/* invalid UTF-8: a lone continuation, a cut sequence, an overlong '/' */
	escaped("\x80x\xe2\x82y\xc0\xaf", 0, "\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbd");
	/* a surrogate (U+D800) and U+FFFE: not XML characters */
	escaped("\xed\xa0\x80|\xef\xbf\xbe", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd");
	/* valid multibyte text passes: é, 中, 😀 */
	escaped("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 0, "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
	/* a cut counts code points and marks itself */
	escaped("\xc3\xa9\xc3\xa9\xc3\xa9x", 2, "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
	escaped("abc", 3, "abc");
	escaped(NULL, 0, "");
}

static void test_scale_and_range(void **state)
{
	double v[] = { NAN, 3, -1, INFINITY, 2 }, a[] = { -5, NAN, 0, 0, 0 }, lo = 42, hi = 42;

	(void)state;
	assert_true(svgplot_scale(0, 0, 10, 100, 200) == 100);
	assert_true(svgplot_scale(10, 0, 10, 100, 200) == 200);
	assert_true(svgplot_scale(2.5, 0, 10, 200, 100) == 175);   /* y grows down */
	assert_true(svgplot_scale(7, 7, 7, 100, 200) == 150);      /* one value: the middle */
	assert_true(svgplot_range(v, NULL, NULL, 5, &lo, &hi));
	assert_true(lo == -1 && hi == 3);
	assert_true(svgplot_range(v, a, NULL, 5, &lo, &hi));
	assert_true(lo == -5 && hi == 3);
	lo = hi = 42;
	assert_false(svgplot_range(v, NULL, NULL, 1, &lo, &hi));
	assert_true(lo == 42 && hi == 42);
}

static void test_label_pair(void **state)
{
	char a[40], b[40];

	(void)state;
	svgplot_label_pair(0.123580866, 0.45704877, a, b, sizeof(a));
	assert_string_equal(a, "0.123581");
	assert_string_equal(b, "0.457049");
	/* close values get the digits that tell them apart */
	svgplot_label_pair(1.0000001, 1.0000002, a, b, sizeof(a));
	assert_string_equal(a, "1.0000001");
	assert_string_equal(b, "1.0000002");
	svgplot_label_pair(0, 4999, a, b, sizeof(a));
	assert_string_equal(a, "0");
	assert_string_equal(b, "4999");
	svgplot_label_pair(-0.0, NAN, a, b, sizeof(a));
	assert_string_equal(a, "0");
	assert_string_equal(b, "nan");
	svgplot_label_pair(-INFINITY, 1e300, a, b, sizeof(a));
	assert_string_equal(a, "-inf");
	assert_string_equal(b, "1e+300");
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The value of attribute name in the first element with marker in its text. */
static char *attr_after(const char *doc, const char *marker, const char *name)
{
	const char *p = strstr(doc, marker), *q, *end;
	char key[64];

	assert_non_null(p);
	snprintf(key, sizeof(key), " %s=\"", name);
	q = strstr(p, key);
	assert_non_null(q);
	q += strlen(key);
	end = strchr(q, '"');
	return strndup(q, (size_t)(end - q));
}

static void test_line_chart(void **state)
{
	double x[6] = { 0, 1, 2, 3, 4, 5 }, y[6] = { 1, 2, NAN, 4, 5, 6 }, y2[6] = { 1, 2, 3, 4, 5, 7 };
	double flags[2] = { 3, 5 };
	struct svgplot_series s[2] = {
		{ "REF <a&b>", SVGPLOT_REF, 6, x, y, NULL, NULL },
		{ "NEW", SVGPLOT_NEW, 6, x, y2, y, y2 },
	};
	struct svgplot_chart c = { .title = "cpu:0 loss<1>", .subtitle = "sub", .xlabel = "occurrence",
				   .xprefix = "#", .xmin = 0, .xmax = 5, .nseries = 2, .series = s,
				   .mark = 3, .mark_label = "first difference #3", .nflags = 2, .flags = flags,
				   .flags_label = "taps that differ", .note = "a note" };
	struct hcb_buf doc = HCB_BUF_INIT;
	struct svgplot *p;
	char *v;

	(void)state;
	assert_int_equal(svgplot_new(&p, "doc & title", "line one\nline two"), 0);
	assert_int_equal(svgplot_chart(p, &c), 0);
	assert_int_equal(svgplot_render(p, &doc), 0);
	/* REF: two runs (the NaN breaks it), NEW: one */
	assert_int_equal(count(doc.data, "<polyline class=\"line ref\""), 2);
	assert_int_equal(count(doc.data, "<polyline class=\"line new\""), 1);
	v = attr_after(doc.data, "class=\"line ref\"", "data-y");
	assert_string_equal(v, "1 2");
	free(v);
	v = attr_after(doc.data, "class=\"line new\"", "data-y");
	assert_string_equal(v, "1 2 3 4 5 7");
	free(v);
	v = attr_after(doc.data, "class=\"line new\"", "points");
	assert_int_equal(count(v, ","), 6);
	free(v);
	/* NEW's band breaks where its lo (y) is NaN: two polygons */
	assert_int_equal(count(doc.data, "class=\"band new\""), 2);
	assert_int_equal(count(doc.data, "class=\"flag\""), 2);
	assert_int_equal(count(doc.data, "class=\"mark\""), 1);
	assert_int_equal(count(doc.data, "<circle class=\"dot"), 5 + 6);
	/* the y range: 1..7, labelled; the x range: #0..#5 */
	v = attr_after(doc.data, "class=\"plot\"", "data-ymax");
	assert_string_equal(v, "7");
	free(v);
	assert_non_null(strstr(doc.data, ">#0</text>"));
	assert_non_null(strstr(doc.data, ">#5</text>"));
	/* escaped everywhere, the legend included */
	assert_non_null(strstr(doc.data, "cpu:0 loss&lt;1&gt;"));
	assert_non_null(strstr(doc.data, ">REF &lt;a&amp;b&gt;</text>"));
	assert_non_null(strstr(doc.data, "<title>doc &amp; title</title>"));
	assert_int_equal(count(doc.data, "class=\"doc-subtitle\""), 2);
	assert_int_equal(count(doc.data, "<g class=\"entry\">"), 4);
	assert_null(strstr(doc.data, "<script"));
	/* the document ends as it began */
	assert_true(!strncmp(doc.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=",
			     strlen("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=")));
	assert_string_equal(doc.data + doc.len - 7, "</svg>\n");
	hcb_buf_free(&doc);
	svgplot_free(p);
}

static void test_heatmaps(void **state)
{
	double a[6] = { 0, 1, 2, 3, 4, 5 }, b[6] = { 0, 1, 2, 3, 4, 9 }, d[6] = { 0, 0, 0, 0, 0, 4 };
	unsigned char marks[6] = { 0, 0, 0, 0, 0, 1 };
	struct svgplot_map m[3] = { { "REF", 2, 3, a, 0, NULL }, { "NEW", 2, 3, b, 0, NULL },
				    { "NEW - REF", 2, 3, d, 1, marks } };
	struct svgplot_maps ms = { .title = "t", .subtitle = "s", .rows_label = "row", .cols_label = "col",
				   .row1 = 1, .col1 = 2, .nmaps = 3, .maps = m };
	struct hcb_buf doc = HCB_BUF_INIT;
	struct svgplot *p;
	char *v;

	(void)state;
	assert_int_equal(svgplot_new(&p, "maps", ""), 0);
	assert_int_equal(svgplot_heatmaps(p, &ms), 0);
	assert_int_equal(svgplot_render(p, &doc), 0);
	assert_int_equal(count(doc.data, "<g class=\"heatmap\""), 3);
	assert_int_equal(count(doc.data, "<rect x="), 3 * 6 + 3);   /* cells, and a frame each */
	assert_int_equal(count(doc.data, "class=\"cell-mark\""), 1);
	/* REF and NEW share 0..9; the difference is symmetric around 0 */
	v = attr_after(doc.data, "data-diverging=\"0\"", "data-hi");
	assert_string_equal(v, "9");
	free(v);
	v = attr_after(doc.data, "data-diverging=\"1\"", "data-lo");
	assert_string_equal(v, "-4");
	free(v);
	assert_non_null(strstr(doc.data, "fill=\"#440154\""));    /* viridis' low end for 0 */
	assert_non_null(strstr(doc.data, ">row 1</text>"));
	assert_non_null(strstr(doc.data, ">col 2</text>"));
	hcb_buf_free(&doc);
	svgplot_free(p);
}

static void test_refused(void **state)
{
	double x[1] = { 0 };
	struct svgplot_series s = { "a", SVGPLOT_REF, 1, x, NULL, NULL, NULL };
	struct svgplot_chart c = { .title = "t", .nseries = 1, .series = &s, .mark = NAN };
	struct svgplot_maps ms = { .title = "t", .nmaps = 4 };
	struct svgplot *p;

	(void)state;
	assert_int_equal(svgplot_new(&p, "t", "s"), 0);
	assert_int_equal(svgplot_chart(p, &c), -EINVAL);     /* no y */
	s.y = x;
	c.xmin = 1;
	assert_int_equal(svgplot_chart(p, &c), -EINVAL);     /* xmin > xmax */
	assert_int_equal(svgplot_heatmaps(p, &ms), -EINVAL);
	svgplot_free(p);
}

static void test_write(void **state)
{
	char dir[] = "/tmp/test_svgplot.XXXXXX", path[64];
	struct svgplot *p;
	struct stat sb;
	FILE *f;
	char head[6] = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.svg", dir);
	assert_int_equal(svgplot_new(&p, "t", "s"), 0);
	assert_int_equal(svgplot_note(p, "hello"), 0);
	assert_int_equal(svgplot_write(p, path), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, 5, f), 5);
	fclose(f);
	assert_string_equal(head, "<?xml");
	/* a directory that is not there: an error, and nothing left behind */
	snprintf(path, sizeof(path), "%s/no/p.svg", dir);
	assert_int_equal(svgplot_write(p, path), -ENOENT);
	svgplot_free(p);
	snprintf(path, sizeof(path), "%s/p.svg", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);   /* empty: no temporary file left */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_scale_and_range),
		cmocka_unit_test(test_label_pair),
		cmocka_unit_test(test_line_chart),
		cmocka_unit_test(test_heatmaps),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
