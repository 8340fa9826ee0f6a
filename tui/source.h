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
#include "jobset.h"
#include "sink.h"

#define TUI_SOURCE_CHECKED (16u << 20)
#define TUI_SOURCE_TROUBLES 16u     /* a job's members' troubles kept to be said */

struct tui_source;

/* Open path, and sink (uninitialized) as its model.  filter: the taps to
 * index (NULL: all).  -errno of hcb_reader_open, -ENOMEM. */
int tui_source_open(struct tui_source **out, const char *path, struct tui_sink *sink,
		    const struct hcb_filter *filter);
/*
 * A job's recordings as one (hcbtrace view DIR, or FILE FILE...: set
 * identified, jobset.h; it must outlive the source): merged by time
 * (jobmerge.h), each member a process of the model (tui_model_process),
 * each member's first TUI_SOURCE_CHECKED bytes read whole, the rest
 * skimmed.  A member's damage ends that member alone: the display opens
 * whatever it is, and it is told by tui_source_troubles.  0, or -errno
 * with why in why.
 */
int tui_source_open_job(struct tui_source **out, const struct hcb_jobset *set, struct tui_sink *sink,
			const struct hcb_filter *filter, char *why, size_t cap);
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
/* A job's: how many of its members were damaged or cut short (as
 * tui_source_result is read), and the i-th's error (-ENODATA: cut short)
 * and message, the first TUI_SOURCE_TROUBLES of them. */
size_t tui_source_troubles(const struct tui_source *s, size_t i, int *err, const char **msg);
/* Its files (1 for one recording), and the consumers met in file i. */
size_t tui_source_members(const struct tui_source *s);
const struct hcb_registry *tui_source_consumers(const struct tui_source *s, size_t i);
/* Stops the thread, frees the source and its sink. */
void tui_source_close(struct tui_source *s);

#endif
