/* SPDX-License-Identifier: MIT */
/*
 * trace_summary.h - the summary a live session ends with, on stderr: one
 * row a device, what no device took, the totals for process pid; and the
 * --consumer filters that matched nothing.  For one session (trace.c) or
 * each of several (trace_many.c).
 */
#ifndef HCB_CLI_TRACE_SUMMARY_H
#define HCB_CLI_TRACE_SUMMARY_H

#include <stdint.h>
#include <sys/types.h>

#include "core/filter.h"
#include "engine/capture.h"

/* why: the session's end in words; written: the taps the output holds. */
void trace_summary(struct hcb_capture *cap, pid_t pid, const char *why, uint64_t written);
void trace_warn_unmatched(struct hcb_capture *cap, const struct hcb_filter *f);

#endif
