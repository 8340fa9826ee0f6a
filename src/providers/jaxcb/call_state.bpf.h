/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * call_state.bpf.h - what a probe of a JAX callback's call keeps of it in
 * the thread's state (bpf/state.bpf.h) while it runs: the walk over its
 * operands, the operand being read, the call site's reads (struct
 * jaxcb_run), and the thunk the thread ran.  The types alone, apart from
 * call.bpf.h's functions, so that a program that only shares the state
 * (pycall.bpf.c, through ffi_run.bpf.h) takes in none of them.
 */
#ifndef HCB_JAXCALL_STATE_BPF_H
#define HCB_JAXCALL_STATE_BPF_H

#include "bpf/copy.bpf.h"
#include "ffi_abi.h"

/* The thunk a thread ran last, until its call takes it: in the thread's
 * storage (state.bpf.h, ffi_run.bpf.h), which no other thread reads,
 * nothing evicts, and goes with the thread. */
struct jaxffi_thunk_seen {
	__u64 thunk;        /* 0: none waiting (taken by its call, or none ran) */
	__u32 device;       /* from the execute parameters, ~0 if unreadable */
	__u32 coll_device;  /* from their collective parameters (legacy only), ~0 */
};

struct walk {
	/* where the operands are: the frame's types and args arrays (FFI);
	 * the descriptor's Arg array and the operand pointers (legacy) */
	__u64 types, args;
	__u32 nargs;         /* operands in the frame */
	__u32 count;         /* operands to send: tokens left out */
	__u64 total;         /* their bytes */
	__u32 bad;           /* an operand could not be read */
	__u32 too_big;       /* an operand larger than the ring */
	__u32 layout;        /* legacy: what of the descriptor did not check out
			      * (HCB_JAXLEGACY_BAD_*), 0 if all did */
	__u32 device_id;     /* the call's device as its runtime numbers it
			      * (c.device is its slot, devices.bpf.h) */
	__u64 desc, callable; /* legacy: the descriptor, and its Python callable */
	struct copy_ctx c;   /* the sending pass; c.leaf is the next operand */
};

struct jf_operand {
	struct jaxffi_xla_buffer b;
	__u64 nbytes;        /* 0 for a rank or dtype the reader cannot show */
	__u32 layout;        /* legacy: what of its Arg did not check out; the
			      * measuring pass alone looks (the verifier then
			      * meets the sending pass's steps in one state) */
	__u32 nstrides;      /* legacy: the strides its Arg holds (the sending
			      * pass copies them after the dims) */
};

/* What the call site's reads of the target go through, one at a time. */
struct jaxcb_site_reads {
	struct jaxffi_xla_bytespan name;
	struct jaxffi_xla_scalar scalar;
	struct jaxffi_std_string str;
	__u64 name_ptr, value_ptr;
	__u32 type;
	char key[8];
};

/* The part of a run's state every probe of a call has (state.bpf.h): the
 * walk over its operands, the operand being read and its dims (then its
 * strides), the call site's reads. */
struct jaxcb_run {
	struct walk w;
	__u64 need;                    /* ring room taken for the call */
	struct jf_operand o;
	__u64 dims[2 * HCB_MAX_DIMS];
	struct jaxcb_site_reads site;
};

#endif
