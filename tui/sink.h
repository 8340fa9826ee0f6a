/* SPDX-License-Identifier: MIT */
/*
 * sink.h - the model behind a lock, fed by a live session (on the
 * session's reader thread) or by a recording, read by the screen.
 * The session never waits on the screen: the screen holds the lock only
 * while it builds a frame in memory, never while it writes to the terminal.
 */
#ifndef HCB_TUI_SINK_H
#define HCB_TUI_SINK_H

#include <pthread.h>

#include "core/receiver.h"
#include "model.h"

struct tui_sink {
	pthread_mutex_t lock;
	struct tui_model model;
	int done;               /* the session is over (set by its thread) */
	int code;               /* its exit code */
};

/* cap_taps/cap_bytes as tui_model_init.  -ENOMEM. */
int tui_sink_init(struct tui_sink *s, size_t cap_taps, uint64_t cap_bytes);
/* A recording browsed in place (tui_model_init_indexed).  -ENOMEM. */
int tui_sink_init_indexed(struct tui_sink *s, const struct tui_fetch_ops *ops, void *ctx);
void tui_sink_free(struct tui_sink *s);
/* Take one record under the lock.  Returns 0: a tap the model cannot hold
 * is counted in model.lost, never an error for the session. */
int tui_sink_add(struct tui_sink *s, const struct hcb_record *rec);
/* The sink as a live session's receiver (receiver.h): every record the
 * session produces goes into the model, as record puts them in a file. */
struct hcb_receiver tui_sink_receiver(struct tui_sink *s);
/* One process of several live sessions (tui_model_process, registered
 * before it starts): its records go into the model as that process's. */
struct tui_sink_proc {
	struct tui_sink *sink;
	unsigned int proc;
};
struct hcb_receiver tui_sink_receiver_of(struct tui_sink_proc *p);
void tui_sink_lock(struct tui_sink *s);
void tui_sink_unlock(struct tui_sink *s);

#endif
