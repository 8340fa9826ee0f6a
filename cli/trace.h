/* SPDX-License-Identifier: MIT */
/*
 * trace.h - a live session as the commands that run one see it (attach,
 * run, record, view): their shared options, the capture engine (capture.h)
 * driven until Ctrl-C, -c, -d or the target's end, and the words and exit
 * codes for what happens on the way.
 */
#ifndef HCB_CLI_TRACE_H
#define HCB_CLI_TRACE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/receiver.h"
#include "engine/capture_loop.h"
#include "process/identity.h"
#include "watch/trigger.h"
#include "cli.h"
#include "filter_opts.h"
#include "identity_opts.h"
#include "print_flags.h"

enum trace_format { FORMAT_TEXT, FORMAT_JSONL };

/* The options the live commands share, in --help order (-f and -o are the
 * commands' own: attach/run print, record writes a file). */
#define PROVIDER_OPT \
	{ OPT_PROVIDER, "provider", "NAME", "trace through this provider only: hcbtap, " \
	  "xla-outfeed or jax-callback (repeatable; default: every one the program has)" }

/* --max-lag: a barrier on a program that outruns a JSONL recording
 * answers in about 50 ms rather than a second; it applies only while taps
 * are being lost, so a burst the ring holds is kept whole (src/bpf/lag.h). */
#define TRACE_MAX_LAG_MS 25
#define MAX_LAG_OPT(WHEN) \
	{ OPT_MAX_LAG, "max-lag", "MS", WHEN "while taps are being lost, drop them (counted) " \
	  "rather than fall over MS ms of writing behind (default 25; 0: as far as the ring holds)" }

/* --no-text: the concatenation probe costs every str concatenation of the
 * whole program while attached (src/providers/provider.h: HCB_WITHOUT_TEXT) */
#define NO_TEXT_OPT \
	{ OPT_NO_TEXT, "no-text", NULL, "jax.debug.print: show and record its operands, not " \
	  "the line it printed (no probe on the program's str concatenation)" }

/* --text-probe: the probe stays the whole session rather than until every
 * print site's line made by hcbtrace was proven the program's own */
#define TEXT_PROBE_OPT \
	{ OPT_TEXT_PROBE, "text-probe", NULL, "jax.debug.print: take its line from the probe " \
	  "on str concatenation for the whole session, never from hcbtrace's formatting" }

#define TRACE_OPTS \
	FILTER_OPTS, \
	PROVIDER_OPT, \
	NO_TEXT_OPT, \
	TEXT_PROBE_OPT, \
	{ 'c', "count", "N", "stop after N taps" }, \
	{ 'd', "duration", "SECS", "stop after SECS seconds" }, \
	{ 'b', "buffer-size", "MIB", "ring buffer size in MiB (default 64)" }, \
	MAX_LAG_OPT(""), \
	{ 'q', "quiet", NULL, "no summary on exit" }, \
	{ 'h', "help", NULL, "show this help" }

#define FORMAT_OPT { 'f', "format", "FMT", "output format: text (id_print, default) or jsonl" }

/* run and record of a command: CUPTI is loaded into a program as it starts */
#define CUDA_OPT \
	{ OPT_CUDA, "cuda", NULL, "load libhcbtap_cupti.so into CMD: each CUDA tap's record " \
	  "carries when it was copied off its device" }

/* --keep-last DURATION alone holds at most this many bytes too */
#define TRACE_KEEP_DEFAULT_BYTES (256ull << 20)

/* --until conditions a recording takes: any one fires */
#define TRACE_MAX_UNTIL 16

struct trace_opts {
	unsigned long long count;      /* 0: no limit */
	double duration;               /* seconds, 0: no limit */
	enum trace_format format;      /* to stdout, when no output path */
	const char *output;            /* record: the file to write */
	uint64_t ring_bytes;
	uint64_t max_lag_ns;           /* --max-lag; 0: no limit but the ring's */
	int quiet;
	struct hcb_filter filter;
	unsigned int providers;        /* --provider: bit i for hcb_providers[i]; 0: all */
	int cuda;                      /* --cuda: CMD runs with the CUPTI injection library */
	unsigned int without;          /* HCB_WITHOUT_* (provider.h): --no-text */
	struct print_choice print;     /* what is printed (print_flags.h) */
	/* record's flight recorder (src/watch/flight.h): on with --until or
	 * --until-signal */
	struct hcb_trigger until[TRACE_MAX_UNTIL];
	unsigned int n_until;
	uint64_t keep_bytes;           /* --keep-last; 0: every tap is written */
	uint64_t keep_ns;              /* --keep-last DURATION; 0: none */
	uint64_t after;                /* --after */
	int until_signal;              /* --until-signal: SIGUSR1 fires it */
	int until_exit;                /* --until exit: an abnormal end fires it */
	uint64_t rearm;                /* --rearm: recordings at most; 0: one, not re-armed */
	int stop_at_trigger;           /* --on-trigger stop: SIGSTOP the target */
	int own_cmd;                   /* -- CMD: every process traced is CMD or
					* one it started */
	struct hcb_ident_flags ident;  /* --process-index, --process-count, --job */
	int shared_stdout;             /* attach -p A -p B: every session prints to stdout */
};

void trace_opts_init(struct trace_opts *o);
/* Handle one of TRACE_OPTS or -f.  Returns 0, 1 if c is not one of them, or
 * an exit code > 1 after printing the usage error. */
int trace_opt(const struct cli_cmd *cmd, struct trace_opts *o, int c, const char *arg);

struct trace;

/* Open the output (o->output, else standard output) and load BPF, before
 * anything is started or attached.  Returns an exit code. */
int trace_new(struct trace **out, const struct trace_opts *o);
/* The same, with the records going to rx (named name in messages)
 * instead: the viewer's model. */
int trace_new_into(struct trace **out, const struct trace_opts *o, struct hcb_receiver rx,
		   const char *name);
/* The process to be attached is followed (record --follow), and has
 * exec'd program times since it was first: its recording is named
 * NAME.program.jsonl, not to replace the one of its program before. */
void trace_set_followed(struct trace *t, unsigned int program);
/* trace_attach of a followed process that has ended, or exec'd into a
 * program with no provider's library, since it was seen: nothing said. */
#define TRACE_GONE (-1)
/* Find what pid taps through and attach.  Returns an exit code, or
 * TRACE_GONE. */
int trace_attach(struct trace *t, pid_t pid);
/* The attached process's command line. */
const char *trace_comm(const struct trace *t);
/*
 * Print or record taps until Ctrl-C, -c, -d, or the target is gone
 * (alive() returns 0; NULL means "check /proc"), then detach, drain,
 * write the end, summarize.  Returns an exit code.
 */
int trace_run(struct trace *t, int (*alive)(void *ctx), void *ctx);
/* trace_run in parts, for a caller that polls the capture itself
 * (several sessions in one loop: trace_many.c): the session record, and
 * after the last poll the end, the output closed and the summary, why
 * being why it ended in words and err the poll's -errno or 0.  Each
 * returns what trace_run would: an -errno (begin) or an exit code. */
int trace_begin(struct trace *t);
int trace_finish(struct trace *t, const char *why, int err);
struct hcb_capture *trace_capture(struct trace *t);
/* Why hcb_capture_run() returned, in the words of the summary. */
const char *trace_end_words(enum hcb_run_end end);
void trace_free(struct trace *t);
/* 1 if the session ended because the target exec'd a new program. */
int trace_exec_seen(const struct trace *t);
/* The target ended with wstatus (waitpid's): under --until exit an
 * abnormal end fires the flight recorder (trace_flight_exit).  0 or
 * -errno. */
int trace_ended(struct trace *t, int wstatus);
/* 1 if pid is ready to be attached without a start-up handshake (it maps
 * the library of a provider that attaches on sight). */
int trace_ready_on_map(const struct trace *t, pid_t pid);
/* 1 if the session was asked for device copy times (--cuda). */
int trace_wants_cuda(const struct trace *t);
/* Attach the providers the attached process has taken up since (it loaded
 * libhcbtap after it mapped jaxlib).  Returns an exit code. */
int trace_attach_more(struct trace *t);
/* Say what became of a library pid mapped after the attach
 * (HCB_WARN_LATE_ATTACH; trace_late.c). */
void trace_warn_late(pid_t pid, const struct hcb_warning *w);
/* Say what an attach found that shows less than a user expects (a
 * library whose taps are not read, a provider's notice; trace_late.c). */
void trace_warn_attached(pid_t pid, const struct hcb_target_info *ti);

/* Set by SIGINT/SIGTERM/SIGHUP. */
extern volatile sig_atomic_t trace_exiting;
void trace_install_signals(void);
/* 1 if a flight recorder's trigger (or its signal) fired and ended the
 * session: the recording is what was asked for, whatever CMD does then. */
int trace_triggered(const struct trace *t);
/* 1 if --on-trigger stop stopped the target: it is left stopped (not
 * sent SIGTERM) for the user to inspect and resume. */
int trace_stopped_target(const struct trace *t);

/*
 * Launch argv with libhcbtap's start-up handshake (HCBTRACE_SYNC), attach
 * as soon as its libhcbtap is loaded (or a library a provider attaches on
 * sight is mapped), trace until it exits (or tracing ends: then it gets
 * SIGTERM), and return its exit status (128+N for a signal, 127 if it
 * could not be started), or hcbtrace's exit code > 1 for a failure of its
 * own before it was attached.  For run and record.
 */
int trace_launch(struct trace *t, char **argv);

/* Start argv as trace_launch does, with the handshake's pipes (*ready_fd
 * to read, *go_fd to close or write to), not waiting for anything: 0, or
 * an exit code (127: it could not be run, and was waited for). */
int trace_launch_start(char **argv, int cuda, pid_t *pid, int *ready_fd, int *go_fd);

/* Options of run and record up to CMD (own: the command's own options,
 * returning 1 for one it does not know).  0 and *first = CMD's index; -1
 * after --help; or an exit code. */
int parse_launch_opts(const struct cli_cmd *cmd, int argc, char **argv, struct trace_opts *o,
		      int (*own)(const struct cli_cmd *, struct trace_opts *, int, const char *),
		      int *first);

#endif
