// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pycall.bpf.c - the Python side of JAX's callbacks (jaxlib >= 0.6), read
 * while jaxlib runs them: the FFI handler ffi.bpf.c probes calls, on
 * the same thread, a local function of libjax_common.so,
 *
 *   ffi::Error {xla,jax}::XlaFfiPythonCpuCallback(
 *       FfiLoadedHostCallbacks *callbacks, CpuTransposePlanCache *,
 *       uint64_t index, RemainingArgs, RemainingRets)
 *
 * (xla:: in 0.6, jax:: from 0.7), which calls callbacks->callbacks[index],
 * the Python callable, and returns when it has.  On x86-64 the returned
 * Error goes through a hidden pointer in rdi, so callbacks is rsi and
 * index rcx: every jaxlib from 0.6.0 to 0.12.0.1 loads callbacks[index]
 * so at its start (mov (%rsi'),%rax; mov (%rax,%rcx',8),%rax).
 *
 *   its entry         sends the callable (pycall_events.h) and marks the
 *                     thread as inside a callback (in its state,
 *                     bpf/state.bpf.h): pyentry.bpf.h, run by the call's
 *                     own probe there (ffi.bpf.c), or where that is
 *                     elsewhere by jaxffi_inner
 *   jaxffi_inner_ret  its return: the mark removed, the end sent
 *
 * The entry of a callable not seen before (a new call site, most often)
 * wakes the reader at once: it names the site from the callable's objects
 * while the call runs, so a program that ends right after its calls has
 * its sites named by its code (the ring's other records wake it only by
 * the bytes they fill, which a few short calls do not).  A reader slow to
 * wake (a loaded machine) may still come after the program ended: a
 * process hcbtrace started itself waits, stopped, until its site is named
 * (pycall_hold, pycall_events.h).
 *
 * FfiLoadedHostCallbacks is {void **callbacks; uint32 num_callbacks}
 * (xla/pjrt/host_callback.h): index is checked against its length, and
 * what the pointer read is, is for user space to prove (a PyObject whose
 * type checks out), never trusted here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define HCB_PYCALL_OWNER
#include "pyentry.bpf.h"
#include "process/pystr_state.h"

/* The entry alone, where the call's probe is not at the same address
 * (on the handler: HCBTRACE_TEST_JAXFFI_INNER=handler, jaxcb.c). */
SEC("uprobe")
int jaxffi_inner(struct pt_regs *ctx)
{
	struct ffi_run *f = task_state(&ffi_runs);
	__u64 index = PT_REGS_PARM4(ctx);

	if (f)
		py_enter(&f->py, PT_REGS_PARM2(ctx), index);
	send_entry(f ? &f->py : NULL, index, bpf_ktime_get_ns());
	return 0;
}

SEC("uretprobe")
int jaxffi_inner_ret(struct pt_regs *ctx)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct ffi_run *f = task_state_if_any(&ffi_runs);
	struct hcb_ev_jpyend *e;

	if (f)
		f->py.inside = 0;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return 0;    /* the decoder lets the tap go at the thread's next call */
	e->type = HCB_EV_JPYEND;
	e->pid = key >> 32;
	e->tid = (__u32)key;
	e->pad = 0;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, wake_flag(sizeof(*e)));
	return 0;
}

/*
 * The text jax.debug.print writes: it ends, in every jax version, in
 * sys.stdout.write(msg + "\n") on the callback's thread, and CPython
 * concatenates two str with PyUnicode_Concat(left, right) (3.11+:
 * BINARY_OP's add calls it, through the PLT) or PyUnicode_Append(&left,
 * right) (3.10: BINARY_ADD's unicode_concatenate).  pytext_concat sits
 * there: on a thread inside a callback only, a concatenation whose right
 * operand is the one-character str "\n" sends its left operand's bytes as
 * CPython holds them (HCB_EV_JPYTEXT); the decoder keeps the last.
 *
 * Where a str keeps its length, state and characters is CPython's
 * (Include/cpython/unicodeobject.h), per version: user space writes it in
 * pytext_cfg after it found the target's Python, with the address of
 * PyUnicode_Type.  Each operand must prove it: its type is str, its state
 * says compact and a valid kind, its length is in bounds, and the
 * character after the last is NUL, as CPython ends every compact str.
 * A left operand that fails is sent as HCB_JPY_T_BAD, never its bytes.
 */
struct pytext_cfg {
	__u64 str_type;          /* &PyUnicode_Type in the target; 0: off */
	__u32 append;            /* 1: PyUnicode_Append(PyObject **, PyObject *) */
	__u32 length_off;        /* PyASCIIObject.length */
	__u32 state_off;         /* PyASCIIObject.state */
	__u32 ascii_data;        /* sizeof(PyASCIIObject) */
	__u32 compact_data;      /* sizeof(PyCompactUnicodeObject) */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pytext_cfg);
} pytext_config SEC(".maps");

#define STR_KIND(state) (((state) >> HCB_PYSTR_KIND_SHIFT) & HCB_PYSTR_KIND_MASK)
#define STR_COMPACT HCB_PYSTR_COMPACT
#define STR_ASCII HCB_PYSTR_ASCII

/* A str's head: its length, state and where its characters are; 0, or -1
 * for what is not a compact str as cfg lays it out. */
static __always_inline int read_str(const struct pytext_cfg *cfg, __u64 obj, __u64 *len,
				    __u32 *state, __u64 *data)
{
	__u64 type = 0;

	if (!obj || bpf_probe_read_user(&type, sizeof(type), (void *)(obj + 8)) ||
	    type != cfg->str_type ||
	    bpf_probe_read_user(len, sizeof(*len), (void *)(obj + cfg->length_off)) ||
	    bpf_probe_read_user(state, sizeof(*state), (void *)(obj + cfg->state_off)))
		return -1;
	if (!(*state & STR_COMPACT))
		return -1;
	if (*state & STR_ASCII) {
		if (STR_KIND(*state) != 1)
			return -1;
		*data = obj + cfg->ascii_data;
	} else {
		if (STR_KIND(*state) != 1 && STR_KIND(*state) != 2 && STR_KIND(*state) != 4)
			return -1;
		*data = obj + cfg->compact_data;
	}
	return 0;
}

/* The right operand is the str "\n": one ASCII character, NUL after. */
static __always_inline int is_newline(const struct pytext_cfg *cfg, __u64 obj)
{
	__u64 len = 0, data = 0;
	__u32 state = 0;
	char c[2] = {};

	return !read_str(cfg, obj, &len, &state, &data) && len == 1 && (state & STR_ASCII) &&
	       !bpf_probe_read_user(c, sizeof(c), (void *)data) && c[0] == '\n' && c[1] == 0;
}

/* One text record of a fixed class size, its n bytes read at data; the
 * character after them must be NUL, or it goes as HCB_JPY_T_BAD. */
#define SEND_CLASS(SIZE)							\
	do {									\
		struct { struct hcb_ev_jpytext h; unsigned char d[SIZE]; } *r;	\
		__u32 m = (__u32)n;						\
		__u32 nul = 1;							\
		r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);			\
		if (!r)								\
			return 0;						\
		__builtin_memcpy(&r->h, h, sizeof(*h));				\
		barrier_var(m);							\
		if (m > (SIZE))							\
			m = (SIZE);						\
		if (bpf_probe_read_user(r->d, m, (void *)data) ||		\
		    bpf_probe_read_user(&nul, kind < 4 ? kind : 4,		\
					(void *)(data + m))) {			\
			r->h.flags |= HCB_JPY_T_BAD;				\
			r->h.nbytes = 0;					\
		} else if (nul) {						\
			r->h.flags |= HCB_JPY_T_BAD;				\
			r->h.nbytes = 0;					\
		}								\
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);			\
		return 0;							\
	} while (0)

static __noinline int send_text(struct hcb_ev_jpytext *h, __u64 data, __u64 n, __u32 kind)
{
	if (n <= 256)
		SEND_CLASS(256);
	if (n <= 4096)
		SEND_CLASS(4096);
	SEND_CLASS(HCB_JPY_TEXT_MAX);
}

static __noinline int send_head(struct hcb_ev_jpytext *h)
{
	struct hcb_ev_jpytext *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (!r)
		return 0;
	__builtin_memcpy(r, h, sizeof(*h));
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* The left operand of a thread's concatenation, sent (or why not). */
static __noinline int send_left(struct pycall_run *p, const struct pytext_cfg *cfg, __u64 left)
{
	struct hcb_ev_jpytext *h = &p->h;
	__u64 key = bpf_get_current_pid_tgid(), len = 0, data = 0, n;
	__u32 state = 0, kind;

	__builtin_memset(h, 0, sizeof(*h));
	h->type = HCB_EV_JPYTEXT;
	h->pid = key >> 32;
	h->tid = (__u32)key;
	if (read_str(cfg, left, &len, &state, &data)) {
		h->flags = HCB_JPY_T_BAD;
		return send_head(h);
	}
	kind = STR_KIND(state);
	h->kind = kind;
	h->ascii = !!(state & STR_ASCII);
	h->length = len;
	if (len > HCB_JPY_TEXT_MAX / kind) {
		h->flags = HCB_JPY_T_LONG;
		return send_head(h);
	}
	n = len * kind;
	h->nbytes = n;
	return send_text(h, data, n, kind);
}

/* Not sleepable: it runs on every concatenation of the whole program, and
 * reads only objects just handed to it. */
SEC("uprobe")
int pytext_concat(struct pt_regs *ctx)
{
	struct ffi_run *f = task_state_if_any(&ffi_runs);
	struct pytext_cfg *cfg;
	__u32 zero = 0;
	__u64 left;

	if (!f || !f->py.inside)
		return 0;
	cfg = bpf_map_lookup_elem(&pytext_config, &zero);
	if (!cfg || !cfg->str_type || !is_newline(cfg, PT_REGS_PARM2(ctx)))
		return 0;
	left = PT_REGS_PARM1(ctx);
	if (cfg->append && bpf_probe_read_user(&left, sizeof(left), (void *)left))
		left = 0;
	return send_left(&f->py, cfg, left);
}
