// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pycall.bpf.c - the Python side of JAX's callbacks (jaxlib >= 0.6), read
 * while jaxlib runs them: the FFI handler jaxffi.bpf.c probes calls, on
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
 *   jaxffi_inner      its entry: sends the callable (pycall_events.h) and
 *                     marks the thread as inside a callback
 *   jaxffi_inner_ret  its return: the mark removed, the end sent
 *
 * FfiLoadedHostCallbacks is {void **callbacks; uint32 num_callbacks}
 * (xla/pjrt/host_callback.h): index is checked against its length, and
 * what the pointer read is, is for user space to prove (a PyObject whose
 * type checks out), never trusted here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capture.bpf.h"
#include "pycall_events.h"

struct pycall_inside {
	__u64 callable;
	__u64 index;
};

/* The threads inside the inner function now (pid_tgid): what the
 * concatenation probe looks at before it reads anything. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct pycall_inside);
} jaxffi_inside SEC(".maps");

struct ffi_loaded_host_callbacks {
	__u64 callbacks;     /* void ** */
	__u32 num;
	__u32 pad;
};

/* Not sleepable: callbacks was just read by the caller. */
SEC("uprobe")
int jaxffi_inner(struct pt_regs *ctx)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct ffi_loaded_host_callbacks cbs = {};
	struct pycall_inside in = {};
	struct hcb_ev_jpycall *e;
	__u32 flags = 0;

	in.index = PT_REGS_PARM4(ctx);
	if (bpf_probe_read_user(&cbs, sizeof(cbs), (void *)PT_REGS_PARM2(ctx)) ||
	    in.index >= cbs.num ||
	    bpf_probe_read_user(&in.callable, sizeof(in.callable),
				(void *)(cbs.callbacks + in.index * 8))) {
		in.callable = 0;
		flags = HCB_JPY_F_NOCALLABLE;
	}
	bpf_map_update_elem(&jaxffi_inside, &key, &in, BPF_ANY);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return 0;    /* the decoder sees no callable: the tap as before */
	e->type = HCB_EV_JPYCALL;
	e->pid = key >> 32;
	e->tid = (__u32)key;
	e->flags = flags;
	e->callable = in.callable;
	e->index = in.index;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("uretprobe")
int jaxffi_inner_ret(struct pt_regs *ctx)
{
	__u64 key = bpf_get_current_pid_tgid();
	struct hcb_ev_jpyend *e;

	bpf_map_delete_elem(&jaxffi_inside, &key);
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
