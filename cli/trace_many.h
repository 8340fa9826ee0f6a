/* SPDX-License-Identifier: MIT */
/*
 * trace_many.h - several live sessions, one a process, in one loop:
 * `record -p A -p B ...` and the processes `record --follow` finds
 * (follow.c).  Each session is a trace of its own (trace.h), with its own
 * BPF object, ring, recording (named by -o's patterns) and summary; the
 * loop waits on every session's ring at once, then polls each without
 * waiting.  A session ends on its own
 * (its process exited or exec'd, its -c count) or all together (-d,
 * Ctrl-C).
 */
#ifndef HCB_CLI_TRACE_MANY_H
#define HCB_CLI_TRACE_MANY_H

#include <sys/types.h>

#include "trace.h"

/* How long a round waits for a ring at most: how often a session looks
 * at what no ring says (its process gone, a late library, -d). */
#define TRACE_MANY_ROUND_MS 10

/* At most this many processes traced at once */
#define TRACE_MANY_MAX 256

struct trace_many;

/* follow: an exec ends a session to be attached again (follow.c), and is
 * said so.  Returns an exit code. */
int trace_many_new(struct trace_many **out, const struct trace_opts *o, int follow);
/* Load a session ahead, so that the next trace_many_add only attaches
 * (loading BPF takes a tenth of a second or more, a process held stopped
 * meanwhile, or tapping unseen); an exit code (said). */
int trace_many_ready(struct trace_many *m);
/* Load (or take the one loaded ahead), attach to pid, begin its session;
 * an exit code (said). */
int trace_many_add(struct trace_many *m, pid_t pid);

enum trace_many_state {
	MANY_NONE,       /* never attached */
	MANY_LIVE,       /* being traced */
	MANY_EXECD,      /* its session ended when it exec'd: attach again */
	MANY_DONE,       /* ended for good (exited, count, failed) */
};
/* What became of pid, by its latest session. */
enum trace_many_state trace_many_state(const struct trace_many *m, pid_t pid);
/* pid ended with wstatus (waitpid's): said to its session's recorder
 * once the session sees it gone (--until exit). */
void trace_many_exited(struct trace_many *m, pid_t pid, int wstatus);
/* Wait up to timeout_ms for any live session's ring (or barrier). */
void trace_many_wait(struct trace_many *m, int timeout_ms);
/* One round: poll each live session, end those done.  How many live. */
unsigned int trace_many_poll(struct trace_many *m);
/* End every live session, each said ended for why. */
void trace_many_end_all(struct trace_many *m, const char *why);
/* EXIT_OK, or the first other exit code a session's attach or end gave. */
int trace_many_code(const struct trace_many *m);
void trace_many_free(struct trace_many *m);

/* 1 if the output name pattern tells processes apart (%p or %r). */
int trace_many_name_ok(const char *output);
/* record -p A -p B ...: attach to each, trace until every one has ended
 * (or -d, Ctrl-C).  Returns an exit code. */
int trace_many_pids(const struct trace_opts *o, const pid_t *pids, size_t n);
/* Each session's records going to the receiver into gives for its
 * process (the viewer's model: trace_new_into, named name), not to an
 * output; into NULL: to each one's output. */
typedef struct hcb_receiver (*trace_many_into_fn)(void *ctx, pid_t pid);
/* trace_many_pids in two: attach to each (an exit code, said; *out NULL
 * then), then trace until every one has ended, the sessions freed (an
 * exit code), as trace_many_pids does. */
int trace_many_start(struct trace_many **out, const struct trace_opts *o, const pid_t *pids,
		     size_t n, trace_many_into_fn into, void *ctx, const char *name);
int trace_many_run(struct trace_many *m);

#endif
