/* SPDX-License-Identifier: MIT */
/*
 * trace_flight.h - record's flight recorder (src/watch/flight.h) as a live
 * session drives it: built from the options around the recording's
 * writer, fired by SIGUSR1 between polls, and, re-armed (--rearm), the
 * files it writes one after another: -o run.hcbcap gives run.hcbcap, then
 * run.1.hcbcap, run.2.hcbcap, ... (the number before the format's name,
 * so that every reader knows each by its name).
 */
#ifndef HCB_CLI_TRACE_FLIGHT_H
#define HCB_CLI_TRACE_FLIGHT_H

#include <stdint.h>
#include <sys/types.h>

#include "core/receiver.h"
#include "output.h"
#include "trace.h"

struct trace_flight;

/* With --until or --until-signal: the recorder around *rx (the writer's
 * receiver; *rx becomes the recorder's), else *out NULL.  0 or -ENOMEM. */
int trace_flight_new(struct trace_flight **out, const struct trace_opts *o,
		     struct hcb_receiver *rx);
/* Where the trace keeps the writer being written and its file: a
 * re-armed firing closes them (*w NULL between firings) and opens the
 * next. */
/* The recording's name made from its pattern (cli_output_name): the
 * re-armed firings' recordings are named after it. */
void trace_flight_named(struct trace_flight *tf, const char *path);
/* A recorder of a job: drain(ctx) takes what its process's ring still
 * holds before it writes its ring for another process's firing. */
void trace_flight_drain_by(struct trace_flight *tf, int (*drain)(void *ctx), void *ctx);
void trace_flight_bind(struct trace_flight *tf, struct hcb_writer **w, struct cli_output *dest);
/* After every poll: act on a SIGUSR1 that came.  0, or -errno. */
int trace_flight_poll(struct trace_flight *tf);
/* 1 once the last firing is written: the session ends. */
int trace_flight_done(const struct trace_flight *tf);
/* 1 while a firing is being written, or once the last one was. */
int trace_flight_fired(const struct trace_flight *tf);
/* The firings begun: each has written its ring. */
uint64_t trace_flight_firings(const struct trace_flight *tf);
/* Taps in the recordings closed so far (re-armed). */
uint64_t trace_flight_written(const struct trace_flight *tf);
/* Why the session ended, in words (why: the engine's), and a warning
 * where nothing was recorded. */
const char *trace_flight_words(struct trace_flight *tf, const char *why, int quiet);
void trace_flight_free(struct trace_flight *tf);

/* After rec reached the recorder (firings: hcb_flight_firings before
 * it): --on-trigger stop's part, stopping pid at a tap that fired and
 * handing the probe the consumers it can check itself (capture.h). */
struct hcb_capture;
void trace_flight_after(struct trace_flight *tf, struct hcb_capture *cap, pid_t pid,
			uint64_t firings, const struct hcb_record *rec);
/* pid, the process traced, ended with wstatus (waitpid's): under --until
 * exit an abnormal end (a signal, a non-zero status) fires the recorder
 * (read the taps still in the ring first), and the job's others.  tf may
 * be NULL.  0, or the -errno of a write. */
int trace_flight_exit(struct trace_flight *tf, pid_t pid, int wstatus);
/* 1 once --on-trigger stop stopped the target. */
int trace_flight_stopped(const struct trace_flight *tf);

/* SIGUSR1 fires the flight recorder (as a trigger would): for
 * --until-signal, and for `hcbtrace dump` of any --keep-last session. */
void trace_install_flight_signal(void);

/* The name of re-armed firing n's recording (n >= 1): path with ".N"
 * before its last extension.  0, or -ENAMETOOLONG. */
int trace_flight_name(char *buf, size_t size, const char *path, uint64_t n);

#endif
