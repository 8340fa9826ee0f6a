/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * state.bpf.h - a program's state for one run, kept off the BPF stack: in
 * the current task's local storage, a map each provider defines for its
 * programs with TASK_STATE_MAP.
 *
 * Why not the stack: a program whose stack is 64 bytes or more runs, on
 * x86-64 kernels from 6.13 on, on a private stack, one per CPU, which a
 * sleepable program that sleeps (faulting a page of the target in) shares
 * with the next run of it on that CPU, for another thread, and which
 * older kernels do not have: before 6.13 the stacks of a program and the
 * functions it calls may not add up to more than 512 bytes.  Every
 * function here keeps its stack under 64 bytes (tests/bats/kernels.bats
 * holds it to that, as the verifier reports it).
 *
 * Why the task's: a uprobe's program runs in the thread that hit the
 * probe, from its start to its end, sleeping included, and a thread hits
 * one probe at a time: two runs never share a task's storage.  A per-CPU
 * map would be shared by a sleeping run and the one that took its CPU.
 * The storage of a thread is made on its first run and goes with it.
 */
#ifndef HCB_STATE_BPF_H
#define HCB_STATE_BPF_H

#define TASK_STATE_MAP(TYPE)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);		\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, int);					\
		__type(value, TYPE);					\
	}

/* The current thread's state in map, made (zeroed) on its first run;
 * NULL only if the kernel has no memory for it. */
static __always_inline void *task_state(void *map)
{
	return bpf_task_storage_get(map, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* The current thread's state in map if it has one, else NULL. */
static __always_inline void *task_state_if_any(void *map)
{
	return bpf_task_storage_get(map, bpf_get_current_task_btf(), 0, 0);
}

/* bpf_loop() hands its callback a pointer to the caller's stack only: the
 * state goes through one. */
struct loop_ref {
	void *state;
};

#endif
