/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ffi_run.bpf.h - what ffi.bpf.c's call probe keeps of a call while it
 * runs, in the calling thread's storage (bpf/state.bpf.h): the walk over
 * its operands (call.bpf.h), its frame, the first operands as the
 * measuring pass read them, the thunk it came from, the NaN check's.  And
 * the thunk the thread ran last, which the thunk's probe notes there for
 * the call to take; and the Python side's (struct pycall_run): in the one
 * storage, the call and its callable's entry look up no other
 * (legacy.bpf.c, whose calls have a state of their own, sees the map as
 * extern).
 */
#ifndef HCB_FFI_RUN_BPF_H
#define HCB_FFI_RUN_BPF_H

#include "bpf/nonfinite.bpf.h"
#include "bpf/state.bpf.h"
#include "call_state.bpf.h"
#include "events.h"
#include "pycall_events.h"

/* The Python side's part of a thread's state (pyentry.bpf.h,
 * pycall.bpf.c): whether it is inside a callback, which, and the text
 * record being made of a concatenation there. */
struct pycall_run {
	__u64 callable;
	__u64 index;
	__u32 inside;        /* in the inner function now: the concatenation
			      * probe looks at this before it reads anything */
	__u32 pad;
	/* the callable the thread's last entry sent, and its process's
	 * memory then (a thread that exec'd has new callables, maybe at
	 * the same address): seen already, no lookup (first_sight) */
	__u64 seen_callable;
	__u64 seen_mm;
	struct hcb_ev_jpytext h;
};

/* The small float operands of a call, to be checked for NaN or infinity. */
struct nf_operands {
	__u64 data[HCB_JAXFFI_NF_OPERANDS];
	__u32 len[HCB_JAXFFI_NF_OPERANDS];
	__u32 kind[HCB_JAXFFI_NF_OPERANDS];
	__u32 n;
	int found;
};

/* The first operands of a call as the measuring pass read them: the
 * sending pass and the NaN check take them again from here, not from the
 * target (each read of it costs more than its bytes), and so send what
 * was measured. */
#define OPERANDS_KEPT 4

struct kept_operand {
	struct jaxffi_xla_buffer b;
	__u64 nbytes;
	__u64 dims[HCB_MAX_DIMS];      /* zero past its rank */
	__s32 rc;                      /* read_operand's */
	__u32 pad;
};

/* XLA keeps an operand's dims, up to 4 of them, in the 32 bytes before
 * its XLA_FFI_Buffer (the inline storage of a vector beside it: every
 * jaxlib from 0.6 to 0.12 seen so): the buffer is read with them, one
 * read, not two, and they are used only where the buffer's own dims
 * pointer, read in the same copy, says they are there. */
#define DIMS_BESIDE 4

struct buffer_beside {
	__u64 dims[DIMS_BESIDE];
	struct jaxffi_xla_buffer b;
};

/* The frame is read with the bytes after it: in every jaxlib from 0.6 to
 * 0.12 the execution context is on the stack right after the frame (176
 * bytes from its start, the frame's own 168 bytes and a word), so its
 * device ordinal comes in the same read, not one of its own
 * (read_frame). */
#define FRAME_SPAN (sizeof(struct jaxffi_xla_frame) + 64)

/* A run's state (bpf/state.bpf.h): the call's, its frame, the thunk it
 * came from, its first operands, the NaN check's. */
struct ffi_run {
	struct jaxcb_run r;            /* first: call.bpf.h works on it */
	union {
		struct jaxffi_xla_frame frame;  /* up to its attributes, in one read */
		unsigned char span[FRAME_SPAN]; /* and what follows it, read with it */
	};
	struct kept_operand kept[OPERANDS_KEPT];
	struct buffer_beside bb;       /* an operand's buffer as read, its dims before it */
	__u32 nkept;                   /* kept[0 .. nkept) are this call's */
	__u32 keeping;                 /* the measuring pass: keep what is read */
	struct jaxffi_thunk_seen seen; /* the call's thunk, taken from thunk_slot */
	/* written by jaxffi_thunk before the call, taken by it (take_thunk) */
	struct jaxffi_thunk_seen thunk_slot;
	struct nf_operands nf;
	unsigned char nf_buf[HCB_NF_SPAN];
	__u64 prefix[HCB_JAXFFI_SITE_PREFIX / 8];   /* a known site's name, read again */
	/* at the inner function: its index argument (rcx), which is the
	 * call's index attribute (frame_of), and 1; else 0 */
	__u64 reg_index;
	__u32 at_inner;
	/* the thread's last device and its slot + 1 (0: none yet): a slot is
	 * never taken back (devices.bpf.h), and a thread's calls are most
	 * often of one device, which then needs no lookup */
	__u32 last_slot1;
	__u32 last_device_id;
	__u32 pad;
	/* the Python side's: the callable's entry, at the inner function
	 * the call's own probe's (pyentry.bpf.h), and its text */
	struct pycall_run py;
};

/* pycall.bpf.c's, which links first: a map used before the object that
 * defines it, Debian 12's bpftool links but libbpf cannot relocate */
#ifdef HCB_PYCALL_OWNER
TASK_STATE_MAP(struct ffi_run) ffi_runs SEC(".maps");
#else
extern TASK_STATE_MAP(struct ffi_run) ffi_runs SEC(".maps");
#endif

#endif
