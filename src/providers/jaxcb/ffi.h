/* SPDX-License-Identifier: MIT */
/*
 * jaxffi.h - the jaxffi provider's user side: unmodified JAX programs on
 * CPU (jaxlib >= 0.6; before, jaxlegacy.h), whose jax.debug.print,
 * jax.debug.callback, io_callback, pure_callback and buffer_callback calls
 * bpf/jaxffi.bpf.c sees at XLA's FFI handlers.
 *
 *   - where XLA keeps what the probes read (hcb_jaxffi_layout): one layout
 *     for every jaxlib from 0.6 on, found by reading each release's code,
 *     and proven on the running process, not trusted by version: the first
 *     callback call must pass the layout check (the decoder, below) or the
 *     session refuses, in one line, and shows nothing;
 *   - the target: libjax_common.so in the process, its jaxlib version, its
 *     symbols (hcb_jaxffi_find);
 *   - the decoder: ring records (bpf/jaxffi_events.h) back into packets.
 *     Each call site gets a consumer made up from what the calls say: named
 *     after the HLO op ("debug_print.1"), with the kwargs callback: OP and
 *     module: MODULE, one leaf per operand (a tuple if several, as id_print
 *     printed them).  Malformed or incomplete records are counted per device
 *     and reported through ops->warn, never trusted.
 */
#ifndef HCB_JAXFFI_H
#define HCB_JAXFFI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/packet.h"
#include "core/registry.h"
#include "events.h"

/*
 * Where XLA keeps what the probes read.  All of it is XLA's internal C++
 * layout, not the FFI C API, so none of it is taken on trust: the layout
 * check (jaxffi_decode.c) proves it on the first call of every session.
 */
struct hcb_jaxffi_layout {
	const char *thunk_execute;     /* xla::cpu::CustomCallThunk::Execute, mangled */
	const char *handler;           /* the Python callbacks' FFI handler */
	const char *buffer_handler;    /* buffer_callback's */
	uint32_t thunk_arg;            /* Execute's argument that is `this` (1: after
					* the returned AsyncValueRef's slot) */
	uint32_t op_off;               /* Thunk::info_.op_name, a std::string */
	uint32_t module_off;           /* Thunk::info_.module_name */
	/* CustomCallThunk::target_name_: the places it has been, or may be */
	uint32_t target_offs[HCB_JAXFFI_TARGET_PLACES];
	uint32_t params_ccp_off;       /* Thunk::ExecuteParams::custom_call_params */
	uint32_t ccp_device_off;       /* its device_ordinal (int32), after the run id */
	uint32_t ctx_device_off;       /* XLA_FFI_ExecutionContext::device_ordinal (int32) */
	/* the legacy callbacks' (jaxlegacy.h) */
	uint32_t params_coll_off;      /* Thunk::ExecuteParams::collective_params */
	uint32_t coll_device_off;      /* its local_device_ordinal (int64, read low half) */
	uint32_t run_device_off;       /* ExecutableRunOptions::device_ordinal_ (int32) */
	uint32_t legacy_arg_size;      /* sizeof(xla::CpuCallback::Arg) */
};

const struct hcb_jaxffi_layout *hcb_jaxffi_layout(void);
/* What the provider reads, for messages naming what is supported. */
const char *hcb_jaxffi_supported(void);

/* The custom call targets whose handlers the provider probes. */
int hcb_jaxffi_is_callback_target(const char *target);

struct hcb_jaxffi_target {
	char lib[4096];                /* libjax_common.so, as this process can open it */
	char version[64];              /* jaxlib's, "unknown" if unreadable */
	/* file offsets of the probed functions (uprobes); buffer 0: none */
	uint64_t thunk_off, handler_off, buffer_off;
	/* the handler's inner function, which calls the Python callable
	 * ({xla,jax}::XlaFfiPythonCpuCallback, bpf/pycall.bpf.c); 0: not
	 * found, the taps go without the callable and the text */
	uint64_t inner_off;
	/* XLA_FFI_ExecutionContext's device ordinal, as the library's own
	 * XLA_FFI_INTERNAL_DeviceOrdinal_Get reads it (its code proves the
	 * offset); -1 where that code is not the one-load function known */
	int ctx_device_off;
	/* jaxlib 0.4.26 to 0.5.3 (jaxlegacy.h): the callbacks are the legacy
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

/* XLA_FFI_DataType -> enum hcb_dtype; HCB_DT_INVALID for types hcbtrace
 * cannot show (S1 and U1, which JAX has no type for, token). */
unsigned int hcb_jaxffi_dtype(uint32_t xla_dtype);

struct hcb_jaxffi;

int hcb_jaxffi_new(struct hcb_jaxffi **out, const struct hcb_decoder_ops *ops, void *ctx);
/*
 * Call sites named by the user's code (issue 29, jaxffi_names.c): name(ctx,
 * callable, out) reads the site of a call whose Python callable is known
 * (pysite.h's hcb_pysite_lookup): 0 and *out filled, or the site keeps its
 * op's name and ops->notice says why, once for the site.  release(ctx),
 * if set, when x is freed.
 */
struct hcb_pysite;
typedef int (*hcb_jaxffi_namer)(void *ctx, uint64_t callable, struct hcb_pysite *out);
void hcb_jaxffi_set_namer(struct hcb_jaxffi *x, hcb_jaxffi_namer name, void (*release)(void *),
			  void *ctx);
/* That namer over process pid's Python objects, laid out as o says
 * (jaxffi_py.c; o from pyver.h's hcb_pyver_open): 0 or -ENOMEM. */
struct hcb_pyoffsets;
int hcb_jaxffi_name_by_python(struct hcb_jaxffi *x, pid_t pid, const struct hcb_pyoffsets *o);
/* The execution context's device ordinal is read where the library's own
 * code reads it (t->ctx_device_off): calls with no thunk to prove the
 * layout are shown before one does. */
void hcb_jaxffi_device_proven(struct hcb_jaxffi *x);
/* The inner function that calls the Python callable is probed
 * (bpf/pycall.bpf.c): a Python callback's tap is held until its end. */
void hcb_jaxffi_inner_probed(struct hcb_jaxffi *x);
/* The text probe was left off on purpose (--no-text): a print's tap is
 * its operands, with no notice that its text was not seen. */
void hcb_jaxffi_text_off(struct hcb_jaxffi *x);
void hcb_jaxffi_free(struct hcb_jaxffi *x);
/* One ring-buffer record of type HCB_EV_JCALL, HCB_EV_JARG or HCB_EV_JDATA.
 * 0 (malformed records included: they are counted), the packet callback's
 * negative value, -ENOMEM, or -EPROTO from the call that failed the layout
 * check (jaxffi_check.h; ops->refuse was told why) on: nothing more is
 * read. */
int hcb_jaxffi_feed(struct hcb_jaxffi *x, const void *rec, size_t len);
/* Calls whose records are still coming. */
unsigned int hcb_jaxffi_pending(const struct hcb_jaxffi *x);
/* End of input: calls still incomplete are counted as HCB_INCOMPLETE. */
void hcb_jaxffi_finish(struct hcb_jaxffi *x);
/* Per-device figures (first_seq/last_seq: the lowest and highest seq
 * delivered: calls of a device may end out of order); NULL for a device
 * never seen; device HCB_MAX_DEVICES: every device out of range together
 * (and records that name none). */
const struct hcb_stream_stats *hcb_jaxffi_stats(const struct hcb_jaxffi *x, uint32_t device);
/* Time passes (a tick): calls that made no progress for a while are
 * given up, counted (decode_bounds.h).  0. */
int hcb_jaxffi_tick(struct hcb_jaxffi *x, uint64_t now_ns);
/* Its bounds and what passed them, for tests. */
struct hcb_bounds;
const struct hcb_bounds *hcb_jaxffi_bounds(const struct hcb_jaxffi *x);
struct hcb_registry *hcb_jaxffi_registry(struct hcb_jaxffi *x);

#endif
