/* SPDX-License-Identifier: MIT */
/*
 * follow.h - record --follow -- CMD: CMD and every process it starts,
 * through fork and exec, each traced into a recording of its own
 * (trace_many.h) from its first tap.
 *
 * New processes are said by the kernel as they fork (bpf/forks.h); without
 * the kernel's BTF, or after a fork its ring had no room for, they are
 * found in /proc: hcbtrace is CMD's parent and the subreaper of
 * everything CMD starts (PR_SET_CHILD_SUBREAPER), so a process whose
 * parent is hcbtrace, CMD or a process already found is CMD's, even when
 * the parent in between is gone.  Every FOLLOW_SCAN_MS a process is
 * attached if it maps a provider's library (a shell or a launcher costs
 * one read of its maps a scan), held stopped while its probes go in if
 * that library has no handshake (jaxlib), and
 * attached again after an exec.  libhcbtap's handshake (HCBTRACE_SYNC,
 * which every process CMD starts inherits) is answered one byte a process,
 * after every process that said it loaded the library is attached.
 */
#ifndef HCB_CLI_FOLLOW_H
#define HCB_CLI_FOLLOW_H

#include "trace.h"

/* How often CMD's processes are looked at for a library mapped (and
 * /proc for new ones, where the kernel does not say them) */
#define FOLLOW_SCAN_MS 20

/* Run argv and follow it until it and every process it started have
 * ended (or -d, Ctrl-C).  Returns CMD's exit status as trace_launch does,
 * or an exit code > 1 for a failure of hcbtrace's own. */
int trace_follow(const struct trace_opts *o, char **argv);

#endif
