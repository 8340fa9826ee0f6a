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

/* The packet's header, as the reader sees it. */
static __always_inline void fill_pkt(struct hcb_ev_pkt *e, const struct hcb_wire_packet *pkt,
				     __u32 type)
{
	__u64 id = bpf_get_current_pid_tgid();

	e->type = type;
	e->consumer_id = pkt->consumer_id;
	e->device = pkt->device;
	e->nleaves = pkt->nleaves;
	e->seq = pkt->seq;
	e->total_bytes = pkt->total_bytes;
	e->ts_ns = bpf_ktime_get_ns();
	e->reg_addr = pkt->reg_addr;
	e->reg_len = pkt->reg_len;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->magic = pkt->magic;
	/* a lost packet says why where a packet has its leaves' sizes */
	e->lost_reason = pkt->magic == HCB_LOST_MAGIC ? (__u32)pkt->leaf_bytes : 0;
}

/* Sent, or lost (1: ring full, 2: unreadable), counted in one look-up. */
static __always_inline void account(__u32 device, __u64 seq, int lost)
{
	struct hcb_dev_stats *s = dev_stats(device);

	if (!s)
		return;
	if (!lost)
		__sync_fetch_and_add(&s->packets, 1);
	else if (lost == 1)
		__sync_fetch_and_add(&s->drops, 1);
	else
		__sync_fetch_and_add(&s->read_errors, 1);
	if (seq + 1 > s->handled)
		s->handled = seq + 1;
}

/*
 * A small packet of a consumer already sent: its header and its leaves in
 * one record (HCB_EV_PKT_INLINE), one reservation, all or nothing by
 * itself.  Each leaf lands below SIZE with at most SIZE bytes, in a record
 * of twice that, which is how the verifier sees every copy in bounds.
 */
#define INLINE_CLASS(SIZE)							\
	do {									\
		struct { struct hcb_ev_pkt h; unsigned char d[2 * (SIZE)]; } *e;	\
		__u32 off = 0;							\
		e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);			\
		if (!e)								\
			return 1;						\
		for (__u32 i = 0; i < INLINE_LEAVES && i < n; i++) {		\
			__u64 len = lens[i];					\
			if (off >= (SIZE) || len > (SIZE)) {			\
				bpf_ringbuf_discard(e, 0);			\
				return 2;					\
			}							\
			if (len && bpf_copy_from_user(e->d + off, len,		\
						      (const void *)addrs[i])) {	\
				bpf_ringbuf_discard(e, 0);			\
				return 2;					\
			}							\
			off += (__u32)len;					\
		}								\
		fill_pkt(&e->h, pkt, HCB_EV_PKT_INLINE);			\
		bpf_ringbuf_submit(e, wake_flag());				\
		return 0;							\
	} while (0)

#define INLINE_LEAVES 8u
#define INLINE_MAX 1024u

static __always_inline int send_inline(const struct hcb_wire_packet *pkt)
{
	__u64 addrs[INLINE_LEAVES], lens[INLINE_LEAVES], sum = 0;
	__u32 n = pkt->nleaves;

	if (n > INLINE_LEAVES)
		return 2;
	if (n && (bpf_copy_from_user(addrs, n * sizeof(__u64), (const void *)pkt->data_addrs) ||
		  bpf_copy_from_user(lens, n * sizeof(__u64), (const void *)pkt->leaf_bytes)))
		return 2;
	for (__u32 i = 0; i < INLINE_LEAVES && i < n; i++)
		sum += lens[i];
	if (sum != pkt->total_bytes)
		return 2;   /* the reader would refuse it: say it is malformed */
	if (sum <= 64)
		INLINE_CLASS(64);
	else if (sum <= 256)
		INLINE_CLASS(256);
	else
		INLINE_CLASS(INLINE_MAX);
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

	/* the common case, small taps of a known consumer: one record */
	if (pkt.total_bytes <= INLINE_MAX && pkt.nleaves <= INLINE_LEAVES &&
	    pkt.magic != HCB_LOST_MAGIC && bpf_map_lookup_elem(&seen, &pkt.consumer_id)) {
		account(pkt.device, pkt.seq, send_inline(&pkt));
		return 0;
	}

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
	fill_pkt(e, &pkt, HCB_EV_PKT);
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
