/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * pyentry.bpf.h - the entry of jaxlib's inner function, where the Python
 * callable of a callback is (pycall.bpf.c says what the function is):
 * what jaxffi_inner does there, and jaxffi_call too where it sits at the
 * same address (ffi.bpf.c, HCB_JAXFFI_WITH_ENTRY): one program run a trap
 * then, not two.
 *
 * The thread's state is its ffi_run's py (ffi_run.bpf.h): a call at the
 * inner function looks up one storage for the call and its entry.  It and
 * the maps of first sight and holding are pycall.bpf.c's
 * (HCB_PYCALL_OWNER), which links first; ffi.bpf.c sees them as extern, as
 * capture.bpf.h shares the ring.
 */
#ifndef HCB_PYENTRY_BPF_H
#define HCB_PYENTRY_BPF_H

#include "bpf/capture.bpf.h"
#include "ffi_run.bpf.h"
#include "pycall_events.h"

struct ffi_loaded_host_callbacks {
	__u64 callbacks;     /* void ** */
	__u32 num;
	__u32 pad;
};

struct pycall_seen_key {
	__u32 tgid;
	__u32 pad;
	__u64 callable;
};

/* The callables whose entry woke the reader once: a process's sites are a
 * few dozen, so one forgotten by the LRU wakes it again, no more. */
#define HCB_PYCALL_SEEN_MAP						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_LRU_HASH);			\
		__uint(max_entries, 4096);				\
		__type(key, struct pycall_seen_key);			\
		__type(value, __u8);					\
	}

#define HCB_PYCALL_HOLD_MAP						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, 1);					\
		__type(key, __u32);					\
		__type(value, struct hcb_pycall_hold);			\
	}

#ifdef HCB_PYCALL_OWNER
HCB_PYCALL_SEEN_MAP pycall_seen SEC(".maps");
HCB_PYCALL_HOLD_MAP pycall_hold SEC(".maps");
#else
extern HCB_PYCALL_SEEN_MAP pycall_seen SEC(".maps");
extern HCB_PYCALL_HOLD_MAP pycall_hold SEC(".maps");
#endif

/* BPF_RB_FORCE_WAKEUP for a callable's first entry, else no wake-up; p:
 * the thread's state (NULL: none), whose last callable was seen (a
 * callback's calls come one site after another, most often the same). */
static __always_inline __u64 first_sight(struct pycall_run *p, __u32 tgid, __u64 callable)
{
	struct pycall_seen_key k = { .tgid = tgid, .callable = callable };
	__u64 mm = (__u64)bpf_get_current_task_btf()->mm;
	__u8 one = 1;

	if (!callable || (p && p->seen_callable == callable && p->seen_mm == mm))
		return BPF_RB_NO_WAKEUP;
	if (p) {
		p->seen_callable = callable;
		p->seen_mm = mm;
	}
	if (bpf_map_lookup_elem(&pycall_seen, &k))
		return BPF_RB_NO_WAKEUP;
	bpf_map_update_elem(&pycall_seen, &k, &one, BPF_ANY);
	return BPF_RB_FORCE_WAKEUP;
}

#define HOLD_SIGSTOP 19

/* A callable's first entry in a process to be held (pycall_events.h):
 * stopped from its own thread before the record goes, so that user
 * space's SIGCONT, sent once it has read the record, always comes after
 * the stop.  HCB_JPY_F_HELD, or 0. */
static __always_inline __u32 hold_first(__u64 wake)
{
	struct hcb_pycall_hold *h;
	__u32 zero = 0;

	if (wake != BPF_RB_FORCE_WAKEUP)
		return 0;
	h = bpf_map_lookup_elem(&pycall_hold, &zero);
	if (!h || !h->on || bpf_send_signal(HOLD_SIGSTOP))
		return 0;
	__sync_fetch_and_add(&h->sent, 1);
	return HCB_JPY_F_HELD;
}

/* The callable callbacks[index] of the FfiLoadedHostCallbacks at cbs, as
 * read (never trusted here: pycall.bpf.c), or 0 if it could not be.  Read
 * into the stack: the kernel's check of a copy's destination costs the
 * least there, and the frame, apart from its caller's, stays small. */
static __noinline __u64 read_callable(__u64 cbs, __u64 index)
{
	struct ffi_loaded_host_callbacks c;
	__u64 callable = 0;

	if (bpf_probe_read_user(&c, sizeof(c), (void *)cbs) || index >= c.num ||
	    bpf_probe_read_user(&callable, sizeof(callable), (void *)(c.callbacks + index * 8)))
		return 0;
	return callable;
}

/* The inner function entered (its callbacks and index arguments): the
 * callable read into the thread's state p, the thread marked as inside a
 * callback.  Not sleepable: callbacks was just read by the caller. */
static __noinline void py_enter(struct pycall_run *p, __u64 cbs, __u64 index)
{
	p->callable = read_callable(cbs, index);
	p->index = index;
	/* the concatenation probe acts on this thread now (a thread with no
	 * state has no text: its tap goes as its operands) */
	p->inside = 1;
}

/* The entry record e of the call index entered at ts_ns, its callable the
 * one py_enter() kept in p (none: p is NULL), filled: its submit's wake-up
 * (first_sight) returned, the process stopped where a first entry holds
 * it (hold_first).  A function of its own: the entry's locals, inlined
 * in jaxffi_call, once took that program's frame to 64 bytes, and a frame
 * of 64 or more gets a stack per CPU, which another thread's run may
 * share (bpf/state.bpf.h; check.bats holds every frame under 64). */
static __noinline __u64 fill_entry(struct hcb_ev_jpycall *e, struct pycall_run *p, __u64 index,
				   __u64 ts_ns)
{
	__u64 key = bpf_get_current_pid_tgid(), callable = p ? p->callable : 0;
	__u64 wake;

	e->type = HCB_EV_JPYCALL;
	e->pid = key >> 32;
	e->tid = (__u32)key;
	e->flags = callable ? 0 : HCB_JPY_F_NOCALLABLE;
	e->callable = callable;
	e->index = index;
	e->ts_ns = ts_ns;
	wake = first_sight(p, key >> 32, callable);
	e->flags |= hold_first(wake);
	return wake;
}

/* The entry as a record of its own (fill_entry), where it did not go in
 * its call's: the decoder sees no callable if the ring has no room. */
static __noinline void send_entry(struct pycall_run *p, __u64 index, __u64 ts_ns)
{
	struct hcb_ev_jpycall *e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);

	if (e)
		bpf_ringbuf_submit(e, fill_entry(e, p, index, ts_ns));
}

#endif
