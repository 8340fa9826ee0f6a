/* SPDX-License-Identifier: MIT */
/* playback_job.h - a job's recordings (formats/jobmerge.h) merged by time
 * through filters (and pacing) into one writer: replay DIR, convert DIR. */
#ifndef HCB_CLI_PLAYBACK_JOB_H
#define HCB_CLI_PLAYBACK_JOB_H

#include "jobset.h"
#include "playback.h"

/*
 * As playback() for every file of set at once, in time order: each tap
 * after its process's session record, so that the text output heads each
 * stretch of a process's taps with who it is where the job has several.
 * A damaged file gets its message and the others go on (exit 1 at the
 * end); one cut short a warning.  Returns an exit code; closes w.
 */
int playback_job(const struct hcb_jobset *set, struct hcb_writer *w, const char *wname,
		 const struct playback_opts *o);

#endif
