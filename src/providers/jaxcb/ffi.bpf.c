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
 *                  and its operands (events.h).  A thunk whose site user
 *                  space proved (jaxffi_sites) has its names read once:
 *                  its later calls go without them while its name
 *                  strings read alike (site_known).  A call no thunk
 *                  ran for goes as its record's head alone (events.h),
 *                  and one of a single small operand whole in one
 *                  record with it (HCB_EV_JCALL_ARG).
 *
 * Where the Python handler's inner function is known (pycall.bpf.c), the
 * call's probe sits there instead (HCB_JAXFFI_AT_INNER), where the
 * callable is: one trap for both, and one program run, which sends the
 * call's records and then the callable's entry (HCB_JAXFFI_WITH_ENTRY,
 * pyentry.bpf.h), in the order the decoder needs: a small call's record
 * holds it (HCB_EV_JCALL_ARG).  The inner function gets the frame's
 * args as RemainingArgs {&frame->args, offset} in r8 and r9 (after the
 * returned Error's hidden pointer, callbacks, the plan cache and index);
 * every call proves it (read_frame): the offset is 0, the args say their
 * own struct size, and the frame round them says an execution's.
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
#include "bpf/nonfinite.bpf.h"
#include "call.bpf.h"
#include "ffi_nf.bpf.h"
#include "ffi_run.bpf.h"
#include "pyentry.bpf.h"
#include "sitecache.bpf.h"

/* For tests (HCBTRACE_TEST_JAXFFI_NOTHUNK, jaxcb.c): one thunk in this
 * many, at random, is not noted, as one run before the probe was in place;
 * 0: every one is. */
const volatile __u32 jaxffi_test_nothunk = 0;

/* For tests (HCBTRACE_TEST_JAXFFI_INNER=shift, jaxcb.c): bytes added to
 * where the inner function's args say the frame is, a layout gone wrong
 * that every call's proof must refuse; 0 otherwise. */
const volatile __u32 jaxffi_test_frame_shift = 0;

/* The size an operand's XLA_FFI_Buffer must say it has to be taken as a
 * buffer without its argument type read (is_buffer), and the argument
 * type that says buffer where it is read.  For tests
 * (HCBTRACE_TEST_JAXFFI_TYPES, jaxcb.c): "read" sets the size to 0, which
 * no buffer says, so every operand has its type read; "refuse" the type
 * to 0 as well, which is no type, so every operand is refused. */
const volatile __u32 jaxffi_buffer_size = sizeof(struct jaxffi_xla_buffer);
const volatile __u32 jaxffi_arg_buffer = JAXFFI_XLA_ARG_BUFFER;

/* How many bytes of and after the frame are read at once (FRAME_SPAN,
 * ffi_run.bpf.h).  For tests (HCBTRACE_TEST_JAXFFI_SPAN=frame, jaxcb.c):
 * the frame's own, so the device ordinal after it is read apart, as where
 * a jaxlib keeps the execution context elsewhere. */
const volatile __u32 jaxffi_frame_span = FRAME_SPAN;

/* Not sleepable: it runs on every custom call (LAPACK's too) and touches
 * only memory the caller just used. */
SEC("uprobe")
int jaxffi_thunk(struct pt_regs *ctx)
{
	struct ffi_run *f = task_state(&ffi_runs);
	struct jaxffi_thunk_seen *v;
	__u64 a1 = PT_REGS_PARM1(ctx), a2 = PT_REGS_PARM2(ctx), a3 = PT_REGS_PARM3(ctx);
	__u64 params, ccp = 0;

	if (!f)
		return 0;    /* no memory: its call goes named by its callable */
	v = &f->thunk_slot;
	if (jaxffi_test_nothunk && bpf_get_prandom_u32() % jaxffi_test_nothunk == 0) {
		v->thunk = 0;
		return 0;
	}
	/* loaded apart: the verifier takes no context access at a computed offset */
	barrier_var(a1);
	barrier_var(a2);
	barrier_var(a3);
	v->device = ~0u;
	v->coll_device = ~0u;
	params = jaxffi_thunk_arg ? a3 : a2;
	if (!bpf_probe_read_user(&ccp, sizeof(ccp), (void *)(params + jaxffi_params_ccp_off)) && ccp)
		bpf_probe_read_user(&v->device, sizeof(v->device),
				    (void *)(ccp + jaxffi_ccp_device_off));
	ccp = 0;
	if (jaxffi_params_coll_off &&
	    !bpf_probe_read_user(&ccp, sizeof(ccp), (void *)(params + jaxffi_params_coll_off)) && ccp)
		bpf_probe_read_user(&v->coll_device, sizeof(v->coll_device),
				    (void *)(ccp + jaxffi_coll_device_off));
	v->thunk = jaxffi_thunk_arg ? a2 : a1;
	return 0;
}

/* The XLA_FFI_Buffer at bp into r->o.b, and with it the memory its dims
 * are in where that is right before it (buffer_beside): 1 if so, 0 if
 * not, -1 if it could not be read. */
static __noinline int read_buffer(struct ffi_run *f, __u64 bp)
{
	__u64 before = bp - sizeof(f->bb.dims);

	if (bp >= sizeof(f->bb.dims) && !copy_user(&f->bb, sizeof(f->bb), (void *)before)) {
		f->r.o.b = f->bb.b;
		return f->bb.b.dims == before;
	}
	return copy_user(&f->r.o.b, sizeof(f->r.o.b), (void *)bp) ? -1 : 0;
}

/*
 * 1 if operand i, whose XLA_FFI_Buffer says it is struct_size bytes, is a
 * buffer.  Each struct of the C API begins with its own size, and a
 * buffer is the one argument type it has: an operand whose struct says a
 * buffer's size is one, and its type is not read (a read of the target
 * a call fewer).  One that says another (a buffer grown in a later C API)
 * is one where its argument type says so.
 */
static __always_inline int is_buffer(const struct jaxcb_run *r, __u32 i, __u64 struct_size)
{
	__u32 type = 0;

	if (struct_size == jaxffi_buffer_size)
		return 1;
	return struct_size >= sizeof(struct jaxffi_xla_buffer) &&
	       !copy_user(&type, sizeof(type), (void *)(r->w.types + (__u64)i * 4)) &&
	       type == jaxffi_arg_buffer;
}

/* Operand i of the frame, from the target: an XLA_FFI_Buffer; -1 also
 * for an operand that is none. */
static __noinline int read_operand_now(struct jaxcb_run *r, __u32 i, __u64 *dims)
{
	struct ffi_run *f = (struct ffi_run *)r;
	struct jf_operand *o = &r->o;
	__u64 bp = 0, elems = 1;
	__u32 n;
	int beside;

	o->nbytes = 0;
	o->layout = 0;
	o->nstrides = 0;
	if (copy_user(&bp, sizeof(bp), (void *)(r->w.args + (__u64)i * 8)))
		return -1;
	beside = read_buffer(f, bp);
	if (beside < 0 || !is_buffer(r, i, o->b.struct_size))
		return -1;
	if (o->b.dtype == JAXFFI_XLA_TOKEN)
		return 1;
	if (o->b.rank > HCB_MAX_DIMS)
		return 0;
	n = (__u32)o->b.rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (beside && n <= sizeof(f->bb.dims)) {
		for (__u32 k = 0; k < DIMS_BESIDE; k++)
			dims[k] = f->bb.dims[k];
	} else if (n && copy_user(dims, n, (void *)o->b.dims)) {
		return -1;
	}
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

/* An operand as the measuring pass kept it (k) into r->o and dims: its
 * read_operand_now's return. */
static __always_inline int take_kept(struct jaxcb_run *r, const struct kept_operand *k,
				     __u64 *dims)
{
	r->o.b = k->b;
	r->o.nbytes = k->nbytes;
	r->o.layout = 0;
	r->o.nstrides = 0;
	__builtin_memcpy(dims, k->dims, sizeof(k->dims));
	return k->rc;
}

/* Operand i of the frame (call.bpf.h): as the measuring pass kept it, or
 * read now (and kept, in that pass). */
static __noinline int read_operand(struct jaxcb_run *r, __u32 i, __u64 *dims)
{
	struct ffi_run *f = (struct ffi_run *)r;
	struct kept_operand *k;
	int rc;

	if (i < OPERANDS_KEPT && i < f->nkept)
		return take_kept(r, &f->kept[i], dims);
	rc = read_operand_now(r, i, dims);
	if (!f->keeping || i != f->nkept || i >= OPERANDS_KEPT || (rc != 0 && rc != 1))
		return rc;
	k = &f->kept[i];
	k->b = r->o.b;
	k->nbytes = r->o.nbytes;
	k->rc = rc;
	for (__u32 d = 0; d < HCB_MAX_DIMS; d++)
		k->dims[d] = rc == 0 && d < r->o.b.rank ? dims[d] : 0;
	f->nkept = i + 1;
	return rc;
}

/* The call's index attribute: the inner function's argument there,
 * else read from the frame's attributes. */
static __always_inline void fill_index(struct hcb_ev_jcall *e, struct ffi_run *f)
{
	if (f->at_inner) {
		e->index = f->reg_index;
		e->flags |= HCB_JAXFFI_F_INDEX;
	} else if (find_index(&f->r, &f->frame.attrs, &e->index)) {
		e->flags |= HCB_JAXFFI_F_INDEX;
	}
}

/* A call after a thunk (f->seen), at ts_ns: the ring's room for all of
 * it taken, its record whole, the call site from the thunk (a site known
 * already is not read again), and submitted.  -1 if there was no room
 * (counted). */
static __noinline int send_with_site(struct ffi_run *f, struct hcb_dev_stats *s, __u32 handler,
				     __u64 ts_ns)
{
	struct hcb_ev_jcall *e;

	if (take_call_room(&f->r, s))
		return -1;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		call_record_lost(&f->r, s);
		return -1;
	}
	call_whole(e, &f->r.w, handler, ts_ns);
	e->flags = HCB_JAXFFI_F_THUNK;
	e->thunk_device = f->seen.device;
	e->thunk = f->seen.thunk;
	if (read_heads(e->thunk, e->head) || !site_known(f->prefix, e)) {
		fill_index(e, f);
		call_site(e, &f->r, f->seen.thunk);
	}
	submit_call(&f->r.w, s, e, sizeof(*e));
	return 0;
}

/* A call no thunk ran for, at ts_ns: its room taken, its record's head
 * alone (HCB_JAXFFI_CALL_HEAD), submitted.  -1 as send_with_site. */
static __noinline int send_without_site(struct ffi_run *f, struct hcb_dev_stats *s,
					__u32 handler, __u64 ts_ns)
{
	struct hcb_ev_jcall *e;

	if (take_call_room(&f->r, s))
		return -1;
	e = bpf_ringbuf_reserve(&rb, HCB_JAXFFI_CALL_HEAD, 0);
	if (!e) {
		call_record_lost(&f->r, s);
		return -1;
	}
	call_head(e, &f->r.w, handler, ts_ns);
	fill_index(e, f);
	submit_call(&f->r.w, s, e, HCB_JAXFFI_CALL_HEAD);
	return 0;
}

/* 1 if the call, measured, is one operand of 1 to HCB_JAXFFI_ARG_BYTES_MAX
 * bytes, kept, and nothing else: a small call (HCB_EV_JCALL_ARG). */
static __always_inline int small_call(const struct ffi_run *f)
{
	return f->r.w.nargs == 1 && f->r.w.count == 1 && f->nkept == 1 && f->kept[0].rc == 0 &&
	       f->r.w.total && f->r.w.total <= HCB_JAXFFI_ARG_BYTES_MAX;
}

/* What send_small_call() sent: the call whole; and its callable's entry
 * with it. */
#define SENT_WHOLE 1
#define SENT_WITH_ENTRY 2

/* A small call no thunk ran for (small_call), at ts_ns: its head and its
 * operand in one record (HCB_EV_JCALL_ARG), and with them, where entry
 * says so, its callable's entry (fill_entry), submitted where the ring has
 * room for it (one record: ring_fits): SENT_WHOLE or SENT_WITH_ENTRY; -1
 * if it was not sent (counted). */
static __noinline int send_small_call(struct ffi_run *f, struct hcb_dev_stats *s,
				      __u32 handler, __u64 ts_ns, __u32 entry)
{
	struct hcb_ev_jcall_arg *e;
	struct hcb_ev_jcall *h;
	int lost = ring_fits(sizeof(*e));
	__u64 wake;

	if (lost) {
		dev_count(s, lost);
		return -1;
	}
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		dev_count(s, LOST_RING);
		return -1;
	}
	h = (struct hcb_ev_jcall *)e;
	call_head(h, &f->r.w, handler, ts_ns);
	h->type = HCB_EV_JCALL_ARG;
	fill_index(h, f);
	take_kept(&f->r, &f->kept[0], f->r.dims);
	f->r.w.c.total = f->r.w.total;
	if (!fill_small_operand(&e->op, &f->r, 0)) {
		bpf_ringbuf_discard(e, 0);
		dev_count(s, LOST_UNREADABLE);
		return -1;
	}
	/* the call's last record: the reader may be woken for it, and is
	 * at once for a callable's first entry */
	wake = wake_flag(sizeof(*e));
	if (!entry) {
		__builtin_memset(&e->entry, 0, sizeof(e->entry));
	} else if (fill_entry(&e->entry, &f->py, f->py.index, ts_ns) == BPF_RB_FORCE_WAKEUP) {
		wake = BPF_RB_FORCE_WAKEUP;
	}
	bpf_ringbuf_submit(e, wake);
	dev_count(s, 0);
	return entry ? SENT_WITH_ENTRY : SENT_WHOLE;
}

/* The frame's head, device, operands and attributes into the run (the
 * device's id in the walk): 0; -1 if the device could not be read (or is
 * none: negative), -3 for more operands than a call may have; -2, not
 * counted, for a frame that is no execution's (metadata queries at
 * registration have no context, other stages no operands) or whose head
 * cannot be read as one;
 * -4, at the inner function (inner: 1), whose every call is an
 * execution's, for a frame that does not prove itself so.  Any ordinal XLA
 * gives is a device: jax numbers CPU devices process_index * 2048 + local. */
/* The frame at frame into f: with what follows it (FRAME_SPAN) where
 * that reads, 1; else as much of it as is needed (inner: no attributes),
 * 0; -1 if it cannot be read. */
static __always_inline int read_frame_span(struct ffi_run *f, __u64 frame, int inner)
{
	_Static_assert(FRAME_SPAN >= sizeof(struct jaxffi_xla_frame), "the frame in its span");
	if (jaxffi_frame_span <= FRAME_SPAN && !copy_user(f->span, jaxffi_frame_span, (void *)frame))
		return 1;
	return copy_user(&f->frame,
			 inner ? __builtin_offsetof(struct jaxffi_xla_frame, rets) : sizeof(f->frame),
			 (void *)frame) ? -1 : 0;
}

/* The device ordinal of the execution context of the frame at frame:
 * taken from the bytes read after the frame where they hold it
 * (spanned: read_frame_span's 1), else read.  0, or -1 if unreadable. */
static __always_inline int frame_device(struct ffi_run *f, __u64 frame, int spanned,
					__s32 *device)
{
	__u64 at = f->frame.ctx + jaxffi_ctx_device_off - frame;

	if (spanned && at <= jaxffi_frame_span - sizeof(*device) &&
	    at <= FRAME_SPAN - sizeof(*device)) {
		*device = *(__s32 *)(f->span + at);
		return 0;
	}
	return copy_user(device, sizeof(*device), (void *)(f->frame.ctx + jaxffi_ctx_device_off));
}

static __noinline int read_frame(struct ffi_run *f, void *frame, int inner)
{
	struct jaxffi_xla_frame *h = &f->frame;
	int bad = inner ? -4 : -2;
	int spanned = read_frame_span(f, (__u64)frame, inner);
	__s32 device = -1;

	/* the head, the args and the attributes, and the context after
	 * them, in one read; at the inner function, whose index is its
	 * argument, no attributes are needed */
	if (spanned < 0 ||
	    h->struct_size < sizeof(*h) || !h->ctx || h->stage != JAXFFI_XLA_STAGE_EXECUTE ||
	    (inner && h->args.struct_size != sizeof(struct jaxffi_xla_args)))
		return bad;
	if (frame_device(f, (__u64)frame, spanned, &device) || device < 0)
		return -1;
	f->r.w.device_id = (__u32)device;
	if (h->args.size > HCB_MAX_LEAVES)
		return -3;
	f->r.w.types = h->args.types;
	f->r.w.args = h->args.args;
	f->r.w.nargs = (__u32)h->args.size;
	return 0;
}

/* The slot of the call's device (dev_slot): the thread's last one's
 * while the call is of that device. */
static __always_inline int thread_dev_slot(struct ffi_run *f)
{
	__u32 id = f->r.w.device_id;
	int slot;

	if (f->last_slot1 && f->last_device_id == id)
		return (int)f->last_slot1 - 1;
	slot = dev_slot(id);
	if (slot >= 0) {
		f->last_device_id = id;
		f->last_slot1 = (__u32)slot + 1;
	}
	return slot;
}

/* Debian 12's libbpf names five arguments only (x86-64: the sixth is r9) */
#ifndef PT_REGS_PARM6
#define PT_REGS_PARM6(x) ((x)->r9)
#endif

/*
 * The call frame: the handler's argument, or at the inner function
 * (cookie) the one round its RemainingArgs' args, whose offset must be 0
 * (the Python handler binds no argument before them); 0 if it is not.
 * There its index argument is the call's index attribute, which the
 * handler decoded from the frame for it: its symbol's mangled name says
 * (callbacks, plan cache, unsigned long index, RemainingArgs, ...), and
 * args and offset where read_frame proves them put index in rcx, so the
 * attributes are not read again (find_index: some 8 reads).
 */
static __always_inline void *frame_of(struct pt_regs *ctx, __u64 cookie, struct ffi_run *f)
{
	__u64 p1 = PT_REGS_PARM1(ctx), index = PT_REGS_PARM4(ctx), args = PT_REGS_PARM5(ctx);
	__u64 offset = PT_REGS_PARM6(ctx);

	/* loaded apart: the verifier takes no context access at a computed offset */
	barrier_var(p1);
	barrier_var(index);
	barrier_var(args);
	barrier_var(offset);
	f->at_inner = 0;
	if (!(cookie & HCB_JAXFFI_AT_INNER))
		return (void *)p1;
	if (offset || !args)
		return 0;
	f->reg_index = index;
	f->at_inner = 1;
	return (void *)(args - __builtin_offsetof(struct jaxffi_xla_frame, args) +
			jaxffi_test_frame_shift);
}

/*
 * The call at ctx (its state f, NULL if the thread has none; its probe's
 * cookie; its time ts_ns) read and sent, or counted lost: 1 if its
 * callable's entry went in its record (a small call's, SENT_WITH_ENTRY),
 * else 0.
 *
 * Not sleepable (HCB_BPF_NOSLEEP): it reads operands XLA has just written,
 * in pages that are in; one that is not (rare) is counted unreadable, and
 * the call costs the program no page fault.  (It was made so when, on a
 * 6.18 kernel, a sleepable run that slept found its locals overwritten by
 * another thread's: its state lives in the thread's storage now, never on
 * a stack, bpf/state.bpf.h.)
 */
static __noinline int call_probe(struct pt_regs *ctx, struct ffi_run *f, __u64 cookie,
				 __u64 ts_ns)
{
	struct hcb_dev_stats *s;
	int rc, slot;

	/* a call whose device is not known: counted on none */
	if (!f) {
		nodev_count(LOST_NOMEM);
		return 0;
	}
	walk_reset(&f->r.w);
	rc = read_frame(f, frame_of(ctx, cookie, f), !!(cookie & HCB_JAXFFI_AT_INNER));
	if (rc == -2)
		return 0;
	/* taken whether or not the call is sent: none is left for the
	 * thread's next call, which has a thunk of its own */
	if (!take_thunk(&f->thunk_slot, &f->seen))
		f->seen.thunk = 0;
	if (rc == -1 || rc == -4) {
		nodev_count(LOST_UNREADABLE);
		return 0;
	}
	slot = thread_dev_slot(f);
	s = slot < 0 ? NULL : dev_stats((__u32)slot);
	if (!s)
		return 0;   /* past the slots: counted */
	/* calls are numbered per device as the probe counts them, so the
	 * reader knows how many went missing */
	f->r.w.c.seq = __sync_fetch_and_add(&s->handled, 1);
	f->r.w.c.device = (__u32)slot;
	if (rc) {
		dev_count(s, LOST_UNREADABLE);
		return 0;
	}

	f->nkept = 0;
	f->keeping = 1;
	measure_call(&f->r, HCB_MAX_LEAVES);
	f->keeping = 0;
	if (f->r.w.bad || f->r.w.too_big) {
		dev_count(s, f->r.w.bad ? LOST_UNREADABLE : LOST_RING);
		return 0;
	}
	/* the record, then its operands (apart: the verifier's call depth) */
	if (f->seen.thunk)
		rc = send_with_site(f, s, (__u32)(cookie & HCB_JAXFFI_HANDLER_MASK), ts_ns);
	else if (small_call(f))
		rc = send_small_call(f, s, (__u32)(cookie & HCB_JAXFFI_HANDLER_MASK), ts_ns,
				     !!(cookie & HCB_JAXFFI_WITH_ENTRY));
	else
		rc = send_without_site(f, s, (__u32)(cookie & HCB_JAXFFI_HANDLER_MASK), ts_ns);
	if (rc < 0)
		return 0;
	if (!rc)
		send_operands(&f->r, s);   /* (a small call's went with it) */
	if (!f->r.w.c.failed)
		nf_stop_check(f);
	return rc == SENT_WITH_ENTRY;
}

SEC("uprobe")
int jaxffi_call(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), ts_ns = bpf_ktime_get_ns();
	struct ffi_run *f = task_state(&ffi_runs);
	__u64 index = PT_REGS_PARM4(ctx);

	/* at the inner function: the callable's entry too, after the call's
	 * records (or in a small call's) as the decoder needs them, whatever
	 * became of the call (a callback's Python that runs jax nests calls
	 * in it), at the call's time (one clock read a trap) */
	if (!(cookie & HCB_JAXFFI_WITH_ENTRY)) {
		call_probe(ctx, f, cookie, ts_ns);
		return 0;
	}
	if (f)
		py_enter(&f->py, PT_REGS_PARM2(ctx), index);
	if (!call_probe(ctx, f, cookie, ts_ns))
		send_entry(f ? &f->py : NULL, index, ts_ns);
	return 0;
}
