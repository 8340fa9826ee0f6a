/* SPDX-License-Identifier: MIT */
/*
 * forks.h - record --follow's watch: every process a followed process
 * forks, as it forks, and every exec of one (follow.bpf.c, BTF raw
 * tracepoints on sched_process_fork, sched_process_exec and
 * sched_process_exit: how each ended).  The calling process is followed from the start,
 * so what it starts next, and all that starts, is; threads are not
 * processes and are not said.  A fork the ring had no room for is
 * counted (hcb_forks_lost): the caller then looks for itself.
 */
#ifndef HCB_FORKS_H
#define HCB_FORKS_H

#include <sys/types.h>

struct hcb_forks;

/* A followed process ppid forked pid; or (ppid 0) pid exec'd. */
typedef void (*hcb_forks_fn)(void *ctx, pid_t pid, pid_t ppid);

/* A followed process pid ended; wstatus as waitpid(2) says it. */
typedef void (*hcb_forks_exit_fn)(void *ctx, pid_t pid, int wstatus);

/* Load and attach the watch, following this process.  -ENOENT without
 * the kernel's BTF; -EPERM/-EACCES; else the load's or attach's -errno. */
int hcb_forks_new(struct hcb_forks **out, hcb_forks_fn fn, void *ctx);
/* Say each followed process's end to fn (with hcb_forks_poll's). */
void hcb_forks_on_exit(struct hcb_forks *f, hcb_forks_exit_fn fn);
/* Follow pid too (record -p: its end, and what it forks).  0 or -errno. */
int hcb_forks_follow(struct hcb_forks *f, pid_t pid);
/* Readable when forks are waiting to be said. */
int hcb_forks_fd(struct hcb_forks *f);
/* Say every fork waiting.  0 or -errno. */
int hcb_forks_poll(struct hcb_forks *f);
/* pid has ended: followed no more (a process that takes its pid next is
 * not followed for it). */
void hcb_forks_forget(struct hcb_forks *f, pid_t pid);
/* 1 if a fork went unsaid since the last call (the ring was full). */
int hcb_forks_lost(struct hcb_forks *f);
void hcb_forks_free(struct hcb_forks *f);

#endif
