/* SPDX-License-Identifier: MIT */
/*
 * floatformat.h - numpy's FloatingFormat (floatformat.c), for
 * array2string (arrayprint.c): a column of floats is sized from its
 * values in two passes (fstats_add over each, ffmt_choose, ffmt_measure
 * over each, ffmt_finish), then each value printed with ffmt_put.
 * Private to formats/.
 */
#ifndef HCB_FLOATFORMAT_H
#define HCB_FLOATFORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

struct ffmt {
	unsigned int dtype;  /* FLOAT16/32/64: whose shortest digits count */
	bool sign_plus;      /* '+' on non-negative values (imaginary parts) */
	bool exp_format;
	int precision;       /* fraction digits: cutoff, or exactly (sci) */
	int pad_left;
	int pad_right;
	int exp_size;        /* digits of the exponent */
	bool suppress;
	bool cutoff_by_type; /* print_opts.h's exp_cutoff_by_type */
};

/* What FloatingFormat.fillFormat learns from the shown values. */
struct fstats {
	bool any_finite, any_nonzero, any_nonfinite, any_neginf;
	double max_abs, min_abs;  /* of the finite non-zero values */
};

/*
 * snprintf in the C locale's spelling: a locale with ',' as radix must
 * not leak into numpy-compatible text, so whatever the radix is, it
 * becomes '.'.  Only used with %e / %f / %g of finite values.
 */
void fmt_c(char *buf, size_t size, const char *fmt, int prec, double v);

/* Pass 1: what the column's values are. */
void fstats_add(struct fstats *s, double v);
/* Decide scientific or positional from the stats (first half of fillFormat). */
void ffmt_choose(struct ffmt *f, const struct fstats *s);
/* Pass 2: widen the column for one finite value (second half of fillFormat). */
void ffmt_measure(struct ffmt *f, double v, int prec);
/* After all values were measured: sizes nan and inf need (end of fillFormat). */
void ffmt_finish(struct ffmt *f, const struct fstats *s);
/* Append one element formatted as the column f decided. */
int ffmt_put(struct hcb_buf *out, const struct ffmt *f, double v);

#endif
