/* SPDX-License-Identifier: MIT */
/*
 * whois.h - the session record, and what it says of who the process is
 * (issue 36): its host, its place in a job, the job, read at the attach
 * (process/identity.h); and the devices its taps come from, each with its
 * platform (a CUDA slot taken up late names its own) and, where the
 * runtime numbers them across the job, its global id.
 *
 * The record is written at the session's start, and again, whole, when
 * what it says grows: after a poll that met devices for the first time
 * (one record for all of them); at once, before the tap, for a device the
 * session's platform does not name (a CUDA slot's), so that no record
 * after it names that device wrongly; and before the first tap where the
 * process's jax says then what it did not at the attach (jax.distributed
 * is initialized before any computation: by its first callback it has
 * said all it will).  Every reader keeps the last session record read, so
 * readers that know nothing of this read on as before.
 */
#ifndef HCB_ENGINE_WHOIS_H
#define HCB_ENGINE_WHOIS_H

#include <stdint.h>
#include <sys/types.h>

#include "core/record.h"
#include "process/identity.h"

struct hcb_out;
struct hcb_slot;
struct hcb_slots;

#define HCB_WHOIS_HASH 512u   /* slots of the devices' hash: twice the table */

struct hcb_whois {
	struct hcb_ident_flags flags;
	char flag_job[HCB_JOB_MAX];
	struct hcb_identity id;
	pid_t pid;
	uint64_t start_ns;               /* the session's, in every record of it */
	int begun;                       /* the first record was written */
	int jax_asked;                   /* asked again at the first tap */
	int full_told;                   /* the table filled up, said once */
	int dirty;                       /* grown since the record went out */
	struct hcb_session_device devs[HCB_SESSION_DEVICES];
	uint32_t ndevs;
	uint16_t hash[HCB_WHOIS_HASH];   /* index + 1 into devs, by device */
	uint32_t last;                   /* the last device looked up: known */
	int have_last;
};

/* What the user said: flags (copied; its job too), or NULL. */
void hcb_whois_init(struct hcb_whois *w, const struct hcb_ident_flags *flags);
/* Read who pid is (at the attach).  0, or -ESRCH: gone. */
int hcb_whois_read(struct hcb_whois *w, pid_t pid);
const struct hcb_identity *hcb_whois_identity(const struct hcb_whois *w);
/* The session's first record, out.  Returns the receiver's error. */
int hcb_whois_begin(struct hcb_whois *w, const struct hcb_slots *slots, struct hcb_out *out);
/*
 * A packet of device d came through slot s: a device not seen before goes
 * in the table (and the process's jax is asked once more at the first).
 * Cheap for a device seen: every tap comes here.  Returns the receiver's
 * error.
 */
int hcb_whois_device(struct hcb_whois *w, const struct hcb_slots *slots, const struct hcb_slot *s,
		     uint32_t d, struct hcb_out *out);
/* After a poll, and before the end: the record again if it grew.
 * Returns the receiver's error. */
int hcb_whois_flush(struct hcb_whois *w, const struct hcb_slots *slots, struct hcb_out *out);
/* The platform that names device d (the slot's it came through), else
 * the main slot's. */
const char *hcb_whois_platform(const struct hcb_whois *w, const struct hcb_slots *slots,
			       uint32_t d);

#endif
