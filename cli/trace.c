/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/clock.h"
#include "engine/capture.h"
#include "engine/capture_loop.h"
#include "process/target.h"
#include "recfile.h"
#include "session/session.h"
#include "text/idprint.h"
#include "identity_opts.h"
#include "output.h"
#include "trace.h"
#include "trace_flight.h"
#include "trace_summary.h"
#include "words.h"

struct trace {
	const struct trace_opts *o;
	struct hcb_capture *cap;
	struct hcb_writer *w;           /* stdout (text or JSONL) or the recording; NULL: out */
	struct cli_output dest;         /* the recording's file, once placed (cli_output) */
	struct hcb_receiver out;        /* where records go: the writer, or the viewer's */
	struct trace_flight *flight;    /* record --until: between the engine and the writer */
	struct hcb_nanwatch *watch;     /* --nonfinite: the same */
	const char *outname;            /* for messages: "standard output", the file, "the viewer" */
	char what[256];                 /* this session's command line, for `list` and barrier */
	unsigned int warnings[HCB_DECODE_PROBLEMS];
	pid_t pid;
	unsigned int program;           /* the process's program after this many execs */
	int followed;                   /* record --follow's: its end or exec is no error */
	int running;                    /* its capture begun (trace_begin, trace_run) */
	int finished;                   /* trace_finish ran: its output is closed */
};

volatile sig_atomic_t trace_exiting;

static void on_signal(int sig)
{
	(void)sig;
	trace_exiting = 1;
}

void trace_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };   /* no SA_RESTART: poll wakes */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed stdout shows up as EPIPE on write, reported as an error */
	signal(SIGPIPE, SIG_IGN);
}

/* ---- the receiver: records to the output, and the flight recorder's
 * window and SIGUSR1 seen to after each; warnings in words ---- */

static int receive_record(void *ctx, const struct hcb_record *rec)
{
	struct trace *t = ctx;
	uint64_t firings = t->flight ? trace_flight_firings(t->flight) : 0;
	int err = t->out.ops->record(t->out.ctx, rec);

	if (t->flight && !err)
		trace_flight_after(t->flight, t->cap, t->pid, firings, rec);
	/* the flight recorder wrote its window: the session ends as it would
	 * on Ctrl-C, and trace_run says why */
	if (t->flight && trace_flight_done(t->flight))
		trace_exiting = 1;
	return err;
}

static int receive_sync(void *ctx)
{
	struct trace *t = ctx;

	return t->out.ops->sync ? t->out.ops->sync(t->out.ctx) : 0;
}

static int receive_flush(void *ctx)
{
	struct trace *t = ctx;
	int err;

	/* after every poll: SIGUSR1 is acted on within one, taps or none */
	if (t->flight) {
		err = trace_flight_poll(t->flight);
		if (err)
			return err;
		/* what `hcbtrace dump` waits for */
		hcb_capture_publish_firings(t->cap, trace_flight_firings(t->flight));
	}
	return t->out.ops->flush ? t->out.ops->flush(t->out.ctx) : 0;
}

static void warn_decode(struct trace *t, const struct hcb_warning *w)
{
	/* a broken stream must not flood the terminal: the summary counts all */
	if (++t->warnings[w->problem] <= 3)
		cli_warn("%s", w->detail ? w->detail : hcb_decode_problem_name(w->problem));
	else if (t->warnings[w->problem] == 4)
		cli_warn("more '%s' problems; the summary counts them",
			 hcb_decode_problem_name(w->problem));
}

static void receive_warning(void *ctx, const struct hcb_warning *w)
{
	struct trace *t = ctx;

	switch (w->kind) {
	case HCB_WARN_DECODE:
		warn_decode(t, w);
		break;
	case HCB_WARN_EXEC_UNWATCHED:
		cli_warn("cannot watch process %d for exec'ing a new program (%s): such an exec "
			 "will show only as the end of its taps", (int)t->pid,
			 w->err == -ENOENT ? "the kernel has no BTF at /sys/kernel/btf/vmlinux" :
			 strerror(-w->err));
		break;
	case HCB_WARN_NO_DEVICE_TIMING:
		cli_warn("--cuda: no device-side copy times (%s); the taps are recorded as usual",
			 w->detail ? w->detail : "");
		break;
	case HCB_WARN_UNPUBLISHED:
		if (w->err == -EPERM)
			cli_warn("cannot publish this session in %s: the run directory is not "
				 "trusted (it must be root's, or this user's, and writable by no one "
				 "else, and not a symlink); 'hcbtrace barrier' and 'hcbtrace list' "
				 "will not see it: set HCBTRACE_RUNDIR to such a directory",
				 cli_vis(hcb_sess_dir()));
		else
			cli_warn("cannot publish this session in %s (%s): 'hcbtrace barrier' and "
				 "'hcbtrace list' will not see it", cli_vis(hcb_sess_dir()),
				 strerror(-w->err));
		break;
	case HCB_WARN_BARRIER_GIVEN_UP:
		cli_warn("gave up a barrier when the last one waiting for it timed out: process %d "
			 "claims taps on device %u that its probe never saw (its issued counts run "
			 "ahead of what it sends); later barriers are served afresh", (int)t->pid,
			 w->device);
		break;
	case HCB_WARN_INFO:
		if (!t->o->quiet)
			cli_note("%s", cli_vis(w->detail ? w->detail : ""));
		break;
	case HCB_WARN_NOTICE:
	case HCB_WARN_UNPLACED:
		cli_warn("%s", cli_vis(w->detail ? w->detail : ""));
		break;
	case HCB_WARN_LATE_ATTACH:
		trace_warn_late(t->pid, w);
		break;
	}
}

static const struct hcb_receiver_ops trace_receiver_ops = {
	.record = receive_record,
	.sync = receive_sync,
	.flush = receive_flush,
};

/* ---- the session ---- */

int trace_new_into(struct trace **out, const struct trace_opts *o, struct hcb_receiver rx,
		   const char *name)
{
	struct hcb_capture_opts co = { .ring_bytes = o->ring_bytes, .max_lag_ns = o->max_lag_ns,
				       .max_taps = o->count, .filter = &o->filter, .output = name,
				       .providers = o->providers, .device_timing = o->cuda,
				       .flight_ring = o->keep_bytes, .without = o->without,
				       .ident = o->ident,
				       /* a stop of the user's own is never undone */
				       .hold_sites = o->own_cmd && !o->stop_at_trigger };
	struct trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	t->o = o;
	t->out = rx;
	t->outname = name;
	if (hcb_target_comm(getpid(), t->what, sizeof(t->what)) || !t->what[0])
		snprintf(t->what, sizeof(t->what), "hcbtrace");
	co.what = t->what;
	co.warn = (struct hcb_warner){ receive_warning, t };
	/* libbpf's own messages go to stderr only when HCBTRACE_DEBUG is set */
	hcb_capture_libbpf_log(getenv("HCBTRACE_DEBUG") ? stderr : NULL);
	err = hcb_capture_new(&t->cap, &co, (struct hcb_receiver){ &trace_receiver_ops, t });
	if (err) {
		free(t);
		return cli_load_err(err, o->ring_bytes);
	}
	*out = t;
	return EXIT_OK;
}

/* Another process of the job fired: what this one's ring holds first,
 * while its session runs (begun, not yet finished). */
static int drain_for_job(void *ctx)
{
	struct trace *t = ctx;

	return t->running && !t->finished ? hcb_capture_poll(t->cap, 0) : 0;
}

/* attach -p A -p B: the session whose record went to stdout last */
static const struct hcb_writer *stdout_last;

int trace_new(struct trace **out, const struct trace_opts *o)
{
	struct trace_flight *f = NULL;
	struct hcb_nanwatch *nw = NULL;
	struct hcb_receiver rx;
	struct hcb_writer *w;
	struct cli_output dest = { 0 };
	const char *name = o->output ? o->output : "standard output";
	int err, code;

	if (o->output) {
		/* written beside it until attached: a failed attach (cli_output)
		 * leaves what the file held */
		err = cli_output_open(&dest, o->output, HCB_FMT_UNKNOWN, &w);
		if (err == -EPROTONOSUPPORT) {
			cli_err("'%s': unknown recording format: name it .jsonl or .hcbcap", o->output);
			return EXIT_USAGE;
		}
		if (err) {
			cli_err("cannot create '%s': %s", o->output, strerror(-err));
			return EXIT_FAIL;
		}
		hcb_writer_set_durable(w);
	} else {
		err = hcb_writer_open_fd(&w, STDOUT_FILENO,
					 o->format == FORMAT_JSONL ? HCB_FMT_JSONL : HCB_FMT_TEXT);
		if (err) {
			cli_err("out of memory");
			return EXIT_FAIL;
		}
		hcb_writer_set_print_opts(w, &o->print.numpy);
		if (o->shared_stdout)
			hcb_writer_share_stream(w, &stdout_last);
	}
	rx = hcb_writer_receiver(w);
	code = print_watch_around(&o->print, &nw, &rx);
	if (code == EXIT_OK)
		code = trace_flight_new(&f, o, &rx) ? (cli_err("out of memory"), EXIT_FAIL) :
		       trace_new_into(out, o, rx, name);
	if (code != EXIT_OK) {
		hcb_nanwatch_free(nw);
		trace_flight_free(f);
		hcb_writer_close(w);
		cli_output_done(&dest);
		return code;
	}
	(*out)->flight = f;
	(*out)->watch = nw;
	(*out)->w = w;
	(*out)->dest = dest;
	if (f) {
		trace_flight_bind(f, &(*out)->w, &(*out)->dest);
		trace_flight_drain_by(f, drain_for_job, *out);
	}
	return EXIT_OK;
}

void trace_set_followed(struct trace *t, unsigned int program)
{
	t->followed = 1;
	t->program = program;
}

/* A followed process's program after its n-th exec: NAME.n.jsonl, as a
 * re-armed flight recorder's firings are named, so as not to replace the
 * recording of the program before. */
static int program_name(struct trace *t)
{
	char name[4096];

	if (!t->program || !t->dest.path)
		return EXIT_OK;
	if (trace_flight_name(name, sizeof(name), t->dest.path, t->program)) {
		cli_err("cannot name the recording '%s': too long", cli_vis(t->dest.path));
		return EXIT_USAGE;
	}
	free(t->dest.path);
	t->dest.path = strdup(name);
	if (!t->dest.path) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int trace_attach(struct trace *t, pid_t pid)
{
	const struct hcb_identity *id;
	const struct hcb_target_info *ti;
	int err;

	t->pid = pid;
	err = hcb_capture_attach(t->cap, pid);
	ti = hcb_capture_target(t->cap);
	/* a followed process that exec'd or ended since it was seen with
	 * a library: found again if it maps one */
	if (t->followed && (err == -ESRCH || err == -ENOENT))
		return TRACE_GONE;
	/* found, and gone before its probes were in place */
	if (err == -ESRCH && ti->provider) {
		cli_err("process %d exited before hcbtrace could attach", (int)pid);
		return EXIT_TARGET;
	}
	if (err)
		return cli_target_err(err, pid, ti);
	id = hcb_capture_identity(t->cap);
	if (id->why[0] && !t->o->quiet)
		cli_warn("process %d: %s", (int)pid, cli_vis(id->why));
	/* a name with patterns is this process's now */
	err = cli_output_name_said(&t->dest, t->o->output, pid, id);
	if (err)
		return err;
	err = program_name(t);
	if (err)
		return err;
	if (t->dest.pattern && t->flight)
		trace_flight_named(t->flight, t->dest.path);
	/* the session has started: its recording takes the old one's place */
	err = cli_output_place(&t->dest);
	if (err) {
		cli_err("cannot put the recording in place as '%s': %s", t->dest.path, strerror(-err));
		return EXIT_FAIL;
	}
	if (!t->o->quiet)
		trace_warn_attached(pid, ti);
	return EXIT_OK;
}

const char *trace_comm(const struct trace *t)
{
	return hcb_capture_target(t->cap)->comm;
}

int trace_ready_on_map(const struct trace *t, pid_t pid)
{
	unsigned int only = hcb_provider_mask(HCB_PROV_ON_MAP);
	struct hcb_target_info ti;

	if (t->o->providers)
		only &= t->o->providers;
	return only && hcb_provider_find(pid, only, &ti) == 0;
}

int trace_wants_cuda(const struct trace *t)
{
	return t->o->cuda;
}

int trace_attach_more(struct trace *t)
{
	int n = hcb_capture_attach_more(t->cap);

	return n < 0 ? cli_target_err(n, t->pid, hcb_capture_target(t->cap)) : EXIT_OK;
}

static int proc_alive(void *ctx)
{
	return hcb_target_alive(*(pid_t *)ctx);
}

const char *trace_end_words(enum hcb_run_end end)
{
	switch (end) {
	case HCB_RUN_FAILED:
		return "failed";
	case HCB_RUN_COUNT:
		return "count reached";
	case HCB_RUN_EXEC:
		return "target exec'd a new program (attach again to trace it)";
	case HCB_RUN_DEADLINE:
		return "duration reached";
	case HCB_RUN_TARGET_GONE:
		return "target exited";
	case HCB_RUN_STOPPED:
		break;
	}
	return "interrupted";
}

/* Poll until something ends the session (capture_loop.h); why it ended,
 * in words. */
static const char *run_until_done(struct trace *t, int (*alive)(void *ctx), void *ctx, int *err)
{
	struct hcb_run_opts ro = { .poll_ms = 100, .alive = alive, .ctx = ctx,
				   .stop = &trace_exiting };

	if (t->o->duration > 0)
		ro.deadline_ns = hcb_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(t->o->duration * 1e9);
	return trace_end_words(hcb_capture_run(t->cap, &ro, err));
}

int trace_run(struct trace *t, int (*alive)(void *ctx), void *ctx)
{
	const char *why;
	int err;

	if (!alive) {
		alive = proc_alive;
		ctx = &t->pid;
	}
	err = trace_begin(t);
	why = err ? "output failed" : run_until_done(t, alive, ctx, &err);
	return trace_finish(t, why, err);
}

int trace_begin(struct trace *t)
{
	int err = hcb_capture_begin(t->cap);

	t->running = !err;
	return err;
}

struct hcb_capture *trace_capture(struct trace *t)
{
	return t->cap;
}

int trace_finish(struct trace *t, const char *why, int err)
{
	const struct hcb_target_info *ti;
	const char *refusal = NULL;
	int cerr, werr, code = EXIT_FAIL;
	uint64_t written;

	t->finished = 1;
	/* a job's firing wrote this ring from another session's poll */
	if (t->flight)
		hcb_capture_publish_firings(t->cap, trace_flight_firings(t->flight));
	cerr = hcb_capture_end(t->cap);
	if (!err)
		err = cerr;
	/* the writer's last words (npz's directory, the final fsync) count too */
	werr = hcb_capture_receiver_error(t->cap);
	/* written: what the output holds, not what was handed to it (a disk
	 * that filled up cut the last records back) */
	written = t->w ? hcb_writer_taps(t->w) : t->flight ? 0 : hcb_capture_written(t->cap);
	if (!werr && t->w) {
		werr = hcb_writer_close_taps(t->w, &written);
		t->w = NULL;
	}
	/* re-armed: and the recordings closed before */
	if (t->flight)
		written += trace_flight_written(t->flight);
	if (err == -ENOMEM) {
		cli_err("out of memory");
		why = "failed";
	} else if (werr) {
		cli_err("writing to %s: %s", t->outname, strerror(-werr));
		why = "output failed";
	} else if (err == -EPROTO && (refusal = hcb_capture_refusal(t->cap, &ti))) {
		code = cli_target_refused(ti, refusal);
		why = "refused";
	} else if (err < 0) {
		cli_err("reading the ring buffer: %s", strerror(-err));
		why = "failed";
	} else {
		code = EXIT_OK;
	}
	if (code == EXIT_OK && t->flight)
		why = trace_flight_words(t->flight, why, t->o->quiet);
	/* a refusal is its one line: nothing was read to sum up */
	if (!t->o->quiet && !refusal) {
		trace_warn_unmatched(t->cap, &t->o->filter);
		print_watch_summary(t->watch);
		trace_summary(t->cap, t->pid, why, written);
	}
	return code;
}

int trace_triggered(const struct trace *t)
{
	return t->flight && trace_flight_fired(t->flight);
}

int trace_stopped_target(const struct trace *t)
{
	return t->flight && trace_flight_stopped(t->flight);
}

int trace_ended(struct trace *t, int wstatus)
{
	/* a process that ends after its session did (one that exec'd, say)
	 * is not that session's news: its output is closed */
	if (t->finished)
		return 0;
	/* the taps it made before it ended, still in the ring, first */
	hcb_capture_poll(t->cap, 0);
	return trace_flight_exit(t->flight, t->pid, wstatus);
}

int trace_exec_seen(const struct trace *t)
{
	return hcb_capture_stopped(t->cap) == HCB_STOP_EXEC;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	hcb_capture_free(t->cap);
	trace_flight_free(t->flight);
	hcb_nanwatch_free(t->watch);
	hcb_writer_close(t->w);
	cli_output_done(&t->dest);   /* never placed: the old file stays */
	free(t);
}
