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

#include "copy.bpf.h"

/* consumers whose registration this session has already been sent */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} seen SEC(".maps");

/* What a packet may take in the ring: payload and registration with their
 * padding (less than as much again, see emit_chunk), and per chunk a record
 * header (8) and chunk header (40): a few per leaf and class. */
static __always_inline __u64 ring_need(const struct hcb_wire_packet *p)
{
	return 2 * (p->total_bytes + p->reg_len) + ((__u64)p->nleaves + 2) * 1024;
}

static __always_inline void count(__u32 device, int what)
{
	struct hcb_dev_stats *s = dev_stats(device);

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
	struct hcb_dev_stats *s = dev_stats(device);

	if (s && seq + 1 > s->handled)
		s->handled = seq + 1;
}

SEC("usdt")
int BPF_USDT(hcbtap_packet, void *arg)
{
	struct hcb_wire_packet pkt;
	struct copy_ctx c = {};
	struct hcb_ev_pkt *e;
	__u64 need;
	__u8 one = 1;

	if (bpf_copy_from_user(&pkt, sizeof(pkt), arg))
		return 0;

	need = ring_need(&pkt);
	if (!ring_take(need)) {
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
		ring_release(need);
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
	/* a lost packet says why where a packet has its leaves' sizes */
	e->lost_reason = pkt.magic == HCB_LOST_MAGIC ? (__u32)pkt.leaf_bytes : 0;
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
	ring_release(need);
	if (c.failed)
		count(pkt.device, c.failed);
	handled(pkt.device, pkt.seq);
	return 0;
}

/*
 * The CUPTI injection library's word on a tap's device-to-host copies
 * (hcbtap_cupti:tap_copy in libhcbtap_cupti.so, `hcbtrace run --cuda`):
 * passed on as it is.  Losing one loses only a timing, never a tap.
 */
SEC("usdt")
int BPF_USDT(hcbtap_copy_times, __u32 device, __u64 seq, __u64 start, __u64 end, __u64 bytes,
	     __u32 ncopies)
{
	struct hcb_ev_copy *e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);

	if (!e)
		return 0;
	e->type = HCB_EV_COPY;
	e->device = device;
	e->seq = seq;
	e->start_ns = start;
	e->end_ns = end;
	e->bytes = bytes;
	e->ncopies = ncopies;
	e->pad = 0;
	bpf_ringbuf_submit(e, wake_flag());
	return 0;
}
