/* SPDX-License-Identifier: MIT */
/*
 * sparkline.h - a series of values as one line of eight-level glyphs:
 * ▁▂▃▄▅▆▇█ in a UTF-8 locale, "_.-:=+*#" otherwise; a NaN is a blank.
 * More values than columns are binned (each column the mean of its
 * values, NaNs left out), the newest value always in the last column.
 */
#ifndef HCB_TUI_SPARKLINE_H
#define HCB_TUI_SPARKLINE_H

#include "core/buf.h"

/* Bin n values into at most width columns; returns the columns written. */
int tui_spark_bin(const double *v, int n, int width, double *out);

/* The range of the non-NaN values (lo = hi = NaN if there are none). */
void tui_spark_range(const double *v, int n, double *lo, double *hi);

/* One glyph per value, scaled from lo (lowest glyph) to hi (highest); when
 * lo == hi every number gets the middle glyph.  -ENOMEM. */
int tui_spark_render(struct hcb_buf *out, const double *v, int n, double lo, double hi, int utf8);

#endif
