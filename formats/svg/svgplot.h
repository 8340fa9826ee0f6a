/* SPDX-License-Identifier: MIT */
/*
 * svgplot.h - a small chart library over plain data: a document of panels
 * stacked top to bottom, each a line chart (series of points over x, with
 * an optional min..max band, a vertical mark and flagged x positions) or a
 * row of heatmaps, written as one self-contained SVG file: no scripts, no
 * external fonts or images (the generic sans-serif family), valid XML, every
 * string escaped (invalid UTF-8 and characters XML forbids become U+FFFD).
 * hcbtrace diff --plot draws with it (cli/diff_plot.c).
 *
 * Axes are labelled with the data's minimum and maximum (grid lines at both,
 * the plot area padded around them), the x range with its first and last
 * value.  Each drawn line carries its data: data-x and data-y hold the
 * points' values (what the pixels were computed from), for tests and for
 * anyone reading the file rather than looking at it.
 *
 * Functions return 0 or -errno (-ENOMEM; -EINVAL for a malformed chart; a
 * file error from svgplot_write); nothing is printed.
 */
#ifndef HCB_SVGPLOT_H
#define HCB_SVGPLOT_H

#include <stddef.h>

#include "core/buf.h"

enum svgplot_color { SVGPLOT_REF, SVGPLOT_NEW, SVGPLOT_DIFF, SVGPLOT_COLORS };

#define SVGPLOT_WIDTH 960          /* the document's width, in px */
#define SVGPLOT_MARKERS_MAX 64     /* a series of this many points or fewer gets a dot on each */

struct svgplot_series {
	const char *label;          /* in the legend */
	enum svgplot_color color;
	size_t n;
	const double *x, *y;        /* n points; a non-finite y breaks the line */
	const double *lo, *hi;      /* NULL, or a band from lo to hi at each x */
};

struct svgplot_chart {
	const char *title;          /* bold, above the chart */
	const char *subtitle;       /* under it: what is drawn */
	const char *xlabel;         /* under the x axis */
	const char *xprefix;        /* before the x labels ("#"), or NULL */
	double xmin, xmax;          /* the x range shown */
	unsigned int nseries;
	const struct svgplot_series *series;
	double mark;                /* a dashed vertical line at this x; NaN: none */
	const char *mark_label;
	size_t nflags;              /* red ticks under the plot area at these x */
	const double *flags;
	const char *flags_label;    /* their legend entry */
	const char *note;           /* a line under the legend, or NULL */
};

/* The maps of one row that are not diverging share one colour scale, so
 * that they compare; a diverging one has its own, symmetric around 0. */
struct svgplot_map {
	const char *title;          /* above the map */
	size_t rows, cols;
	const double *v;            /* rows * cols, row-major; non-finite: grey */
	int diverging;              /* blue, white at 0, red; else viridis */
	const unsigned char *marks; /* NULL, or rows * cols: nonzero cells outlined */
};

struct svgplot_maps {
	const char *title, *subtitle;
	const char *rows_label, *cols_label;   /* "row", "column" */
	unsigned long long row0, row1, col0, col1;  /* the index range the maps cover */
	unsigned int nmaps;         /* at most 3, side by side */
	const struct svgplot_map *maps;
	const char *note;
};

struct svgplot;

/* A document with a title and a subtitle ('\n' between its lines). */
int svgplot_new(struct svgplot **out, const char *title, const char *subtitle);
void svgplot_free(struct svgplot *p);
int svgplot_chart(struct svgplot *p, const struct svgplot_chart *c);
int svgplot_heatmaps(struct svgplot *p, const struct svgplot_maps *m);
/* A paragraph of text between panels. */
int svgplot_note(struct svgplot *p, const char *text);
/* The whole document, appended to out. */
int svgplot_render(const struct svgplot *p, struct hcb_buf *out);
/* The document into path, whole or not at all (a temporary file renamed
 * over it), mode 0600 like recordings: it shows their values. */
int svgplot_write(const struct svgplot *p, const char *path);

/* ---- the parts, exported for tests ---- */

/* s as XML character data or attribute value: & < > " ' escaped; tabs,
 * newlines and other control characters, invalid UTF-8, surrogates and
 * U+FFFE/U+FFFF as U+FFFD (tab and newline: a space); at most max code
 * points (0: no limit), an ellipsis marking a cut. */
int svgplot_escape(struct hcb_buf *out, const char *s, size_t max);
/* v in [lo, hi] mapped linearly onto [p0, p1]; the middle when lo == hi. */
double svgplot_scale(double v, double lo, double hi, double p0, double p1);
/* The finite values of v[0..n) (and of a and b when not NULL): their
 * minimum and maximum; 0 when there is none (*lo, *hi left alone). */
int svgplot_range(const double *v, const double *a, const double *b, size_t n, double *lo, double *hi);
/* Labels for two values, lo and hi, in as few significant digits (6 to
 * 17) as tell them apart; "nan", "inf" as such. */
void svgplot_label_pair(double lo, double hi, char *a, char *b, size_t size);

#endif
