/* SPDX-License-Identifier: MIT */
/*
 * trace_job.h - one trigger, the whole job's lead-up: the flight
 * recorders (src/watch/flight.h) of the processes one `record` traces
 * (-p A -p B, --follow), so that when one fires, by a tap, a process's
 * abnormal end or SIGUSR1, every other writes its ring at once, its
 * trigger record ("job") naming the process that fired.
 */
#ifndef HCB_CLI_TRACE_JOB_H
#define HCB_CLI_TRACE_JOB_H

#include <stdint.h>
#include <sys/types.h>

#include "watch/flight.h"

/* The recorders made from now on are one job's (record of several
 * processes). */
void trace_job_begin(void);
int trace_job_on(void);
/* f, a recorder of the job: in it until it leaves (freed). */
int trace_job_join(struct hcb_flight *f);
void trace_job_leave(struct hcb_flight *f);
/* What takes what f's process's ring still holds, before f writes its
 * ring for another's firing: drain(ctx), 0 or -errno. */
void trace_job_drain_by(struct hcb_flight *f, int (*drain)(void *ctx), void *ctx);
/* f fired, on pid: every other recorder of the job writes its ring, its
 * trigger "job" naming pid and its process index (from f's session
 * record, where it says).  0, or the first -errno of a write. */
int trace_job_fired(struct hcb_flight *f, pid_t pid, uint64_t wall_ns);
/* SIGUSR1: every recorder of the job that has a session writes its ring
 * ("signal").  0, or the first -errno. */
int trace_job_signal(uint64_t wall_ns);
/* Another host's firing (--fleet-dir, trace_fleet.h): every recorder
 * of the job that has a session writes its ring, why its trigger
 * record.  0, or the first -errno. */
int trace_job_fleet(const struct hcb_trigger_info *why);
/* 1 if a recorder of the job has written its last firing: the
 * sessions end. */
int trace_job_done_any(void);
/* 1 once a recorder of the job fired: the job's recordings are what was
 * asked for, whatever CMD's end says. */
int trace_job_fired_any(void);

#endif
