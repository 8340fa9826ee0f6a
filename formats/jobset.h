/* SPDX-License-Identifier: MIT */
/*
 * jobset.h - the recordings of one job, read as one (issue 36): a directory
 * (not recursive) or a list of files, each file one process, each process
 * known by what its session record says of it, never by the file's name.
 *
 * Who a file's process is: the last session record before its first tap (a
 * live session writes its record again before the first tap once its jax
 * says who the process is: formats/JSONL.md, "Who the process is").  Two
 * files are the same process when both have a process index (host and index
 * equal), or, where neither has one, when host, pid and the session's start
 * are equal.  A file without a session record says nothing: it is no other
 * file's process.
 */
#ifndef HCB_JOBSET_H
#define HCB_JOBSET_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

/* Files of one set, at most: each is open at once while merged. */
#define HCB_JOBSET_MAX 4096u

struct hcb_job_member {
	char *path;
	int has_session;                /* a session record came before the first tap */
	struct hcb_session_info who;    /* that record, its devices left out */
};

struct hcb_jobset {
	struct hcb_job_member *m;      /* ordered by process index, host, pid, start */
	size_t n, cap;
	char **skipped;                /* names in a directory that are no recording */
	size_t nskipped;
	char error[1024];              /* why the last call failed, naming the files */
};

void hcb_jobset_init(struct hcb_jobset *s);
void hcb_jobset_free(struct hcb_jobset *s);

/* The *.jsonl and *.hcbcap regular files in dir, by name; anything else is
 * noted in skipped.  -ENOTDIR, -EACCES, ... (opendir), -ENOENT (no recording
 * in it: error says so), -E2BIG (more than HCB_JOBSET_MAX), -ENOMEM. */
int hcb_jobset_add_dir(struct hcb_jobset *s, const char *dir);
/* One file, whatever its name (the reader decides).  -E2BIG, -ENOMEM. */
int hcb_jobset_add_file(struct hcb_jobset *s, const char *path);

/*
 * Read each file up to its first tap and learn who its process is; order
 * the members.  0; -EBADMSG (a file damaged or no recording before its
 * first tap), -EEXIST (two files are the same process: error names both),
 * -EPROTONOSUPPORT, -ENOENT, ... (a file that cannot be opened), -ENOMEM;
 * error says which file.
 */
int hcb_jobset_identify(struct hcb_jobset *s);

/* 1 if a and b are one process by the rule above, 0 otherwise. */
int hcb_job_same_process(const struct hcb_job_member *a, const struct hcb_job_member *b);
/*
 * Processes of two runs of one job are paired by process index alone where
 * each run has every index once (the host a process ran on may change
 * between runs), else by host and index; a file without an index pairs
 * only when it is the whole of its run and the other run is one file too.
 * hcb_jobset_pair_loose() says which: 1 by index alone.
 * hcb_job_pairs_with(): 1 if a (of one run) and b (of the other) pair.
 */
int hcb_jobset_pair_loose(const struct hcb_jobset *a, const struct hcb_jobset *b);
int hcb_job_pairs_with(const struct hcb_job_member *a, const struct hcb_job_member *b, int loose);

/* Devices of one file, at most (hcb_job_devices). */
#define HCB_JOB_DEVICES_MAX 65536u

/*
 * The distinct devices member i's taps name, ascending, in *ids (*n of
 * them; freed by the caller): a pass over the file that reads no payload.
 * A device's position there is where it stands among its process's
 * devices, as replicas' devices do.  0; -E2BIG (more than
 * HCB_JOB_DEVICES_MAX), the reader's errors (a file cut short is read as
 * far as it goes), -ENOMEM; error says which file.
 */
int hcb_job_devices(struct hcb_jobset *s, size_t i, uint32_t **ids, size_t *n);
/* Where device stands in ids (n, ascending); n if it is not there. */
size_t hcb_job_device_position(const uint32_t *ids, size_t n, uint32_t device);

#endif
