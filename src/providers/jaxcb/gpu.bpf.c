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
	__u32 live;                  /* entered, not yet synchronised */
	__u32 ncopies;
	__u32 bad;                   /* a copy not device-to-host, or one too many */
	__u32 pad;
	struct jaxgpu_copy copy[JAXGPU_MAX_ARGS];
	/* per operand: its host copy and its size (0: a token) */
	__u64 host[JAXGPU_MAX_ARGS], hostn[JAXGPU_MAX_ARGS];
};

/* The pairing pass's state. */
struct pairing {
	__u32 nargs, next;           /* operands; the next copy to pair */
	__u32 bad;
	__u32 pad;
};

/* A thread's state (bpf/state.bpf.h): its call from the handler's entry to
 * the synchronisation, and the run that sends it. */
struct gpu_run {
	struct jaxcb_run r;            /* first: call.bpf.h works on it */
	struct jaxgpu_call call;
	struct pairing p;
	__u64 hdr[5];
	struct jaxffi_xla_attrs attrs;
};

TASK_STATE_MAP(struct gpu_run) gpu_runs SEC(".maps");

SEC("uprobe")
int jaxgpu_enter(struct pt_regs *ctx)
{
	struct gpu_run *g = task_state(&gpu_runs);

	if (!g)
		return 0;    /* its sync finds no call: not sent, counted there */
	g->call.frame = PT_REGS_PARM1(ctx);
	g->call.ncopies = 0;
	g->call.bad = 0;
	g->call.live = 1;
	return 0;
}

/* At the call instruction: the arguments are in their registers. */
SEC("uprobe")
int jaxgpu_copy(struct pt_regs *ctx)
{
	struct gpu_run *g = task_state_if_any(&gpu_runs);
	__u32 n;

	if (!g || !g->call.live)
		return 0;
	n = g->call.ncopies;
	if ((__u32)PT_REGS_PARM4(ctx) != JAXGPU_MEMCPY_D2H || n >= JAXGPU_MAX_ARGS) {
		g->call.bad = 1;
		return 0;
	}
	g->call.copy[n].dst = PT_REGS_PARM1(ctx);
	g->call.copy[n].src = PT_REGS_PARM2(ctx);
	g->call.copy[n].size = PT_REGS_PARM3(ctx);
	g->call.ncopies = n + 1;
	return 0;
}

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

/* Operand i paired with the next copy, or the pairing is bad (arg: a
 * loop_ref to the thread's state). */
static long pair_step(__u32 i, void *arg)
{
	struct gpu_run *g = ((struct loop_ref *)arg)->state;
	struct jaxffi_xla_buffer *b = &g->r.o.b;
	struct jaxgpu_call *v = &g->call;
	__u64 bp = 0, elems = 1;
	__u32 type = 0, j = g->p.next, n;

	if (i >= g->p.nargs || i >= JAXGPU_MAX_ARGS)
		return 1;
	if (copy_user(&type, sizeof(type), (void *)(g->r.w.types + (__u64)i * 4)) ||
	    type != JAXFFI_XLA_ARG_BUFFER ||
	    copy_user(&bp, sizeof(bp), (void *)(g->r.w.args + (__u64)i * 8)) ||
	    copy_user(b, sizeof(*b), (void *)bp) || b->rank > HCB_MAX_DIMS)
		goto bad;
	if (b->dtype == JAXFFI_XLA_TOKEN) {
		v->host[i] = 0;
		v->hostn[i] = 0;
		return 0;
	}
	n = (__u32)b->rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (n && copy_user(g->r.dims, n, (void *)b->dims))
		goto bad;
	for (__u32 k = 0; k < HCB_MAX_DIMS; k++) {
		__u64 d = k < n / 8 ? g->r.dims[k] : 1;

		if (d > MAX_ELEMS)
			goto bad;
		elems *= d;
		if (elems > MAX_ELEMS)
			goto bad;
	}
	if (j >= JAXGPU_MAX_ARGS || j >= v->ncopies || v->copy[j].src != b->data ||
	    v->copy[j].size != gpu_copy_bytes(b->dtype, elems))
		goto bad;
	v->host[i] = v->copy[j].dst;
	v->hostn[i] = v->copy[j].size;
	g->p.next = j + 1;
	return 0;
bad:
	g->p.bad = 1;
	return 1;
}

/* Operand i (call.bpf.h): the frame's, its bytes its host copy's. */
static __noinline int read_operand(struct jaxcb_run *r, __u32 i, __u64 *dims)
{
	struct gpu_run *g = (struct gpu_run *)r;
	struct jf_operand *o = &r->o;
	__u64 bp = 0;
	__u32 n;

	o->nbytes = 0;
	o->layout = 0;
	o->nstrides = 0;
	if (i >= JAXGPU_MAX_ARGS ||
	    copy_user(&bp, sizeof(bp), (void *)(r->w.args + (__u64)i * 8)) ||
	    copy_user(&o->b, sizeof(o->b), (void *)bp))
		return -1;
	if (o->b.dtype == JAXFFI_XLA_TOKEN)
		return 1;
	if (o->b.rank > HCB_MAX_DIMS)
		return -1;   /* the pairing pass let none through */
	n = (__u32)o->b.rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (n && copy_user(dims, n, (void *)o->b.dims))
		return -1;
	o->b.data = g->call.host[i];
	o->nbytes = g->call.hostn[i];
	return o->nbytes > MAX_ELEMS * 16 ? 2 : 0;
}

/* The frame's header and operands, as jaxffi_call reads them, into the
 * thread's state (the device's id in the walk): 0; -1 if the device could
 * not be read (or is none), -3 if the rest could not.  Any ordinal is a
 * device (a multi-host job's may be global ones). */
static __noinline int read_frame(struct gpu_run *g)
{
	void *frame = (void *)g->call.frame;
	__s32 device = -1;
	__u64 nargs = 0;

	if (copy_user(g->hdr, sizeof(g->hdr), frame) ||
	    g->hdr[0] < sizeof(struct jaxffi_xla_frame) || !g->hdr[3] ||
	    (__u32)g->hdr[4] != JAXFFI_XLA_STAGE_EXECUTE ||
	    copy_user(&device, sizeof(device), (void *)(g->hdr[3] + jaxgpu_ctx_device_off)) ||
	    device < 0)
		return -1;
	g->r.w.device_id = (__u32)device;
	if (copy_user(&g->r.w.types, 16,
			       frame + __builtin_offsetof(struct jaxffi_xla_frame, args.types)) ||
	    copy_user(&nargs, sizeof(nargs),
			       frame + __builtin_offsetof(struct jaxffi_xla_frame, args.size)) ||
	    nargs > JAXGPU_MAX_ARGS ||
	    copy_user(&g->attrs, sizeof(g->attrs),
			       frame + __builtin_offsetof(struct jaxffi_xla_frame, attrs)))
		return -3;
	g->r.w.nargs = (__u32)nargs;
	return 0;
}

/* Every copy paired with its operand, in order: 0; or the call is not
 * sent (1).  Apart: its loop's inlining adds to the caller's frame. */
static __noinline int pair_copies(struct gpu_run *g, __u32 rc)
{
	struct loop_ref ref = { g };

	__builtin_memset(&g->p, 0, sizeof(g->p));
	g->p.nargs = g->r.w.nargs;
	/* the synchronisation failed (the handler then aborts), or a copy
	 * that is not an operand's: nothing sent that is not proven */
	if (rc != 0 || g->call.bad)
		return 1;
	bpf_loop(JAXGPU_MAX_ARGS, pair_step, &ref, 0);
	return g->p.bad || g->p.next != g->call.ncopies;
}

/* Sleepable where the kernel can (jaxcb.c lists it): the host copies are
 * fresh pages bpf_copy_from_user() may have to fault in. */
SEC("uprobe")
int jaxgpu_sync(struct pt_regs *ctx)
{
	struct gpu_run *g = task_state_if_any(&gpu_runs);
	struct hcb_dev_stats *s;
	struct hcb_ev_jcall *e;
	__u32 rc = (__u32)PT_REGS_RC(ctx);
	int read, slot;

	/* loaded once, here: the verifier takes no context access at a
	 * computed offset */
	barrier_var(rc);
	if (!g || !g->call.live)
		return 0;
	walk_reset(&g->r.w);
	read = read_frame(g);
	if (read == -1) {
		nodev_count(LOST_UNREADABLE);   /* no device to count it on */
		goto out;
	}
	slot = dev_slot(g->r.w.device_id);
	s = slot < 0 ? NULL : dev_stats((__u32)slot);
	if (!s)
		goto out;   /* past the slots: counted */
	g->r.w.c.seq = __sync_fetch_and_add(&s->handled, 1);
	g->r.w.c.device = (__u32)slot;
	if (read || pair_copies(g, rc)) {
		dev_count(s, LOST_UNREADABLE);
		goto out;
	}
	measure_call(&g->r, JAXGPU_MAX_ARGS);
	if (g->r.w.bad || g->r.w.too_big) {
		dev_count(s, g->r.w.bad ? LOST_UNREADABLE : LOST_RING);
		goto out;
	}
	if (take_call_room(&g->r, s))
		goto out;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		call_record_lost(&g->r, s);
		goto out;
	}
	call_whole(e, &g->r.w, HCB_JAXFFI_PYTHON, bpf_ktime_get_ns());
	e->flags = HCB_JAXFFI_F_GPU | (find_index(&g->r, &g->attrs, &e->index) ? HCB_JAXFFI_F_INDEX : 0);
	send_call(&g->r, s, e, sizeof(*e));
out:
	g->call.live = 0;
	return 0;
}
