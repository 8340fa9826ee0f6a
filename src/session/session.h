/* SPDX-License-Identifier: MIT */
/*
 * session.h - live sessions make themselves known, so that `hcbtrace
 * barrier` can find every session attached to a process, ask each for a
 * barrier, and see how far each got even when one is stuck (docs/ARCHITECTURE.md,
 * "Delivery, accounting and barriers").
 *
 * A session of target T owns two files in the run directory
 * ($HCBTRACE_RUNDIR, else /run/hcbtrace):
 *   T.S.session  shared memory (struct hcb_sess_shared), kept current by
 *                the session S and flock()ed by it for as long as it lives:
 *                a file nobody holds a lock on was left by a killed session
 *   T.S.wake     a FIFO the session polls; a barrier writes a byte to it
 * A barrier raises barrier_req and waits for barrier_done to reach it.
 *
 * The run directory is trusted only as its owner's: it must be this user's
 * or root's and writable by nobody else, or every call refuses it (-EPERM);
 * its files are reached only through it (openat, no symlink followed), and
 * each must be what it should be (a regular file, a FIFO).
 */
#ifndef HCB_SESSION_H
#define HCB_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/wire.h"

#define HCB_SESS_MAGIC 0x53424348u /* "HCBS" */
#define HCB_SESS_VERSION 1u

enum hcb_sess_state { HCB_SESS_RUNNING = 1, HCB_SESS_ENDED = 2 };

/* What one session knows of one device, written by the session only. */
struct hcb_sess_dev {
	uint64_t base;       /* issued when the session attached: every later
			      * packet of the device passes through its probe */
	uint64_t through;    /* every packet with base <= seq < through is
			      * written or recorded as lost */
	uint64_t delivered;  /* taps taken from the ring and decoded */
	uint64_t written;    /* of those, written out (the rest: filtered out) */
	uint64_t dropped;    /* packets recorded as lost */
};

struct hcb_sess_shared {
	uint32_t magic, version;
	int32_t session_pid, target_pid;
	uint64_t start_ns;          /* CLOCK_REALTIME */
	uint64_t state;             /* enum hcb_sess_state */
	uint64_t barrier_req;       /* raised by each barrier (atomic add) */
	uint64_t barrier_done;      /* the last barrier_req the session satisfied */
	uint64_t barrier_ns;        /* CLOCK_MONOTONIC when it did */
	char what[256];             /* the session's command line, for reports */
	char output[256];           /* where it writes */
	/* by device id: a session whose target counts what it issued (those
	 * of libhcbtap, ids 0 to 255) keeps them; zeros in another's, whose
	 * devices may have any id (engine/publish.c) */
	struct hcb_sess_dev dev[HCB_MAX_DEVICES];
	uint64_t barrier_deadline_ns; /* CLOCK_MONOTONIC: the latest time a barrier
				       * asked for waits (raised by each; UINT64_MAX:
				       * for ever); the session gives up a barrier
				       * it has not answered by then */
	uint64_t flight_ring;       /* record --keep-last: the bytes its flight
				     * recorder holds back at most; 0: none.  Such
				     * a session writes its ring on SIGUSR1
				     * (`hcbtrace dump`) */
	uint64_t flight_firings;    /* the firings its flight recorder has written */
};

/* ---- the session's side ---- */

struct hcb_sess;

/* Publish a session of target (pid of this process, what it runs, where it
 * writes), after removing what killed sessions left in the run directory.
 * -errno: the run directory cannot be made or written; -EPERM: it is not
 * to be trusted (not this user's or root's, or others may write to it). */
int hcb_sess_open(struct hcb_sess **out, pid_t target, const char *what, const char *output);
/* The shared status; the session updates it with relaxed atomic stores. */
struct hcb_sess_shared *hcb_sess_status(struct hcb_sess *s);
/* Polls readable when a barrier has been asked for. */
int hcb_sess_wake_fd(struct hcb_sess *s);
/* The highest barrier asked for so far (after emptying the wake FIFO). */
uint64_t hcb_sess_requested(struct hcb_sess *s);
/* Empty the wake FIFO: a wake-up left in it keeps poll() from sleeping. */
void hcb_sess_drain(struct hcb_sess *s);
/* Until when the barriers asked for so far wait (CLOCK_MONOTONIC ns;
 * UINT64_MAX: for ever; 0: none said). */
uint64_t hcb_sess_deadline(struct hcb_sess *s);
/* Barrier req is satisfied: everything it asked for is written and flushed. */
void hcb_sess_done(struct hcb_sess *s, uint64_t req);
/* Mark the session ended (final figures stay readable to whoever has the
 * status mapped), remove its files, release the lock. */
void hcb_sess_close(struct hcb_sess *s);

/* ---- a barrier's side ---- */

struct hcb_sess_peer {
	int fd;                            /* the status file, kept open */
	pid_t session_pid;
	volatile struct hcb_sess_shared *st;
	uint64_t ticket;                   /* the barrier_req this barrier waits for */
};

/*
 * The live sessions of target, ascending by session pid; *peers is
 * malloc'ed (hcb_sess_peers_free).  Files of sessions that no longer run
 * are removed on the way.  0 sessions is not an error; -EPERM: the run
 * directory is not to be trusted (as for hcb_sess_open).
 */
int hcb_sess_list(pid_t target, struct hcb_sess_peer **peers, size_t *n);
/* Ask peer for a barrier, waited for until deadline_ns (CLOCK_MONOTONIC;
 * UINT64_MAX: for ever): raise its barrier_req and wake it. */
int hcb_sess_request(pid_t target, struct hcb_sess_peer *peer, uint64_t deadline_ns);
/* 1 while the peer's session process runs (it holds its lock), else 0. */
int hcb_sess_peer_alive(const struct hcb_sess_peer *peer);

/* Where the peer's last request (hcb_sess_request) stands. */
enum hcb_sess_answer {
	HCB_SESS_WAITING,    /* not answered yet, the session runs */
	HCB_SESS_ANSWERED,   /* it wrote the barrier */
	HCB_SESS_GONE,       /* it ended (or was killed) without answering */
};
enum hcb_sess_answer hcb_sess_answer(const struct hcb_sess_peer *peer);
void hcb_sess_peers_free(struct hcb_sess_peer *peers, size_t n);
/* The live session whose own pid is session_pid (0 or 1 of them), as
 * hcb_sess_list: 0 sessions is not an error. */
int hcb_sess_list_session(pid_t session_pid, struct hcb_sess_peer **peers, size_t *n);

/* The run directory in use. */
const char *hcb_sess_dir(void);

#endif
