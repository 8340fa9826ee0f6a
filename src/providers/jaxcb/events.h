/* SPDX-License-Identifier: MIT */
/*
 * events.h - the records the jax-callback provider's BPF side (ffi.bpf.c,
 * legacy.bpf.c, gpu.bpf.c) puts in the ring buffer for its decoder
 * (decode.c), numbered in bpf/ring.h: calls of JAX's Python callbacks in
 * XLA's CPU runtime (jax.debug.print, jax.debug.callback, io_callback,
 * pure_callback, buffer_callback), seen at the FFI handler's entry, or the
 * legacy custom call's before jaxlib 0.6.  Per call, in this order, all from the calling
 * thread:
 *   HCB_EV_JCALL        the call: device, seq, call site, operand count
 *   per operand (tokens left out):
 *     HCB_EV_JARG       its dtype and shape
 *     HCB_EV_JDATA      its bytes in chunks (struct hcb_ev_chunk), offsets
 *                       into the call's payload (all operands back to back)
 * or, fewer records for the same, HCB_EV_JARG_BYTES for a small operand
 * and HCB_EV_JCALL_ARG for a small call (below).
 * Calls of a device may overlap (XLA runs independent callbacks on several
 * threads), so a call's records are found by (device, seq), not by order.
 * A call that does not fit in the ring is not sent at all and counted as a
 * drop of its device in devstats; one cut short (unreadable memory) stops
 * there, and the decoder counts it as incomplete.
 */
#ifndef HCB_JAXFFI_EVENTS_H
#define HCB_JAXFFI_EVENTS_H

#include "bpf/ring.h"
#include "core/wire.h"
#include "pycall_events.h"

/* which handler the probe sits on (its attach cookie) */
enum hcb_jaxffi_handler {
	HCB_JAXFFI_PYTHON = 1,      /* kXlaFfiPythonCpuCallback: all but buffer_callback */
	HCB_JAXFFI_BUFFER = 2,      /* kXlaBufferPythonCpuCallback */
};

/* a cookie bit beside the handler: the probe sits on the Python handler's
 * inner function (pycall.bpf.c), whose RemainingArgs hold the frame's
 * args, not on the handler itself; one trap then serves both programs */
#define HCB_JAXFFI_AT_INNER 4u
/* and another: there, the probe does the callable's entry too
 * (pyentry.bpf.h), which has no program of its own then */
#define HCB_JAXFFI_WITH_ENTRY 8u
#define HCB_JAXFFI_HANDLER_MASK 3u

/* hcb_ev_jcall.flags */
#define HCB_JAXFFI_F_THUNK 1u       /* a CustomCallThunk ran on this thread before the
				     * call: the names and thunk_device come from it */
#define HCB_JAXFFI_F_INDEX 2u       /* the call's "index" attribute was found */
#define HCB_JAXFFI_F_LEGACY 4u      /* a legacy callback (xla_python_cpu_callback,
				     * legacy.bpf.c): desc, layout, pytype and
				     * config below say what its descriptor held */
#define HCB_JAXFFI_F_RUN 8u         /* legacy, no thunk: the device is the one the
				     * executable was run for (XLA's classic
				     * runtime), found by the call's status */
#define HCB_JAXFFI_F_NODEV 16u      /* legacy: no thunk and no run of the call's
				     * status seen: its device is unknown */
#define HCB_JAXFFI_F_GPU 32u        /* a CUDA callback (xla_ffi_python_gpu_callback,
				     * gpu.bpf.c): the operands' bytes are the
				     * handler's own host copies; no thunk, no names */
#define HCB_JAXFFI_F_KNOWN 64u      /* with F_THUNK: the thunk is a call site user
				     * space proved before (struct hcb_jaxffi_site):
				     * its names were not read, index is the one kept */

/* hcb_ev_jcall.layout: what of a legacy callback's descriptor (an
 * xla::CpuCallback, legacy.bpf.c) did not read as one */
#define HCB_JAXLEGACY_BAD_DESC 1u    /* its vectors: not 8-aligned, begin > end,
				      * capacity != size, not whole elements */
#define HCB_JAXLEGACY_BAD_TOKEN 2u   /* a token operand with a dtype, dims or bytes */
#define HCB_JAXLEGACY_BAD_TYPE 4u    /* an operand of no XLA type, or no dtype */
#define HCB_JAXLEGACY_BAD_DIMS 8u    /* dims inline for a rank > 4, or allocated
				      * for one <= 4 */
#define HCB_JAXLEGACY_BAD_STRIDES 16u /* not one byte stride a dim, row-major */
#define HCB_JAXLEGACY_BAD_SIZE 32u   /* its size in bytes is not its elements' */
#define HCB_JAXLEGACY_CONFIG_MAX 24u /* a decimal uint64 and its NUL */

#define HCB_JAXFFI_OP_MAX 64u
#define HCB_JAXFFI_MODULE_MAX 128u
#define HCB_JAXFFI_TARGET_MAX 48u
/* The places in a CustomCallThunk where its target name may be: read at
 * each, the reader keeps the one that holds a callback target's name
 * (check.h: the layout check). */
#define HCB_JAXFFI_TARGET_PLACES 4u
/* Two std::string heads of 32 bytes (libstdc++'s), as u64 words. */
#define HCB_JAXFFI_HEAD_WORDS 8u

struct hcb_ev_jcall {
	HCB_WIRE_U32 type;          /* HCB_EV_JCALL */
	HCB_WIRE_U32 device;        /* its device's slot (bpf/ring.h), as every record
				     * of the call carries it */
	HCB_WIRE_U64 seq;           /* per device, counted by the BPF side */
	HCB_WIRE_U64 ts_ns;         /* CLOCK_MONOTONIC */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U64 index;         /* the "index" attribute: the callback's place in
				     * its executable's list (not unique across them) */
	HCB_WIRE_U64 total_bytes;   /* of the operands that follow */
	HCB_WIRE_U32 nargs;         /* HCB_EV_JARG records that follow */
	HCB_WIRE_U32 handler;       /* enum hcb_jaxffi_handler */
	HCB_WIRE_U32 thunk_device;  /* the device ordinal in the thunk's execute
				     * parameters, the self-check of device_id; ~0
				     * if there was no thunk or it was unreadable */
	HCB_WIRE_U32 flags;         /* HCB_JAXFFI_F_* */
	/* every call (not only a legacy one's): its device's ordinal, as the
	 * execution context (the thunk or the classic run, legacy) says */
	HCB_WIRE_U32 device_id;
	HCB_WIRE_U32 layout;        /* legacy: HCB_JAXLEGACY_BAD_*, 0: it read as one */
	/* HCB_JAXFFI_CALL_HEAD: a call whose site is not read ends here */
	/* the names' lengths in the target; a name longer than its field is cut */
	HCB_WIRE_U32 op_len;
	HCB_WIRE_U32 module_len;
	HCB_WIRE_U32 target_len[HCB_JAXFFI_TARGET_PLACES];
	char op[HCB_JAXFFI_OP_MAX];             /* HLO op: "debug_print.1" */
	char module[HCB_JAXFFI_MODULE_MAX];     /* HLO module: "jit_step" */
	/* custom call target, "xla_ffi_python_cpu_callback", read at each
	 * place it may be (empty where nothing readable was) */
	char target[HCB_JAXFFI_TARGET_PLACES][HCB_JAXFFI_TARGET_MAX];
	/* legacy callbacks only (HCB_JAXFFI_F_LEGACY), zero otherwise: */
	HCB_WIRE_U64 desc;          /* the xla::CpuCallback's address: the call site */
	char pytype[16];            /* the type name of its callable (a Python
				     * "function"), empty if unreadable */
	/* the thunk's backend_config beside each target name's place: jax
	 * writes the descriptor's address there, in decimal */
	char config[HCB_JAXFFI_TARGET_PLACES][HCB_JAXLEGACY_CONFIG_MAX];
	/* FFI calls with a thunk (F_THUNK): the thunk's address, and its op
	 * and module std::strings as read (their heads: pointer, length and
	 * capacity or inline characters), the fingerprint of a known site */
	HCB_WIRE_U64 thunk;
	HCB_WIRE_U64 head[HCB_JAXFFI_HEAD_WORDS];
};

/*
 * A call whose site the probe does not read (no thunk ran before it on its
 * thread: every call once the thunk's probe is off, thunkoff.c) is sent as
 * the record's head alone, these first bytes: its site's fields, some 600
 * bytes more, would be zero, and each byte a call writes to the ring costs
 * it.  The decoder takes such a record as the whole one, zero past it.
 */
#define HCB_JAXFFI_CALL_HEAD 72u
_Static_assert(__builtin_offsetof(struct hcb_ev_jcall, op_len) == HCB_JAXFFI_CALL_HEAD,
	       "a call record's head");

struct hcb_ev_jarg {
	HCB_WIRE_U32 type;          /* HCB_EV_JARG */
	HCB_WIRE_U32 device;
	HCB_WIRE_U64 seq;           /* of its call */
	HCB_WIRE_U32 arg;           /* its place among the call's operands, tokens counted */
	HCB_WIRE_U32 dtype;         /* XLA_FFI_DataType, as the frame says */
	HCB_WIRE_U32 rank;          /* as the frame says: more than HCB_MAX_DIMS and no
				     * dims or bytes are copied */
	HCB_WIRE_U32 nstrides;      /* legacy: the strides its Arg holds (0 for FFI) */
	HCB_WIRE_U64 nbytes;        /* bytes that follow in HCB_EV_JDATA chunks */
	HCB_WIRE_U64 dims[HCB_MAX_DIMS];
	/* legacy: its Arg's byte strides (up to rank of them), which the
	 * layout check proves row-major; zero for FFI calls */
	HCB_WIRE_U64 strides[HCB_MAX_DIMS];
};

/*
 * HCB_EV_JDATA is a struct hcb_ev_chunk (bpf/ring.h) whose consumer_id
 * is the operand's arg, offset and total are in the call's payload, device
 * and seq those of the call.
 *
 * HCB_EV_JARG_BYTES, for an operand of 1 to HCB_JAXFFI_ARG_BYTES_MAX
 * bytes: its struct hcb_ev_jarg (type HCB_EV_JARG_BYTES), then its one
 * HCB_EV_JDATA chunk, header and bytes, in the one record: one
 * reservation of the ring a small operand, not two.  The decoder takes it
 * as the two records it holds, in that order.
 */
#define HCB_JAXFFI_ARG_BYTES_MAX 64u

/* An HCB_EV_JARG_BYTES record as the probe reserves it: room for the
 * most bytes, len of them valid. */
struct hcb_ev_jarg_bytes {
	struct hcb_ev_jarg a;
	struct hcb_ev_chunk h;
	unsigned char d[HCB_JAXFFI_ARG_BYTES_MAX];
};

/*
 * HCB_EV_JCALL_ARG, for a call without a site (HCB_JAXFFI_CALL_HEAD) of
 * one operand, of 1 to HCB_JAXFFI_ARG_BYTES_MAX bytes, and no token: the
 * call's head (type HCB_EV_JCALL_ARG), then that operand as an
 * HCB_EV_JARG_BYTES record, then, where the call's probe sits where its
 * Python callable is (ffi.bpf.c), that callable's entry (pycall_events.h;
 * type 0 where it does not): the whole call in one reservation of the
 * ring, not three, and no pass over its operands after it.  Most prints
 * and callbacks are such calls (a loss, a step, a small vector).  The
 * decoder takes it as the records it holds, in that order.
 */
struct hcb_ev_jcall_arg {
	unsigned char head[HCB_JAXFFI_CALL_HEAD];
	struct hcb_ev_jarg_bytes op;
	struct hcb_ev_jpycall entry;
};
_Static_assert(__builtin_offsetof(struct hcb_ev_jcall_arg, op) == HCB_JAXFFI_CALL_HEAD,
	       "a small call's operand right after its head");

/*
 * Call sites learned once (ffi.bpf.c, jaxffi_sites): a thunk whose call
 * user space named and proved (its layout check) is written there, keyed
 * by process and thunk, with the heads of its op and module strings as
 * read then and their first HCB_JAXFFI_SITE_PREFIX characters.  A later
 * call of that thunk reads the two heads (one read where they are side by
 * side) and, for a string not kept inline, its first characters: all the
 * same, the call goes as F_KNOWN, without its names (some 17 reads of the
 * target fewer a call); else as a new site, read whole.  At most
 * HCB_JAXFFI_SITES of them: past that, calls are read whole.
 */
#define HCB_JAXFFI_SITES 1024u
#define HCB_JAXFFI_SITE_PREFIX 32u

struct hcb_jaxffi_site_key {
	HCB_WIRE_U32 pid;           /* tgid */
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 thunk;
};

struct hcb_jaxffi_site {
	HCB_WIRE_U64 head[HCB_JAXFFI_HEAD_WORDS];
	char op[HCB_JAXFFI_SITE_PREFIX];      /* zero past the name */
	char module[HCB_JAXFFI_SITE_PREFIX];
	HCB_WIRE_U64 index;
	HCB_WIRE_U32 has_index;
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 hits;          /* calls sent as F_KNOWN (the probe counts; for
				     * tests and bpftool) */
};

/*
 * record --on-trigger stop with --until nonfinite (ffi.bpf.c): on every
 * device (all) or those of ids[0 .. n), by id, the FFI probe checks each
 * float operand of at most HCB_JAXFFI_NF_BYTES bytes (the first
 * HCB_JAXFFI_NF_OPERANDS such of a call) for NaN or infinity after sending
 * the call, and stops the target from its own thread at one.  Set by
 * nfstop.c; on 0: off.
 */
#define HCB_JAXFFI_NF_BYTES 1024u
#define HCB_JAXFFI_NF_OPERANDS 8u
#define HCB_JAXFFI_NF_DEVICES 64u   /* HCB_DEVSET_MAX (core/filter.h) */

struct hcb_jaxffi_nf {
	HCB_WIRE_U32 on;
	HCB_WIRE_U32 all;
	HCB_WIRE_U32 n;
	HCB_WIRE_U32 pad;
	HCB_WIRE_U32 ids[HCB_JAXFFI_NF_DEVICES];
};

#endif
