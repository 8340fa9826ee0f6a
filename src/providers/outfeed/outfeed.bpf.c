// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * outfeed.bpf.c - the legacy XLA outfeed provider's program: the leaves of
 * host_callback's outfeed as jaxlib 0.4.31's CPU runtime hands them over.
 * Sleepable, so that bpf_copy_from_user() can fault pages in.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/copy.bpf.h"
#include "events.h"

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

SEC("uprobe.s")
int BPF_KPROBE(xla_outfeed_leaf, void *run_options, int len, void *buf, void *shape_ptr,
	       int shape_len)
{
	struct copy_ctx c = {};
	struct hcb_ev_xleaf *e;
	struct hcb_dev_stats *s;
	__u32 device = 0;
	__u64 need, seq;
	int lost;
	__u32 n;

	if (run_options &&
	    bpf_copy_from_user(&device, sizeof(device), run_options + xla_device_offset))
		device = 0;
	if (device >= HCB_MAX_DEVICES)
		device = 0;   /* -1: no ordinal in the options (not on CPU) */
	s = dev_stats(device);
	if (!s)
		return 0;
	/* leaves are numbered per device, so the reader sees one go missing */
	seq = __sync_fetch_and_add(&s->handled, 1);
	if (len < 0)
		len = 0;
	need = 2 * ((__u64)len + sizeof(*e)) + 1024;
	lost = ring_take(need);
	if (lost) {
		dev_count(s, lost);
		return 0;
	}
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		ring_release(need);
		dev_count(s, LOST_RING);
		return 0;
	}
	e->type = HCB_EV_XLEAF;
	e->device = device;
	e->seq = seq;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->len = (__u32)len;
	e->shape_len = shape_len < 0 ? 0 : (__u32)shape_len;
	n = e->shape_len;
	if (n > HCB_XSHAPE_MAX) {
		e->shape_len = 0xffffffffu;   /* too long: the reader says so */
	} else {
		barrier_var(n);
		if (n > HCB_XSHAPE_MAX)
			n = HCB_XSHAPE_MAX;
		if (read_user(e->shape, n, shape_ptr))
			e->shape_len = 0xffffffffu;
	}
	bpf_ringbuf_submit(e, len ? BPF_RB_NO_WAKEUP : wake_flag(sizeof(*e)));
	__sync_fetch_and_add(&s->packets, 1);

	c.type = HCB_EV_XDATA;
	c.device = device;
	c.seq = seq;
	c.total = (__u64)len;
	c.src = (__u64)buf;
	c.left = (__u64)len;
	bpf_loop(MAX_STEPS, copy_step, &c, 0);
	ring_release(need);
	if (c.failed)
		dev_count(s, c.failed);
	return 0;
}
