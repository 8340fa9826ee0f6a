/* SPDX-License-Identifier: MIT */
/*
 * capture_loop.h - what every caller of the capture engine does around it
 * (hcbtrace's commands, bench/capture_bench): libbpf's own messages routed
 * where the caller says, and the poll loop that runs a session until
 * something ends it.  No words and no exit codes here: the caller turns the
 * reason into those.
 */
#ifndef HCB_CAPTURE_LOOP_H
#define HCB_CAPTURE_LOOP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"

/* libbpf's own messages (its load log) go to f, or nowhere with NULL.  The
 * caller decides (hcbtrace: stderr with HCBTRACE_DEBUG set). */
void hcb_capture_libbpf_log(FILE *f);

/* Why hcb_capture_run() returned. */
enum hcb_run_end {
	HCB_RUN_FAILED,          /* a poll failed: its -errno is in *err */
	HCB_RUN_COUNT,           /* hcb_capture_stopped(): max_taps written */
	HCB_RUN_EXEC,            /* hcb_capture_stopped(): the target exec'd */
	HCB_RUN_DEADLINE,        /* deadline_ns passed */
	HCB_RUN_TARGET_GONE,     /* alive() said 0 on two polls in a row */
	HCB_RUN_STOPPED,         /* *stop was set (a signal) */
};

struct hcb_run_opts {
	int poll_ms;                        /* how long each poll waits for the ring */
	unsigned int drain_every_ms;        /* nonzero: no waiting in epoll; sleep this
					     * long, then take what is there (a reader
					     * that is never woken: no wakeups cost) */
	uint64_t deadline_ns;               /* CLOCK_MONOTONIC; 0: none */
	int (*alive)(void *ctx);            /* 0 once the target is gone; NULL: not asked */
	void *ctx;
	const volatile sig_atomic_t *stop;  /* nonzero: stop (a signal handler sets it);
					     * NULL: nothing stops it but the above */
};

/*
 * Poll c (hcb_capture_poll()) until a poll fails, the engine stops
 * (hcb_capture_stopped()), the deadline passes, the target is gone or
 * *stop is set, checked in that order after each poll (*stop before each).
 * *err is 0 but for HCB_RUN_FAILED.  The session is not ended here.
 */
enum hcb_run_end hcb_capture_run(struct hcb_capture *c, const struct hcb_run_opts *o, int *err);

#endif
