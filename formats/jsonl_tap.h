/* SPDX-License-Identifier: MIT */
/* jsonl_tap.h - a JSONL tap record read back (jsonl_tap.c). */
#ifndef HCB_JSONL_TAP_H
#define HCB_JSONL_TAP_H

#include "core/record.h"
#include "recfile_impl.h"

/* The tap record parsed into the reader's document, into rec: 1, or the
 * reader failed (one message), or -ENOMEM. */
int hcb_jsonl_read_tap(struct hcb_reader *r, struct hcb_record *rec);

#endif
