/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "plot.h"

static const char *const ramp_utf8[] = { "·", "░", "▒", "▓", "█" };
static const char ramp_ascii[] = ".:-=+*#@";

/* ---- the grid ---- */

int tui_grid_resize(struct tui_grid *g, int rows, int cols)
{
	size_t n;

	if (rows < 0 || cols < 0)
		rows = cols = 0;
	n = (size_t)rows * (size_t)cols;
	if (hcb_grow(&g->cells, &g->cap, n ? n : 1, sizeof(*g->cells)))
		return -ENOMEM;
	g->rows = rows;
	g->cols = cols;
	for (size_t i = 0; i < n; i++)
		g->cells[i] = (struct tui_cell){ .glyph = " " };
	return 0;
}

void tui_grid_free(struct tui_grid *g)
{
	free(g->cells);
	memset(g, 0, sizeof(*g));
}

const struct tui_cell *tui_grid_at(const struct tui_grid *g, int y, int x)
{
	if (y < 0 || x < 0 || y >= g->rows || x >= g->cols)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
}

void tui_grid_row(const struct tui_grid *g, int y, char *out, size_t cap)
{
	size_t len = 0;

	if (!cap)
		return;
	out[0] = '\0';
	for (int x = 0; x < g->cols; x++) {
		const char *s = tui_grid_at(g, y, x)->glyph;
		size_t n = strlen(s);

		if (len + n + 1 > cap)
			break;
		memcpy(out + len, s, n + 1);
		len += n;
	}
}

static void set(struct tui_grid *g, int y, int x, const char *glyph, int kind, int shade)
{
	struct tui_cell *c;

	if (y < 0 || x < 0 || y >= g->rows || x >= g->cols)
		return;
	c = &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
	snprintf(c->glyph, sizeof(c->glyph), "%s", glyph);
	c->kind = (unsigned char)kind;
	c->shade = (unsigned char)shade;
}

/* ASCII text at (y, x), one cell a character, cut at the grid's edge. */
static void text(struct tui_grid *g, int y, int x, const char *s)
{
	char ch[2] = { 0, 0 };

	for (; *s; s++, x++) {
		ch[0] = *s;
		set(g, y, x, ch, TUI_CELL_TEXT, 0);
	}
}

/* A label: short ("%.4g"), "nan", "inf", "-inf". */
static void label(char *out, size_t cap, double v)
{
	if (isnan(v))
		snprintf(out, cap, "nan");
	else if (isinf(v))
		snprintf(out, cap, v > 0 ? "inf" : "-inf");
	else
		snprintf(out, cap, "%.4g", v == 0 ? 0.0 : v);
}

/* The range of the finite values (NaN, NaN when there are none). */
static void finite_range(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (isnan(*lo) || v[i] < *lo)
			*lo = v[i];
		if (isnan(*hi) || v[i] > *hi)
			*hi = v[i];
	}
}

/* The bottom axis at row y: a corner at column ax, a rule to the end, and
 * the first and last index over it when both fit. */
static void x_axis(struct tui_grid *g, int y, int ax, int width, uint64_t last,
		   const struct tui_plot_style *st)
{
	char a[24];
	int n;

	set(g, y, ax, st->utf8 ? "└" : "+", TUI_CELL_AXIS, 0);
	for (int x = ax + 1; x <= ax + width; x++)
		set(g, y, x, st->utf8 ? "─" : "-", TUI_CELL_AXIS, 0);
	n = snprintf(a, sizeof(a), "%llu", (unsigned long long)last);
	if (n + 2 > width)
		return;
	text(g, y, ax + 1, "0");
	text(g, y, ax + width + 1 - n, a);
}

/* The left axis at column ax over rows [0, h): labels hi on row 0 and lo on
 * row h - 1, right-aligned before it in lw columns. */
static void y_axis(struct tui_grid *g, int ax, int h, int lw, const char *hi, const char *lo,
		   const struct tui_plot_style *st)
{
	for (int y = 0; y < h; y++) {
		int tick = y == 0 || y == h - 1;

		set(g, y, ax, tick ? (st->utf8 ? "┤" : "+") : (st->utf8 ? "│" : "|"), TUI_CELL_AXIS, 0);
	}
	text(g, 0, lw - (int)strlen(hi), hi);
	if (h > 1)
		text(g, h - 1, lw - (int)strlen(lo), lo);
}

/* ---- line chart ---- */

/* Fewer values than dot columns: column x of sx on the line between them. */
static double between(const double *v, size_t n, int x, int sx)
{
	double t = sx > 1 && n > 1 ? (double)x * (double)(n - 1) / (double)(sx - 1) : 0;
	size_t i = (size_t)t;
	double fr = t - (double)i;

	if (i + 1 < n && isfinite(v[i]) && isfinite(v[i + 1]))
		return v[i] + (v[i + 1] - v[i]) * fr;
	return v[fr < 0.5 || i + 1 >= n ? i : i + 1];
}

/* The values of dot column x of sx: [*a, *b], NaN for a gap. */
static void column_span(const double *v, size_t n, int x, int sx, double *a, double *b)
{
	size_t i0, i1;

	if (n < (size_t)sx) {
		*a = *b = between(v, n, x, sx);
		return;
	}
	*a = *b = NAN;
	i0 = (size_t)((unsigned long long)n * (unsigned)x / (unsigned)sx);
	i1 = (size_t)((unsigned long long)n * (unsigned)(x + 1) / (unsigned)sx);
	for (size_t i = i0; i < i1; i++) {
		if (isnan(v[i]))
			continue;
		if (isnan(*a) || v[i] < *a)
			*a = v[i];
		if (isnan(*b) || v[i] > *b)
			*b = v[i];
	}
}

/* The dot row (0: bottom) of value x. */
static int dot_row(double x, double lo, double hi, int sy)
{
	long k;

	if (isinf(x))
		return x > 0 ? sy - 1 : 0;
	if (!(hi > lo))
		return (sy - 1) / 2;
	k = lround((x - lo) / (hi - lo) * (sy - 1));
	return k < 0 ? 0 : k >= sy ? sy - 1 : (int)k;
}

/* One cell's dots (bit k of row r from the top, column c) as its glyph. */
static void dot_glyph(char *out, unsigned int bits, const struct tui_plot_style *st)
{
	static const unsigned int braille[4][2] = {
		{ 0x01, 0x08 }, { 0x02, 0x10 }, { 0x04, 0x20 }, { 0x40, 0x80 } };
	unsigned int b = 0;

	if (!bits) {
		strcpy(out, " ");
		return;
	}
	if (!st->utf8) {
		/* three heights in a cell; a column across more of them is a bar */
		strcpy(out, bits == 1 ? "'" : bits == 2 ? "-" : bits == 4 ? "." : "|");
		return;
	}
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 2; c++)
			if (bits & (1u << (r * 2 + c)))
				b |= braille[r][c];
	out[0] = (char)0xe2;
	out[1] = (char)(0xa0 | (b >> 6));
	out[2] = (char)(0x80 | (b & 0x3f));
	out[3] = '\0';
}

/* The points of v into cells [0, ph) x [x0, x0 + pw) of g. */
static int plot_points(struct tui_grid *g, const double *v, size_t n, int x0, int pw, int ph,
		       double lo, double hi, const struct tui_plot_style *st)
{
	int dx = st->utf8 ? 2 : 1, dy = st->utf8 ? 4 : 3, sx = pw * dx, sy = ph * dy;
	int plo = 0, phi = -1;
	unsigned int *bits = calloc((size_t)pw * (size_t)ph, sizeof(*bits));

	if (!bits)
		return -ENOMEM;
	for (int x = 0; x < sx; x++) {
		double a, b;
		int y0, y1, olo, ohi;

		column_span(v, n, x, sx, &a, &b);
		if (isnan(a)) {
			phi = plo - 1;   /* a gap: nothing to join to */
			continue;
		}
		olo = y0 = dot_row(a, lo, hi, sy);
		ohi = y1 = dot_row(b, lo, hi, sy);
		/* joined to the column before */
		if (phi >= plo && y0 > phi + 1)
			y0 = phi + 1;
		if (phi >= plo && y1 < plo - 1)
			y1 = plo - 1;
		plo = olo;
		phi = ohi;
		for (int y = y0; y <= y1; y++) {
			int top = sy - 1 - y;

			bits[(size_t)(top / dy) * (size_t)pw + (size_t)(x / dx)] |=
				1u << ((top % dy) * dx + x % dx);
		}
	}
	for (int r = 0; r < ph; r++) {
		for (int c = 0; c < pw; c++) {
			char gl[5];
			unsigned int b = bits[(size_t)r * (size_t)pw + (size_t)c];

			dot_glyph(gl, b, st);
			if (b)
				set(g, r, x0 + c, gl, TUI_CELL_LINE, 0);
		}
	}
	free(bits);
	return 0;
}

int tui_plot_line(struct tui_grid *g, const double *v, size_t n, const struct tui_plot_style *st)
{
	char hl[24], ll[24];
	double lo, hi;
	int lw, axes;

	if (!n || g->rows < 1 || g->cols < 1)
		return 0;
	finite_range(v, n, &lo, &hi);
	label(hl, sizeof(hl), hi);
	label(ll, sizeof(ll), lo);
	lw = (int)(strlen(hl) > strlen(ll) ? strlen(hl) : strlen(ll));
	axes = g->rows >= 3 && g->cols >= lw + 2 + 4;
	if (!axes)
		return plot_points(g, v, n, 0, g->cols, g->rows, lo, hi, st);
	y_axis(g, lw + 1, g->rows - 1, lw, hl, ll, st);
	x_axis(g, g->rows - 1, lw + 1, g->cols - lw - 2, n - 1, st);
	return plot_points(g, v, n, lw + 2, g->cols - lw - 2, g->rows - 1, lo, hi, st);
}

/* ---- heatmap ---- */

int tui_plot_levels(const struct tui_plot_style *st)
{
	if (st->color)
		return st->levels < 2 ? 2 : st->levels > TUI_SHADES_MAX ? TUI_SHADES_MAX : st->levels;
	return st->utf8 ? (int)(sizeof(ramp_utf8) / sizeof(ramp_utf8[0])) : (int)strlen(ramp_ascii);
}

/* A shade's cell: a blank of its colour, or its glyph on the grey ramp. */
static void shade(struct tui_grid *g, int y, int x, int level, const struct tui_plot_style *st)
{
	char gl[2] = { ramp_ascii[level], 0 };

	set(g, y, x, st->color ? " " : st->utf8 ? ramp_utf8[level] : gl, TUI_CELL_HEAT, level);
}

/* The value of the cell covering rows [r0, r1) x columns [c0, c1): the
 * mean of its numbers; an infinity when only one sign of them is there. */
static double cell_value(const double *v, size_t cols, size_t r0, size_t r1, size_t c0, size_t c1)
{
	double sum = 0;
	size_t n = 0;
	int pinf = 0, ninf = 0;

	for (size_t r = r0; r < r1; r++) {
		for (size_t c = c0; c < c1; c++) {
			double x = v[r * cols + c];

			if (isnan(x))
				continue;
			if (isinf(x)) {
				pinf |= x > 0;
				ninf |= x < 0;
				continue;
			}
			sum += x;
			n++;
		}
	}
	if (pinf || ninf)
		return pinf && ninf ? NAN : pinf ? INFINITY : -INFINITY;
	return n ? sum / (double)n : NAN;
}

/* Cells per element along a side of n elements in room cells: a whole
 * multiple when they fit, 0 when they must be binned. */
static int stretch(size_t n, int room)
{
	return n <= (size_t)room ? (int)((size_t)room / n) : 0;
}

/* The legend at row y from column x0: lo, the shades, hi. */
static void legend(struct tui_grid *g, int y, int x0, double lo, double hi, int levels,
		   const struct tui_plot_style *st)
{
	char a[24], b[24];
	int w, room = g->cols - x0;

	label(a, sizeof(a), lo);
	label(b, sizeof(b), hi);
	w = room >= (int)(strlen(a) + strlen(b)) + 2 + 2 * levels ? 2 : 1;
	if (room < (int)(strlen(a) + strlen(b)) + 2 + levels) {
		a[0] = b[0] = '\0';
		if (room < levels)
			return;
	}
	text(g, y, x0, a);
	x0 += a[0] ? (int)strlen(a) + 1 : 0;
	for (int k = 0; k < levels; k++)
		for (int i = 0; i < w; i++)
			shade(g, y, x0++, k, st);
	if (b[0])
		text(g, y, x0 + 1, b);
}

/* The map's cells, dh x dw from (0, x0): values, their range, shades. */
static int heat_cells(struct tui_grid *g, const double *v, size_t rows, size_t cols, int x0,
		      int dh, int dw, double *lo, double *hi, const struct tui_plot_style *st)
{
	double *cv = calloc((size_t)dh * (size_t)dw, sizeof(*cv));
	int levels = tui_plot_levels(st);

	if (!cv)
		return -ENOMEM;
	for (int y = 0; y < dh; y++) {
		size_t r0 = rows * (size_t)y / (size_t)dh, r1 = rows * (size_t)(y + 1) / (size_t)dh;

		for (int x = 0; x < dw; x++) {
			size_t c0 = cols * (size_t)x / (size_t)dw, c1 = cols * (size_t)(x + 1) / (size_t)dw;

			cv[(size_t)y * (size_t)dw + (size_t)x] =
				cell_value(v, cols, r0, r1 > r0 ? r1 : r0 + 1, c0, c1 > c0 ? c1 : c0 + 1);
		}
	}
	finite_range(cv, (size_t)dh * (size_t)dw, lo, hi);
	for (int y = 0; y < dh; y++) {
		for (int x = 0; x < dw; x++) {
			double c = cv[(size_t)y * (size_t)dw + (size_t)x];
			int k;

			if (isnan(c))
				continue;   /* no number under it: blank */
			if (isinf(c))
				k = c > 0 ? levels - 1 : 0;
			else if (!(*hi > *lo))
				k = levels / 2;
			else
				k = (int)((c - *lo) / (*hi - *lo) * levels);
			shade(g, y, x0 + x, k < 0 ? 0 : k >= levels ? levels - 1 : k, st);
		}
	}
	free(cv);
	return 0;
}

int tui_plot_heatmap(struct tui_grid *g, const double *v, size_t rows, size_t cols,
		     const struct tui_plot_style *st)
{
	char last[24];
	int lw, axes, mh, mw, x0, fy, fx, dh, dw, err;
	double lo, hi;

	if (!rows || !cols || g->rows < 1 || g->cols < 1)
		return 0;
	lw = snprintf(last, sizeof(last), "%llu", (unsigned long long)(rows - 1));
	axes = g->rows >= 4 && g->cols >= lw + 2 + 2;
	mh = axes ? g->rows - 2 : g->rows;
	mw = axes ? g->cols - lw - 2 : g->cols;
	x0 = axes ? lw + 2 : 0;
	fy = stretch(rows, mh);
	fx = stretch(cols, mw);
	/* stretched both ways: about square elements */
	if (fy && fx) {
		if (fx > 2 * fy)
			fx = 2 * fy;
		if (fy > (fx + 1) / 2)
			fy = (fx + 1) / 2;
	}
	dh = fy ? (int)rows * fy : mh;
	dw = fx ? (int)cols * fx : mw;
	err = heat_cells(g, v, rows, cols, x0, dh, dw, &lo, &hi, st);
	if (err || !axes)
		return err;
	y_axis(g, lw + 1, dh, lw, "0", last, st);
	x_axis(g, dh, lw + 1, dw, cols - 1, st);
	legend(g, dh + 1, x0, lo, hi, tui_plot_levels(st), st);
	return 0;
}

/* ---- what to draw ---- */

enum tui_plot_kind tui_plot_choose(const struct hcb_consumer *c, unsigned int *leaf,
				   uint64_t *rows, uint64_t *cols)
{
	for (unsigned int i = 0; c && i < c->nleaves; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		unsigned int big = 0;

		if (l->nelems < 2 || !l->ndim)
			continue;
		/* dimensions of 1 do not make a second axis */
		for (unsigned int d = 0; d < l->ndim; d++)
			big += l->dims[d] > 1;
		*leaf = i;
		*cols = l->dims[l->ndim - 1];
		*rows = l->nelems / (*cols ? *cols : 1);
		if (big <= 1 || *cols == 1 || *rows == 1) {
			*rows = 1;
			*cols = l->nelems;
			return TUI_PLOT_LINE;
		}
		return TUI_PLOT_HEATMAP;
	}
	return TUI_PLOT_NONE;
}
