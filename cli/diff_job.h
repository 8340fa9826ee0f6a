/* SPDX-License-Identifier: MIT */
/*
 * diff_job.h - hcbtrace diff of two runs of a job (cmd_diff.c): each a
 * directory (or one file), its processes paired by who they are
 * (formats/jobset.h: process index, or host and index), never by the
 * files' names, each pair compared as two files are.
 */
#ifndef HCB_CLI_DIFF_JOB_H
#define HCB_CLI_DIFF_JOB_H

#include "cli.h"
#include "diff_report.h"

/* Compares run->path[0] with run->path[1], reporting as for two files:
 * 0 same, 1 differ, 2 trouble (cmd_diff.c's). */
typedef int (*diff_pair_fn)(struct diff_run *run);

/* REF run->path[0] and NEW run->path[1] as jobs: each pair through pair,
 * under a line naming its processes; a process of one run only reported.
 * Returns the exit status: 0 every pair the same and every process in
 * both, 1 otherwise, 2 trouble. */
int diff_jobs(const struct cli_cmd *cmd, struct diff_run *run, diff_pair_fn pair);

/*
 * --across-processes: the n operands are one job's recordings (a directory
 * or files); every process is compared with the first (process 0), a
 * device by its position among its process's devices, through pair.  The
 * last line names the first process that diverges and its first step
 * (NEW's seq).  Returns the exit status as diff_jobs().
 */
int diff_across(const struct cli_cmd *cmd, struct diff_run *run, int n, const char *const *paths,
		diff_pair_fn pair);

#endif
