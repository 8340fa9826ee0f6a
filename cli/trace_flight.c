/* SPDX-License-Identifier: MIT */
/* trace_flight.c - record's flight recorder in a live session (trace_flight.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/clock.h"
#include "engine/capture.h"
#include "process/target.h"
#include "watch/flight.h"
#include "trace_flight.h"
#include "trace_fleet.h"
#include "trace_job.h"

struct trace_flight {
	struct hcb_flight *f;
	const struct trace_opts *o;
	struct hcb_writer **w;       /* the trace's: NULL between re-armed firings */
	struct cli_output *dest;     /* the trace's: where *w goes */
	uint64_t closed_taps;        /* in the recordings closed */
	int by_signal;               /* the last firing was SIGUSR1's */
	char name[PATH_MAX];         /* the recording being written */
	char output[PATH_MAX];       /* -o, its patterns filled in: the firings' names' stem */
	/* --on-trigger stop */
	int stopped;                 /* the target was sent SIGSTOP */
	int probe_armed;             /* the probe checks taps for nonfinite */
	uint32_t probe_seen[256];    /* consumers handed to it, by id % 256 */
	int jax_checked;             /* the jax-callback probe told its devices */
};

static volatile sig_atomic_t flight_signal;

static void on_usr1(int sig)
{
	(void)sig;
	flight_signal = 1;
}

void trace_install_flight_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };   /* poll wakes: no SA_RESTART */

	sigaction(SIGUSR1, &sa, NULL);
}

int trace_flight_name(char *buf, size_t size, const char *path, uint64_t n)
{
	const char *base = strrchr(path, '/');
	const char *dot = strrchr(base ? base + 1 : path, '.');
	size_t stem = dot ? (size_t)(dot - path) : strlen(path);
	int len = snprintf(buf, size, "%.*s.%llu%s", (int)stem, path, (unsigned long long)n,
			   dot ? dot : "");

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* A re-armed firing's recording is whole: close it, put it in place. */
static int close_file(void *ctx)
{
	struct trace_flight *tf = ctx;
	uint64_t taps = 0;
	int err = hcb_writer_close_taps(*tf->w, &taps);

	*tf->w = NULL;
	tf->closed_taps += taps;
	cli_output_done(tf->dest);
	*tf->dest = (struct cli_output){ 0 };
	if (!err && !tf->o->quiet)
		fprintf(stderr, "hcbtrace: %s written: %llu taps, %s\n", cli_vis(tf->name),
			(unsigned long long)taps, tf->by_signal ? "SIGUSR1" : "trigger fired");
	tf->by_signal = 0;
	return err;
}

/* Firing n (1, 2, ...) opens the next recording, in place at once: the
 * session has long started. */
static int open_file(void *ctx, uint64_t n, struct hcb_receiver *inner)
{
	struct trace_flight *tf = ctx;
	int err = trace_flight_name(tf->name, sizeof(tf->name), tf->output, n);

	if (err)
		return err;
	err = cli_output_open(tf->dest, tf->name, HCB_FMT_UNKNOWN, tf->w);
	if (err)
		return err;
	hcb_writer_set_durable(*tf->w);
	err = cli_output_place(tf->dest);
	*inner = hcb_writer_receiver(*tf->w);
	return err;
}

int trace_flight_new(struct trace_flight **out, const struct trace_opts *o,
		     struct hcb_receiver *rx)
{
	struct hcb_flight_opts fo = { .keep_bytes = o->keep_bytes, .keep_ns = o->keep_ns,
				      .after = o->after, .triggers = o->until,
				      .n_triggers = o->n_until, .firings = o->rearm };
	struct trace_flight *tf;
	int err;

	*out = NULL;
	if (!o->n_until && !o->until_signal && !o->until_exit)
		return 0;
	tf = calloc(1, sizeof(*tf));
	if (!tf)
		return -ENOMEM;
	tf->o = o;
	snprintf(tf->name, sizeof(tf->name), "%s", o->output ? o->output : "");
	snprintf(tf->output, sizeof(tf->output), "%s", tf->name);
	fo.files = (struct hcb_flight_files){ open_file, close_file, tf };
	err = hcb_flight_new(&tf->f, &fo, *rx);
	if (err) {
		free(tf);
		return err;
	}
	if (trace_job_on() && trace_job_join(tf->f)) {
		hcb_flight_free(tf->f);
		free(tf);
		return -ENOSPC;
	}
	*rx = hcb_flight_receiver(tf->f);
	*out = tf;
	return 0;
}

void trace_flight_drain_by(struct trace_flight *tf, int (*drain)(void *ctx), void *ctx)
{
	if (trace_job_on())
		trace_job_drain_by(tf->f, drain, ctx);
}

void trace_flight_named(struct trace_flight *tf, const char *path)
{
	snprintf(tf->name, sizeof(tf->name), "%s", path);
	snprintf(tf->output, sizeof(tf->output), "%s", path);
}

void trace_flight_bind(struct trace_flight *tf, struct hcb_writer **w, struct cli_output *dest)
{
	tf->w = w;
	tf->dest = dest;
}

/* --fleet-dir: another host fired, this host's rings are written (the
 * job's: --fleet-dir makes one of even a single process). */
static int fleet_poll(void)
{
	struct hcb_trigger_info why;
	int err;

	if (!trace_fleet_poll(&why))
		return 0;
	err = trace_job_fleet(&why);
	if (trace_job_done_any())
		trace_exiting = 1;
	return err;
}

/* This host's job fired on pid, first (not for the job's or the
 * fleet's sake): the other hosts are told. */
static void tell_fleet(const struct trace_flight *tf, pid_t pid, uint64_t wall_ns)
{
	const struct hcb_session_info *s = hcb_flight_session(tf->f);

	trace_fleet_fired(pid, s && s->process.source[0] ? (int64_t)s->process.index : -1,
			  hcb_flight_condition(tf->f), wall_ns);
}

int trace_flight_poll(struct trace_flight *tf)
{
	int before = tf->by_signal, err = fleet_poll();

	if (err)
		return err;
	if (!flight_signal)
		return 0;
	if (trace_job_on()) {
		/* the job's: every process's ring, whichever polls first */
		tf->by_signal = !hcb_flight_fired(tf->f);
		flight_signal = 0;
		err = trace_job_signal(hcb_clock_ns(CLOCK_REALTIME));
		if (hcb_flight_done(tf->f))
			trace_exiting = 1;
		return err;
	}
	/* set first: a firing with no --after closes its file at once */
	tf->by_signal = 1;
	err = hcb_flight_fire(tf->f, "signal", hcb_clock_ns(CLOCK_REALTIME));
	if (err)
		tf->by_signal = before;
	/* -EAGAIN: no session record yet; the next poll tries again */
	flight_signal = err == -EAGAIN;
	if (err < 0 && err != -EAGAIN)
		return err;
	if (hcb_flight_done(tf->f))
		trace_exiting = 1;
	return 0;
}

int trace_flight_done(const struct trace_flight *tf)
{
	return hcb_flight_done(tf->f);
}

int trace_flight_fired(const struct trace_flight *tf)
{
	return hcb_flight_fired(tf->f);
}

uint64_t trace_flight_firings(const struct trace_flight *tf)
{
	return hcb_flight_firings(tf->f);
}

uint64_t trace_flight_written(const struct trace_flight *tf)
{
	return tf->closed_taps;
}

/* --on-trigger stop: a tap fired a trigger; stop the target now, as
 * close to that tap as user space can, unless the probe already has. */
static void stop_target(struct trace_flight *tf, pid_t pid)
{
	int in_probe = tf->probe_armed && hcb_target_state(pid) == 'T';

	if (kill(pid, SIGSTOP)) {
		cli_warn("--on-trigger stop: cannot stop process %d: %s", (int)pid, strerror(errno));
		return;
	}
	tf->stopped = 1;
	fprintf(stderr, "hcbtrace: process %d stopped at the trigger (SIGSTOP%s): inspect it "
		"(py-spy dump --pid %d, gdb -p %d), resume it with: kill -CONT %d\n", (int)pid,
		in_probe ? " in the probe, at the tap" : " once hcbtrace read the tap", (int)pid,
		(int)pid, (int)pid);
}

/* The devices condition u looks at that the session keeps, into set: 0,
 * or -E2BIG past HCB_DEVSET_MAX (then no probe checks them: stop_target
 * does). */
static int add_checked(const struct trace_flight *tf, const struct hcb_trigger *u,
		       struct hcb_devset *set)
{
	const struct hcb_filter *f = &tf->o->filter;
	int err = 0;

	if (u->device >= 0) {
		if (u->device <= UINT32_MAX && hcb_filter_device(f, (uint32_t)u->device))
			return hcb_devset_add(set, (uint32_t)u->device);
		return 0;
	}
	if (!f->device_filter) {
		set->all = 1;
		return 0;
	}
	for (unsigned int i = 0; i < f->devices.n && !err; i++)
		err = hcb_devset_add(set, f->devices.ids[i]);
	return err;
}

/* --on-trigger stop: a probe that checks every consumer's taps alike (the
 * jax-callback one: every call's small float operands) takes the
 * nonfinite conditions that name no consumer (a named one is
 * stop_target's), on their devices. */
static void jax_checks(struct trace_flight *tf, struct hcb_capture *cap)
{
	struct hcb_devset set = { 0 };
	int err = 0;

	for (unsigned int i = 0; i < tf->o->n_until && !err; i++) {
		const struct hcb_trigger *u = &tf->o->until[i];

		if (u->nonfinite && !u->name[0])
			err = add_checked(tf, u, &set);
	}
	if (!err && hcb_capture_stop_nonfinite(cap, NULL, &set) == 0 && !tf->probe_armed)
		tf->probe_armed = hcb_capture_nfstop_arm(cap, 1) == 0;
}

/* --on-trigger stop: a consumer's first tap hands its later small taps
 * to the probe, to be checked there for the nonfinite conditions that
 * select it, on devices the session keeps; the probe then stops the
 * target at the very tap (else stop_target does, later). */
static void probe_checks(struct trace_flight *tf, struct hcb_capture *cap,
			 const struct hcb_tap *p)
{
	struct hcb_devset set = { 0 };
	uint32_t *seen = &tf->probe_seen[p->consumer->id % 256];
	int err = 0;

	if (!tf->jax_checked) {
		tf->jax_checked = 1;
		jax_checks(tf, cap);
	}
	if (*seen == p->consumer->id)
		return;
	*seen = p->consumer->id;
	for (unsigned int i = 0; i < tf->o->n_until && !err; i++) {
		const struct hcb_trigger *u = &tf->o->until[i];

		if (u->nonfinite && (!u->name[0] || !strcmp(u->name, p->consumer->name)))
			err = add_checked(tf, u, &set);
	}
	/* a tap it cannot check (large, no such float) is stop_target's */
	if (!err && (set.all || set.n) &&
	    hcb_capture_stop_nonfinite(cap, p->consumer, &set) == 0 && !tf->probe_armed)
		tf->probe_armed = hcb_capture_nfstop_arm(cap, 1) == 0;
}

int trace_flight_exit(struct trace_flight *tf, pid_t pid, int wstatus)
{
	struct hcb_trigger_info why = { .wall_ns = hcb_clock_ns(CLOCK_REALTIME),
					.by_process = -1, .exited = 1 };
	int err;

	if (!tf || !tf->o->until_exit || (WIFEXITED(wstatus) && !WEXITSTATUS(wstatus)))
		return 0;
	snprintf(why.condition, sizeof(why.condition), "exit");
	if (WIFSIGNALED(wstatus))
		why.exit_signal = WTERMSIG(wstatus);
	else
		why.exit_status = WEXITSTATUS(wstatus);
	err = hcb_flight_fire_as(tf->f, &why);
	if (err == 0) {
		tell_fleet(tf, pid, why.wall_ns);
		err = trace_job_fired(tf->f, pid, why.wall_ns);
	}
	if (hcb_flight_done(tf->f))
		trace_exiting = 1;
	/* 1: fired already; -EAGAIN: no session record, nothing to write */
	return err == 1 || err == -EAGAIN ? 0 : err;
}

void trace_flight_after(struct trace_flight *tf, struct hcb_capture *cap, pid_t pid,
			uint64_t firings, const struct hcb_record *rec)
{
	/* a tap fired it: the job's other processes write theirs */
	if (hcb_flight_firings(tf->f) > firings && rec->kind == HCB_REC_TAP) {
		tell_fleet(tf, pid, rec->tap.wall_ns);
		trace_job_fired(tf->f, pid, rec->tap.wall_ns);
	}
	if (!tf->o->stop_at_trigger)
		return;
	/* only a tap fires here: a signal's firing comes through flush */
	if (hcb_flight_firings(tf->f) > firings) {
		stop_target(tf, pid);
		/* fired: no more stops in the probe until armed again */
		if (tf->probe_armed)
			tf->probe_armed = hcb_capture_nfstop_arm(cap, 0) != 0;
	} else if (rec->kind == HCB_REC_TAP && !hcb_flight_fired(tf->f)) {
		if (!tf->probe_armed && hcb_flight_firings(tf->f))
			tf->probe_armed = hcb_capture_nfstop_arm(cap, 1) == 0;
		probe_checks(tf, cap, &rec->tap);
	}
}

int trace_flight_stopped(const struct trace_flight *tf)
{
	return tf->stopped;
}

const char *trace_flight_words(struct trace_flight *tf, const char *why, int quiet)
{
	/* the ring's memory bound, as it held (tests/bats/flight.bats checks it) */
	if (tf->o->keep_bytes && !quiet)
		fprintf(stderr, "hcbtrace: flight recorder: held at most %llu bytes (--keep-last "
			"%llu bytes%s)\n", (unsigned long long)hcb_flight_peak(tf->f),
			(unsigned long long)tf->o->keep_bytes, tf->o->keep_ns ? " or the duration" : "");
	if (hcb_flight_done(tf->f))
		return tf->by_signal ? "SIGUSR1: the ring written" : "trigger fired";
	if (hcb_flight_firings(tf->f))
		return why;
	if (tf->o->keep_bytes && !quiet)
		cli_warn("no tap met --until%s before the session ended: nothing was recorded",
			 tf->o->until_signal ? " and no SIGUSR1 came" : "");
	return why;
}

void trace_flight_free(struct trace_flight *tf)
{
	if (!tf)
		return;
	trace_job_leave(tf->f);
	hcb_flight_free(tf->f);
	free(tf);
}
