/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * call.bpf.h - what the two probes of JAX's Python callbacks share: the
 * FFI handler's (ffi.bpf.c, jaxlib >= 0.6) and the legacy custom
 * call's (legacy.bpf.c, jaxlib 0.4.26 to 0.5.3).  Both send a call as
 * the same records (events.h): the call, then per operand its shape
 * and its bytes.  Where they differ is where an operand's shape and bytes
 * are: each .bpf.c defines read_operand() for its own, and this header's
 * walk over the operands calls it.
 *
 * The thunk each thread runs, and where XLA keeps what is read of it, are
 * ffi.bpf.c's (HCB_JAXCALL_OWNER); legacy.bpf.c sees them as extern,
 * as capture.bpf.h shares the ring.
 */
#ifndef HCB_JAXCALL_BPF_H
#define HCB_JAXCALL_BPF_H

#include "bpf/copy.bpf.h"
#include "ffi_abi.h"
#include "events.h"

struct jaxffi_thunk_seen {
	__u64 thunk;
	__u32 device;       /* from the execute parameters, ~0 if unreadable */
	__u32 coll_device;  /* from their collective parameters (legacy only), ~0 */
};

#define HCB_JAXFFI_THUNKS_MAP						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_LRU_HASH);			\
		__uint(max_entries, 8192);				\
		__type(key, __u64);              /* pid_tgid */		\
		__type(value, struct jaxffi_thunk_seen);		\
	}

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
/* the thunk each thread is running: written before, read by the handler */
HCB_JAXFFI_THUNKS_MAP jaxffi_thunks SEC(".maps");
#else
extern const volatile __u32 jaxffi_op_off;
extern const volatile __u32 jaxffi_module_off;
extern const volatile __u32 jaxffi_target_offs[HCB_JAXFFI_TARGET_PLACES];
extern HCB_JAXFFI_THUNKS_MAP jaxffi_thunks SEC(".maps");
#endif

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
	__u32 pad;
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


/*
 * Operand i of the call: its buffer, size and dims (into
 * dims[HCB_MAX_DIMS]; in the sending pass, its strides, if it has any,
 * into dims[HCB_MAX_DIMS .. 2 * HCB_MAX_DIMS), the JARG record's strides).  Returns 1 for a token (no data), 0 for an operand
 * to send, 2 for one of more than MAX_ELEMS elements, -1 if the target's
 * memory could not be read.  Defined by the .bpf.c that includes this.
 * Not inlined, here and below: the verifier then meets the caller in one
 * state whatever path was taken inside.
 */
static __noinline int read_operand(const struct walk *w, __u32 i, struct jf_operand *o,
				   __u64 *dims);

/* First pass: how much is to be sent. */
static long measure_step(__u32 i, void *arg)
{
	struct walk *w = arg;
	__u64 dims[HCB_MAX_DIMS];
	struct jf_operand o;
	int r;

	if (i >= w->nargs)
		return 1;
	r = read_operand(w, i, &o, dims);
	w->layout |= o.layout;
	if (r < 0 || r == 2 || w->layout) {
		w->bad |= r < 0;
		w->too_big |= r == 2;
		return 1;
	}
	if (r == 0) {
		w->count++;
		w->total += o.nbytes;
	}
	return 0;
}

/* Operand c->leaf: its JARG record, and where its bytes are. */
static __always_inline int start_operand(struct walk *w)
{
	struct copy_ctx *c = &w->c;
	struct hcb_ev_jarg *e;
	__u32 i = c->leaf++;
	struct jf_operand o;
	int r;

	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return LOST_RING;
	__builtin_memset(e->dims, 0, sizeof(e->dims));
	__builtin_memset(e->strides, 0, sizeof(e->strides));
	r = read_operand(w, i, &o, e->dims);
	if (r) {
		bpf_ringbuf_discard(e, 0);
		return r == 1 ? 0 : LOST_UNREADABLE;   /* a token: nothing to send */
	}
	e->type = HCB_EV_JARG;
	e->device = c->device;
	e->seq = c->seq;
	e->arg = i;
	e->dtype = o.b.dtype;
	e->rank = o.b.rank > 0xffff ? 0xffff : (__u32)o.b.rank;
	e->nstrides = o.nstrides;
	e->nbytes = o.nbytes;
	/* read back from the record (volatile: not the value just stored),
	 * where the verifier keeps no bounds: with the bounds o.nbytes may
	 * have, it would walk the copy loop once per possible chunk, and give
	 * up */
	c->left = *(volatile __u64 *)&e->nbytes;
	bpf_ringbuf_submit(e, o.nbytes || c->leaf < c->nleaves ? BPF_RB_NO_WAKEUP : wake_flag(sizeof(*e)));
	c->consumer_id = i;
	c->src = o.b.data;
	return 0;
}

/* Second pass, one step at a time: start an operand or send a chunk of it. */
static long send_step(__u32 i, void *arg)
{
	struct walk *w = arg;
	struct copy_ctx *c = &w->c;
	int err;

	if (c->left == 0) {
		if (c->leaf >= c->nleaves)
			return 1;
		err = start_operand(w);
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
 * executable's list.  Attributes are few; look at the first four.  The FFI
 * probes' (CPU and CUDA), not the legacy one's. */
static __noinline int find_index(const struct jaxffi_xla_attrs *a, __u64 *index)
{
	for (__u32 i = 0; i < 4; i++) {
		struct jaxffi_xla_bytespan name;
		struct jaxffi_xla_scalar sc;
		__u64 np = 0, vp = 0;
		__u32 type = 0;
		char key[5];

		if (i >= a->size)
			break;
		if (copy_user(&np, sizeof(np), (void *)(a->names + i * 8)) ||
		    copy_user(&name, sizeof(name), (void *)np) || name.len != 5 ||
		    copy_user(key, sizeof(key), (void *)name.ptr) ||
		    key[0] != 'i' || key[1] != 'n' || key[2] != 'd' || key[3] != 'e' || key[4] != 'x')
			continue;
		if (copy_user(&type, sizeof(type), (void *)(a->types + i * 4)) ||
		    type != JAXFFI_XLA_ATTR_SCALAR ||
		    copy_user(&vp, sizeof(vp), (void *)(a->attrs + i * 8)) ||
		    copy_user(&sc, sizeof(sc), (void *)vp) ||
		    (sc.dtype != JAXFFI_XLA_U64 && sc.dtype != JAXFFI_XLA_S64) ||
		    copy_user(index, sizeof(*index), (void *)sc.value))
			return 0;
		return 1;
	}
	return 0;
}

/* A std::string of the thunk at off into dst (cap bytes, NUL-terminated,
 * cut if longer); its whole length. */
static __noinline __u32 read_name(__u64 thunk, __u32 off, char *dst, __u32 cap)
{
	struct jaxffi_std_string s;
	__u32 n;

	if (copy_user(&s, sizeof(s), (void *)(thunk + off)))
		return 0;
	n = s.len < cap - 1 ? (__u32)s.len : cap - 1;
	barrier_var(n);
	if (n > cap - 1)
		n = cap - 1;
	if (n && copy_user(dst, n, (void *)s.ptr))
		return 0;
	return s.len > 0xffffffffull ? 0xffffffffu : (__u32)s.len;
}

/* The call record's head, every other field zero (ring memory comes
 * as the last record left it): the call as the walk measured it. */
static __always_inline void call_head(struct hcb_ev_jcall *e, const struct walk *w, __u32 handler)
{
	__u64 key = bpf_get_current_pid_tgid();

	__builtin_memset(e, 0, sizeof(*e));
	e->type = HCB_EV_JCALL;
	e->device = w->c.device;
	e->seq = w->c.seq;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = key >> 32;
	e->tid = (__u32)key;
	e->index = ~0ull;
	e->total_bytes = w->total;
	e->nargs = w->count;
	e->handler = handler;
	e->thunk_device = ~0u;
}

/* The call site's names, as thunk keeps them: op, module, and the target
 * name read at each place it may be. */
static __always_inline void call_site(struct hcb_ev_jcall *e, __u64 thunk)
{
	e->op_len = read_name(thunk, jaxffi_op_off, e->op, sizeof(e->op));
	e->module_len = read_name(thunk, jaxffi_module_off, e->module, sizeof(e->module));
	for (__u32 i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		e->target_len[i] = read_name(thunk, jaxffi_target_offs[i], e->target[i],
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
 * taken now, or the call is dropped whole, not half sent.  The call record
 * reserved (the caller fills and submits it), *need the room taken; NULL,
 * counted on s, if there was none.
 */
static __always_inline struct hcb_ev_jcall *reserve_call(struct walk *w, struct hcb_dev_stats *s,
							  __u64 *need)
{
	struct hcb_ev_jcall *e;
	int lost;

	*need = ring_need(w);
	lost = ring_take(*need);
	if (lost) {
		dev_count(s, lost);
		return NULL;
	}
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		ring_release(*need);
		dev_count(s, LOST_RING);
	}
	return e;
}

/* After the call record (e, filled): submitted, then its operands' bytes
 * (none if it has none to send), and the room given back. */
static __always_inline void send_call(struct walk *w, struct hcb_dev_stats *s,
				      struct hcb_ev_jcall *e, __u64 need)
{
	bpf_ringbuf_submit(e, w->count ? BPF_RB_NO_WAKEUP : wake_flag(sizeof(*e)));
	dev_count(s, 0);
	w->c.type = HCB_EV_JDATA;
	w->c.total = w->total;
	w->c.nleaves = w->count ? w->nargs : 0;
	bpf_loop(MAX_STEPS, send_step, w, 0);
	ring_release(need);
	if (w->c.failed)
		dev_count(s, w->c.failed);
}

#endif
