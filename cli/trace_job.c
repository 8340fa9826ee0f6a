/* SPDX-License-Identifier: MIT */
/* trace_job.c - one trigger, the whole job's lead-up (trace_job.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace_job.h"

/* At most TRACE_MANY_MAX processes are traced at once; an exec'd one's
 * recorder leaves when its session ends. */
#define JOB_MAX 512

static struct hcb_flight *job[JOB_MAX];
/* what takes what each one's process's ring still holds (trace_job_drain_by) */
static int (*job_drain[JOB_MAX])(void *ctx);
static void *job_ctx[JOB_MAX];
static int draining;           /* a drain's own firing drains no other */
static int job_on;
static int job_fired;          /* a recorder of the job fired */

void trace_job_begin(void)
{
	job_on = 1;
}

int trace_job_on(void)
{
	return job_on;
}

int trace_job_join(struct hcb_flight *f)
{
	for (size_t i = 0; i < JOB_MAX; i++) {
		if (!job[i]) {
			job[i] = f;
			return 0;
		}
	}
	return -ENOSPC;
}

void trace_job_leave(struct hcb_flight *f)
{
	for (size_t i = 0; i < JOB_MAX; i++) {
		if (job[i] == f) {
			job[i] = NULL;
			job_drain[i] = NULL;
		}
	}
}

void trace_job_drain_by(struct hcb_flight *f, int (*drain)(void *ctx), void *ctx)
{
	for (size_t i = 0; i < JOB_MAX; i++) {
		if (job[i] == f) {
			job_drain[i] = drain;
			job_ctx[i] = ctx;
		}
	}
}

/* why to every recorder but f, each after what its process's ring still
 * held (its lead-up up to now, not to where its session last read); one
 * not yet holding a session record has nothing to write (-EAGAIN), one
 * fired already (by its own tap, met in that drain) keeps its own. */
static int fire_all(const struct hcb_flight *f, const struct hcb_trigger_info *why)
{
	int first = 0;

	for (size_t i = 0; i < JOB_MAX; i++) {
		int err;

		if (!job[i] || job[i] == f)
			continue;
		if (job_drain[i] && !draining) {
			draining = 1;
			err = job_drain[i](job_ctx[i]);
			draining = 0;
			if (err < 0 && !first)
				first = err;
		}
		if (!job[i])
			continue;   /* its session ended in the drain */
		err = hcb_flight_fire_as(job[i], why);
		if (err < 0 && err != -EAGAIN && !first)
			first = err;
	}
	return first;
}

int trace_job_fired(struct hcb_flight *f, pid_t pid, uint64_t wall_ns)
{
	const struct hcb_session_info *s = hcb_flight_session(f);
	struct hcb_trigger_info why = { .wall_ns = wall_ns, .by_pid = (uint32_t)pid,
					.by_process = -1 };

	if (!job_on)
		return 0;
	job_fired = 1;
	snprintf(why.condition, sizeof(why.condition), "job");
	if (s && s->process.source[0])
		why.by_process = s->process.index;
	return fire_all(f, &why);
}

int trace_job_signal(uint64_t wall_ns)
{
	struct hcb_trigger_info why = { .wall_ns = wall_ns, .by_process = -1 };

	job_fired = 1;
	snprintf(why.condition, sizeof(why.condition), "signal");
	return fire_all(NULL, &why);
}

int trace_job_fleet(const struct hcb_trigger_info *why)
{
	job_fired = 1;
	return fire_all(NULL, why);
}

int trace_job_done_any(void)
{
	for (size_t i = 0; i < JOB_MAX; i++) {
		if (job[i] && hcb_flight_done(job[i]))
			return 1;
	}
	return 0;
}

int trace_job_fired_any(void)
{
	return job_fired;
}
