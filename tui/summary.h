/* SPDX-License-Identifier: MIT */
/*
 * summary.h - what one line says of a tap, for the lists (the model's rows,
 * model.h) and the detail pane (detail.h): its values or shapes, numbers
 * and shapes as short text.  Of a consumer and a payload only: nothing
 * here knows the model.
 */
#ifndef HCB_TUI_SUMMARY_H
#define HCB_TUI_SUMMARY_H

#include <stddef.h>

#include "core/buf.h"
#include "core/consumer.h"

/* A short value: the values of a tap of up to 4 scalars ("8.5 72.25"),
 * else its arrays' dtypes and shapes with the first one's mean
 * ("float32[16] mean=3.25"); with no payload (NULL), the shapes alone. */
int tui_tap_summary(struct hcb_buf *out, const struct hcb_consumer *c, const unsigned char *payload);
/* "float32[3,4]" */
int tui_shape_text(struct hcb_buf *out, const struct hcb_leaf_shape *l);
/* A number as a short string ("%.8g"; "nan", "inf"). */
void tui_format_num(char *out, size_t cap, double v);

#endif
