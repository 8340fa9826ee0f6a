// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ffi.bpf.c - JAX's own host callbacks in XLA's CPU runtime (jaxlib >=
 * 0.6): jax.debug.print, jax.debug.callback, io_callback, pure_callback and
 * buffer_callback all end in an XLA FFI custom call whose handler, a local
 * symbol of jaxlib's libjax_common.so, gets the C API's call frame
 * (ffi_abi.h).  Two probes per target:
 *
 *   jaxffi_thunk   on xla::cpu::CustomCallThunk::Execute, which runs every
 *                  custom call of an executable: notes per thread which
 *                  thunk is about to call its handler.  The thunk knows the
 *                  call site (HLO op and module names), the frame does not.
 *   jaxffi_call    on the handlers (kXlaFfiPythonCpuCallback, and
 *                  kXlaBufferPythonCpuCallback: the attach cookie says
 *                  which), on the same thread right after: sends the call
 *                  and its operands (events.h).
 *
 * The thunk's fields, the execute parameters and the execution context's
 * device ordinal are XLA internals: their offsets are set by user space
 * (jaxcb.c, from layout.c and ffi.c), and what is read with them proves
 * them on every call: the target name is read at each place it may be,
 * and the reader keeps the one that names a callback's custom call
 * target; the device ordinal is read twice, from the execution context
 * and from the thunk's execute parameters, so the reader can tell a
 * layout that went wrong.
 *
 * Linked with the other providers' programs and common.bpf.c into one
 * object (bpftool gen object): the ring buffer, the per-device counters and
 * the ring space promised to copies in flight are common.bpf.c's.  A call
 * takes its seq from the device's handled count, so the reader knows how
 * many went through the probe; calls of one device run on several threads
 * at once, so their records may come out of seq order.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* its reads never sleep: see jaxffi_call */
#define HCB_BPF_NOSLEEP
#define HCB_JAXCALL_OWNER
#include "call.bpf.h"
#include "bpf/nonfinite.bpf.h"

/* --on-trigger stop with --until nonfinite: which devices' calls the probe
 * checks itself (events.h, struct hcb_jaxffi_nf) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hcb_jaxffi_nf);
} jaxffi_nf SEC(".maps");

/* Not sleepable: it runs on every custom call (LAPACK's too) and touches
 * only memory the caller just used. */
SEC("uprobe")
int jaxffi_thunk(struct pt_regs *ctx)
{
	struct jaxffi_thunk_seen v = { .device = ~0u, .coll_device = ~0u };
	__u64 key = bpf_get_current_pid_tgid();
	__u64 a1 = PT_REGS_PARM1(ctx), a2 = PT_REGS_PARM2(ctx), a3 = PT_REGS_PARM3(ctx);
	__u64 params, ccp = 0;

	/* loaded apart: the verifier takes no context access at a computed offset */
	barrier_var(a1);
	barrier_var(a2);
	barrier_var(a3);
	v.thunk = jaxffi_thunk_arg ? a2 : a1;
	params = jaxffi_thunk_arg ? a3 : a2;
	if (!bpf_probe_read_user(&ccp, sizeof(ccp), (void *)(params + jaxffi_params_ccp_off)) && ccp)
		bpf_probe_read_user(&v.device, sizeof(v.device), (void *)(ccp + jaxffi_ccp_device_off));
	ccp = 0;
	if (jaxffi_params_coll_off &&
	    !bpf_probe_read_user(&ccp, sizeof(ccp), (void *)(params + jaxffi_params_coll_off)) && ccp)
		bpf_probe_read_user(&v.coll_device, sizeof(v.coll_device),
				    (void *)(ccp + jaxffi_coll_device_off));
	bpf_map_update_elem(&jaxffi_thunks, &key, &v, BPF_ANY);
	return 0;
}

/* Operand i of the frame (call.bpf.h): an XLA_FFI_Buffer; -1 also for
 * an operand that is none. */
static __noinline int read_operand(const struct walk *w, __u32 i, struct jf_operand *o,
				   __u64 *dims)
{
	__u64 bp = 0, elems = 1;
	__u32 type = 0, n;

	o->nbytes = 0;
	o->layout = 0;
	o->nstrides = 0;
	if (copy_user(&type, sizeof(type), (void *)(w->types + (__u64)i * 4)) ||
	    type != JAXFFI_XLA_ARG_BUFFER ||
	    copy_user(&bp, sizeof(bp), (void *)(w->args + (__u64)i * 8)) ||
	    copy_user(&o->b, sizeof(o->b), (void *)bp))
		return -1;
	if (o->b.dtype == JAXFFI_XLA_TOKEN)
		return 1;
	if (o->b.rank > HCB_MAX_DIMS)
		return 0;
	n = (__u32)o->b.rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (n && copy_user(dims, n, (void *)o->b.dims))
		return -1;
	/* (negative dims are huge here) no clamping to a constant: the
	 * verifier would follow the copy of such a size step by step */
	for (__u32 k = 0; k < HCB_MAX_DIMS; k++) {
		__u64 d = k < n / 8 ? dims[k] : 1;

		if (d > MAX_ELEMS)
			return 2;
		elems *= d;
		if (elems > MAX_ELEMS)
			return 2;
	}
	o->nbytes = xla_dtype_bytes(o->b.dtype, elems);
	return 0;
}

/*
 * The call record: the call site from the thread's thunk, if the thread
 * ran one.  The entry goes with it: a later call without a thunk of its own
 * must not take this one's names.
 */
static __noinline void fill_call(struct hcb_ev_jcall *e, const struct walk *w,
				      const struct jaxffi_xla_attrs *attrs, __u32 handler)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct jaxffi_thunk_seen *t, seen = {};

	call_head(e, w, handler);
	e->flags = find_index(attrs, &e->index) ? HCB_JAXFFI_F_INDEX : 0;
	t = bpf_map_lookup_elem(&jaxffi_thunks, &key);
	if (!t)
		return;
	seen = *t;
	bpf_map_delete_elem(&jaxffi_thunks, &key);
	e->flags |= HCB_JAXFFI_F_THUNK;
	e->thunk_device = seen.device;
	call_site(e, seen.thunk);
}

/* The small float operands of a call, to be checked for NaN or infinity. */
struct nf_operands {
	const struct walk *w;
	__u64 data[HCB_JAXFFI_NF_OPERANDS];
	__u32 len[HCB_JAXFFI_NF_OPERANDS];
	__u32 kind[HCB_JAXFFI_NF_OPERANDS];
	__u32 n;
	int found;
};

#define NF_SPANS_PER_OPERAND (HCB_JAXFFI_NF_BYTES / HCB_NF_SPAN)

static __always_inline __u32 nf_kind(__u32 dtype)
{
	switch (dtype) {
	case JAXFFI_XLA_F16: return HCB_NF_F16;
	case JAXFFI_XLA_BF16: return HCB_NF_BF16;
	case JAXFFI_XLA_F32: return HCB_NF_F32;
	case JAXFFI_XLA_F64: return HCB_NF_F64;
	}
	return 0;
}

/* Operand i: noted if it is a float small enough to check here. */
static long nf_pick(__u32 i, void *arg)
{
	struct nf_operands *x = arg;
	__u64 dims[HCB_MAX_DIMS];
	struct jf_operand o;
	__u32 kind, n = x->n;

	if (i >= x->w->nargs || n >= HCB_JAXFFI_NF_OPERANDS)
		return 1;
	if (read_operand(x->w, i, &o, dims) != 0)
		return 0;
	kind = nf_kind(o.b.dtype);
	if (!kind || o.nbytes == 0 || o.nbytes > HCB_JAXFFI_NF_BYTES)
		return 0;
	x->data[n] = o.b.data;
	x->len[n] = (__u32)o.nbytes;
	x->kind[n] = kind;
	x->n = n + 1;
	return 0;
}

/* Span k % NF_SPANS_PER_OPERAND of picked operand k / NF_SPANS_PER_OPERAND. */
static long nf_operand_span(__u32 k, void *arg)
{
	struct nf_operands *x = arg;
	__u32 op = k / NF_SPANS_PER_OPERAND, at = (k % NF_SPANS_PER_OPERAND) * HCB_NF_SPAN, len;

	if (op >= x->n || op >= HCB_JAXFFI_NF_OPERANDS)
		return 1;
	if (at >= x->len[op])
		return 0;
	len = x->len[op] - at;
	if (len > HCB_NF_SPAN)
		len = HCB_NF_SPAN;
	x->found = nf_scan_span((const void *)(x->data[op] + at), len, x->kind[op]);
	return x->found;
}

/*
 * A call just sent whole on device dev: if the probe is to check it, and
 * a small float operand holds a NaN or infinity, stop the target from
 * this, its own thread.  The user side reads the same call and fires.
 */
static __noinline void nf_stop_check(const struct walk *w, __u32 dev)
{
	struct nf_operands x = { .w = w };
	__u32 zero = 0;
	struct hcb_jaxffi_nf *nf = bpf_map_lookup_elem(&jaxffi_nf, &zero);

	if (!nf || !nf->on || dev >= HCB_MAX_DEVICES ||
	    !((nf->device_mask[(dev / 64) & 3] >> (dev % 64)) & 1))
		return;
	bpf_loop(HCB_MAX_LEAVES, nf_pick, &x, 0);
	if (!x.n)
		return;
	bpf_loop(HCB_JAXFFI_NF_OPERANDS * NF_SPANS_PER_OPERAND, nf_operand_span, &x, 0);
	if (x.found)
		bpf_send_signal(NF_SIGSTOP);
}

/*
 * Not sleepable (HCB_BPF_NOSLEEP): on a 6.18 kernel, with one thread per
 * device under pmap, a sleepable jaxffi_call that slept found its locals
 * overwritten by the call another thread sent meanwhile (see capture.bpf.h)
 * and sent its own call without operands, counting none lost.  Operands
 * in a page that is not in (XLA just wrote them: rare) are counted as
 * unreadable instead.
 */
SEC("uprobe")
int jaxffi_call(struct pt_regs *ctx)
{
	void *frame = (void *)PT_REGS_PARM1(ctx);
	struct jaxffi_xla_attrs attrs;
	struct hcb_dev_stats *s;
	struct hcb_ev_jcall *e;
	struct walk w = {};
	__u64 hdr[5], need;
	__s32 device = -1;
	__u32 dev;

	/* struct_size, extension_start, api, ctx, stage: metadata queries at
	 * registration have no context, other stages no operands */
	if (copy_user(hdr, sizeof(hdr), frame) ||
	    hdr[0] < sizeof(struct jaxffi_xla_frame) || !hdr[3] ||
	    (__u32)hdr[4] != JAXFFI_XLA_STAGE_EXECUTE)
		return 0;
	dev = 0;
	s = dev_stats(dev);
	if (copy_user(&device, sizeof(device), (void *)(hdr[3] + jaxffi_ctx_device_off)) ||
	    device < 0 || device >= (__s32)HCB_MAX_DEVICES ||
	    /* args.types and args.args, side by side there and in w */
	    copy_user(&w.types, 16, frame + __builtin_offsetof(struct jaxffi_xla_frame,
									  args.types)) ||
	    copy_user(&need, sizeof(need), frame + __builtin_offsetof(struct jaxffi_xla_frame,
									   args.size)) ||
	    need > HCB_MAX_LEAVES ||
	    copy_user(&attrs, sizeof(attrs), frame + __builtin_offsetof(struct jaxffi_xla_frame,
									     attrs))) {
		if (s) {   /* no device to count it on: the first one's */
			__sync_fetch_and_add(&s->handled, 1);
			dev_count(s, LOST_UNREADABLE);
		}
		return 0;
	}
	dev = (__u32)device;
	w.nargs = (__u32)need;
	s = dev_stats(dev);
	if (!s)
		return 0;
	/* calls are numbered per device as the probe counts them, so the
	 * reader knows how many went missing */
	w.c.seq = __sync_fetch_and_add(&s->handled, 1);
	w.c.device = dev;

	bpf_loop(HCB_MAX_LEAVES, measure_step, &w, 0);
	if (w.bad || w.too_big) {
		dev_count(s, w.bad ? LOST_UNREADABLE : LOST_RING);
		return 0;
	}

	e = reserve_call(&w, s, &need);
	if (!e)
		return 0;
	fill_call(e, &w, &attrs, (__u32)bpf_get_attach_cookie(ctx));
	send_call(&w, s, e, need);
	if (!w.c.failed)
		nf_stop_check(&w, dev);
	return 0;
}
