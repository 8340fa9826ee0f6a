/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace dump PID: from another terminal, make the flight recorders of
 * the `record --keep-last` sessions tracing PID (or of the session whose
 * own pid is PID) write what their rings hold now, as SIGUSR1 to each
 * would (src/session/session.h publishes who they are and whether they hold a
 * ring), and wait until each has.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "session/session.h"
#include "cli.h"

static const struct cli_opt dump_opts[] = {
	{ 'p', "pid", "PID", "the traced process, or the recording hcbtrace's own pid (or give "
	  "PID as the argument)" },
	{ 't', "timeout", "SECS", "give up waiting for the rings after SECS seconds (default 10)" },
	{ 'q', "quiet", NULL, "no message on success" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

struct dump_args {
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

static int dump_opt(void *ctx, int c, const char *arg)
{
	struct dump_args *a = ctx;

	switch (c) {
	case 'p':
		return cli_parse_pid(a->cmd, arg, &a->pid) ? EXIT_USAGE : 0;
	case 't':
		return cli_parse_seconds(a->cmd, arg, 0, 1e6, &a->timeout) ? EXIT_USAGE : 0;
	case 'q':
		a->quiet = 1;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static int parse_args(const struct cli_cmd *cmd, int argc, char **argv, struct dump_args *a)
{
	int code = cli_parse_opts(cmd, argc, argv, dump_opt, a);

	if (code)
		return code;
	return cli_pid_arg(cmd, argc, argv, &a->pid);
}

/* The sessions tracing pid, else the one that is pid.  An exit code. */
static int find_sessions(int pid, struct hcb_sess_peer **peers, size_t *n)
{
	int err = hcb_sess_list(pid, peers, n);

	if (!err && !*n)
		err = hcb_sess_list_session(pid, peers, n);
	if (err == -EPERM) {
		cli_err("cannot look for sessions in %s: the run directory is not trusted (it must "
			"be root's, or this user's, writable by no one else, and not a symlink)",
			cli_vis(hcb_sess_dir()));
		return EXIT_SYSTEM;
	}
	if (err) {
		cli_err("cannot look for sessions in %s: %s", cli_vis(hcb_sess_dir()),
			strerror(-err));
		return err == -ENOMEM ? EXIT_FAIL : EXIT_SYSTEM;
	}
	if (!*n) {
		cli_err("no hcbtrace session traces process %d, nor is %d one: nothing to dump; "
			"start one first, e.g. 'hcbtrace record --keep-last 64M --until nonfinite "
			"-p %d -o nan.jsonl'", pid, pid, pid);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Ask each session that holds a ring to write it; *asked counts them,
 * before[i] is each one's firings when asked (UINT64_MAX: not asked). */
static void ask(struct hcb_sess_peer *peers, size_t n, uint64_t *before, size_t *asked)
{
	*asked = 0;
	for (size_t i = 0; i < n; i++) {
		volatile struct hcb_sess_shared *st = peers[i].st;

		before[i] = UINT64_MAX;
		if (!__atomic_load_n(&st->flight_ring, __ATOMIC_RELAXED) ||
		    !hcb_sess_peer_alive(&peers[i]))
			continue;
		before[i] = __atomic_load_n(&st->flight_firings, __ATOMIC_ACQUIRE);
		/* such a session handles SIGUSR1: it writes its ring */
		if (kill(peers[i].session_pid, SIGUSR1) == 0)
			(*asked)++;
		else
			before[i] = UINT64_MAX;
	}
}

/* Has session i answered: 1 written, -1 ended without, 0 not yet. */
static int answered(const struct hcb_sess_peer *p, uint64_t before)
{
	if (__atomic_load_n(&p->st->flight_firings, __ATOMIC_ACQUIRE) > before)
		return 1;
	return p->st->state == HCB_SESS_ENDED || !hcb_sess_peer_alive(p) ? -1 : 0;
}

/* Wait for every session asked; say how each did.  An exit code. */
static int wait_and_tell(const struct dump_args *a, struct hcb_sess_peer *peers, size_t n,
			 const uint64_t *before)
{
	uint64_t deadline = hcb_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(a->timeout * 1e9);
	struct timespec tick = { 0, 5000000 };
	int code = EXIT_OK;

	for (size_t i = 0; i < n; i++) {
		const struct hcb_sess_peer *p = &peers[i];
		int r;

		if (before[i] == UINT64_MAX)
			continue;
		while (!(r = answered(p, before[i])) && !interrupted &&
		       hcb_clock_ns(CLOCK_MONOTONIC) < deadline)
			nanosleep(&tick, NULL);
		if (r > 0) {
			if (!a->quiet)
				fprintf(stderr, "hcbtrace: dump: session %d (%s) wrote its ring to %s\n",
					(int)p->session_pid, cli_vis((const char *)p->st->what),
					cli_vis((const char *)p->st->output));
			continue;
		}
		code = EXIT_FAIL;
		if (r < 0)
			cli_err("session %d (%s) ended without writing its ring (a trigger had "
				"fired already, or it was stopping)", (int)p->session_pid,
				cli_vis((const char *)p->st->what));
		else
			cli_err("session %d (%s) did not write its ring %s", (int)p->session_pid,
				cli_vis((const char *)p->st->what), interrupted ? "before the "
				"interrupt" : "in time (-t SECS waits longer)");
	}
	return code;
}

static int run_dump(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct dump_args a = { .cmd = cmd, .timeout = 10 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct hcb_sess_peer *peers = NULL;
	uint64_t *before;
	size_t n = 0, asked;
	int code;

	code = parse_args(cmd, argc, argv, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	code = find_sessions(a.pid, &peers, &n);
	if (code)
		return code;
	before = calloc(n, sizeof(*before));
	if (!before) {
		hcb_sess_peers_free(peers, n);
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	ask(peers, n, before, &asked);
	if (!asked) {
		if (n == 1)
			cli_err("the hcbtrace session of process %d (session %d: %s) holds no ring "
				"to dump: only 'hcbtrace record --keep-last SIZE' keeps one", a.pid,
				(int)peers[0].session_pid, cli_vis((const char *)peers[0].st->what));
		else
			cli_err("none of the %zu hcbtrace sessions of process %d holds a ring to "
				"dump: only 'hcbtrace record --keep-last SIZE' keeps one", n, a.pid);
		code = EXIT_FAIL;
	} else {
		code = wait_and_tell(&a, peers, n, before);
	}
	free(before);
	hcb_sess_peers_free(peers, n);
	return code;
}

const struct cli_cmd cmd_dump = {
	.name = "dump",
	.run = run_dump,
	.summary = "make a running 'record --keep-last' write its ring now",
	.usage = "[-t SECS] PID",
	.description = "Make every 'hcbtrace record --keep-last' session tracing PID (or the "
		       "session whose own pid is PID) write what its flight recorder holds now, "
		       "as SIGUSR1 to it would, and wait until each has. Exit 0 then; 1 if no "
		       "session traces PID, none holds a ring, or one did not write it in time.",
	.opts = dump_opts,
};
