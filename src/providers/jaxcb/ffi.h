/* SPDX-License-Identifier: MIT */
/*
 * ffi.h - finding jaxlib's FFI handlers in a target (jaxlib 0.6 on;
 * before, legacy.h): libjax_common.so in the process, its jaxlib version,
 * and the file offsets of what ffi.bpf.c and pycall.bpf.c probe there,
 * found by the library's symbols; where its own code reads the execution
 * context's device ordinal.  Where XLA keeps what those probes read is
 * layout.h's.
 */
#ifndef HCB_JAXCB_FFI_H
#define HCB_JAXCB_FFI_H

#include <stdint.h>
#include <sys/types.h>

struct hcb_jaxffi_target {
	char lib[4096];                /* libjax_common.so, as this process can open it */
	char version[64];              /* jaxlib's, "unknown" if unreadable */
	/* file offsets of the probed functions (uprobes); buffer 0: none */
	uint64_t thunk_off, handler_off, buffer_off;
	/* the handler's inner function, which calls the Python callable
	 * ({xla,jax}::XlaFfiPythonCpuCallback, pycall.bpf.c); 0: not
	 * found, the taps go without the callable and the text */
	uint64_t inner_off;
	/* XLA_FFI_ExecutionContext's device ordinal, as the library's own
	 * XLA_FFI_INTERNAL_DeviceOrdinal_Get reads it (its code proves the
	 * offset); -1 where that code is not the one-load function known */
	int ctx_device_off;
	/* jaxlib 0.4.26 to 0.5.3 (legacy.h): the callbacks are the legacy
	 * custom call's, handler_off XlaPythonCpuCallback, thunk_off 0 before
	 * 0.4.31 (no thunk runtime); the run options' device ordinal as
	 * ExecutableRunOptions::device_ordinal reads it (-1: unknown), and
	 * the run sites, nrun of them (0: none found) */
	int legacy;
	int run_device_off;
	unsigned int nrun;
	uint64_t run_off[4];
};

/*
 * The offset the code at file offset off of path loads the device ordinal
 * from, as XLA_FFI_INTERNAL_DeviceOrdinal_Get does in every jaxlib since
 * 0.5: [endbr64] [push %rbp; mov %rsp,%rbp] mov disp8(%rdi),%eax
 * [pop %rbp] ret.  -1 for any other code (or none readable).
 */
int hcb_jaxffi_code_ordinal(const char *path, uint64_t off);

/* 1 for jaxlib's libjax_common.so (a path from /proc/PID/maps). */
int hcb_jaxffi_is_library(const char *path);
/*
 * Find jaxlib in process pid and what to probe there.  0, or:
 *   -ESRCH    no such process          -ENOENT   no libjax_common.so mapped
 *   -ENODATA  the library has no symbol table (stripped): the functions
 *             probed are local symbols, found in .symtab only
 *   -ENOEXEC  the symbol table lacks the functions (an unusual build)
 *   -EACCES, -EBADMSG and others from reading /proc and the library.
 */
int hcb_jaxffi_find(pid_t pid, struct hcb_jaxffi_target *t);

#endif
