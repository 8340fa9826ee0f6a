/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace barrier PID: wait until every tap PID had issued when the
 * barrier started has been written, and flushed, by every hcbtrace session
 * attached to PID, each of which writes a barrier record there (DESIGN 7).
 * host_callback's barrier_wait, from outside.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "cli.h"
#include "idprint.h"
#include "session.h"
#include "target.h"

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
	char *end;

	switch (c) {
	case 'p':
		return cli_parse_pid(a->cmd, arg, &a->pid) ? EXIT_USAGE : 0;
	case 't':
		errno = 0;
		a->timeout = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->timeout >= 0) || a->timeout > 1e9)
			return cli_usage_err(a->cmd, "invalid timeout '%s': expected seconds, such as 10 or 0.5 (0: no limit)", arg);
		return 0;
	case 'q':
		a->quiet = 1;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a peer still owes on device d: issued packets it has neither
 * written nor recorded as lost. */
static uint64_t missing(const volatile struct hcb_sess_shared *st, uint32_t d, uint64_t issued)
{
	uint64_t through = __atomic_load_n(&st->dev[d].through, __ATOMIC_ACQUIRE);
	uint64_t base = st->dev[d].base;

	if (through < base)
		through = base;
	return issued > through ? issued - through : 0;
}

enum peer_result { PEER_WAITING, PEER_DONE, PEER_FAILED };

static enum peer_result peer_check(struct hcb_sess_peer *p, const uint64_t *issued)
{
	const volatile struct hcb_sess_shared *st = p->st;
	enum hcb_sess_answer a = hcb_sess_answer(p);

	if (a == HCB_SESS_ANSWERED)
		return PEER_DONE;
	if (a == HCB_SESS_GONE) {
		/* it ended: enough if it got everything before it did */
		for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
			if (missing(st, d, issued[d]))
				return PEER_FAILED;
		return PEER_DONE;
	}
	return PEER_WAITING;
}

static void report(const struct hcb_sess_peer *p, enum peer_result r, const uint64_t *issued,
		   const char *platform)
{
	const volatile struct hcb_sess_shared *st = p->st;
	struct hcb_buf dev = HCB_BUF_INIT;
	int ended = st->state == HCB_SESS_ENDED || !hcb_sess_peer_alive(p);

	fprintf(stderr, "  session %d (%s, writing to %s): %s\n", (int)p->session_pid,
		(const char *)st->what, (const char *)st->output,
		r == PEER_DONE ? "done" : ended ? "ended before the barrier was reached" : "not done");
	if (r == PEER_DONE)
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
		miss = missing(st, d, issued[d]);
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

/* Find the target's libhcbtap and read what it has issued.  Exit code. */
static int target_issued(int pid, char *comm, size_t comm_size, uint64_t *issued, char *platform)
{
	struct hcb_wire_registry root;
	char lib[4096];
	uint64_t base, addr;
	int err;

	if (hcb_target_comm(pid, comm, comm_size) || !comm[0])
		snprintf(comm, comm_size, "?");
	err = hcb_target_find_lib(pid, lib, sizeof(lib), &base);
	if (err == -ESRCH) {
		cli_err("no process with pid %d", pid);
		return EXIT_TARGET;
	}
	if (err == -EACCES || err == -EPERM) {
		cli_err("cannot read the memory map of process %d: not enough privilege (run as root)", pid);
		return EXIT_SYSTEM;
	}
	if (err == -ENOENT) {
		char xla[4096], version[64];

		if (hcb_target_find_xla(pid, xla, sizeof(xla), version, sizeof(version)) == 0)
			cli_err("process %d (%s) taps through jaxlib %s's legacy outfeed, which counts "
				"nothing hcbtrace can read: barrier needs libhcbtap; in the program, "
				"host_callback.barrier_wait() waits for its own receiver", pid, comm,
				version);
		else
			cli_err("process %d (%s) has no libhcbtap loaded: it has no taps to wait for",
				pid, comm);
		return EXIT_TARGET;
	}
	if (!err)
		err = hcb_target_read_registry(pid, lib, base, &root, NULL);
	if (!err)
		err = hcb_target_registry_addr(lib, base, &addr);
	if (!err)
		err = hcb_target_read_issued(pid, addr, issued);
	if (err == -EBADMSG) {
		cli_err("process %d (%s): its libhcbtap (%s) is of another version than this hcbtrace; "
			"use the hcbtrace that matches it", pid, comm, lib);
		return EXIT_TARGET;
	}
	if (err) {
		cli_err("cannot read the tap counters of process %d (%s): %s", pid, comm, strerror(-err));
		return err == -ESRCH || err == -EFAULT ? EXIT_TARGET : EXIT_SYSTEM;
	}
	snprintf(platform, 16, "%s", root.platform[0] ? root.platform : "cpu");
	return EXIT_OK;
}

static int run_barrier(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct barrier_args a = { .cmd = cmd, .timeout = 60 };
	static uint64_t issued[HCB_MAX_DEVICES];
	struct sigaction sa = { .sa_handler = on_signal };
	struct hcb_sess_peer *peers;
	enum peer_result *result;
	char comm[256], platform[16];
	uint64_t start, deadline, total = 0;
	size_t n, pending, failed = 0;
	unsigned int devices = 0;
	int code, err;

	code = cli_parse_opts(cmd, argc, argv, barrier_opt, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	if (optind < argc) {
		if (a.pid)
			return cli_usage_err(cmd, "give the pid once, with -p or as the argument");
		if (cli_parse_pid(cmd, argv[optind++], &a.pid))
			return EXIT_USAGE;
	}
	if (optind < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	if (!a.pid)
		return cli_usage_err(cmd, "which process? give its pid: hcbtrace barrier PID");

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the counts first: the barrier is "what was issued when it started" */
	start = now_ns();
	code = target_issued(a.pid, comm, sizeof(comm), issued, platform);
	if (code)
		return code;
	err = hcb_sess_list(a.pid, &peers, &n);
	if (err) {
		cli_err("cannot look for sessions in %s: %s", hcb_sess_dir(), strerror(-err));
		return err == -EACCES || err == -EPERM ? EXIT_SYSTEM : EXIT_FAIL;
	}
	if (!n) {
		cli_err("no hcbtrace session is attached to process %d (%s): nothing to wait for; "
			"start one first, e.g. 'hcbtrace record -p %d -o taps.jsonl'", a.pid, comm, a.pid);
		return EXIT_USAGE;
	}
	result = calloc(n, sizeof(*result));
	if (!result) {
		hcb_sess_peers_free(peers, n);
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++)
		hcb_sess_request(a.pid, &peers[i]);   /* a session ending now is seen below */

	deadline = a.timeout > 0 ? start + (uint64_t)(a.timeout * 1e9) : 0;
	for (pending = n; pending && !interrupted && (!deadline || now_ns() < deadline);) {
		struct timespec nap = { 0, 200000 };

		for (size_t i = 0; i < n; i++) {
			if (result[i] != PEER_WAITING)
				continue;
			result[i] = peer_check(&peers[i], issued);
			if (result[i] != PEER_WAITING)
				pending--;
			if (result[i] == PEER_FAILED)
				failed++;
		}
		if (pending)
			nanosleep(&nap, NULL);
	}
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		total += issued[d];
		devices += issued[d] != 0;
	}
	if (!pending && !failed) {
		if (!a.quiet)
			fprintf(stderr, "hcbtrace: barrier: every tap process %d (%s) had issued "
				"(%llu on %u device%s) is written by its %zu session%s, in %.1f ms\n",
				a.pid, comm, (unsigned long long)total, devices, devices == 1 ? "" : "s",
				n, n == 1 ? "" : "s", (double)(now_ns() - start) / 1e6);
		code = EXIT_OK;
	} else {
		cli_err("barrier %s after %.1f s: %zu of %zu session%s of process %d (%s) did not "
			"deliver every tap issued before it", interrupted ? "interrupted" : failed && !pending ?
			"failed" : "timed out", (double)(now_ns() - start) / 1e9, pending + failed, n,
			n == 1 ? "" : "s", a.pid, comm);
		for (size_t i = 0; i < n; i++)
			report(&peers[i], result[i], issued, platform);
		code = EXIT_FAIL;
	}
	free(result);
	hcb_sess_peers_free(peers, n);
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
