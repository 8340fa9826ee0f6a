// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * outfeed.bpf.c - the legacy XLA outfeed provider's program: the leaves of
 * host_callback's outfeed as jaxlib 0.4.31's CPU runtime hands them over.
 * Sleepable where the kernel can (outfeed.c lists it), so that
 * bpf_copy_from_user() can fault pages in.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/copy.bpf.h"
#include "bpf/devices.bpf.h"
#include "bpf/state.bpf.h"
#include "events.h"

/* A run's state (bpf/state.bpf.h): the leaf's copy, and where its shape is. */
struct outfeed_run {
	struct copy_ctx c;
	__u64 need;          /* ring room taken for the leaf */
	__u64 shape;         /* its serialized xla.ShapeProto in the target */
	__u32 shape_len;
	__u32 len;           /* the leaf's bytes */
};

TASK_STATE_MAP(struct outfeed_run) outfeed_runs SEC(".maps");

/*
 * Legacy XLA outfeed (jaxlib <= 0.4.31 on CPU, JAX_HOST_CALLBACK_OUTFEED=1):
 * an uprobe on __xla_cpu_runtime_ReleaseOutfeedBufferAfterPopulation(
 *     const ExecutableRunOptions *run_options, int32 buffer_length,
 *     void *buffer, const void *shape_proto, int32 shape_length),
 * called once per leaf of each outfeed once the leaf's bytes are in place.
 * The device ordinal is an int32 at run_options + xla_device_offset (set
 * by user space for the jaxlib version it recognised).
 */
__u32 xla_device_offset = 8;

/* The leaf's record, with its shape: 0, or why it was lost (LOST_*). */
static __noinline int send_leaf_head(struct outfeed_run *o)
{
	struct hcb_ev_xleaf *e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	__u64 id = bpf_get_current_pid_tgid();
	__u32 n;

	if (!e)
		return LOST_RING;
	e->type = HCB_EV_XLEAF;
	e->device = o->c.device;
	e->seq = o->c.seq;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->len = o->len;
	e->shape_len = o->shape_len;
	n = o->shape_len;
	if (n > HCB_XSHAPE_MAX) {
		e->shape_len = 0xffffffffu;   /* too long: the reader says so */
	} else {
		barrier_var(n);
		if (n > HCB_XSHAPE_MAX)
			n = HCB_XSHAPE_MAX;
		if (read_user(e->shape, n, (const void *)o->shape))
			e->shape_len = 0xffffffffu;
	}
	bpf_ringbuf_submit(e, o->len ? BPF_RB_NO_WAKEUP : wake_flag(sizeof(*e)));
	return 0;
}

/* The leaf's bytes, as XDATA chunks: 0, or why they were lost. */
static __noinline int send_leaf_bytes(struct outfeed_run *o)
{
	struct loop_ref ref = { &o->c };

	bpf_loop(MAX_STEPS, copy_step, &ref, 0);
	return o->c.failed;
}

SEC("uprobe")
int BPF_KPROBE(xla_outfeed_leaf, void *run_options, int len, void *buf, void *shape_ptr,
	       int shape_len)
{
	struct outfeed_run *o = task_state(&outfeed_runs);
	struct hcb_dev_stats *s;
	__u32 device = 0;
	int lost, slot;

	if (run_options &&
	    copy_user(&device, sizeof(device), run_options + xla_device_offset))
		device = 0;
	if (device > 0x7fffffffu)
		device = 0;   /* -1: no ordinal in the options (not on CPU) */
	/* any other ordinal is a device (a jax.distributed job's process 1
	 * has 2048 on): its slot (devices.bpf.h), counted if past them */
	slot = dev_slot(device);
	s = slot < 0 ? NULL : dev_stats((__u32)slot);
	if (!s)
		return 0;
	if (!o) {
		__sync_fetch_and_add(&s->handled, 1);
		dev_count(s, LOST_NOMEM);
		return 0;
	}
	__builtin_memset(&o->c, 0, sizeof(o->c));
	o->c.type = HCB_EV_XDATA;
	o->c.device = (__u32)slot;
	/* leaves are numbered per device, so the reader sees one go missing */
	o->c.seq = __sync_fetch_and_add(&s->handled, 1);
	o->len = len < 0 ? 0 : (__u32)len;
	o->c.total = o->len;
	o->c.left = o->len;
	o->c.src = (__u64)buf;
	o->shape = (__u64)shape_ptr;
	o->shape_len = shape_len < 0 ? 0 : (__u32)shape_len;
	o->need = 2 * ((__u64)o->len + sizeof(struct hcb_ev_xleaf)) + 1024;
	lost = ring_take(o->need);
	if (lost) {
		dev_count(s, lost);
		return 0;
	}
	lost = send_leaf_head(o);
	if (lost) {
		ring_release(o->need);
		dev_count(s, lost);
		return 0;
	}
	__sync_fetch_and_add(&s->packets, 1);
	lost = send_leaf_bytes(o);
	ring_release(o->need);
	if (lost)
		dev_count(s, lost);
	return 0;
}
