/* SPDX-License-Identifier: MIT */
/*
 * sink.h - the model behind a lock, fed by a live session's writer (on
 * the session's reader thread) or by a recording, read by the screen.
 * The writer never waits on the screen: the screen holds the lock only
 * while it builds a frame in memory, never while it writes to the terminal.
 */
#ifndef HCB_TUI_SINK_H
#define HCB_TUI_SINK_H

#include <pthread.h>

#include "model.h"
#include "recfile.h"

struct tui_sink {
	pthread_mutex_t lock;
	struct tui_model model;
	int done;               /* the session is over (set by its thread) */
	int code;               /* its exit code */
};

/* cap_taps/cap_bytes as tui_model_init.  -ENOMEM. */
int tui_sink_init(struct tui_sink *s, size_t cap_taps, uint64_t cap_bytes);
void tui_sink_free(struct tui_sink *s);
/* Take one record under the lock.  Returns 0: a tap the model cannot hold
 * is counted in model.lost, never an error for the session. */
int tui_sink_add(struct tui_sink *s, const struct hcb_record *rec);
/* An hcb_writer (recfile.h) that adds every record written to it: what a
 * live session writes to, as record writes to its file. */
int tui_sink_writer(struct tui_sink *s, struct hcb_writer **out);
void tui_sink_lock(struct tui_sink *s);
void tui_sink_unlock(struct tui_sink *s);

#endif
