/* SPDX-License-Identifier: MIT */
/*
 * job_input.h - the recordings of one job named on a command line (a
 * directory, or several files: formats/jobset.h), for replay, convert and
 * diff: the messages and exit codes of reading them in.
 */
#ifndef HCB_CLI_JOB_INPUT_H
#define HCB_CLI_JOB_INPUT_H

#include "jobset.h"

/* 1 if the n operands are a job's recordings: several, or a directory. */
int job_input_is_job(const char *const *paths, int n);
/*
 * Each operand (a directory's *.jsonl and *.hcbcap, or a file) into s,
 * identified; the names a directory holds that are no recording are noted
 * on stderr unless quiet.  Returns 0, or fail_code after one message (a
 * name that cannot be read, none found, a file damaged before its first
 * tap, two files of one process).
 */
int job_input_load(struct hcb_jobset *s, const char *const *paths, int n, int quiet, int fail_code);
/* "process 1 (host node07, pid 4242)", or "pid 4242" without an index,
 * or the file's name without a session record: into buf. */
const char *job_member_name(const struct hcb_job_member *m, char *buf, size_t size);

#endif
