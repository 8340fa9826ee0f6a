/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * call.bpf.h - what the probes of JAX's Python callbacks share: the FFI
 * handler's (ffi.bpf.c, jaxlib >= 0.6), the legacy custom call's
 * (legacy.bpf.c, jaxlib 0.4.26 to 0.5.3) and the CUDA handler's
 * (gpu.bpf.c).  They send a call as the same records (events.h): the call,
 * then per operand its shape and its bytes.  Where they differ is where an
 * operand's shape and bytes are: each .bpf.c defines read_operand() for its
 * own, and this header's walk over the operands calls it.
 *
 * A run's state is the thread's (bpf/state.bpf.h): each .bpf.c keeps it in
 * a map of its own whose value begins with struct jaxcb_run, what the
 * functions here work on, followed by what only that .bpf.c reads.
 *
 * Where XLA keeps what is read of a thunk is ffi.bpf.c's
 * (HCB_JAXCALL_OWNER); legacy.bpf.c sees it as extern, as capture.bpf.h
 * shares the ring.  The thunk each thread runs is noted in its ffi_run
 * (ffi_run.bpf.h), and take_thunk() hands a call its thread's.
 */
#ifndef HCB_JAXCALL_BPF_H
#define HCB_JAXCALL_BPF_H

#include "bpf/copy.bpf.h"
#include "bpf/devices.bpf.h"
#include "bpf/state.bpf.h"
#include "call_state.bpf.h"
#include "events.h"
#include "ffi_abi.h"

#ifdef HCB_JAXCALL_OWNER
/* Set by user space from its layout before load (layout.c). */
const volatile __u32 jaxffi_thunk_arg = 1;       /* Execute's this: after the sret slot */
const volatile __u32 jaxffi_op_off = 16;         /* Thunk::info_.op_name (std::string) */
const volatile __u32 jaxffi_module_off = 48;     /* Thunk::info_.module_name */
/* CustomCallThunk::target_name_: where it may be, each place read */
const volatile __u32 jaxffi_target_offs[HCB_JAXFFI_TARGET_PLACES] = { 88, 96, 80, 104 };
const volatile __u32 jaxffi_params_ccp_off = 48; /* ExecuteParams::custom_call_params */
const volatile __u32 jaxffi_ccp_device_off = 8;  /* CustomCallExecuteParams::device_ordinal */
const volatile __u32 jaxffi_ctx_device_off = 8;  /* XLA_FFI_ExecutionContext::device_ordinal */
/* ExecuteParams::collective_params' local device ordinal, read to check
 * the other (legacy only: 0, not read) */
const volatile __u32 jaxffi_params_coll_off = 0;
const volatile __u32 jaxffi_coll_device_off = 8;
#else
extern const volatile __u32 jaxffi_op_off;
extern const volatile __u32 jaxffi_module_off;
extern const volatile __u32 jaxffi_target_offs[HCB_JAXFFI_TARGET_PLACES];
#endif

/* The thunk the current thread ran before this call (slot: the thread's,
 * ffi_run.bpf.h), into *seen, and taken: a later call of the thread that
 * ran no thunk of its own (one begun before the probe was in place) must
 * not take this one's names.  1 if there was one, else 0. */
static __always_inline int take_thunk(struct jaxffi_thunk_seen *slot,
				      struct jaxffi_thunk_seen *seen)
{
	if (!slot->thunk)
		return 0;
	*seen = *slot;
	slot->thunk = 0;
	return 1;
}

/* Bytes per element of the XLA types that have whole bytes; 0 for the rest
 * (sub-byte integers and floats, token). */
static __always_inline __u64 xla_dtype_size(__u32 t)
{
	switch (t) {
	case JAXFFI_XLA_PRED: case JAXFFI_XLA_S8: case JAXFFI_XLA_U8:
	case JAXFFI_XLA_F8E5M2: case JAXFFI_XLA_F8E4M3FN: case JAXFFI_XLA_F8E4M3B11FNUZ:
	case JAXFFI_XLA_F8E5M2FNUZ: case JAXFFI_XLA_F8E4M3FNUZ: case JAXFFI_XLA_F8E4M3:
	case JAXFFI_XLA_F8E3M4: case JAXFFI_XLA_F8E8M0FNU:
		return 1;
	case JAXFFI_XLA_S16: case JAXFFI_XLA_U16: case JAXFFI_XLA_F16: case JAXFFI_XLA_BF16:
		return 2;
	case JAXFFI_XLA_S32: case JAXFFI_XLA_U32: case JAXFFI_XLA_F32:
		return 4;
	case JAXFFI_XLA_S64: case JAXFFI_XLA_U64: case JAXFFI_XLA_F64: case JAXFFI_XLA_C64:
		return 8;
	case JAXFFI_XLA_C128:
		return 16;
	}
	return 0;
}

/* Bytes elems elements take in an operand's buffer: XLA's CPU runtime packs
 * the sub-byte types (element i in bits (i * bits) % 8 up of byte
 * i * bits / 8: two S4 a byte), and their bytes are sent so; 0 for a type
 * whose bytes are not sent (token, S1, U1). */
static __always_inline __u64 xla_dtype_bytes(__u32 t, __u64 elems)
{
	switch (t) {
	case JAXFFI_XLA_S2: case JAXFFI_XLA_U2:
		return (elems + 3) / 4;
	case JAXFFI_XLA_S4: case JAXFFI_XLA_U4: case JAXFFI_XLA_F4E2M1FN:
		return (elems + 1) / 2;
	}
	return elems * xla_dtype_size(t);
}

/* More elements than the ring can ever hold: the call is dropped.  Small
 * enough that a product of two never overflows. */
#define MAX_ELEMS (1ull << 31)

/*
 * Operand i of the call: into r->o its buffer, size and dims (into
 * dims[HCB_MAX_DIMS]; in the sending pass, its strides, if it has any,
 * into dims[HCB_MAX_DIMS .. 2 * HCB_MAX_DIMS), the JARG record's strides).
 * Returns 1 for a token (no data), 0 for an operand to send, 2 for one of
 * more than MAX_ELEMS elements, -1 if the target's memory could not be
 * read.  Defined by the .bpf.c that includes this, whose state r is the
 * head of.  Not inlined, here and below: the verifier then meets the
 * caller in one state whatever path was taken inside.
 */
static __noinline int read_operand(struct jaxcb_run *r, __u32 i, __u64 *dims);

/* First pass, one operand a step: how much is to be sent (arg: a loop_ref
 * to the run). */
static long measure_step(__u32 i, void *arg)
{
	struct jaxcb_run *r = ((struct loop_ref *)arg)->state;
	struct walk *w = &r->w;
	int rc;

	if (i >= w->nargs)
		return 1;
	rc = read_operand(r, i, r->dims);
	w->layout |= r->o.layout;
	if (rc < 0 || rc == 2 || w->layout) {
		w->bad |= rc < 0;
		w->too_big |= rc == 2;
		return 1;
	}
	if (rc == 0) {
		w->count++;
		w->total += r->o.nbytes;
	}
	return 0;
}

/* Operand i's JARG record (e): the operand read into r->o, its dims
 * and strides from r->dims, zero past those it has (as read_operand
 * wrote them: dims for a rank up to HCB_MAX_DIMS, none for more; strides
 * where it has one a dim). */
static __always_inline void fill_arg(struct hcb_ev_jarg *e, const struct jaxcb_run *r, __u32 i,
				     __u32 type)
{
	const struct copy_ctx *c = &r->w.c;
	__u64 rank = r->o.b.rank;
	__u64 shown = rank <= HCB_MAX_DIMS ? rank : 0;
	int strided = r->o.nstrides == rank;

	e->type = type;
	e->device = c->device;
	e->seq = c->seq;
	e->arg = i;
	e->dtype = r->o.b.dtype;
	e->rank = rank > 0xffff ? 0xffff : (__u32)rank;
	e->nstrides = r->o.nstrides;
	e->nbytes = r->o.nbytes;
	for (__u32 d = 0; d < HCB_MAX_DIMS; d++) {
		e->dims[d] = d < shown ? r->dims[d] : 0;
		e->strides[d] = strided && d < shown ? r->dims[HCB_MAX_DIMS + d] : 0;
	}
}

/* Operand i, of few bytes, as read into r->o and r->dims, into e
 * (HCB_EV_JARG_BYTES): its JARG and its bytes' one chunk, the bytes read
 * from the target.  The bytes read (1 to HCB_JAXFFI_ARG_BYTES_MAX), or 0 if
 * they could not be: e is then for the caller to discard. */
static __always_inline __u32 fill_small_operand(struct hcb_ev_jarg_bytes *e,
					      const struct jaxcb_run *r, __u32 i)
{
	const struct copy_ctx *c = &r->w.c;
	__u32 n = (__u32)r->o.nbytes;

	fill_arg(&e->a, r, i, HCB_EV_JARG_BYTES);
	barrier_var(n);
	if (n > HCB_JAXFFI_ARG_BYTES_MAX)
		n = HCB_JAXFFI_ARG_BYTES_MAX;
	if (!n || read_user(e->d, n, (const void *)r->o.b.data))
		return 0;
	e->h.type = HCB_EV_JDATA;
	e->h.consumer_id = i;
	e->h.device = c->device;
	e->h.len = n;
	e->h.seq = c->seq;
	e->h.offset = c->offset;
	e->h.total = c->total;
	return n;
}

/* An operand of few bytes (HCB_EV_JARG_BYTES): its JARG and its bytes'
 * one chunk in one record, the copy done. */
static __noinline int send_small_operand(struct jaxcb_run *r, __u32 i)
{
	struct copy_ctx *c = &r->w.c;
	struct hcb_ev_jarg_bytes *e;
	__u32 n;

	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return LOST_RING;
	n = fill_small_operand(e, r, i);
	if (!n) {
		bpf_ringbuf_discard(e, 0);
		return LOST_UNREADABLE;
	}
	bpf_ringbuf_submit(e, c->leaf < c->nleaves ? BPF_RB_NO_WAKEUP : wake_flag(sizeof(*e)));
	c->offset += n;
	return 0;
}

/* Operand c->leaf: its JARG record, and where its bytes are; or, few,
 * its bytes too. */
static __always_inline int start_operand(struct jaxcb_run *r)
{
	struct copy_ctx *c = &r->w.c;
	struct hcb_ev_jarg *e;
	__u32 i = c->leaf++;
	int rc;

	rc = read_operand(r, i, r->dims);
	if (rc)
		return rc == 1 ? 0 : LOST_UNREADABLE;   /* a token: nothing to send */
	if (r->o.nbytes && r->o.nbytes <= HCB_JAXFFI_ARG_BYTES_MAX)
		return send_small_operand(r, i);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return LOST_RING;
	fill_arg(e, r, i, HCB_EV_JARG);
	/* read back from the record (volatile: not the value just stored),
	 * where the verifier keeps no bounds: with the bounds o.nbytes may
	 * have, it would walk the copy loop once per possible chunk, and give
	 * up */
	c->left = *(volatile __u64 *)&e->nbytes;
	bpf_ringbuf_submit(e, r->o.nbytes || c->leaf < c->nleaves ? BPF_RB_NO_WAKEUP :
			   wake_flag(sizeof(*e)));
	c->consumer_id = i;
	c->src = r->o.b.data;
	return 0;
}

/* Second pass, one step at a time: start an operand or send a chunk of it
 * (arg: a loop_ref to the run). */
static long send_step(__u32 i, void *arg)
{
	struct jaxcb_run *r = ((struct loop_ref *)arg)->state;
	struct copy_ctx *c = &r->w.c;
	int err;

	if (c->left == 0) {
		if (c->leaf >= c->nleaves)
			return 1;
		err = start_operand(r);
	} else {
		err = emit_chunk(c);
	}
	if (err) {
		c->failed = err;
		return 1;
	}
	return 0;
}

/* The call's "index" attribute (a u64 scalar): the callback's place in its
 * executable's list, into *index.  Attributes are few; look at the first
 * four.  The FFI probes' (CPU and CUDA), not the legacy one's. */
static __noinline int find_index(struct jaxcb_run *r, const struct jaxffi_xla_attrs *a,
				 __u64 *index)
{
	struct jaxcb_site_reads *x = &r->site;

	for (__u32 i = 0; i < 4; i++) {
		if (i >= a->size)
			break;
		if (copy_user(&x->name_ptr, 8, (void *)(a->names + i * 8)) ||
		    copy_user(&x->name, sizeof(x->name), (void *)x->name_ptr) || x->name.len != 5 ||
		    copy_user(x->key, 5, (void *)x->name.ptr) ||
		    x->key[0] != 'i' || x->key[1] != 'n' || x->key[2] != 'd' || x->key[3] != 'e' ||
		    x->key[4] != 'x')
			continue;
		if (copy_user(&x->type, sizeof(x->type), (void *)(a->types + i * 4)) ||
		    x->type != JAXFFI_XLA_ATTR_SCALAR ||
		    copy_user(&x->value_ptr, 8, (void *)(a->attrs + i * 8)) ||
		    copy_user(&x->scalar, sizeof(x->scalar), (void *)x->value_ptr) ||
		    (x->scalar.dtype != JAXFFI_XLA_U64 && x->scalar.dtype != JAXFFI_XLA_S64) ||
		    copy_user(index, sizeof(*index), (void *)x->scalar.value))
			return 0;
		return 1;
	}
	return 0;
}

/* A std::string of the thunk at off into dst (cap bytes, NUL-terminated,
 * cut if longer); its whole length. */
static __noinline __u32 read_name(struct jaxcb_run *r, __u64 thunk, __u32 off, char *dst,
				  __u32 cap)
{
	struct jaxffi_std_string *s = &r->site.str;
	__u32 n;

	if (copy_user(s, sizeof(*s), (void *)(thunk + off)))
		return 0;
	n = s->len < cap - 1 ? (__u32)s->len : cap - 1;
	barrier_var(n);
	if (n > cap - 1)
		n = cap - 1;
	if (n && copy_user(dst, n, (void *)s->ptr))
		return 0;
	return s->len > 0xffffffffull ? 0xffffffffu : (__u32)s->len;
}

/* The call record's head (HCB_JAXFFI_CALL_HEAD bytes, all of a record
 * whose site is not read), its other fields zero (ring memory comes as
 * the last record left it): the call as the walk measured it, at ts_ns
 * (bpf_ktime_get_ns). */
static __always_inline void call_head(struct hcb_ev_jcall *e, const struct walk *w, __u32 handler,
				      __u64 ts_ns)
{
	__u64 key = bpf_get_current_pid_tgid();

	__builtin_memset(e, 0, HCB_JAXFFI_CALL_HEAD);
	e->type = HCB_EV_JCALL;
	e->device = w->c.device;
	e->device_id = w->device_id;
	e->seq = w->c.seq;
	e->ts_ns = ts_ns;
	e->pid = key >> 32;
	e->tid = (__u32)key;
	e->index = ~0ull;
	e->total_bytes = w->total;
	e->nargs = w->count;
	e->handler = handler;
	e->thunk_device = ~0u;
}

/* A whole call record: its head, and its site's fields zero until read. */
static __always_inline void call_whole(struct hcb_ev_jcall *e, const struct walk *w,
				       __u32 handler, __u64 ts_ns)
{
	__builtin_memset((char *)e + HCB_JAXFFI_CALL_HEAD, 0, sizeof(*e) - HCB_JAXFFI_CALL_HEAD);
	call_head(e, w, handler, ts_ns);
}

/* The call site's names, as thunk keeps them: op, module, and the target
 * name read at each place it may be. */
static __always_inline void call_site(struct hcb_ev_jcall *e, struct jaxcb_run *r, __u64 thunk)
{
	e->op_len = read_name(r, thunk, jaxffi_op_off, e->op, sizeof(e->op));
	e->module_len = read_name(r, thunk, jaxffi_module_off, e->module, sizeof(e->module));
	for (__u32 i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		e->target_len[i] = read_name(r, thunk, jaxffi_target_offs[i], e->target[i],
					     sizeof(e->target[i]));
}

/* What a call may take in the ring: its bytes with their padding (less
 * than as much again, see emit_chunk), per operand a JARG and a few chunk
 * headers, and the call record. */
static __always_inline __u64 ring_need(const struct walk *w)
{
	return 2 * w->total + ((__u64)w->count + 2) * 1024 + sizeof(struct hcb_ev_jcall);
}

/*
 * All or nothing, as hcbtap.bpf.c: room for the whole call (ring_need) is
 * taken now, into r->need, or the call is dropped whole, not half sent,
 * and counted on s: 0, or why (LOST_*).  The caller then reserves the call
 * record and tests it once: kernels before 6.4 follow the reservation
 * into the second of two tests of it and refuse the program.
 */
static __always_inline int take_call_room(struct jaxcb_run *r, struct hcb_dev_stats *s)
{
	int lost;

	r->need = ring_need(&r->w);
	lost = ring_take(r->need);
	if (lost)
		dev_count(s, lost);
	return lost;
}

/* The call record could not be reserved: the room goes back, counted. */
static __always_inline void call_record_lost(struct jaxcb_run *r, struct hcb_dev_stats *s)
{
	ring_release(r->need);
	dev_count(s, LOST_RING);
}

/* The first pass over the call's operands (measure_step).  Apart, as each
 * loop here: the verifier's inlining of bpf_loop() adds to the frame that
 * calls it, and the probes' own frames stay small. */
static __noinline void measure_call(struct jaxcb_run *r, __u32 steps)
{
	struct loop_ref ref = { r };

	bpf_loop(steps, measure_step, &ref, 0);
}

/* The call record (e, filled, len bytes of it) submitted, counted on s:
 * the reader is woken for it only if no operand follows. */
static __always_inline void submit_call(const struct walk *w, struct hcb_dev_stats *s,
					struct hcb_ev_jcall *e, __u32 len)
{
	bpf_ringbuf_submit(e, w->count ? BPF_RB_NO_WAKEUP : wake_flag(len));
	dev_count(s, 0);
}

/* After the call record: its operands' bytes (none if it has none to
 * send), and the room given back. */
static __noinline void send_operands(struct jaxcb_run *r, struct hcb_dev_stats *s)
{
	struct walk *w = &r->w;
	struct loop_ref ref = { r };

	w->c.type = HCB_EV_JDATA;
	w->c.total = w->total;
	w->c.nleaves = w->count ? w->nargs : 0;
	bpf_loop(MAX_STEPS, send_step, &ref, 0);
	ring_release(r->need);
	if (w->c.failed)
		dev_count(s, w->c.failed);
}

/* The call record (e, filled, len bytes of it), then its operands. */
static __always_inline void send_call(struct jaxcb_run *r, struct hcb_dev_stats *s,
				      struct hcb_ev_jcall *e, __u32 len)
{
	submit_call(&r->w, s, e, len);
	send_operands(r, s);
}

/* The walk, made ready for a call: every field zero. */
static __always_inline void walk_reset(struct walk *w)
{
	__builtin_memset(w, 0, sizeof(*w));
}

#endif
