/* SPDX-License-Identifier: MIT */
/* trace_many.c - several live sessions in one loop (trace_many.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/forks.h"
#include "core/clock.h"
#include "process/target.h"
#include "trace_many.h"

struct many_entry {
	struct trace *t;                /* NULL once ended */
	pid_t pid;
	enum trace_many_state state;
	int wstatus, exited;            /* how it ended, as the kernel said (--follow, -p) */
	int gone_rounds;                /* rounds seen gone with no word of how yet */
};

struct trace_many {
	const struct trace_opts *o;
	int follow;
	struct many_entry *at;
	size_t n, cap;
	unsigned int live;
	int code;
	struct trace *spare;            /* loaded ahead (trace_many_ready), attached to nothing */
	struct hcb_forks *ends;         /* -p under --until exit: the kernel says each end */
	/* each session's records to into's receiver for it, else an output */
	trace_many_into_fn into;
	void *into_ctx;
	const char *into_name;
};

int trace_many_new(struct trace_many **out, const struct trace_opts *o, int follow)
{
	struct trace_many *m = calloc(1, sizeof(*m));

	if (!m) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	m->o = o;
	m->follow = follow;
	m->code = EXIT_OK;
	*out = m;
	return EXIT_OK;
}

static struct many_entry *new_entry(struct trace_many *m, pid_t pid)
{
	struct many_entry *grown;

	if (m->n == m->cap) {
		grown = realloc(m->at, (m->cap ? m->cap * 2 : 8) * sizeof(*m->at));
		if (!grown)
			return NULL;
		m->at = grown;
		m->cap = m->cap ? m->cap * 2 : 8;
	}
	m->at[m->n] = (struct many_entry){ .pid = pid, .state = MANY_DONE };
	return &m->at[m->n++];
}

static void note_code(struct trace_many *m, int code)
{
	if (code != EXIT_OK && m->code == EXIT_OK)
		m->code = code;
}

int trace_many_add(struct trace_many *m, pid_t pid)
{
	struct many_entry *e;
	struct trace *t = NULL;
	unsigned int program = 0;
	int code, err;

	/* its sessions before, of the programs it exec'd from */
	for (size_t i = 0; i < m->n; i++)
		program += m->at[i].pid == pid;
	/* ended (MANY_DONE) until it is attached: not tried again */
	e = new_entry(m, pid);
	if (!e) {
		cli_err("out of memory");
		note_code(m, EXIT_FAIL);
		return EXIT_FAIL;
	}
	if (m->live >= TRACE_MANY_MAX) {
		cli_warn("process %d is not traced: %d processes are already", (int)pid,
			 TRACE_MANY_MAX);
		return EXIT_FAIL;
	}
	t = m->spare;
	m->spare = NULL;
	if (!t)
		code = m->into ? trace_new_into(&t, m->o, m->into(m->into_ctx, pid), m->into_name) :
			trace_new(&t, m->o);
	else
		code = EXIT_OK;
	if (code == EXIT_OK) {
		if (m->follow)
			trace_set_followed(t, program);
		code = trace_attach(t, pid);
	}
	if (code != EXIT_OK) {
		trace_free(t);
		/* said (but TRACE_GONE); a followed process's is not the
		 * command's failure, and it is not tried again unless gone */
		if (code == TRACE_GONE)
			m->n--;
		else if (!m->follow)
			note_code(m, code);
		return code;
	}
	e->t = t;
	e->state = MANY_LIVE;
	m->live++;
	err = trace_begin(t);
	if (err) {
		/* the output failed: said, and ended */
		note_code(m, trace_finish(t, "output failed", err));
		trace_free(t);
		e->t = NULL;
		e->state = MANY_DONE;
		m->live--;
	}
	return EXIT_OK;
}

int trace_many_ready(struct trace_many *m)
{
	/* a receiver is a process's: none loaded ahead */
	if (m->into)
		return EXIT_OK;
	return m->spare ? EXIT_OK : trace_new(&m->spare, m->o);
}

enum trace_many_state trace_many_state(const struct trace_many *m, pid_t pid)
{
	for (size_t i = m->n; i-- > 0;) {
		if (m->at[i].pid == pid)
			return m->at[i].state;
	}
	return MANY_NONE;
}

static void end_one(struct trace_many *m, struct many_entry *e, const char *why, int err)
{
	note_code(m, trace_finish(e->t, why, err));
	trace_free(e->t);
	e->t = NULL;
	if (e->state == MANY_LIVE)
		e->state = MANY_DONE;
	m->live--;
}

/* Why the session of e ends now, in words, or NULL if it goes on. */
static const char *ended(struct trace_many *m, struct many_entry *e, int err)
{
	struct hcb_capture *cap = trace_capture(e->t);

	if (err < 0)
		return trace_end_words(HCB_RUN_FAILED);
	switch (hcb_capture_stopped(cap)) {
	case HCB_STOP_COUNT:
		return trace_end_words(HCB_RUN_COUNT);
	case HCB_STOP_EXEC:
		if (!m->follow)
			return trace_end_words(HCB_RUN_EXEC);
		/* followed: attached again once its new program has
		 * something to trace */
		e->state = MANY_EXECD;
		return "target exec'd a new program (followed into it)";
	case HCB_STOP_NONE:
		break;
	}
	if (hcb_target_alive(e->pid)) {
		e->gone_rounds = 0;
		return NULL;
	}
	/* its end's word may be a round behind (the kernel's ring), and a
	 * thread that exec's shows the process ended for a moment (its
	 * leader ends first): gone is a verdict of two rounds or more */
	if (!e->exited && e->gone_rounds++ < (m->follow || m->ends ? 2 : 1))
		return NULL;
	if (e->exited && !trace_exiting && trace_ended(e->t, e->wstatus) < 0)
		return trace_end_words(HCB_RUN_FAILED);
	return trace_end_words(HCB_RUN_TARGET_GONE);
}

unsigned int trace_many_poll(struct trace_many *m)
{
	for (size_t i = 0; i < m->n && !trace_exiting; i++) {
		struct many_entry *e = &m->at[i];
		const char *why;
		int err;

		if (!e->t)
			continue;
		err = hcb_capture_poll(trace_capture(e->t), 0);
		why = ended(m, e, err);
		if (why)
			end_one(m, e, why, err < 0 ? err : 0);
	}
	return m->live;
}

void trace_many_exited(struct trace_many *m, pid_t pid, int wstatus)
{
	for (size_t i = m->n; i-- > 0;) {
		if (m->at[i].pid == pid && m->at[i].t) {
			m->at[i].wstatus = wstatus;
			m->at[i].exited = 1;
			return;
		}
	}
}

void trace_many_wait(struct trace_many *m, int timeout_ms)
{
	struct pollfd fds[64];
	int ring[HCB_CAPTURE_FDS];
	nfds_t n = 0;

	for (size_t i = 0; i < m->n; i++) {
		unsigned int k;

		if (!m->at[i].t)
			continue;
		k = hcb_capture_fds(trace_capture(m->at[i].t), ring, HCB_CAPTURE_FDS);
		/* more than fit: those beyond are polled each round anyway */
		for (unsigned int j = 0; j < k && n < sizeof(fds) / sizeof(fds[0]); j++)
			fds[n++] = (struct pollfd){ .fd = ring[j], .events = POLLIN };
	}
	poll(fds, n, timeout_ms);
}

void trace_many_end_all(struct trace_many *m, const char *why)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->at[i].t)
			end_one(m, &m->at[i], why, 0);
	}
}

int trace_many_code(const struct trace_many *m)
{
	return m->code;
}

void trace_many_free(struct trace_many *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		trace_free(m->at[i].t);
	trace_free(m->spare);
	hcb_forks_free(m->ends);
	free(m->at);
	free(m);
}

int trace_many_name_ok(const char *output)
{
	for (const char *p = output; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 'p' || p[1] == 'r')
			return 1;
		if (p[1] == '%')
			p++;
	}
	return 0;
}

static void no_fork(void *ctx, pid_t pid, pid_t ppid)
{
	(void)ctx;
	(void)pid;
	(void)ppid;
}

static void on_end(void *ctx, pid_t pid, int wstatus)
{
	trace_many_exited(ctx, pid, wstatus);
}

/* -p under --until exit: a process not hcbtrace's child tells its exit
 * status to its parent alone; the kernel's watch (forks.h) says it.
 * Without it (no BTF): a process gone ends its session unfired. */
static void watch_ends(struct trace_many *m, const pid_t *pids, size_t n)
{
	if (!m->o->until_exit || hcb_forks_new(&m->ends, no_fork, m)) {
		m->ends = NULL;
		return;
	}
	hcb_forks_on_exit(m->ends, on_end);
	for (size_t i = 0; i < n; i++)
		hcb_forks_follow(m->ends, pids[i]);
}

int trace_many_start(struct trace_many **out, const struct trace_opts *o, const pid_t *pids,
		     size_t n, trace_many_into_fn into, void *ctx, const char *name)
{
	struct trace_many *m = NULL;
	int code = trace_many_new(&m, o, 0);

	if (code == EXIT_OK) {
		m->into = into;
		m->into_ctx = ctx;
		m->into_name = name;
		watch_ends(m, pids, n);
	}
	for (size_t i = 0; i < n && code == EXIT_OK; i++)
		code = trace_many_add(m, pids[i]);
	if (code != EXIT_OK && m) {
		trace_many_end_all(m, trace_end_words(HCB_RUN_STOPPED));
		trace_many_free(m);
		m = NULL;
	}
	*out = m;
	return code;
}

int trace_many_run(struct trace_many *m)
{
	const char *why = trace_end_words(HCB_RUN_STOPPED);
	uint64_t deadline = 0;
	int code;

	if (m->o->duration > 0)
		deadline = hcb_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(m->o->duration * 1e9);
	while (!trace_exiting) {
		/* each end said before its session is seen gone */
		if (m->ends)
			hcb_forks_poll(m->ends);
		if (!trace_many_poll(m))
			break;
		if (deadline && hcb_clock_ns(CLOCK_MONOTONIC) >= deadline) {
			why = trace_end_words(HCB_RUN_DEADLINE);
			break;
		}
		trace_many_wait(m, TRACE_MANY_ROUND_MS);
	}
	trace_many_end_all(m, why);
	code = trace_many_code(m);
	trace_many_free(m);
	return code;
}

int trace_many_pids(const struct trace_opts *o, const pid_t *pids, size_t n)
{
	struct trace_many *m;
	int code = trace_many_start(&m, o, pids, n, NULL, NULL, NULL);

	return code == EXIT_OK ? trace_many_run(m) : code;
}
