// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * common.bpf.c - what the providers' programs share (capture.bpf.h): the
 * ring buffer, the per-device counters, and the watch for the target
 * exec'ing a new program, which every session needs whatever its provider.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define HCB_BPF_COMMON
#include "capture.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The traced process, set by user space once it attaches; exec_lost says
 * an exec happened while the ring buffer was full. */
__u32 target_tgid = 0;
__u32 exec_lost = 0;

/*
 * The target replaced its program image.  Its old probes are gone with it;
 * a new image mapping libhcbtap would be traced again under a new registry
 * and restarted sequence numbers, so the reader ends the session here.
 *
 * A BTF raw tracepoint: it needs only the kernel's BTF, not a mounted
 * tracefs (which a classic "tp/" program needs to look up its id, and
 * which a fresh machine does not have).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(hcb_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct hcb_ev_exec *e;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!target_tgid || tgid != target_tgid)
		return 0;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		exec_lost = 1;
		return 0;
	}
	e->type = HCB_EV_EXEC;
	e->pid = tgid;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}
