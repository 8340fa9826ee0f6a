// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * hcbtap.bpf.c - copies hcbtap packets from the target into a ring buffer.
 *
 * Attached to the hcbtap:packet USDT probe of one process.  Loaded as a
 * sleepable program (flag set from user space) so that bpf_copy_from_user()
 * can fault in pages the target has not touched lately.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "hcb_wire.h"
#include "hcbtap_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);   /* resized by user space */
} rb SEC(".maps");

/* consumers whose registration this session has already been sent */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HCB_MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct hcb_dev_stats);
} devstats SEC(".maps");

/* the chunk copying all providers share; it writes into rb above */
#include "copy.bpf.h"

/* Ring bytes promised to packets being copied right now, so that threads
 * checking for room at the same time do not all take the same room. */
__u64 inflight = 0;

/* What a packet may take in the ring: payload and registration with their
 * padding (less than as much again, see emit_chunk), and per chunk a record
 * header (8) and chunk header (40): a few per leaf and class. */
static __always_inline __u64 ring_need(const struct hcb_wire_packet *p)
{
	return 2 * (p->total_bytes + p->reg_len) + ((__u64)p->nleaves + 2) * 1024;
}

static __always_inline void count(__u32 device, int what)
{
	struct hcb_dev_stats *s = bpf_map_lookup_elem(&devstats, &device);

	if (!s)
		return;
	if (what == 0)
		__sync_fetch_and_add(&s->packets, 1);
	else if (what == 1)
		__sync_fetch_and_add(&s->drops, 1);
	else
		__sync_fetch_and_add(&s->read_errors, 1);
}

/* The packet is through: sent, or lost and counted.  libhcbtap fires a
 * device's packets one at a time in seq order, so this only grows; the
 * user side reads it to know when a barrier's packets have all passed. */
static __always_inline void handled(__u32 device, __u64 seq)
{
	struct hcb_dev_stats *s = bpf_map_lookup_elem(&devstats, &device);

	if (s && seq + 1 > s->handled)
		s->handled = seq + 1;
}

SEC("usdt")
int BPF_USDT(hcbtap_packet, void *arg)
{
	struct hcb_wire_packet pkt;
	struct copy_ctx c = {};
	struct hcb_ev_pkt *e;
	__u64 used, size, need, promised;
	__u8 one = 1;

	if (bpf_copy_from_user(&pkt, sizeof(pkt), arg))
		return 0;

	/* All or nothing where it can be known in advance: a packet that does
	 * not fit in the free space now is dropped whole, not half sent. */
	need = ring_need(&pkt);
	promised = __sync_fetch_and_add(&inflight, need);
	used = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	size = bpf_ringbuf_query(&rb, BPF_RB_RING_SIZE);
	if (used + promised + need > size) {
		__sync_fetch_and_sub(&inflight, need);
		count(pkt.device, 1);
		handled(pkt.device, pkt.seq);
		return 0;
	}

	if (!bpf_map_lookup_elem(&seen, &pkt.consumer_id) && pkt.reg_len <= HCB_MAX_REG_BYTES) {
		c.type = HCB_EV_REG;
		c.consumer_id = pkt.consumer_id;
		c.device = pkt.device;
		c.seq = pkt.seq;   /* the packet that carried this copy, for diagnostics */
		c.total = pkt.reg_len;
		c.src = pkt.reg_addr;
		c.left = pkt.reg_len;
		bpf_loop(MAX_STEPS, copy_step, &c, 0);
		/* retry on the next packet if it did not get through */
		if (!c.failed)
			bpf_map_update_elem(&seen, &pkt.consumer_id, &one, BPF_ANY);
	}

	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_sub(&inflight, need);
		count(pkt.device, 1);
		handled(pkt.device, pkt.seq);
		return 0;
	}
	e->type = HCB_EV_PKT;
	e->consumer_id = pkt.consumer_id;
	e->device = pkt.device;
	e->nleaves = pkt.nleaves;
	e->seq = pkt.seq;
	e->total_bytes = pkt.total_bytes;
	e->ts_ns = bpf_ktime_get_ns();
	e->reg_addr = pkt.reg_addr;
	e->reg_len = pkt.reg_len;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->magic = pkt.magic;
	e->pad = 0;
	bpf_ringbuf_submit(e, pkt.total_bytes ? BPF_RB_NO_WAKEUP : wake_flag());
	count(pkt.device, 0);

	__builtin_memset(&c, 0, sizeof(c));
	c.type = HCB_EV_DATA;
	c.consumer_id = pkt.consumer_id;
	c.device = pkt.device;
	c.seq = pkt.seq;
	c.total = pkt.total_bytes;
	c.nleaves = pkt.nleaves > HCB_MAX_LEAVES ? HCB_MAX_LEAVES : pkt.nleaves;
	c.data_addrs = pkt.data_addrs;
	c.leaf_bytes = pkt.leaf_bytes;
	bpf_loop(MAX_STEPS, copy_step, &c, 0);
	__sync_fetch_and_sub(&inflight, need);
	if (c.failed)
		count(pkt.device, c.failed);
	handled(pkt.device, pkt.seq);
	return 0;
}

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

SEC("uprobe")
int BPF_KPROBE(xla_outfeed_leaf, void *run_options, int len, void *buf, void *shape_ptr,
	       int shape_len)
{
	struct copy_ctx c = {};
	struct hcb_ev_xleaf *e;
	struct hcb_dev_stats *s;
	__u32 device = 0;
	__u64 need, promised, used, size, seq;
	__u32 n;

	if (run_options &&
	    bpf_copy_from_user(&device, sizeof(device), run_options + xla_device_offset))
		device = 0;
	if (device >= HCB_MAX_DEVICES)
		device = 0;   /* -1: no ordinal in the options (not on CPU) */
	s = bpf_map_lookup_elem(&devstats, &device);
	if (!s)
		return 0;
	/* leaves are numbered per device, so the reader sees one go missing */
	seq = __sync_fetch_and_add(&s->handled, 1);
	if (len < 0)
		len = 0;
	need = 2 * ((__u64)len + sizeof(*e)) + 1024;
	promised = __sync_fetch_and_add(&inflight, need);
	used = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	size = bpf_ringbuf_query(&rb, BPF_RB_RING_SIZE);
	if (used + promised + need > size) {
		__sync_fetch_and_sub(&inflight, need);
		__sync_fetch_and_add(&s->drops, 1);
		return 0;
	}
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_sub(&inflight, need);
		__sync_fetch_and_add(&s->drops, 1);
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
		if (bpf_copy_from_user(e->shape, n, shape_ptr))
			e->shape_len = 0xffffffffu;
	}
	bpf_ringbuf_submit(e, len ? BPF_RB_NO_WAKEUP : wake_flag());
	__sync_fetch_and_add(&s->packets, 1);

	c.type = HCB_EV_XDATA;
	c.device = device;
	c.seq = seq;
	c.total = (__u64)len;
	c.src = (__u64)buf;
	c.left = (__u64)len;
	bpf_loop(MAX_STEPS, copy_step, &c, 0);
	__sync_fetch_and_sub(&inflight, need);
	if (c.failed)
		__sync_fetch_and_add(c.failed == 1 ? &s->drops : &s->read_errors, 1);
	return 0;
}

/* The traced process, set by user space once it attaches; exec_lost says
 * an exec happened while the ring buffer was full. */
__u32 target_tgid = 0;
__u32 exec_lost = 0;

/*
 * The target replaced its program image.  Its old probes are gone with it;
 * a new image mapping libhcbtap would be traced again under a new registry
 * and restarted sequence numbers, so the reader ends the session here.
 */
/*
 * A BTF raw tracepoint: it needs only the kernel's BTF, not a mounted
 * tracefs (which a classic "tp/" program needs to look up its id, and
 * which a fresh machine does not have).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(hcbtap_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
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
