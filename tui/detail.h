/* SPDX-License-Identifier: MIT */
/*
 * detail.h - the text the viewer shows for taps (its one-line summaries
 * are summary.h's), and the detail pane's text: the tap rendered as id_print
 * printed it (formats/text/idprint.h), then per array its dtype and shape,
 * min / max / mean and NaN and inf counts (leafstats.h).
 */
#ifndef HCB_TUI_DETAIL_H
#define HCB_TUI_DETAIL_H

#include <stdint.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "model.h"
#include "summary.h"

/* "HH:MM:SS.mmm" in local time. */
void tui_format_time(char *out, size_t cap, uint64_t wall_ns);

/* The detail pane's text, lines ending in '\n': the head, id_print's
 * text, then a line of figures per array. */
int tui_detail_text(struct hcb_buf *out, const struct tui_consumer *c, const char *platform,
		    const struct tui_tap *t);
/* Its first line: "tap #12  seq 3  10:41:02.517  consumer loss (1)". */
int tui_detail_head(struct hcb_buf *out, const struct hcb_consumer *c, const struct tui_tap *t);
/* For a tap with device copy times, the line after it (else nothing):
 * "device copy  1.500 us, starting 2.000 us before the tap". */
int tui_detail_copy(struct hcb_buf *out, const struct tui_tap *t);

static inline int tui_tap_has_copy(const struct tui_tap *t)
{
	return t->copy_end_ns && t->copy_start_ns <= t->copy_end_ns;
}
/* Leaf i's line of figures: "[0] float32[16]  min -1  max 2  mean 0.5  nan 0  inf 0". */
int tui_detail_leaf(struct hcb_buf *out, const struct hcb_consumer *c, unsigned int i,
		    const unsigned char *payload);
#endif
