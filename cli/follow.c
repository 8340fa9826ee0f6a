/* SPDX-License-Identifier: MIT */
/* follow.c - CMD and every process it starts, each traced (follow.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/forks.h"
#include "core/clock.h"
#include "process/target.h"
#include "providers/provider.h"
#include "follow.h"
#include "trace_job.h"
#include "trace_many.h"

/* How long a process that maps a library with no handshake may take to
 * stop before it is attached running */
#define FOLLOW_HOLD_MS 1000

/* Every this many scans, the processes known to be none of CMD's are
 * read again (a pid reused, a parent missed by a pid that wrapped) */
#define FOLLOW_RECHECK_SCANS 50

/* A child forked from a traced process runs its parent's program, with
 * its libraries mapped, until it execs (a subprocess: fork, then exec at
 * once): it is attached once it has exec'd, or has not for this long (a
 * forked worker, whose taps before are not seen) */
#define FOLLOW_FORK_GRACE_MS 100

/* A process that has mapped no provider's library for this long is
 * looked at every FOLLOW_SLOW_SCANS scans only (a shell, a launcher
 * waiting for its workers): a library is mapped long before its first
 * tap (jax: at import, before anything is compiled), and libhcbtap's
 * handshake, which waits, has every process looked at now */
#define FOLLOW_EAGER_MS 2000
#define FOLLOW_SLOW_SCANS 5

struct pidset {
	pid_t *at;
	uint64_t *since;   /* CLOCK_MONOTONIC: when each was first seen */
	size_t n, cap;
};

/* Children of traced processes that have not exec'd, since when */
struct young {
	pid_t pid;
	uint64_t seen_ns;
};

struct follow {
	const struct trace_opts *o;
	struct trace_many *m;
	pid_t self, root;
	int root_status, root_reaped;
	int ready_fd, go_fd;         /* libhcbtap's handshake, shared by all */
	unsigned int owed;           /* handshakes read: processes to let go */
	struct pidset known;         /* CMD's processes alive, CMD included */
	struct pidset others;        /* the processes /proc listed that are not */
	unsigned int scans;
	struct hcb_forks *forks;     /* the kernel says each fork; NULL: /proc only */
	struct young *young;
	size_t n_young, cap_young;
};

static int pidset_has(const struct pidset *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->at[i] == pid)
			return 1;
	}
	return 0;
}

static int pidset_add(struct pidset *s, pid_t pid)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	uint64_t *since;
	pid_t *at;

	if (s->n == s->cap) {
		at = realloc(s->at, cap * sizeof(*s->at));
		if (at)
			s->at = at;
		since = at ? realloc(s->since, cap * sizeof(*s->since)) : NULL;
		if (!since)
			return -ENOMEM;
		s->since = since;
		s->cap = cap;
	}
	s->since[s->n] = hcb_clock_ns(CLOCK_MONOTONIC);
	s->at[s->n++] = pid;
	return 0;
}

static void pidset_free(struct pidset *s)
{
	free(s->at);
	free(s->since);
	*s = (struct pidset){ 0 };
}

/* pid was forked from ppid: if ppid is traced, pid waits (FOLLOW_FORK_GRACE_MS) */
static void young_add(struct follow *f, pid_t pid, pid_t ppid)
{
	struct young *grown;

	if (trace_many_state(f->m, ppid) != MANY_LIVE)
		return;
	if (f->n_young == f->cap_young) {
		grown = realloc(f->young, (f->cap_young ? f->cap_young * 2 : 16) * sizeof(*grown));
		if (!grown)
			return;   /* attached at once, as any */
		f->young = grown;
		f->cap_young = f->cap_young ? f->cap_young * 2 : 16;
	}
	f->young[f->n_young++] = (struct young){ pid, hcb_clock_ns(CLOCK_MONOTONIC) };
}

/* pid exec'd, ended, or has waited enough */
static void young_drop(struct follow *f, pid_t pid)
{
	for (size_t i = 0; i < f->n_young; i++) {
		if (f->young[i].pid == pid) {
			f->young[i] = f->young[--f->n_young];
			return;
		}
	}
}

/* 1 if pid is a child of a traced process that may exec still */
static int young_waits(struct follow *f, pid_t pid)
{
	for (size_t i = 0; i < f->n_young; i++) {
		if (f->young[i].pid != pid)
			continue;
		if (hcb_clock_ns(CLOCK_MONOTONIC) - f->young[i].seen_ns <
		    FOLLOW_FORK_GRACE_MS * 1000000ull)
			return 1;
		young_drop(f, pid);
		return 0;
	}
	return 0;
}

/* A process /proc listed, not known to be CMD's or not */
struct listed {
	pid_t pid, ppid;
};

/* Those of fresh[n] whose parent is hcbtrace or CMD's are CMD's, to the
 * fixpoint (a child may be listed before its parent); the rest (pid left
 * nonzero) are not. */
static void take_children(struct follow *f, struct listed *fresh, size_t n)
{
	unsigned int added;

	do {
		added = 0;
		for (size_t i = 0; i < n; i++) {
			if (!fresh[i].pid || !fresh[i].ppid)
				continue;
			if ((fresh[i].ppid == f->self || pidset_has(&f->known, fresh[i].ppid)) &&
			    !pidset_add(&f->known, fresh[i].pid)) {
				young_add(f, fresh[i].pid, fresh[i].ppid);
				fresh[i].pid = 0;
				added++;
			}
		}
	} while (added);
}

/* /proc, for CMD's new processes: each process neither known nor known
 * not to be CMD's has its parent read once. */
static void scan_proc(struct follow *f)
{
	int recheck = f->scans % FOLLOW_RECHECK_SCANS == 0;
	struct pidset others = { 0 };
	struct listed *fresh = NULL, *grown;
	size_t n = 0, cap = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t pid;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pid == f->self || pidset_has(&f->known, pid))
			continue;
		if (!recheck && pidset_has(&f->others, pid)) {
			pidset_add(&others, pid);
			continue;
		}
		if (n == cap) {
			grown = realloc(fresh, (cap ? cap * 2 : 64) * sizeof(*fresh));
			if (!grown)
				break;
			fresh = grown;
			cap = cap ? cap * 2 : 64;
		}
		fresh[n++] = (struct listed){ pid, hcb_target_parent(pid) };
	}
	closedir(d);
	take_children(f, fresh, n);
	/* a process that is not CMD's never becomes one: its parent can
	 * only change to init or a subreaper, hcbtrace being CMD's only */
	for (size_t i = 0; i < n; i++) {
		if (fresh[i].pid && fresh[i].ppid)
			pidset_add(&others, fresh[i].pid);
	}
	pidset_free(&f->others);
	f->others = others;
	free(fresh);
}

/* The processes gone (exited, or a zombie) are known no more. */
static void prune(struct follow *f)
{
	size_t kept = 0;

	for (size_t i = 0; i < f->known.n; i++) {
		if (hcb_target_alive(f->known.at[i])) {
			f->known.since[kept] = f->known.since[i];
			f->known.at[kept++] = f->known.at[i];
			continue;
		}
		young_drop(f, f->known.at[i]);
		if (f->forks)
			hcb_forks_forget(f->forks, f->known.at[i]);
	}
	f->known.n = kept;
}

/* The kernel's word (follow.bpf.c): ppid, a followed process, forked
 * pid; or (ppid 0) pid exec'd. */
static void on_fork(void *ctx, pid_t pid, pid_t ppid)
{
	struct follow *f = ctx;

	if (!ppid) {
		/* a new program: its libraries come now, looked for as a new
		 * process's are */
		young_drop(f, pid);
		for (size_t i = 0; i < f->known.n; i++) {
			if (f->known.at[i] == pid)
				f->known.since[i] = hcb_clock_ns(CLOCK_MONOTONIC);
		}
		return;
	}
	if (!pidset_has(&f->known, pid) && !pidset_add(&f->known, pid))
		young_add(f, pid, ppid);
}

/* The kernel's word: pid, followed, ended with wstatus; whether it was
 * CMD's child or a grandchild whose status only its parent reaps. */
static void on_exit_seen(void *ctx, pid_t pid, int wstatus)
{
	struct follow *f = ctx;

	trace_many_exited(f->m, pid, wstatus);
}

/* CMD's new processes: as the kernel said them, else (no BTF, a fork the
 * ring had no room for) from /proc. */
static void find_new(struct follow *f)
{
	if (f->forks && !hcb_forks_poll(f->forks) && !hcb_forks_lost(f->forks))
		return;
	scan_proc(f);
}

/* Every child that ended: CMD, and the orphans hcbtrace is subreaper of. */
static void reap(struct follow *f)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == f->root) {
			f->root_status = status;
			f->root_reaped = 1;
		}
	}
}

static void take_handshakes(struct follow *f)
{
	char buf[64];
	ssize_t n;

	if (f->ready_fd < 0)
		return;
	while ((n = read(f->ready_fd, buf, sizeof(buf))) > 0)
		f->owed += (unsigned int)n;
	/* every process that could say it is gone */
	if (n == 0) {
		close(f->ready_fd);
		f->ready_fd = -1;
	}
}

/* One byte a process that said it loaded libhcbtap: each reads one and
 * goes on.  They were all attached first, so whichever reads which. */
static void let_go(struct follow *f)
{
	static const char go[64];
	ssize_t n;

	while (f->owed && f->go_fd >= 0) {
		n = write(f->go_fd, go, f->owed < sizeof(go) ? f->owed : sizeof(go));
		if (n <= 0)
			break;
		f->owed -= (unsigned int)n;
	}
}

/* Stop pid while its probes go in (its library has no handshake): 1 if
 * it stopped, to be let go with SIGCONT. */
static int hold(pid_t pid)
{
	struct timespec ms = { 0, 1000000L };

	if (kill(pid, SIGSTOP))
		return 0;
	for (int i = 0; i < FOLLOW_HOLD_MS; i++) {
		char st = hcb_target_state(pid);

		if (st == 'T' || st == 't')
			return 1;
		if (!st || st == 'Z' || st == 'X')
			return 0;
		nanosleep(&ms, NULL);
	}
	/* not seen stopped: it still gets SIGCONT for the SIGSTOP sent */
	return 1;
}

/* Attach every process of CMD's that has something to trace now, and
 * has not been (or has exec'd since). */
static void attach_ready(struct follow *f)
{
	static struct hcb_target_info ti;
	enum trace_many_state st;
	int err, held;

	uint64_t now = hcb_clock_ns(CLOCK_MONOTONIC);
	int all = f->owed || f->scans % FOLLOW_SLOW_SCANS == 0;

	for (size_t i = 0; i < f->known.n && !trace_exiting; i++) {
		pid_t pid = f->known.at[i];

		if (!all && now - f->known.since[i] > FOLLOW_EAGER_MS * 1000000ull)
			continue;

		st = trace_many_state(f->m, pid);
		if ((st != MANY_NONE && st != MANY_EXECD) || young_waits(f, pid))
			continue;
		err = hcb_provider_find(pid, f->o->providers, &ti);
		if (err == -ENOENT || err == -ESRCH)
			continue;
		/* found, or a library that cannot be read: the attach says why */
		held = !err && (ti.provider->flags & HCB_PROV_ON_MAP) && hold(pid);
		trace_many_add(f->m, pid);
		if (held)
			kill(pid, SIGCONT);
		/* the next one's loaded now, not while it waits */
		trace_many_ready(f->m);
	}
}

static void scan(struct follow *f)
{
	f->scans++;
	reap(f);
	take_handshakes(f);
	find_new(f);
	prune(f);
	attach_ready(f);
	let_go(f);
}

/* Trace until CMD and all its processes have ended, or -d, Ctrl-C.
 * 1 if tracing ended first (CMD then gets SIGTERM, as under record --
 * CMD). */
static int follow_loop(struct follow *f)
{
	uint64_t deadline = 0, next_scan = 0, now;
	unsigned int live;

	if (f->o->duration > 0)
		deadline = hcb_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(f->o->duration * 1e9);
	while (!trace_exiting) {
		now = hcb_clock_ns(CLOCK_MONOTONIC);
		if (now >= next_scan) {
			scan(f);
			next_scan = now + FOLLOW_SCAN_MS * 1000000ull;
		}
		/* each end said before its session is seen gone */
		if (f->forks)
			hcb_forks_poll(f->forks);
		live = trace_many_poll(f->m);
		if (f->root_reaped && !f->known.n && !live)
			return 0;
		if (deadline && now >= deadline) {
			trace_many_end_all(f->m, trace_end_words(HCB_RUN_DEADLINE));
			return 1;
		}
		/* taps as they come, the next scan when it is due */
		now = hcb_clock_ns(CLOCK_MONOTONIC);
		trace_many_wait(f->m, next_scan > now ? (int)((next_scan - now) / 1000000) + 1 : 0);
	}
	trace_many_end_all(f->m, trace_end_words(HCB_RUN_STOPPED));
	return 1;
}

/* CMD's end: its exit status, 128+N for a signal */
static int root_exit_code(struct follow *f)
{
	while (!f->root_reaped) {
		if (waitpid(f->root, &f->root_status, 0) == f->root)
			f->root_reaped = 1;
		else if (errno != EINTR)
			return EXIT_FAIL;
	}
	if (WIFEXITED(f->root_status))
		return WEXITSTATUS(f->root_status);
	if (WIFSIGNALED(f->root_status))
		return 128 + WTERMSIG(f->root_status);
	return EXIT_FAIL;
}

int trace_follow(const struct trace_opts *o, char **argv)
{
	struct follow f = { .o = o, .self = getpid(), .ready_fd = -1, .go_fd = -1 };
	int code, ended_first, err;

	/* orphans of CMD's processes come to hcbtrace, and are still CMD's */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	code = trace_many_new(&f.m, o, 1);
	/* loaded before CMD starts, as record -- CMD is: a failure to is
	 * said before anything runs, and the first process is attached in time */
	if (code == EXIT_OK)
		code = trace_many_ready(f.m);
	/* without it, /proc is looked through every scan: the same, dearer */
	if (code == EXIT_OK && (err = hcb_forks_new(&f.forks, on_fork, &f))) {
		f.forks = NULL;
		if (!o->quiet)
			cli_warn("the kernel does not say the processes CMD starts (%s): they are "
				 "looked for in /proc every %d ms", err == -ENOENT ? "it has no BTF "
				 "at /sys/kernel/btf/vmlinux" : strerror(-err), FOLLOW_SCAN_MS);
	} else if (f.forks) {
		hcb_forks_on_exit(f.forks, on_exit_seen);
	}
	if (code == EXIT_OK)
		code = trace_launch_start(argv, o->cuda, &f.root, &f.ready_fd, &f.go_fd);
	if (code == EXIT_OK && pidset_add(&f.known, f.root)) {
		cli_err("out of memory");
		code = EXIT_FAIL;
	}
	if (code == EXIT_OK) {
		fcntl(f.ready_fd, F_SETFL, O_NONBLOCK);
		fcntl(f.go_fd, F_SETFL, O_NONBLOCK);
		ended_first = follow_loop(&f);
		/* as trace_launch: CMD is not left running when tracing ended
		 * first; a process waiting for its handshake goes on */
		if (ended_first && !f.root_reaped)
			kill(f.root, SIGTERM);
		close(f.go_fd);
		f.go_fd = -1;
		code = root_exit_code(&f);
		/* a ring written ended CMD on purpose (as record -- CMD) */
		if (ended_first && trace_job_fired_any())
			code = EXIT_OK;
		if (code == EXIT_OK)
			code = trace_many_code(f.m);
	}
	if (f.go_fd >= 0)
		close(f.go_fd);
	if (f.ready_fd >= 0)
		close(f.ready_fd);
	trace_many_free(f.m);
	hcb_forks_free(f.forks);
	free(f.young);
	pidset_free(&f.known);
	pidset_free(&f.others);
	return code;
}
