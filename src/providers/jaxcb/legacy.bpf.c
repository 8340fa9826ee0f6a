// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * legacy.bpf.c - JAX's Python callbacks before the FFI ones (jaxlib
 * 0.4.26 to 0.5.3): jax.debug.print, jax.debug.callback, io_callback and
 * pure_callback lower to the custom call xla_python_cpu_callback, whose
 * function, xla::XlaPythonCpuCallback(void *out, void **in,
 * XlaCustomCallStatus *), a local symbol of jaxlib's xla_extension.so, is
 * handed the address of an xla::CpuCallback descriptor as its first input
 * and the operands' buffers after it; their dtypes and shapes are in the
 * descriptor.  Two probes:
 *
 *   jaxlegacy_call  on XlaPythonCpuCallback: sends the call and its
 *                   operands as the FFI handler's probe does (call.bpf.h,
 *                   events.h), flagged HCB_JAXFFI_F_LEGACY.
 *   jaxlegacy_run   on the instruction of TfrtCpuExecutable::ExecuteHelper
 *                   that calls the compiled code, XLA's classic runtime:
 *                   compute_function(result, &run_options, NULL, buffers,
 *                   &status, NULL).  Notes which device the run is for,
 *                   keyed by &status, which the compiled code hands every
 *                   custom call it makes, loops' bodies too.
 *
 * Neither XLA nor jax tells the callback its device.  Under the thunk
 * runtime (jaxlib 0.4.33 on, and 0.4.31 on request) jaxffi_thunk, on the
 * CustomCallThunk that makes the call, reads it from the execute
 * parameters, twice (custom call and collective parameters); under the
 * classic runtime the call's status finds the run.  Keyed by status, not
 * by thread: a callback that runs jax itself starts a run on its thread.
 * A call with neither has no device known: it is counted as such
 * (devices.bpf.h), never given one.
 *
 * The descriptor is XLA's internal C++ layout: read as layout.c says it
 * is, and checked on every call here (what can be, in a probe) and in
 * user space (the rest): a descriptor that does not read as one is sent
 * as a call without operands, saying what failed (layout).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "call.bpf.h"
#include "ffi_run.bpf.h"

/* Set by user space before load (jaxcb.c). */
const volatile __u32 jaxlegacy_run_device_off = 8;  /* ExecutableRunOptions::device_ordinal_ */
const volatile __u32 jaxlegacy_arg_size = 88;       /* sizeof(xla::CpuCallback::Arg) */

/* xla::CpuCallback::Arg: one operand's type, numpy dtype and shape */
struct jaxlegacy_arg {
	__u32 type;          /* xla::PrimitiveType */
	__u32 pad;
	__u64 dtype;         /* PyArray_Descr *, NULL for a token */
	__u64 meta;          /* absl::InlinedVector<int64_t, 4> dims: size << 1 | allocated */
	__u64 inl[4];        /* the dims, or {data, capacity} if allocated */
	__u64 strides[3];    /* std::vector<int64_t>: begin, end, capacity (bytes) */
	__u64 size;          /* size_in_bytes */
};

/* xla::CpuCallback's head: the callable, args_ and results_ */
struct jaxlegacy_desc {
	__u64 callable;      /* PyObject * */
	__u64 args[3];       /* std::vector<Arg>: begin, end, capacity */
	__u64 results[3];    /* std::vector<Result> */
};
#define RESULT_SIZE 120u

/* A run's state (bpf/state.bpf.h): the call's, and the descriptor, the
 * Arg being read, the thunk the call came from. */
struct legacy_run {
	struct jaxcb_run r;            /* first: call.bpf.h works on it */
	struct jaxlegacy_desc d;
	struct jaxlegacy_arg a;
	struct jaxffi_thunk_seen seen;
};

TASK_STATE_MAP(struct legacy_run) legacy_runs SEC(".maps");

struct jaxlegacy_run_seen {
	__u32 tid;
	__u32 device;
};

/* the run each status belongs to, classic runtime */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);                /* &status */
	__type(value, struct jaxlegacy_run_seen);
} jaxlegacy_runs SEC(".maps");

SEC("uprobe")
int jaxlegacy_run(struct pt_regs *ctx)
{
	struct jaxlegacy_run_seen v = { .tid = (__u32)bpf_get_current_pid_tgid(), .device = ~0u };
	__u64 opts = PT_REGS_PARM2(ctx), key = PT_REGS_PARM5(ctx);

	bpf_probe_read_user(&v.device, sizeof(v.device), (void *)(opts + jaxlegacy_run_device_off));
	bpf_map_update_elem(&jaxlegacy_runs, &key, &v, BPF_ANY);
	return 0;
}

/* 1 if the vector's three pointers hold whole elements of size, as one
 * copied from a vector of its exact size does (capacity == end). */
static __always_inline int whole_vector(const __u64 *v, __u64 size)
{
	return v[0] <= v[1] && v[1] == v[2] && (v[1] - v[0]) % size == 0 &&
	       (v[1] - v[0]) / size <= HCB_MAX_LEAVES;
}

/* Operand i (call.bpf.h): the descriptor's Arg i and the buffer in[1 + i];
 * what does not read as an Arg goes to o->layout (and is -1, where the
 * rest of it cannot be read as one). */
static __noinline int read_operand(struct jaxcb_run *r, __u32 i, __u64 *dims)
{
	struct legacy_run *l = (struct legacy_run *)r;
	struct jaxlegacy_arg *a = &l->a;
	struct jf_operand *o = &r->o;
	const struct walk *w = &r->w;
	__u64 elems = 1, elem, rank;
	__u32 n;

	__builtin_memset(o, 0, sizeof(*o));
	if (copy_user(a, sizeof(*a), (void *)(w->types + (__u64)i * jaxlegacy_arg_size)) ||
	    copy_user(&o->b.data, sizeof(o->b.data), (void *)(w->args + (__u64)i * 8)))
		return -1;
	o->b.dtype = a->type;
	if (a->type == JAXFFI_XLA_TOKEN) {
		if (!w->c.type && (a->dtype || a->meta || a->strides[0] != a->strides[1] || a->size))
			o->layout = HCB_JAXLEGACY_BAD_TOKEN;
		return 1;
	}
	rank = a->meta >> 1;
	o->b.rank = rank;
	if (!w->c.type) {
		if (!a->dtype || !a->type || a->type >= JAXFFI_XLA_NDTYPES)
			o->layout = HCB_JAXLEGACY_BAD_TYPE;
		else if ((a->meta & 1) != (rank > 4))
			o->layout = HCB_JAXLEGACY_BAD_DIMS;
	}
	if (rank > HCB_MAX_DIMS)
		return 0;
	n = (__u32)rank * 8;
	barrier_var(n);
	if (n > HCB_MAX_DIMS * 8)
		n = HCB_MAX_DIMS * 8;
	if (n && copy_user(dims, n, (a->meta & 1) ? (void *)a->inl[0] :
				    (void *)(w->types + (__u64)i * jaxlegacy_arg_size + 0x18)))
		return -1;
	for (__u32 k = 0; k < HCB_MAX_DIMS; k++) {
		__u64 d = k < n / 8 ? dims[k] : 1;

		if (d > MAX_ELEMS)
			return 2;
		elems *= d;
		if (elems > MAX_ELEMS)
			return 2;
	}
	/* the strides, for the reader to prove row-major: sending pass only */
	o->nstrides = (__u32)((a->strides[1] - a->strides[0]) / 8);
	if (w->c.type && o->nstrides == rank && n &&
	    copy_user(dims + HCB_MAX_DIMS, n, (void *)a->strides[0]))
		return -1;
	/* sub-byte types: XLA of these releases keeps them a byte an element,
	 * not packed as the reader takes them: they are counted there */
	o->nbytes = xla_dtype_bytes(a->type, elems);
	elem = xla_dtype_size(a->type);
	if (!w->c.type && elem && a->size != o->nbytes)
		o->layout = HCB_JAXLEGACY_BAD_SIZE;
	return 0;
}

/* A std::string beside the thunk's target name: its backend_config. */
#define CONFIG_AFTER_TARGET 144u

/*
 * The call record: the device, and where it was found; the call site from
 * the thread's thunk (its entry taken by the caller into l->seen), if it
 * ran one.
 */
static __noinline void fill_call(struct hcb_ev_jcall *e, struct legacy_run *l, __u32 flags)
{
	const struct walk *w = &l->r.w;
	__u64 type = 0, name = 0;

	call_whole(e, w, HCB_JAXFFI_PYTHON, bpf_ktime_get_ns());
	e->thunk_device = (flags & HCB_JAXFFI_F_THUNK) ? l->seen.coll_device : ~0u;
	e->flags = flags;
	e->desc = w->desc;
	e->layout = w->layout;
	/* ob_type, then its tp_name (CPython's PyObject and PyTypeObject) */
	if (!copy_user(&type, sizeof(type), (void *)(w->callable + 8)) &&
	    !copy_user(&name, sizeof(name), (void *)(type + 24)))
		copy_user(e->pytype, sizeof(e->pytype) - 1, (void *)name);
	if (!(flags & HCB_JAXFFI_F_THUNK))
		return;
	call_site(e, &l->r, l->seen.thunk);
	for (__u32 i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		read_name(&l->r, l->seen.thunk, jaxffi_target_offs[i] + CONFIG_AFTER_TARGET,
			  e->config[i], sizeof(e->config[i]));
}

/* The call's device: the thunk's (taken into l->seen: a later call must not
 * find it), or the classic run's that has the call's status; *flags says
 * which. */
static __always_inline __u32 call_device(__u64 status, struct legacy_run *l, __u32 *flags)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct ffi_run *f = task_state_if_any(&ffi_runs);
	struct jaxlegacy_run_seen *r;

	if (f && take_thunk(&f->thunk_slot, &l->seen)) {
		*flags = HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_THUNK;
		return l->seen.device;
	}
	r = bpf_map_lookup_elem(&jaxlegacy_runs, &status);
	if (r && r->tid == (__u32)key) {
		*flags = HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_RUN;
		return r->device;
	}
	*flags = HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_NODEV;
	return 0;
}

/* The descriptor of the call whose inputs are at in, checked as far as a
 * probe can, into the walk: 0, or -1 if it could not be read. */
static __noinline int read_desc(struct legacy_run *l, __u64 in)
{
	struct walk *w = &l->r.w;
	__u64 p0 = 0, desc = 0;

	if (copy_user(&p0, sizeof(p0), (void *)in) ||
	    copy_user(&desc, sizeof(desc), (void *)p0) ||
	    copy_user(&l->d, sizeof(l->d), (void *)desc))
		return -1;
	if ((desc & 7) || !whole_vector(l->d.args, jaxlegacy_arg_size) ||
	    !whole_vector(l->d.results, RESULT_SIZE))
		w->layout = HCB_JAXLEGACY_BAD_DESC;
	w->desc = desc;
	w->callable = l->d.callable;
	w->types = l->d.args[0];
	w->args = in + 8;
	w->nargs = w->layout ? 0 : (__u32)((l->d.args[1] - l->d.args[0]) / jaxlegacy_arg_size);
	return 0;
}

/* Sleepable where the kernel can (jaxcb.c lists it): the operands may sit
 * in pages the target has not touched lately, and bpf_copy_from_user()
 * may have to fault them in. */
SEC("uprobe")
int jaxlegacy_call(struct pt_regs *ctx)
{
	__u64 in = PT_REGS_PARM2(ctx), status = PT_REGS_PARM3(ctx);
	struct legacy_run *l = task_state(&legacy_runs);
	struct hcb_dev_stats *s;
	struct hcb_ev_jcall *e;
	__u32 flags, dev;
	int slot;

	/* a call whose device is not known is counted on none (devices.bpf.h):
	 * no state to find it in, no device given (a call under way when
	 * hcbtrace attached), or an ordinal XLA's int cannot be (the thunk's
	 * ~0: unreadable) */
	if (!l) {
		nodev_count(LOST_NOMEM);
		return 0;
	}
	walk_reset(&l->r.w);
	dev = call_device(status, l, &flags);
	if ((flags & HCB_JAXFFI_F_NODEV) || dev > 0x7fffffffu) {
		nodev_count((flags & HCB_JAXFFI_F_NODEV) ? LOST_NODEV : LOST_UNREADABLE);
		return 0;
	}
	slot = dev_slot(dev);
	s = slot < 0 ? NULL : dev_stats((__u32)slot);
	if (!s)
		return 0;   /* past the slots: counted */
	/* calls are numbered per device as the probe counts them */
	l->r.w.c.seq = __sync_fetch_and_add(&s->handled, 1);
	l->r.w.c.device = (__u32)slot;
	l->r.w.device_id = dev;
	if (read_desc(l, in)) {
		dev_count(s, LOST_UNREADABLE);
		return 0;
	}
	measure_call(&l->r, HCB_MAX_LEAVES);
	if (!l->r.w.layout && (l->r.w.bad || l->r.w.too_big)) {
		dev_count(s, l->r.w.bad ? LOST_UNREADABLE : LOST_RING);
		return 0;
	}
	if (l->r.w.layout)   /* the call alone, to say so */
		l->r.w.count = l->r.w.total = 0;
	if (take_call_room(&l->r, s))
		return 0;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		call_record_lost(&l->r, s);
		return 0;
	}
	fill_call(e, l, flags);
	send_call(&l->r, s, e, sizeof(*e));
	return 0;
}
