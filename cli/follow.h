/* SPDX-License-Identifier: MIT */
/*
 * follow.h - record --follow -- CMD: CMD and every process it starts,
 * through fork and exec, each traced into a recording of its own
 * (trace_many.h) from its first tap.
 *
 * New processes are found in /proc every FOLLOW_SCAN_MS: hcbtrace is
 * CMD's parent and the subreaper of everything CMD starts
 * (PR_SET_CHILD_SUBREAPER), so a process whose parent is hcbtrace, CMD or
 * a process already found is CMD's, even when the parent in between is
 * gone.  A process is attached only when it maps a provider's library (a
 * shell or a launcher costs one read of its maps a scan), held stopped
 * while its probes go in if that library has no handshake (jaxlib), and
 * attached again after an exec.  libhcbtap's handshake (HCBTRACE_SYNC,
 * which every process CMD starts inherits) is answered one byte a process,
 * after every process that said it loaded the library is attached.
 */
#ifndef HCB_CLI_FOLLOW_H
#define HCB_CLI_FOLLOW_H

#include "trace.h"

/* How often /proc is looked through for CMD's new processes */
#define FOLLOW_SCAN_MS 20

/* Run argv and follow it until it and every process it started have
 * ended (or -d, Ctrl-C).  Returns CMD's exit status as trace_launch does,
 * or an exit code > 1 for a failure of hcbtrace's own. */
int trace_follow(const struct trace_opts *o, char **argv);

#endif
