/* SPDX-License-Identifier: MIT */
/*
 * receiver.h - where a live session's output goes.  The capture engine
 * (capture.h) hands a receiver every record it produces, in order (the
 * session record first, then taps, drops and barriers as they happen, the
 * end record last), and asks it to make them durable when a barrier is
 * answered.  A recording writer (formats/recfile.h), the text printer and
 * the viewer's model are receivers.  What the user should hear about goes
 * apart, to a warner (struct hcb_warner): the command line gives warnings
 * their words, whichever receiver writes.
 */
#ifndef HCB_RECEIVER_H
#define HCB_RECEIVER_H

#include <stdint.h>

#include "packet.h"
#include "record.h"

enum hcb_warning_kind {
	HCB_WARN_DECODE,          /* a problem with a device's stream (problem, detail) */
	HCB_WARN_EXEC_UNWATCHED,  /* an exec of the target will not be seen (err) */
	HCB_WARN_UNPUBLISHED,     /* `hcbtrace barrier` and `list` will not see the
				   * session (err: why the run directory failed) */
	HCB_WARN_NO_DEVICE_TIMING, /* device copy times were asked for and never
				    * came (detail: why not) */
	HCB_WARN_BARRIER_GIVEN_UP, /* a barrier could not be answered by the time
				    * every barrier that asked for it had stopped
				    * waiting: the target claimed taps its probe
				    * never saw (device: the first such) */
	HCB_WARN_NOTICE,          /* something told once that loses nothing
				   * (detail: the words) */
	HCB_WARN_LATE_ATTACH,     /* a library mapped after the attach was taken
				   * up (err 0: its probes are in place from now
				   * on) or not (err; detail: what did not check
				   * out, for -ENOEXEC); target: what was found */
	HCB_WARN_INFO,            /* news that is no trouble, told once (detail:
				   * the words) */
	HCB_WARN_UNPLACED,        /* calls the probes could put on no device: of
				   * more devices than a session holds, or of none
				   * known (detail: the words; once a kind) */
};

struct hcb_target_info;

struct hcb_warning {
	enum hcb_warning_kind kind;
	int err;                          /* -errno, where one says why */
	enum hcb_decode_problem problem;  /* HCB_WARN_DECODE */
	uint32_t device;
	uint32_t consumer_id;
	const char *detail;               /* what the decoder saw, or NULL */
	const struct hcb_target_info *target; /* HCB_WARN_LATE_ATTACH */
};

struct hcb_receiver_ops {
	/* One record; a negative -errno stops the session (the record is
	 * not written).  -ENOMEM is not sticky: anything else is. */
	int (*record)(void *ctx, const struct hcb_record *rec);
	/* Optional: everything received so far is durable (on disk). */
	int (*sync)(void *ctx);
	/* Optional: everything received so far is out of the receiver's
	 * hands (in the file, not only in its buffer); after every poll. */
	int (*flush)(void *ctx);
};

struct hcb_receiver {
	const struct hcb_receiver_ops *ops;
	void *ctx;
};

/* Something to tell the user; the session goes on.  warn NULL: nobody
 * is told (the figures and drop records still count it). */
struct hcb_warner {
	void (*warn)(void *ctx, const struct hcb_warning *w);
	void *ctx;
};

#endif
