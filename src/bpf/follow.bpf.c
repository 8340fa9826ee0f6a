// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * follow.bpf.c - record --follow's watch (forks.h): every process a
 * followed process forks is followed too, and said on the ring, so that
 * hcbtrace knows a command's processes as they start, without looking
 * through /proc; and each exec of one, so that a child forked from a
 * traced process is attached once it runs a program of its own.  BTF raw
 * tracepoints, as the exec watch: no tracefs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "capture.bpf.h"

/* The followed processes by tgid: hcbtrace's own, put there before it
 * starts the command, and every one forked since.  LRU: a process gone
 * leaves its entry to age out, whatever the command starts. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} follow_tgids SEC(".maps");

/* A fork not said: the ring was full (user space then looks in /proc) */
__u32 follow_lost = 0;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(hcb_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct hcb_ev_fork *e;
	__u8 yes = 1;

	/* a thread is not a process */
	if (ptgid == ctgid || !bpf_map_lookup_elem(&follow_tgids, &ptgid))
		return 0;
	bpf_map_update_elem(&follow_tgids, &ctgid, &yes, BPF_ANY);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		follow_lost = 1;
		return 0;
	}
	e->type = HCB_EV_FORK;
	e->pid = ctgid;
	e->ppid = ptgid;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(hcb_follow_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct hcb_ev_fork *e;

	if (!bpf_map_lookup_elem(&follow_tgids, &tgid))
		return 0;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		follow_lost = 1;
		return 0;
	}
	e->type = HCB_EV_FOLLOW_EXEC;
	e->pid = tgid;
	e->ppid = 0;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* A followed process ended: its last thread's exit (signal->live down to
 * 0), with its exit code as waitpid(2) would say it (the group's, set
 * before the tracepoint), which the process's parent alone would learn:
 * --until exit fires on it.  The entry goes with it. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(hcb_follow_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct hcb_ev_fork *e;

	if (BPF_CORE_READ(p, signal, live.counter) != 0 ||
	    !bpf_map_lookup_elem(&follow_tgids, &tgid))
		return 0;
	bpf_map_delete_elem(&follow_tgids, &tgid);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		follow_lost = 1;
		return 0;
	}
	e->type = HCB_EV_FOLLOW_EXIT;
	e->pid = tgid;
	e->ppid = 0;
	e->pad = (__u32)p->exit_code;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
