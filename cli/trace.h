/* SPDX-License-Identifier: MIT */
/* trace.h - one live tracing session, shared by `attach` and `run`. */
#ifndef HCB_CLI_TRACE_H
#define HCB_CLI_TRACE_H

#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "cli.h"

enum trace_format { FORMAT_TEXT, FORMAT_JSONL };

enum { OPT_DEVICE = 256, OPT_CONSUMER };

/* The options attach and run share, in --help order. */
#define TRACE_OPTS \
	{ OPT_DEVICE, "device", "N", "only taps from device N (repeatable)" }, \
	{ OPT_CONSUMER, "consumer", "ID|NAME", "only taps of this consumer (repeatable)" }, \
	{ 'c', "count", "N", "stop after N taps" }, \
	{ 'd', "duration", "SECS", "stop after SECS seconds" }, \
	{ 'f', "format", "FMT", "output format: text (id_print, default) or jsonl" }, \
	{ 'b', "buffer-size", "MIB", "ring buffer size in MiB (default 64)" }, \
	{ 'q', "quiet", NULL, "no summary on exit" }, \
	{ 'h', "help", NULL, "show this help" }

struct trace_opts {
	unsigned long long count;      /* 0: no limit */
	double duration;               /* seconds, 0: no limit */
	enum trace_format format;
	uint64_t ring_bytes;
	int quiet;
	uint64_t devices[4];           /* --device bitmap; all zero: every device */
	int device_filter;
	const char *consumers[64];     /* --consumer values */
	unsigned int nconsumers;
};

void trace_opts_init(struct trace_opts *o);
/* Handle one of TRACE_OPTS.  Returns 0, 1 if c is not one of them, or an
 * exit code > 1 after printing the usage error. */
int trace_opt(const struct cli_cmd *cmd, struct trace_opts *o, int c, const char *arg);

struct trace;

/* Load BPF (before anything is started or attached).  Returns an exit code. */
int trace_new(struct trace **out, const struct trace_opts *o);
/* Find pid's libhcbtap and attach.  Returns an exit code. */
int trace_attach(struct trace *t, pid_t pid);
/*
 * Print taps until Ctrl-C, -c, -d, or the target is gone (alive() returns
 * 0; NULL means "check /proc"), then detach, drain and summarize.
 * Returns an exit code.
 */
int trace_run(struct trace *t, int (*alive)(void *ctx), void *ctx);
void trace_free(struct trace *t);

/* Set by SIGINT/SIGTERM. */
extern volatile sig_atomic_t trace_exiting;
void trace_install_signals(void);

#endif
