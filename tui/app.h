/* SPDX-License-Identifier: MIT */
/*
 * app.h - the viewer's loop: keys in, a frame out at most every 100 ms
 * (at once after a key), nothing drawn while paused unless a key asks.
 */
#ifndef HCB_TUI_APP_H
#define HCB_TUI_APP_H

#include <signal.h>

#include "sink.h"

struct tui_app_opts {
	struct tui_sink *sink;
	const char *source;              /* for the header: "pid 123 (prog)", a file */
	int live;                        /* rates from the clock, "session ended" */
	volatile sig_atomic_t *stop;     /* set (by a signal): leave */
	long max_frames;                 /* > 0: leave after that many frames (scripted runs) */
};

/* Run until q, *stop or max_frames.  The terminal is restored on return.
 * 0, -ENOTTY (no usable terminal) or -ENOMEM. */
int tui_run(const struct tui_app_opts *o);

#endif
