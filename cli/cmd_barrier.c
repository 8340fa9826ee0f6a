/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace barrier PID: wait until every tap PID had issued when the
 * barrier started has been written, and flushed, by every hcbtrace session
 * attached to PID, each of which writes a barrier record there
 * (docs/ARCHITECTURE.md, "Delivery, accounting and barriers").
 * host_callback's barrier_wait, from outside.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/clock.h"
#include "providers/provider.h"
#include "session/barrier.h"
#include "text/idprint.h"
#include "cli.h"
#include "words.h"

static const struct cli_opt barrier_opts[] = {
	{ 'p', "pid", "PID", "the traced process (or give PID as the argument)" },
	{ 't', "timeout", "SECS", "give up after SECS seconds (default 60; 0: wait for ever)" },
	{ 'q', "quiet", NULL, "no message on success" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

struct barrier_args {
	const struct cli_cmd *cmd;
	int pid;
	double timeout;
	int quiet;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int barrier_opt(void *ctx, int c, const char *arg)
{
	struct barrier_args *a = ctx;

	switch (c) {
	case 'p':
		return cli_parse_pid(a->cmd, arg, &a->pid) ? EXIT_USAGE : 0;
	case 't':
		return cli_parse_seconds(a->cmd, arg, 1, 1e9, &a->timeout) ? EXIT_USAGE : 0;
	case 'q':
		a->quiet = 1;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static uint64_t now_ns(void)
{
	return hcb_clock_ns(CLOCK_MONOTONIC);
}

static void report(const struct hcb_sess_peer *p, enum hcb_barrier_peer r, const uint64_t *issued,
		   const char *platform)
{
	const volatile struct hcb_sess_shared *st = p->st;
	struct hcb_buf dev = HCB_BUF_INIT;
	int ended = st->state == HCB_SESS_ENDED || !hcb_sess_peer_alive(p);

	fprintf(stderr, "  session %d (%s, writing to %s): %s\n", (int)p->session_pid,
		cli_vis((const char *)st->what), cli_vis((const char *)st->output),
		r == HCB_BARRIER_DONE ? "done" : ended ? "ended before the barrier was reached" : "not done");
	if (r == HCB_BARRIER_DONE)
		return;
	fprintf(stderr, "    %-10s %12s %12s %12s %12s\n", "device", "issued", "delivered", "dropped",
		"missing");
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		uint64_t base = st->dev[d].base, want, miss, lost, got;

		if (issued[d] <= base)
			continue;
		/* counted from the session's attach: what was issued before
		 * it was never its to deliver */
		want = issued[d] - base;
		miss = hcb_barrier_missing(st, d, issued[d]);
		lost = st->dev[d].dropped;
		if (lost > want - miss)
			lost = want - miss;
		got = want - miss - lost;
		hcb_buf_reset(&dev);
		hcb_idprint_device(&dev, platform, d);
		fprintf(stderr, "    %-10s %12llu %12llu %12llu %12llu\n", hcb_buf_str(&dev),
			(unsigned long long)want, (unsigned long long)got, (unsigned long long)lost,
			(unsigned long long)miss);
	}
	hcb_buf_free(&dev);
}

/* Find the target's counters and read what it has issued.  Exit code. */
static int target_issued(int pid, struct hcb_target_info *ti, uint64_t *issued)
{
	const struct cli_provider_words *w;
	int err = hcb_provider_find(pid, 0, ti);

	if (err == -ENOENT) {
		cli_err("process %d (%s) has no libhcbtap loaded: it has no taps to wait for", pid,
			ti->comm);
		return EXIT_TARGET;
	}
	if (err && err != -EPROTONOSUPPORT)
		return cli_target_err(err, pid, ti);
	w = cli_provider_words(ti->provider);
	if (!(ti->provider->flags & HCB_PROV_ISSUED)) {
		cli_err("process %d (%s) taps through %s %s's %s, %s", pid, ti->comm, w->library,
			ti->version, w->through, w->no_barrier ? w->no_barrier : "which counts nothing "
			"hcbtrace can read");
		return EXIT_TARGET;
	}
	err = hcb_provider_issued(ti, issued);
	if (err == -EBADMSG || err == -ESRCH)
		return cli_target_err(err, pid, ti);
	if (err) {
		cli_err("cannot read the tap counters of process %d (%s): %s", pid, ti->comm,
			strerror(-err));
		return err == -EFAULT ? EXIT_TARGET : EXIT_SYSTEM;
	}
	return EXIT_OK;
}

/* The outcome in words; the exit code. */
static int tell(const struct hcb_barrier *b, const struct barrier_args *a,
		const struct hcb_target_info *ti, const uint64_t *issued, uint64_t start)
{
	uint64_t total = 0;
	unsigned int devices = 0;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		total += issued[d];
		devices += issued[d] != 0;
	}
	if (!b->pending && !b->failed) {
		if (!a->quiet)
			fprintf(stderr, "hcbtrace: barrier: every tap process %d (%s) had issued "
				"(%llu on %u device%s) is written by its %zu session%s, in %.1f ms\n",
				a->pid, ti->comm, (unsigned long long)total, devices, devices == 1 ? "" : "s",
				b->n, b->n == 1 ? "" : "s", (double)(now_ns() - start) / 1e6);
		return EXIT_OK;
	}
	cli_err("barrier %s after %.1f s: %zu of %zu session%s of process %d (%s) did not "
		"deliver every tap issued before it", interrupted ? "interrupted" :
		b->failed && !b->pending ? "failed" : "timed out", (double)(now_ns() - start) / 1e9,
		b->pending + b->failed, b->n, b->n == 1 ? "" : "s", a->pid, ti->comm);
	for (size_t i = 0; i < b->n; i++)
		report(&b->peers[i], b->result[i], issued, ti->platform);
	return EXIT_FAIL;
}

/* The options and the pid, given with -p or as the operand.  0 or an exit code. */
static int parse_args(const struct cli_cmd *cmd, int argc, char **argv, struct barrier_args *a)
{
	int code = cli_parse_opts(cmd, argc, argv, barrier_opt, a);

	if (code)
		return code;
	return cli_pid_arg(cmd, argc, argv, &a->pid);
}

static int run_barrier(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct barrier_args a = { .cmd = cmd, .timeout = 60 };
	static uint64_t issued[HCB_MAX_DEVICES];
	struct sigaction sa = { .sa_handler = on_signal };
	struct hcb_barrier b;
	struct hcb_target_info ti;
	uint64_t start;
	int code, err;

	code = parse_args(cmd, argc, argv, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the counts first: the barrier is "what was issued when it started" */
	start = now_ns();
	code = target_issued(a.pid, &ti, issued);
	if (code)
		return code;
	err = hcb_barrier_open(&b, a.pid, issued);
	if (err == -EPERM) {
		cli_err("cannot look for sessions in %s: the run directory is not trusted (it must "
			"be root's, or this user's, writable by no one else, and not a symlink); "
			"remove it, or set HCBTRACE_RUNDIR to such a directory", hcb_sess_dir());
		return EXIT_SYSTEM;
	}
	if (err == -ENOMEM) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	if (err) {
		cli_err("cannot look for sessions in %s: %s", hcb_sess_dir(), strerror(-err));
		return err == -EACCES || err == -EPERM ? EXIT_SYSTEM : EXIT_FAIL;
	}
	if (!b.n) {
		hcb_barrier_free(&b);
		cli_err("no hcbtrace session is attached to process %d (%s): nothing to wait for; "
			"start one first, e.g. 'hcbtrace record -p %d -o taps.jsonl'", a.pid, ti.comm, a.pid);
		return EXIT_USAGE;
	}
	hcb_barrier_wait(&b, a.timeout > 0 ? start + (uint64_t)(a.timeout * 1e9) : UINT64_MAX,
			 &interrupted);
	code = tell(&b, &a, &ti, issued, start);
	hcb_barrier_free(&b);
	return code;
}

const struct cli_cmd cmd_barrier = {
	.name = "barrier",
	.run = run_barrier,
	.summary = "wait until every tap a process issued so far has been recorded",
	.usage = "[-t SECS] PID",
	.description = "Wait until every tap PID had issued when the barrier started has been "
		       "written and flushed by every hcbtrace session attached to PID, each of "
		       "which marks the point with a barrier record. Exit 0 then; 1 on timeout, "
		       "with per-device figures of what is missing; 2 if no session is attached.",
	.opts = barrier_opts,
};
