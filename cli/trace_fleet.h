/* SPDX-License-Identifier: MIT */
/*
 * trace_fleet.h - record --fleet-dir DIR: one trigger, the whole job's
 * lead-up across hosts (src/watch/fleet.h).  A firing of this host's job
 * (a tap's condition, a process's abnormal end; each firing, re-armed
 * ones too, but not SIGUSR1's, which is this host's own word) publishes
 * a fire file in DIR; at every poll tick (at most every 100 ms) DIR is
 * looked at, and another host's firing writes every ring this hcbtrace
 * holds (trace_job.h), its trigger record "fleet" naming that host, its
 * process's pid and index.  A firing this one caused is never published:
 * no echo.
 */
#ifndef HCB_CLI_TRACE_FLEET_H
#define HCB_CLI_TRACE_FLEET_H

#include <stdint.h>
#include <sys/types.h>

#include "core/record.h"

/* --fleet-dir DIR, checked now (a file made in it and removed); this
 * session starts now: a firing from before it is an earlier run's.  An
 * exit code (said). */
int trace_fleet_open(const char *dir, int quiet);
/* This host's job fired on pid (its index, -1: not known): published
 * (a failure warned once). */
void trace_fleet_fired(pid_t pid, int64_t process, const char *condition, uint64_t wall_ns);
/* Look at DIR if it is time: 1 and *why (condition "fleet") if another
 * host's firing came, else 0. */
int trace_fleet_poll(struct hcb_trigger_info *why);
/* What DIR held that was no firing, said once; the rest freed. */
void trace_fleet_end(void);

#endif
