/* SPDX-License-Identifier: MIT */
/*
 * plot.h - an array as a picture in character cells, for the detail pane:
 * a 1-D array as a line chart, a 2-D one as a heatmap, each drawn into a
 * grid of cells of a given size.  Pure, like the sparkline: screen.c puts
 * the cells on the terminal, colouring the line and the heatmap's shades.
 *
 * Line chart (an axis column and an index row when the grid has room):
 *
 *	   9.5 ┤        ⢀⡠⠔⠊
 *	       │    ⢀⡠⠔⠊⠁
 *	   0.5 ┤⣀⠤⠒⠉
 *	       └0──────────19
 *
 * labels: the largest and the smallest finite value, the index range.  In
 * a UTF-8 locale the points are braille dots (2 x 4 per cell), else ASCII
 * with three heights per cell ('.', '-', '\'', and '|' for a column that
 * spans more than one) and axes of '+', '|', '-'.  Each dot column shows
 * the values of its part of the array from their min to their max (an
 * envelope when there are more values than columns, the line between them
 * when fewer), joined to the column before; NaN leaves a gap; infinities sit
 * on the top and bottom rows, the range being that of the finite values.
 *
 * Heatmap of rows x cols values: a cell per value, stretched to whole
 * multiples when the grid has room (elements about square: a cell is twice
 * as high as wide), else each cell the mean of the values it covers (NaN
 * left out; a cell of NaN only is blank).  Row labels on the left, column
 * labels below, and a legend row: the lowest value, the shades from low to
 * high, the highest value; shades split the range of the cells drawn
 * evenly.  With colour every shade is a blank cell of its own colour
 * (screen.c's palette); without (no colours, NO_COLOR) a grey ramp of
 * glyphs: "·░▒▓█" in UTF-8, ".:-=+*#@" in ASCII.
 */
#ifndef HCB_TUI_PLOT_H
#define HCB_TUI_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "core/consumer.h"

#define TUI_SHADES_MAX 16

enum tui_cell_kind {
	TUI_CELL_BLANK = 0,
	TUI_CELL_TEXT,          /* labels */
	TUI_CELL_AXIS,
	TUI_CELL_LINE,          /* the chart's points */
	TUI_CELL_HEAT,          /* a heatmap or legend shade: see shade */
};

struct tui_cell {
	char glyph[5];          /* one column: a UTF-8 character, NUL-terminated */
	unsigned char kind;     /* enum tui_cell_kind */
	unsigned char shade;    /* TUI_CELL_HEAT: 0 (lowest) .. levels - 1 */
};

struct tui_grid {
	int rows, cols;
	struct tui_cell *cells;         /* rows x cols, row by row */
	size_t cap;
};

struct tui_plot_style {
	int utf8;               /* braille, box drawing, block shades */
	int color;              /* heatmap shades are colours (screen.c); else glyphs */
	int levels;             /* with colour: how many (2 .. TUI_SHADES_MAX) */
};

/* rows x cols of blank cells (rows or cols 0: an empty grid).  -ENOMEM. */
int tui_grid_resize(struct tui_grid *g, int rows, int cols);
void tui_grid_free(struct tui_grid *g);
const struct tui_cell *tui_grid_at(const struct tui_grid *g, int y, int x);
/* Row y's glyphs as one string (what a terminal shows without colour). */
void tui_grid_row(const struct tui_grid *g, int y, char *out, size_t cap);

/* The shades a heatmap of this style has. */
int tui_plot_levels(const struct tui_plot_style *st);

/* v[0..n) as a line chart filling g, drawn over blank cells.  0 or -ENOMEM. */
int tui_plot_line(struct tui_grid *g, const double *v, size_t n, const struct tui_plot_style *st);
/* v (rows x cols, row-major) as a heatmap filling g.  0 or -ENOMEM. */
int tui_plot_heatmap(struct tui_grid *g, const double *v, size_t rows, size_t cols,
		     const struct tui_plot_style *st);

/* What the detail pane draws of a tap: its first leaf of two elements or
 * more, as a line (one dimension larger than 1) or a heatmap (rows: all but
 * the last dimension, columns: the last), with *leaf, *rows and *cols (rows
 * 1 for a line); TUI_PLOT_NONE when no leaf is one. */
enum tui_plot_kind { TUI_PLOT_NONE, TUI_PLOT_LINE, TUI_PLOT_HEATMAP };
enum tui_plot_kind tui_plot_choose(const struct hcb_consumer *c, unsigned int *leaf,
				   uint64_t *rows, uint64_t *cols);

#endif
