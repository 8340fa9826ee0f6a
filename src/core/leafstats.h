/* SPDX-License-Identifier: MIT */
/*
 * leafstats.h - a leaf's elements as figures: numpy's nanmean, nanmin,
 * nanmax (NaN elements left out, an inf counts) and the 2-norm
 * sqrt(sum |x|^2) of the non-NaN elements, with the NaN and inf counts.
 * Complex elements count by their real part, except in the norm (their
 * magnitude), and are NaN when either part is; bools count as 0 and 1.
 * One definition for every layer: the diff's series (diff_series.h), the
 * timeline (formats/), the viewer's rows, sparkline and detail pane (tui/).
 * libc only.
 */
#ifndef HCB_LEAFSTATS_H
#define HCB_LEAFSTATS_H

#include <stdint.h>

#include "consumer.h"

/* What a leaf's elements become as one number. */
enum hcb_stat { HCB_STAT_MEAN, HCB_STAT_MIN, HCB_STAT_MAX, HCB_STAT_NORM, HCB_STATS };

/* "mean", "min", "max", "norm"; NULL for another value. */
const char *hcb_stat_name(enum hcb_stat s);
/* The statistic called name, or -EINVAL. */
int hcb_stat_from_name(const char *name);

struct hcb_leaf_figures {
	uint64_t n;                 /* elements */
	uint64_t nan;               /* of which NaN (complex: either part) */
	uint64_t inf;               /* of which inf (complex: the real part) */
	double v[HCB_STATS];        /* by enum hcb_stat; NaN when no element is a number */
};

/* Figures of one leaf of shape l whose bytes start at data (NULL: none). */
void hcb_leaf_figures(const struct hcb_leaf_shape *l, const unsigned char *data,
		      struct hcb_leaf_figures *out);
/* Figures of a tap's first leaf; all NaN (n 0) when it has none or no payload. */
void hcb_tap_figures(const struct hcb_consumer *c, const unsigned char *payload,
		     struct hcb_leaf_figures *out);
/* A leaf as one number: its only element's value (the real part) when it
 * has one element, else statistic s of its elements (NaN: none is a number). */
double hcb_leaf_value(const struct hcb_leaf_shape *l, const unsigned char *data, enum hcb_stat s);

/* The element of dtype at p as a number (its real part) in *v, and its
 * squared magnitude in *sq: 1, or 0 if it is NaN (either part of a complex). */
int hcb_elem_number(unsigned int dtype, const unsigned char *p, double *v, double *sq);

#endif
