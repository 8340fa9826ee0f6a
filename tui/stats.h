/* SPDX-License-Identifier: MIT */
/*
 * stats.h - per array figures for the detail pane and the sparkline: the
 * count of elements, min / max / mean of the non-NaN values (numpy's
 * nanmin, nanmax, nanmean: an inf counts), and the NaN and inf counts.
 * Complex arrays use their real parts, bools count as 0 and 1.
 */
#ifndef HCB_TUI_STATS_H
#define HCB_TUI_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "consumer.h"

struct tui_stats {
	uint64_t n;             /* elements */
	uint64_t nan, inf;
	double min, max, mean;  /* NaN when no element is a number */
};

/* Figures of one leaf of shape l, whose bytes start at data. */
void tui_leaf_stats(const struct hcb_leaf_shape *l, const unsigned char *data,
		    struct tui_stats *s);

/* Figures of a tap's first leaf; all NaN (n 0) when it has no leaves. */
void tui_tap_stats(const struct hcb_consumer *c, const unsigned char *payload, struct tui_stats *s);

/* A tap's value for its sparkline: its first leaf's mean (the value itself
 * for a scalar); NaN when the consumer has no leaves or it is not a number. */
double tui_tap_value(const struct hcb_consumer *c, const unsigned char *payload);

#endif
