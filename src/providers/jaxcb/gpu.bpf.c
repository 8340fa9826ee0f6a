// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gpu.bpf.c - JAX's own host callbacks on CUDA (custom call
 * xla_ffi_python_gpu_callback, jax's CUDA plugin: gpu.h).  Its
 * handler gets the FFI call frame the CPU handler gets, but the operands
 * are device memory, which a probe cannot read; the handler copies each
 * (tokens left out) to a host buffer, in order, and waits for the copies
 * before it calls Python.  Three probes:
 *
 *   jaxgpu_enter  the handler's entry: notes the frame for the thread;
 *   jaxgpu_copy   the body's call of cudaMemcpyAsync: notes each host
 *                 buffer, its source and size, in order;
 *   jaxgpu_sync   the instruction after the body's call of
 *                 cudaStreamSynchronize: the copies are whole.  Each is
 *                 paired with its operand (the n-th copy with the n-th
 *                 operand that is not a token), proven by its source being
 *                 the operand's device pointer and its size the operand's;
 *                 then the call goes out as ffi.bpf.c's does
 *                 (call.bpf.h), the bytes read from the host copies.
 *
 * A call that does not pair up (a copy of another kind, a source or a
 * size not the operand's, more or fewer copies) is counted unreadable and
 * not sent: the records only ever hold bytes proven to be the operand's.
 * There is no thunk here: the call has no names, and the device is the
 * execution context's, read where the PJRT plugin's own code reads it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "call.bpf.h"

/* Set by user space (gpu.c: decoded from XLA_FFI_DeviceOrdinal_Get). */
const volatile __u32 jaxgpu_ctx_device_off = 8;

#define JAXGPU_MAX_ARGS 64u          /* operands of a call read; more: counted */
#define JAXGPU_MEMCPY_D2H 2u         /* cudaMemcpyDeviceToHost */

struct jaxgpu_copy {
	__u64 dst, src, size;
};

/* A thread's call, from the handler's entry to the synchronisation. */
struct jaxgpu_call {
	__u64 frame;
	__u32 ncopies;
	__u32 bad;                   /* a copy not device-to-host, or one too many */
	struct jaxgpu_copy copy[JAXGPU_MAX_ARGS];
	/* per operand: its host copy and its size (0: a token) */
	__u64 host[JAXGPU_MAX_ARGS], hostn[JAXGPU_MAX_ARGS];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);                  /* pid_tgid */
	__type(value, struct jaxgpu_call);
} jaxgpu_calls SEC(".maps");

/* a call's start, built here (too big for the stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct jaxgpu_call);
} jaxgpu_scratch SEC(".maps");

SEC("uprobe")
int jaxgpu_enter(struct pt_regs *ctx)
{
	__u64 key = bpf_get_current_pid_tgid();
	__u32 zero = 0;
	struct jaxgpu_call *v = bpf_map_lookup_elem(&jaxgpu_scratch, &zero);

	if (!v)
		return 0;
	v->frame = PT_REGS_PARM1(ctx);
	v->ncopies = 0;
	v->bad = 0;
	bpf_map_update_elem(&jaxgpu_calls, &key, v, BPF_ANY);
	return 0;
}

/* At the call instruction: the arguments are in their registers. */
SEC("uprobe")
int jaxgpu_copy(struct pt_regs *ctx)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct jaxgpu_call *v = bpf_map_lookup_elem(&jaxgpu_calls, &key);
	__u32 n;

	if (!v)
		return 0;
	n = v->ncopies;
	if ((__u32)PT_REGS_PARM4(ctx) != JAXGPU_MEMCPY_D2H || n >= JAXGPU_MAX_ARGS) {
		v->bad = 1;
		return 0;
	}
	v->copy[n].dst = PT_REGS_PARM1(ctx);
	v->copy[n].src = PT_REGS_PARM2(ctx);
	v->copy[n].size = PT_REGS_PARM3(ctx);
	v->ncopies = n + 1;
	return 0;
}

/* The pairing pass's state. */
struct pairing {
	struct jaxgpu_call *v;
	__u64 types, args;
	__u32 nargs, next;           /* operands; the next copy to pair */
	__u32 bad;
};

/* Bytes the handler copies of a buffer of elems elements: jax copies the
 * 2- and 4-bit types as elems * bits / 8 bytes (rounded down). */
static __always_inline __u64 gpu_copy_bytes(__u32 t, __u64 elems)
{
	switch (t) {
	case JAXFFI_XLA_S2: case JAXFFI_XLA_U2:
		return elems / 4;
	case JAXFFI_XLA_S4: case JAXFFI_XLA_U4: case JAXFFI_XLA_F4E2M1FN:
		return elems / 2;
	}
	return elems * xla_dtype_size(t);
}

static long pair_step(__u32 i, void *arg)
{
	struct pairing *p = arg;
	struct jaxffi_xla_buffer b;
	__u64 bp = 0, dims[HCB_MAX_DIMS], elems = 1;
	__u32 type = 0, j = p->next, n;

	if (i >= p->nargs || i >= JAXGPU_MAX_ARGS)
		return 1;
	if (bpf_copy_from_user(&type, sizeof(type), (void *)(p->types + (__u64)i * 4)) ||
	    type != JAXFFI_XLA_ARG_BUFFER ||
	    bpf_copy_from_user(&bp, sizeof(bp), (void *)(p->args + (__u64)i * 8)) ||
	    bpf_copy_from_user(&b, sizeof(b), (void *)bp) || b.rank > HCB_MAX_DIMS)
		goto bad;
	if (b.dtype == JAXFFI_XLA_TOKEN) {
		p->v->host[i] = 0;
		p->v->hostn[i] = 0;
		return 0;
	}
	n = (__u32)b.rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (n && bpf_copy_from_user(dims, n, (void *)b.dims))
		goto bad;
	for (__u32 k = 0; k < HCB_MAX_DIMS; k++) {
		__u64 d = k < n / 8 ? dims[k] : 1;

		if (d > MAX_ELEMS)
			goto bad;
		elems *= d;
		if (elems > MAX_ELEMS)
			goto bad;
	}
	if (j >= JAXGPU_MAX_ARGS || j >= p->v->ncopies || p->v->copy[j].src != b.data ||
	    p->v->copy[j].size != gpu_copy_bytes(b.dtype, elems))
		goto bad;
	p->v->host[i] = p->v->copy[j].dst;
	p->v->hostn[i] = p->v->copy[j].size;
	p->next = j + 1;
	return 0;
bad:
	p->bad = 1;
	return 1;
}

/* Operand i (call.bpf.h): the frame's, its bytes its host copy's. */
static __noinline int read_operand(const struct walk *w, __u32 i, struct jf_operand *o,
				   __u64 *dims)
{
	__u64 key = bpf_get_current_pid_tgid(), bp = 0;
	struct jaxgpu_call *v = bpf_map_lookup_elem(&jaxgpu_calls, &key);
	__u32 n;

	o->nbytes = 0;
	o->layout = 0;
	o->nstrides = 0;
	if (!v || i >= JAXGPU_MAX_ARGS ||
	    bpf_copy_from_user(&bp, sizeof(bp), (void *)(w->args + (__u64)i * 8)) ||
	    bpf_copy_from_user(&o->b, sizeof(o->b), (void *)bp))
		return -1;
	if (o->b.dtype == JAXFFI_XLA_TOKEN)
		return 1;
	if (o->b.rank > HCB_MAX_DIMS)
		return -1;   /* the pairing pass let none through */
	n = (__u32)o->b.rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (n && bpf_copy_from_user(dims, n, (void *)o->b.dims))
		return -1;
	o->b.data = v->host[i];
	o->nbytes = v->hostn[i];
	return o->nbytes > MAX_ELEMS * 16 ? 2 : 0;
}

/* The frame's header and operands, as jaxffi_call reads them: 0, or -1. */
static __always_inline int read_frame(void *frame, struct walk *w, struct jaxffi_xla_attrs *attrs,
				      __s32 *device)
{
	__u64 hdr[5], need;

	if (bpf_copy_from_user(hdr, sizeof(hdr), frame) ||
	    hdr[0] < sizeof(struct jaxffi_xla_frame) || !hdr[3] ||
	    (__u32)hdr[4] != JAXFFI_XLA_STAGE_EXECUTE ||
	    bpf_copy_from_user(device, sizeof(*device), (void *)(hdr[3] + jaxgpu_ctx_device_off)) ||
	    *device < 0 || *device >= (__s32)HCB_MAX_DEVICES ||
	    bpf_copy_from_user(&w->types, 16, frame + __builtin_offsetof(struct jaxffi_xla_frame,
									   args.types)) ||
	    bpf_copy_from_user(&need, sizeof(need), frame + __builtin_offsetof(struct jaxffi_xla_frame,
									   args.size)) ||
	    need > JAXGPU_MAX_ARGS ||
	    bpf_copy_from_user(attrs, sizeof(*attrs), frame + __builtin_offsetof(struct jaxffi_xla_frame,
									      attrs)))
		return -1;
	w->nargs = (__u32)need;
	return 0;
}

/* Sleepable: the host copies are fresh pages bpf_copy_from_user() may
 * have to fault in. */
SEC("uprobe.s")
int jaxgpu_sync(struct pt_regs *ctx)
{
	__u64 key = bpf_get_current_pid_tgid(), need;
	struct jaxgpu_call *v = bpf_map_lookup_elem(&jaxgpu_calls, &key);
	struct jaxffi_xla_attrs attrs;
	struct pairing p = {};
	struct hcb_dev_stats *s;
	struct hcb_ev_jcall *e;
	struct walk w = {};
	__u32 rc = (__u32)PT_REGS_RC(ctx);
	__s32 device = -1;

	/* loaded once, here: the verifier takes no context access at a
	 * computed offset */
	barrier_var(rc);
	if (!v)
		return 0;
	if (read_frame((void *)v->frame, &w, &attrs, &device)) {
		s = dev_stats(0);    /* no device to count it on: the first one's */
		if (s) {
			__sync_fetch_and_add(&s->handled, 1);
			dev_count(s, LOST_UNREADABLE);
		}
		goto out;
	}
	s = dev_stats((__u32)device);
	if (!s)
		goto out;
	w.c.seq = __sync_fetch_and_add(&s->handled, 1);
	w.c.device = (__u32)device;
	/* the synchronisation failed (the handler then aborts), or a copy
	 * that is not an operand's: nothing sent that is not proven */
	p.v = v;
	p.types = w.types;
	p.args = w.args;
	p.nargs = w.nargs;
	if (rc == 0 && !v->bad)
		bpf_loop(JAXGPU_MAX_ARGS, pair_step, &p, 0);
	if (rc != 0 || v->bad || p.bad || p.next != v->ncopies) {
		dev_count(s, LOST_UNREADABLE);
		goto out;
	}
	bpf_loop(JAXGPU_MAX_ARGS, measure_step, &w, 0);
	if (w.bad || w.too_big) {
		dev_count(s, w.bad ? LOST_UNREADABLE : LOST_RING);
		goto out;
	}
	e = reserve_call(&w, s, &need);
	if (!e)
		goto out;
	call_head(e, &w, HCB_JAXFFI_PYTHON);
	e->flags = HCB_JAXFFI_F_GPU | (find_index(&attrs, &e->index) ? HCB_JAXFFI_F_INDEX : 0);
	send_call(&w, s, e, need);
out:
	bpf_map_delete_elem(&jaxgpu_calls, &key);
	return 0;
}
