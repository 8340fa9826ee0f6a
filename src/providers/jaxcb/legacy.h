/* SPDX-License-Identifier: MIT */
/*
 * legacy.h - the jax-callback provider on jaxlib 0.4.26 to 0.5.3, whose
 * callbacks are the custom call xla_python_cpu_callback
 * (legacy.bpf.c): finding it in jaxlib's xla_extension.so, and the
 * instructions where XLA's classic CPU runtime runs compiled code for a
 * device.  The records are the FFI path's (events.h, flagged
 * HCB_JAXFFI_F_LEGACY), read by the same decoder (decode.c) and
 * proven by the same check (check.c).
 */
#ifndef HCB_JAXLEGACY_H
#define HCB_JAXLEGACY_H

#include <stdint.h>
#include <sys/types.h>

#include "ffi.h"

/* At most this many run sites are probed (two in every release known). */
#define HCB_JAXLEGACY_RUN_SITES 4u

/* 1 for jaxlib's xla_extension.so (a path from /proc/PID/maps). */
int hcb_jaxlegacy_is_library(const char *path);

/*
 * Find jaxlib's legacy callbacks in process pid (into t, t->legacy set):
 * xla::XlaPythonCpuCallback, the CustomCallThunk that calls it (0.4.31
 * on), where the custom call parameters and the run options keep the
 * device, and the run sites.  0, or as hcb_jaxffi_find; -ENOEXEC also for
 * a library without XlaPythonCpuCallback (jaxlib 0.6 on keeps a small
 * xla_extension.so beside libjax_common.so).
 */
int hcb_jaxlegacy_find(pid_t pid, struct hcb_jaxffi_target *t);

/*
 * The instructions of path's TfrtCpuExecutable::ExecuteHelper (and the
 * closures it runs asynchronously) that call the compiled code, as file
 * offsets into offs[cap]: found by disassembling them (capstone), where
 * the call passes the run options (%rsi) and &status (%r8), zero in %rdx
 * and %r9.  The number found (0 if none), or -errno.
 */
int hcb_jaxlegacy_run_sites(const char *path, uint64_t *offs, unsigned int cap);

#endif
