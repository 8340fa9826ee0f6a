/* SPDX-License-Identifier: MIT */
/*
 * procid.h - who a session's process is, as its records say (record.h:
 * host, process, job, devices; issue 36): the checks every producer and
 * reader applies to them, and a device's name by what its session says.
 */
#ifndef HCB_PROCID_H
#define HCB_PROCID_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* A process id as records carry it: 0 for one that says nothing (no
 * source), 1 for one that holds (a source of 1 to 15 printable ASCII
 * bytes, count 0 or index < count <= HCB_PROCESS_MAX), -EINVAL else. */
int hcb_procid_check(const struct hcb_process_id *p);
/* A job's name: 1 to 63 bytes of printable ASCII but the space.  1 or 0. */
int hcb_job_name_ok(const char *s, size_t n);
/* A host's name as recordings keep it: 1 to 64 bytes of UTF-8, no NUL.
 * 1 or 0. */
int hcb_host_name_ok(const char *s, size_t n);
/* A decimal number as a launcher writes one: digits only, no sign, no
 * leading zero, at most max.  0 and *v, or -EINVAL. */
int hcb_procid_number(const char *s, size_t n, uint32_t max, uint32_t *v);

/* The platform that names device in s: the one s lists for it, else the
 * session's, else "cpu" (formats/JSONL.md, "session"). */
const char *hcb_session_platform(const struct hcb_session_info *s, uint32_t device);
/* 1 where s's process is one of several of a job (its index and a count
 * above 1 known): what headers show, 0 otherwise. */
int hcb_session_in_job(const struct hcb_session_info *s);
/* 1 if a and b say the same of who their process is (host, process,
 * job), 0 otherwise. */
int hcb_session_same_who(const struct hcb_session_info *a, const struct hcb_session_info *b);

#endif
