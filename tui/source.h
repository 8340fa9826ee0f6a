/* SPDX-License-Identifier: MIT */
/*
 * source.h - a recording browsed in place (hcbtrace view FILE), however
 * large: a thread indexes it into a sink's model (tui_model_index: where
 * each tap starts and its stream, 8 bytes a tap; stream counts and rates
 * grow as it goes, the header says how far), and frames read back the taps
 * they show by their offset (the model's fetch), through a reader of their
 * own.  The first TUI_SOURCE_CHECKED bytes are read whole, every value
 * checked as replay checks it; the rest is skimmed (recfile.h:
 * hcb_reader_skim): its framing and headers checked, a tap's data when it
 * is shown.
 */
#ifndef HCB_TUI_SOURCE_H
#define HCB_TUI_SOURCE_H

#include "core/filter.h"
#include "core/registry.h"
#include "sink.h"

#define TUI_SOURCE_CHECKED (16u << 20)

struct tui_source;

/* Open path, and sink (uninitialized) as its model.  filter: the taps to
 * index (NULL: all).  -errno of hcb_reader_open, -ENOMEM. */
int tui_source_open(struct tui_source **out, const char *path, struct tui_sink *sink,
		    const struct hcb_filter *filter);
/* Start indexing, and wait until the checked part is read (or all of the
 * file, or the first damage): 0, or -errno when the thread cannot start. */
int tui_source_start(struct tui_source *s);
/* How reading the checked part ended, once tui_source_start returned: 0
 * read whole (or not there yet: the thread reads on), or the reader's
 * error in it (-ENODATA: truncated there) with its message in *msg.
 * Damage past it is tui_source_result's, whenever the thread met it. */
int tui_source_checked(struct tui_source *s, const char **msg);
/* Stop indexing (if it still runs) and say how it ended: 0 at the end of
 * the file, -EINTR stopped before, or the reader's error (-ENODATA:
 * truncated, -EBADMSG ...) with its message in *msg. */
int tui_source_result(struct tui_source *s, const char **msg);
/* The consumers met in the file. */
const struct hcb_registry *tui_source_consumers(const struct tui_source *s);
/* Stops the thread, frees the source and its sink. */
void tui_source_close(struct tui_source *s);

#endif
