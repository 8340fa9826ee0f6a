/* SPDX-License-Identifier: MIT */
/*
 * svgplot_impl.h - what svgplot.c (the document, text, line charts) and
 * svgplot_map.c (heatmaps, colours, the file) share behind svgplot.h.
 */
#ifndef HCB_SVGPLOT_IMPL_H
#define HCB_SVGPLOT_IMPL_H

#include "core/buf.h"
#include "svgplot.h"

struct svgplot {
	struct hcb_buf body;     /* the panels, each translated to its place */
	double height;           /* where the next panel goes */
	char *title, *subtitle;
	int err;                 /* sticky: the first failure of a panel */
	int ids;                 /* ids given to gradients so far */
};

/* Appending to p->body; after a failure nothing more is appended and the
 * error stays in p->err. */
void svgplot_printf(struct svgplot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s escaped (svgplot_escape), at most max code points (0: all). */
void svgplot_text(struct svgplot *p, const char *s, size_t max);
/* <text x y attrs>s</text>, s escaped; attrs is written as it is. */
void svgplot_label(struct svgplot *p, double x, double y, const char *attrs, const char *s, size_t max);
/* Where the panel of height h goes: its top; the document grows. */
double svgplot_place(struct svgplot *p, double h);

extern const char *const svgplot_colors[SVGPLOT_COLORS];
extern const char *const svgplot_color_names[SVGPLOT_COLORS];

#define SVGPLOT_MARGIN_L 96.0         /* room for the y labels */
#define SVGPLOT_MARGIN_R 24.0
#define SVGPLOT_TITLE_MAX 140         /* code points of a title line */

#endif
