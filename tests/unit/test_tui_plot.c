/* SPDX-License-Identifier: MIT */
/*
 * test_tui_plot.c - the detail pane's pictures (tui/plot.h), cell by cell:
 * line charts in ASCII and braille with their axes and labels, NaN gaps and
 * infinities, flat and all-NaN arrays; heatmaps stretched and binned, on
 * the grey ramp and in colour, with their legend; grids down to one cell
 * and none; and which leaf of a tap is drawn how.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tui/plot.h"
#include "core/wire.h"

static const struct tui_plot_style ascii = { .utf8 = 0 }, utf8 = { .utf8 = 1 };

static char rowbuf[1024];

static const char *row(const struct tui_grid *g, int y)
{
	tui_grid_row(g, y, rowbuf, sizeof(rowbuf));
	return rowbuf;
}

static int count_kind(const struct tui_grid *g, int kind)
{
	int n = 0;

	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++)
			n += tui_grid_at(g, y, x)->kind == kind;
	return n;
}

/* ---- line charts ---- */

static void test_line_ascii_axes(void **state)
{
	double v[4] = { 0, 1, 2, 3 };
	struct tui_grid g = { 0 };

	(void)state;
	/* 3 chart rows of 3 heights: one height per dot column, bottom to top */
	assert_int_equal(tui_grid_resize(&g, 4, 12), 0);
	assert_int_equal(tui_plot_line(&g, v, 4, &ascii), 0);
	assert_string_equal(row(&g, 0), "3 +      .-'");
	assert_string_equal(row(&g, 1), "  |   .-'   ");
	assert_string_equal(row(&g, 2), "0 +.-'      ");
	assert_string_equal(row(&g, 3), "  +0-------3");
	assert_int_equal(tui_grid_at(&g, 0, 0)->kind, TUI_CELL_TEXT);
	assert_int_equal(tui_grid_at(&g, 1, 2)->kind, TUI_CELL_AXIS);
	assert_int_equal(tui_grid_at(&g, 2, 3)->kind, TUI_CELL_LINE);
	assert_int_equal(count_kind(&g, TUI_CELL_LINE), 9);
	/* UTF-8: box drawing around the braille */
	assert_int_equal(tui_grid_resize(&g, 4, 12), 0);
	assert_int_equal(tui_plot_line(&g, v, 4, &utf8), 0);
	assert_string_equal(tui_grid_at(&g, 0, 2)->glyph, "┤");
	assert_string_equal(tui_grid_at(&g, 1, 2)->glyph, "│");
	assert_string_equal(tui_grid_at(&g, 3, 2)->glyph, "└");
	assert_string_equal(tui_grid_at(&g, 3, 4)->glyph, "─");
	assert_string_equal(tui_grid_at(&g, 3, 3)->glyph, "0");
	tui_grid_free(&g);
}

static void test_line_braille_cells(void **state)
{
	double flat[4] = { 5, 5, 5, 5 }, up[2] = { 0, 1 };
	struct tui_grid g = { 0 };

	(void)state;
	/* no room for axes: the dots only; a flat line in the middle */
	assert_int_equal(tui_grid_resize(&g, 1, 2), 0);
	assert_int_equal(tui_plot_line(&g, flat, 4, &utf8), 0);
	assert_string_equal(row(&g, 0), "⠤⠤");
	/* 0 then 1 in one cell: the bottom left dot, the right column joined up to the top */
	assert_int_equal(tui_grid_resize(&g, 1, 1), 0);
	assert_int_equal(tui_plot_line(&g, up, 2, &utf8), 0);
	assert_string_equal(row(&g, 0), "⡸");
	tui_grid_free(&g);
}

static void test_line_nan_inf(void **state)
{
	double v[6] = { 1, NAN, 3, INFINITY, 2, -INFINITY };
	double none[3] = { NAN, NAN, NAN };
	struct tui_grid g = { 0 };

	(void)state;
	/* NaN a gap, +inf on the top, -inf at the bottom, the range 1..3 */
	assert_int_equal(tui_grid_resize(&g, 3, 6), 0);
	assert_int_equal(tui_plot_line(&g, v, 6, &ascii), 0);
	assert_string_equal(row(&g, 0), "  ''| ");
	assert_string_equal(row(&g, 1), "    |.");
	assert_string_equal(row(&g, 2), ".    |");
	/* with axes, the labels are the finite range */
	assert_int_equal(tui_grid_resize(&g, 4, 12), 0);
	assert_int_equal(tui_plot_line(&g, v, 6, &ascii), 0);
	assert_true(!strncmp(row(&g, 0), "3 +", 3));
	assert_true(!strncmp(row(&g, 2), "1 +", 3));
	assert_string_equal(row(&g, 3), "  +0-------5");
	/* all NaN: axes and "nan", no points */
	assert_int_equal(tui_grid_resize(&g, 4, 12), 0);
	assert_int_equal(tui_plot_line(&g, none, 3, &utf8), 0);
	assert_int_equal(count_kind(&g, TUI_CELL_LINE), 0);
	assert_true(!strncmp(row(&g, 0), "nan ┤", strlen("nan ┤")));
	tui_grid_free(&g);
}

static void test_line_tiny_and_many(void **state)
{
	double *v = malloc(100000 * sizeof(*v));
	struct tui_grid g = { 0 };

	(void)state;
	for (int i = 0; i < 100000; i++)
		v[i] = i % 2 ? 1 : -1;
	/* one cell, and no cell at all */
	assert_int_equal(tui_grid_resize(&g, 1, 1), 0);
	assert_int_equal(tui_plot_line(&g, v, 100000, &ascii), 0);
	assert_string_equal(row(&g, 0), "|");
	assert_int_equal(tui_grid_resize(&g, 0, 0), 0);
	assert_int_equal(tui_plot_line(&g, v, 100000, &utf8), 0);
	/* many values a column: the envelope, from -1 to 1 in every column */
	assert_int_equal(tui_grid_resize(&g, 5, 30), 0);
	assert_int_equal(tui_plot_line(&g, v, 100000, &ascii), 0);
	for (int x = 5; x < 30; x++)
		for (int y = 0; y < 4; y++)
			assert_string_equal(tui_grid_at(&g, y, x)->glyph, "|");
	assert_string_equal(row(&g, 4), "   +0--------------------99999");
	assert_int_equal(tui_plot_line(&g, v, 0, &ascii), 0);
	free(v);
	tui_grid_free(&g);
}

/* ---- heatmaps ---- */

static void test_heatmap_grey_stretched(void **state)
{
	double v[6] = { 1, 2, 3, 4, 5, 6 };
	struct tui_grid g = { 0 };

	(void)state;
	assert_int_equal(tui_plot_levels(&ascii), 8);
	assert_int_equal(tui_plot_levels(&utf8), 5);
	/* 2 x 3 in 2 x 21 cells: 1 x 2 cells each (about square) */
	assert_int_equal(tui_grid_resize(&g, 4, 24), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 2, 3, &ascii), 0);
	assert_string_equal(row(&g, 0), "0 +..::==               ");
	assert_string_equal(row(&g, 1), "1 +++##@@               ");
	assert_string_equal(row(&g, 2), "  +0----2               ");
	assert_string_equal(row(&g, 3), "   1 ..::--==++**##@@ 6 ");
	assert_int_equal(tui_grid_at(&g, 1, 5)->kind, TUI_CELL_HEAT);
	assert_int_equal(tui_grid_at(&g, 1, 5)->shade, 6);
	assert_int_equal(tui_grid_at(&g, 3, 20)->shade, 7);
	/* UTF-8 grey: five shades */
	assert_int_equal(tui_grid_resize(&g, 4, 24), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 2, 3, &utf8), 0);
	assert_string_equal(row(&g, 0), "0 ┤··░░▒▒               ");
	assert_string_equal(row(&g, 1), "1 ┤▓▓████               ");
	tui_grid_free(&g);
}

static void test_heatmap_colour_nan_inf(void **state)
{
	const struct tui_plot_style colour = { .utf8 = 1, .color = 1, .levels = 5 };
	double v[6] = { 1, NAN, 3, 4, INFINITY, 6 };
	struct tui_grid g = { 0 };
	static const int shades[2][3] = { { 0, -1, 2 }, { 3, 4, 4 } };

	(void)state;
	assert_int_equal(tui_plot_levels(&colour), 5);
	assert_int_equal(tui_grid_resize(&g, 4, 24), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 2, 3, &colour), 0);
	/* colours are blank cells of a shade; NaN is blank, +inf the top shade */
	for (int r = 0; r < 2; r++) {
		for (int c = 0; c < 6; c++) {
			const struct tui_cell *cell = tui_grid_at(&g, r, 3 + c);

			assert_string_equal(cell->glyph, " ");
			if (shades[r][c / 2] < 0) {
				assert_int_equal(cell->kind, TUI_CELL_BLANK);
				continue;
			}
			assert_int_equal(cell->kind, TUI_CELL_HEAT);
			assert_int_equal(cell->shade, shades[r][c / 2]);
		}
	}
	/* the legend: the finite range, five shades of two cells */
	assert_string_equal(row(&g, 3), "   1            6       ");
	for (int k = 0; k < 10; k++)
		assert_int_equal(tui_grid_at(&g, 3, 5 + k)->shade, k / 2);
	tui_grid_free(&g);
}

static void test_heatmap_binned_and_tiny(void **state)
{
	double *v = malloc(100 * 100 * sizeof(*v));
	struct tui_grid g = { 0 };

	(void)state;
	for (int r = 0; r < 100; r++)
		for (int c = 0; c < 100; c++)
			v[r * 100 + c] = r < 50 ? 0 : 1;
	/* no room for axes: 3 x 3 cells of means; the middle row straddles */
	assert_int_equal(tui_grid_resize(&g, 3, 3), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 100, 100, &ascii), 0);
	assert_string_equal(row(&g, 0), "...");
	assert_string_equal(row(&g, 1), "===");
	assert_string_equal(row(&g, 2), "@@@");
	/* one cell; none */
	assert_int_equal(tui_grid_resize(&g, 1, 1), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 100, 100, &ascii), 0);
	assert_int_equal(tui_grid_at(&g, 0, 0)->kind, TUI_CELL_HEAT);
	assert_int_equal(tui_grid_resize(&g, 0, 5), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 100, 100, &ascii), 0);
	/* a flat map: the middle shade; the legend says the one value */
	for (int i = 0; i < 10000; i++)
		v[i] = 7;
	assert_int_equal(tui_grid_resize(&g, 12, 40), 0);
	assert_int_equal(tui_plot_heatmap(&g, v, 100, 100, &ascii), 0);
	assert_string_equal(tui_grid_at(&g, 0, 4)->glyph, "+");
	assert_non_null(strstr(row(&g, 11), "7 ..::--==++**##@@ 7"));
	assert_non_null(strstr(row(&g, 10), "+0-"));
	assert_non_null(strstr(row(&g, 9), "99 +"));
	free(v);
	tui_grid_free(&g);
}

/* ---- which leaf ---- */

static struct hcb_consumer *make(unsigned int nleaves, const struct hcb_leaf_spec *leaves)
{
	static const char *tree[] = { "*", "( * * )" };
	struct hcb_consumer_spec s = { .name = "t", .tree = tree[nleaves - 1], .nleaves = nleaves,
				       .leaves = leaves };
	struct hcb_consumer *c = NULL;
	void *blob = NULL;
	size_t len = 0;

	assert_int_equal(hcb_reg_build(&s, 1, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

static void check_choice(unsigned int nleaves, const struct hcb_leaf_spec *leaves,
			 enum tui_plot_kind kind, unsigned int leaf, uint64_t rows, uint64_t cols)
{
	struct hcb_consumer *c = make(nleaves, leaves);
	unsigned int l = 99;
	uint64_t r = 0, k = 0;

	assert_int_equal(tui_plot_choose(c, &l, &r, &k), kind);
	if (kind != TUI_PLOT_NONE) {
		assert_int_equal(l, leaf);
		assert_int_equal(r, rows);
		assert_int_equal(k, cols);
	}
	hcb_consumer_free(c);
}

static void test_choose(void **state)
{
	(void)state;
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT32, 0, { 0 } } }, TUI_PLOT_NONE, 0, 0, 0);
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT32, 1, { 1 } } }, TUI_PLOT_NONE, 0, 0, 0);
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT32, 1, { 16 } } }, TUI_PLOT_LINE, 0, 1, 16);
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_INT32, 2, { 2, 3 } } }, TUI_PLOT_HEATMAP, 0, 2, 3);
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT64, 2, { 1, 5 } } }, TUI_PLOT_LINE, 0, 1, 5);
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT64, 2, { 5, 1 } } }, TUI_PLOT_LINE, 0, 1, 5);
	check_choice(1, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT64, 3, { 2, 3, 4 } } }, TUI_PLOT_HEATMAP, 0, 6, 4);
	check_choice(2, (struct hcb_leaf_spec[]){ { HCB_DT_FLOAT32, 0, { 0 } }, { HCB_DT_FLOAT32, 1, { 4 } } },
		     TUI_PLOT_LINE, 1, 1, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_ascii_axes),
		cmocka_unit_test(test_line_braille_cells),
		cmocka_unit_test(test_line_nan_inf),
		cmocka_unit_test(test_line_tiny_and_many),
		cmocka_unit_test(test_heatmap_grey_stretched),
		cmocka_unit_test(test_heatmap_colour_nan_inf),
		cmocka_unit_test(test_heatmap_binned_and_tiny),
		cmocka_unit_test(test_choose),
	};

	return cmocka_run_group_tests_name("tui_plot", tests, NULL, NULL);
}
