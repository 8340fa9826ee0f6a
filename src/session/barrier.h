/* SPDX-License-Identifier: MIT */
/*
 * barrier.h - a barrier from the asking side: find the sessions attached
 * to a target, ask each for a barrier (session.h), and wait for their
 * answers.  One implementation for `hcbtrace barrier PID` (cli/cmd_barrier.c)
 * and a program's own hcbtap_barrier_wait() (hcbtap/hcbtap.c); the words
 * and exit codes stay with the caller.  libc only (libhcbcore).
 */
#ifndef HCB_BARRIER_H
#define HCB_BARRIER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "session.h"

/* Where one session stands with the barrier. */
enum hcb_barrier_peer {
	HCB_BARRIER_WAITING,     /* not answered yet, it runs */
	HCB_BARRIER_DONE,        /* it wrote the barrier (or ended with every tap counted) */
	HCB_BARRIER_FAILED,      /* it ended owing taps the barrier counts */
};

struct hcb_barrier {
	pid_t target;
	const uint64_t *issued;          /* per device, what the barrier counts; NULL:
					  * a session that ended unanswered is done */
	struct hcb_sess_peer *peers;     /* the sessions found, ascending by pid */
	enum hcb_barrier_peer *result;   /* one per peer */
	size_t n, pending, failed;
};

/*
 * Find target's sessions (hcb_sess_list(): 0 of them is no error; -EPERM:
 * the run directory is not trusted).  issued, if not NULL, must stay valid
 * until hcb_barrier_free().  -ENOMEM, or hcb_sess_list()'s -errno.
 */
int hcb_barrier_open(struct hcb_barrier *b, pid_t target, const uint64_t *issued);
/*
 * Ask every session for the barrier, waited for until deadline_ns
 * (CLOCK_MONOTONIC; UINT64_MAX: for ever), then check their answers every
 * 200 us until none is waiting, the deadline passes, or *stop (if not
 * NULL) is set.  Answers are checked at least once.  0 when none is left
 * waiting (b->failed says how many failed), -ETIMEDOUT or -EINTR when some
 * are (b->pending of them).
 */
int hcb_barrier_wait(struct hcb_barrier *b, uint64_t deadline_ns, const volatile sig_atomic_t *stop);
void hcb_barrier_free(struct hcb_barrier *b);

/* What session st still owes on device d of the issued packets: neither
 * written nor recorded as lost, counted from its attach. */
uint64_t hcb_barrier_missing(const volatile struct hcb_sess_shared *st, uint32_t d, uint64_t issued);

#endif
