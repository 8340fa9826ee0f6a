/* SPDX-License-Identifier: MIT */
/*
 * capture.h - the capture engine: one live session on one process, from
 * its attach to its end record.  It loads the BPF side (probes.h), lets
 * the provider that recognises the process attach (provider.h), decodes
 * and accounts for every packet (acct.h), serves `hcbtrace barrier`
 * through the session files (session.h), hands every record to a receiver
 * and every warning to a warner (receiver.h).  It decides no words and no exit
 * codes: it returns -errno, and the caller says what that means.
 *
 *   hcb_capture_new()      load (privileges are known before a program starts)
 *   hcb_capture_attach()   find the provider, attach its probes
 *   hcb_capture_begin()    the session record; publish the session
 *   hcb_capture_poll()     until the caller is done (Ctrl-C, -d, the target
 *                          gone) or hcb_capture_stopped() says why it is
 *   hcb_capture_end()      detach, drain, the losses no packet showed, a
 *                          barrier still owed, the end record
 *   hcb_capture_free()
 */
#ifndef HCB_CAPTURE_H
#define HCB_CAPTURE_H

#include <stdint.h>
#include <sys/types.h>

#include "core/filter.h"
#include "core/receiver.h"
#include "process/identity.h"
#include "providers/provider.h"

struct hcb_capture;

struct hcb_capture_opts {
	uint64_t ring_bytes;             /* a power of two, page multiple */
	uint64_t max_lag_ns;             /* how far behind the output may run (lag.h);
					  * 0: as far as the ring holds */
	uint64_t max_taps;               /* stop after this many taps written; 0: no limit */
	const struct hcb_filter *filter; /* NULL: every tap */
	const char *what;                /* this session's command line, for `list` and barrier */
	const char *output;              /* where it writes, likewise */
	int unpublished;                 /* 1: no session files (no barrier, not in `list`) */
	struct hcb_warner warn;          /* what the user should hear; {0}: nobody */
	unsigned int providers;          /* bit i: hcb_providers[i] may attach; 0: every one */
	int device_timing;               /* taps get device copy times where the target
					  * gives them (CUPTI): wait for those; say why not */
	uint64_t flight_ring;            /* published (session.h): a flight recorder
					  * holds this much back; 0: none */
	unsigned int without;            /* HCB_WITHOUT_* (provider.h): probes left off */
	int hold_sites;                  /* hcb_target_info.hold_sites: the processes
					  * attached are hcbtrace's own */
	struct hcb_ident_flags ident;    /* who the process is, as the user says
					  * (process/identity.h): weighed last */
};

/*
 * Load the BPF side.  -EPERM/-EACCES: not enough privilege; -ENOSYS or
 * -EOPNOTSUPP: this kernel runs no BPF; -ENOMEM/-E2BIG: no room for the
 * ring buffer; other -errno: the program did not load.
 */
int hcb_capture_new(struct hcb_capture **out, const struct hcb_capture_opts *o,
		    struct hcb_receiver rx);
/* Providers one session may hold at once (each its own BPF object):
 * libhcbtap, jaxlib's callbacks, and jax's CUDA plugin's callbacks
 * taken up later (provider.h: find_late), and one to spare. */
#define HCB_CAPTURE_SLOTS 4

/*
 * Attach to pid through every provider that recognises it (a program may
 * tap through libhcbtap and JAX's own callbacks at once).
 *   -ESRCH            no such process (or it exited meanwhile)
 *   -ENOENT           no provider's library in it: nothing to attach to
 *   -EPROTONOSUPPORT  a library of a version its provider cannot read
 *   -EACCES/-EPERM    not enough privilege to read or probe it
 *   -ENOSYS           the kernel has no uprobes
 * hcb_capture_target() says what was found, for messages, in every case
 * but -ESRCH and -ENOSYS.
 */
int hcb_capture_attach(struct hcb_capture *c, pid_t pid);
const struct hcb_target_info *hcb_capture_target(const struct hcb_capture *c);
/* After an attach: also attach the providers that recognise the target
 * now and did not before (a program that loaded libhcbtap after it mapped
 * jaxlib).  The number attached, or -errno. */
int hcb_capture_attach_more(struct hcb_capture *c);
/* Who the attached process is (host, place in its job, job), read at the
 * attach; what the session record says.  id->why: what a source said and
 * was not taken, for the user. */
const struct hcb_identity *hcb_capture_identity(const struct hcb_capture *c);
/* The platform that names device d: the one of the provider its taps
 * come through (a CUDA plugin's taken up late: "cuda"). */
const char *hcb_capture_device_platform(const struct hcb_capture *c, uint32_t d);
/* The session record, and the session made known (a warning if it cannot
 * be).  Returns the receiver's error. */
int hcb_capture_begin(struct hcb_capture *c);
/*
 * Wait up to timeout_ms for packets or a barrier request, and take them
 * (a barrier being served shortens the wait).  Returns 0, or the
 * receiver's or the decoding's -errno, which ends the session.
 */
int hcb_capture_poll(struct hcb_capture *c, int timeout_ms);

/* What hcb_capture_poll() waits on (the rings, a barrier's wake-up),
 * into fds[cap]: how many.  A caller that polls several sessions at once
 * waits on all of theirs, then polls each with timeout 0. */
#define HCB_CAPTURE_FDS (HCB_CAPTURE_SLOTS + 1)
unsigned int hcb_capture_fds(const struct hcb_capture *c, int *fds, unsigned int cap);

enum hcb_capture_stop {
	HCB_STOP_NONE,
	HCB_STOP_COUNT,          /* max_taps written */
	HCB_STOP_EXEC,           /* the target exec'd a new program */
};
enum hcb_capture_stop hcb_capture_stopped(const struct hcb_capture *c);
/*
 * Detach (the target's probes go), take what was already copied, then
 * the tail: losses no later packet showed, a barrier still owed if it can
 * be answered, and the end record (not after a receiver error).  Returns
 * the first -errno met, the receiver's included.
 */
int hcb_capture_end(struct hcb_capture *c);
/* The receiver's sticky error (the output failed), or 0. */
int hcb_capture_receiver_error(const struct hcb_capture *c);
/* Why a provider refused to read on (poll returned -EPROTO: its layout
 * check failed), and the target it was reading in *ti; NULL if none did. */
const char *hcb_capture_refusal(const struct hcb_capture *c, const struct hcb_target_info **ti);

/* What the session knows of one device. */
struct hcb_capture_dev {
	uint32_t device;        /* its id, as its runtime numbers it */
	uint64_t taps, bytes;   /* decoded */
	uint64_t gaps;          /* seqs missing between the first and the last */
	uint64_t dropped;       /* packets recorded as lost: the sum of its drop records */
	uint64_t bad;           /* malformed or incomplete (decoder problems) */
};
/* Devices one session may know: each slot's probes hand out at most
 * HCB_MAX_DEVICES (bpf/ring.h). */
#define HCB_CAPTURE_DEVICES (HCB_CAPTURE_SLOTS * HCB_MAX_DEVICES)
/* Every device that sent or lost anything, by id ascending (one row an id,
 * whichever providers it came through), at most cap of them: how many. */
size_t hcb_capture_devices(const struct hcb_capture *c, struct hcb_capture_dev *rows, size_t cap);
/* Every device out of range together (what a target claimed for them:
 * refused, counted as bad, never written): 0 and *f, or -ENOENT if none. */
int hcb_capture_stray(const struct hcb_capture *c, struct hcb_capture_dev *f);
/* What the probes lost on no device's counters: calls of no device known
 * (in no drop record), and of devices past the HCB_MAX_DEVICES a slot
 * holds ("too many devices": a drop record each of the first
 * HCB_DEVOVER_IDS such devices, at the end). */
struct hcb_capture_nodev {
	uint64_t unreadable;    /* its device could not be read */
	uint64_t no_memory;     /* no kernel memory for the probe, before its device was read */
	uint64_t unknown;       /* its runtime gave it no device */
	uint64_t over;          /* of devices past the slots */
};
void hcb_capture_nodev(const struct hcb_capture *c, struct hcb_capture_nodev *n);
/* Taps written to the receiver. */
uint64_t hcb_capture_written(const struct hcb_capture *c);
/*
 * --on-trigger stop, --until nonfinite: the probes that check taps
 * themselves (provider.h: stop_nonfinite) check consumer cons's taps (NULL:
 * every consumer's, where a probe checks all alike) on the devices of the
 * set (by id), and stop the target (SIGSTOP) at a NaN or infinity
 * themselves.  0 if a probe took it; -E2BIG: cons's taps are too large or
 * not float; -ENOENT: no probe checks so, or an empty set; -errno from BPF.
 */
struct hcb_consumer;
int hcb_capture_stop_nonfinite(struct hcb_capture *c, const struct hcb_consumer *cons,
			       const struct hcb_devset *devices);
/* Turn the probes' checks on or off, as the flight recorder is armed or
 * has fired.  0 if any probe's are; else -errno. */
int hcb_capture_nfstop_arm(struct hcb_capture *c, int on);
/* The flight recorder has written n firings: published (session.h). */
void hcb_capture_publish_firings(struct hcb_capture *c, uint64_t n);
/* The consumers met through the i-th provider attached, NULL past the last
 * (for --consumer filters that matched nothing). */
const struct hcb_registry *hcb_capture_consumers(const struct hcb_capture *c, unsigned int i);
void hcb_capture_free(struct hcb_capture *c);

#endif
