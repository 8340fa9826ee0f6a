// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * hcbtap.bpf.c - copies hcbtap packets from the target into a ring buffer.
 *
 * Attached to the hcbtap:packet USDT probe of one process.  Loaded as a
 * sleepable program (flag set from user space) so that read_user() can
 * fault in pages the target has not touched lately; a run's state is the
 * thread's, not the stack's (bpf/state.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "bpf/copy.bpf.h"
#include "bpf/nonfinite.bpf.h"
#include "bpf/state.bpf.h"
#include "bpf/usdt_regs.bpf.h"
#include "events.h"

/* A run's state: the packet's header as read, the copy's progress, a span
 * of a small packet read back to be checked for NaN. */
struct nf_ctx {
	__u64 payload;                   /* in the target */
	int found;
};

struct hcbtap_run {
	struct hcb_wire_packet pkt;
	struct copy_ctx c;
	struct nf_ctx nf;
	unsigned char nf_buf[HCB_NF_SPAN];
};

TASK_STATE_MAP(struct hcbtap_run) hcbtap_runs SEC(".maps");

/* consumers whose registration this session has already been sent */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} seen SEC(".maps");

/* The same, cached for the small packets' path: slot id % SEEN_SLOTS holds
 * the last consumer found there.  An array look-up is a few instructions
 * where a hash look-up is a call; ids that share a slot take turns. */
#define SEEN_SLOTS 65536u
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SEEN_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} seen_cache SEC(".maps");

/*
 * Registrations whose copy went whole, counted before each is marked sent
 * (send_registration).  A small packet reserves its record before it can
 * read its consumer, so a registration marked sent between its reserve
 * and its look-up may have its chunks after the packet in the ring, where
 * the reader would meet the packet first (and, the program gone, never
 * learn its consumer).  The count read before the reserve and again after
 * the look-up tells: changed, the packet goes the long way, its record
 * reserved after every chunk of what is marked sent.  x86-64 keeps stores
 * in order as other CPUs see them, and the count's add is a locked one.
 */
__u64 hcbtap_regs_sent = 0;

static __always_inline __u64 regs_sent_now(void)
{
	return *(volatile __u64 *)&hcbtap_regs_sent;
}

/* Has consumer id's registration been sent?  (id 0 never fires.) */
static __always_inline int reg_sent(__u32 id)
{
	__u32 slot = id & (SEEN_SLOTS - 1);
	__u32 *cached = bpf_map_lookup_elem(&seen_cache, &slot);

	if (cached && *cached == id)
		return 1;
	if (!bpf_map_lookup_elem(&seen, &id))
		return 0;
	if (cached)
		*cached = id;
	return 1;
}

/* --on-trigger stop: consumers whose small packets the probe checks for
 * NaN or infinity (bpf/nonfinite.h); nf_on[0] says whether any is, so
 * that the common case pays an array look-up, not a hash one. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, HCB_NF_MAX_CONSUMERS);
	__type(key, __u32);
	__type(value, struct hcb_nf_layout);
} nf_stop SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nf_on SEC(".maps");

_Static_assert(HCB_MAX_DEVICES == 256, "nf_check masks device / 64 to 0..3");

/* What nf_span() is handed: the run, and the consumer's layout, which a
 * map value cannot hold (the verifier keeps no pointer stored in one). */
struct nf_ref {
	struct hcbtap_run *r;
	const struct hcb_nf_layout *l;
};

/* One span of the packet: scanned in the target (nonfinite.bpf.h); arg: a
 * struct nf_ref. */
static long nf_span(__u64 i, void *arg)
{
	struct hcbtap_run *r = ((struct nf_ref *)arg)->r;
	const struct hcb_nf_layout *l = ((struct nf_ref *)arg)->l;
	struct nf_ctx *x = &r->nf;
	const struct hcb_nf_span *s;
	__u32 len, kind;

	if (i >= HCB_NF_MAX_SPANS)
		return 1;
	s = &l->span[i];
	len = s->len;
	kind = s->kind;
	if (len == 0 || len > HCB_NF_SPAN || s->off >= HCB_WIRE_INLINE_MAX)
		return 1;
	x->found = nf_scan_span((const void *)(x->payload + s->off), len, kind, r->nf_buf);
	return x->found;
}

/* A small packet just sent: stop the target, from its own thread, if the
 * consumer is checked here on this device and a float in it is not
 * finite.  The user side finds the same tap and fires the trigger.  Not
 * inlined: its state stays out of the program's own frame. */
static __noinline void nf_check(const void *payload, __u32 consumer_id, __u32 device)
{
	struct nf_ref ref;
	__u32 zero = 0, *on = bpf_map_lookup_elem(&nf_on, &zero);

	if (!on || !*on || device >= HCB_MAX_DEVICES)
		return;
	ref.l = bpf_map_lookup_elem(&nf_stop, &consumer_id);
	if (!ref.l || !((ref.l->device_mask[(device / 64) & 3] >> (device % 64)) & 1))
		return;
	ref.r = task_state(&hcbtap_runs);
	if (!ref.r)
		return;     /* unchecked here: the user side still fires */
	ref.r->nf.payload = (__u64)payload;
	ref.r->nf.found = 0;
	bpf_loop(ref.l->nspans < HCB_NF_MAX_SPANS ? ref.l->nspans : HCB_NF_MAX_SPANS, nf_span,
		 &ref, 0);
	if (ref.r->nf.found)
		bpf_send_signal(NF_SIGSTOP);
}

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

	if (s)
		dev_count(s, what);
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

/* Sent and through (count() and handled() in one look-up). */
static __always_inline void sent(__u32 device, __u64 seq)
{
	struct hcb_dev_stats *s = dev_stats(device);

	if (!s)
		return;
	__sync_fetch_and_add(&s->packets, 1);
	if (seq + 1 > s->handled)
		s->handled = seq + 1;
}

/*
 * A small packet whose payload libhcbtap put right after the header (the
 * probe's second argument, see HCB_WIRE_INLINE_MAX): both in one read,
 * straight into the record.  1: sent; 0: not sent, the caller takes it
 * the long way (a consumer not yet sent, a header that does not add up, or
 * a full ring or a reader too far behind, which the long way counts).
 */
#define WIRE_CLASS(SIZE)							\
	do {									\
		struct { struct hcb_ev_pkt_wire h; unsigned char d[SIZE]; } *e;	\
		__u32 device, consumer_id, n = (__u32)len;			\
		__u64 id, seq, regs = regs_sent_now();				\
		/* a bound the verifier sees on the register it checks,	\
		 * whatever the compiler made of the caller's tests */	\
		barrier_var(n);							\
		if (n > (SIZE))							\
			return 0;						\
		if (over_lag(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA), sizeof(*e))) \
			return 0;   /* the long way counts the drop */		\
		e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);			\
		if (!e)								\
			return 0;   /* the long way counts the drop */		\
		if (read_user(&e->h.pkt, WIRE_HEAD + n, arg) ||		\
		    e->h.pkt.total_bytes != n ||				\
		    e->h.pkt.magic != HCB_OUTFEED_MAGIC ||			\
		    !reg_sent(e->h.pkt.consumer_id) ||				\
		    regs_sent_now() != regs) {					\
			bpf_ringbuf_discard(e, BPF_RB_NO_WAKEUP);		\
			return 0;						\
		}								\
		/* taken here, not held across the calls above: the frame	\
		 * stays under 64 bytes (check.bats) */				\
		id = bpf_get_current_pid_tgid();				\
		e->h.type = HCB_EV_PKT_WIRE;					\
		e->h.pid = id >> 32;						\
		e->h.tid = (__u32)id;						\
		e->h.pad = 0;							\
		device = e->h.pkt.device;					\
		seq = e->h.pkt.seq;						\
		consumer_id = e->h.pkt.consumer_id;				\
		bpf_ringbuf_submit(e, wake_flag(sizeof(*e)));			\
		sent(device, seq);						\
		nf_check((const unsigned char *)arg + WIRE_HEAD, consumer_id, device); \
		return 1;							\
	} while (0)

#define WIRE_HEAD (sizeof(struct hcb_wire_packet) + sizeof(struct hcb_wire_inline))

static __always_inline int send_wire(const void *arg, __u64 len)
{
	if (len <= 64)
		WIRE_CLASS(64);
	else if (len <= 256)
		WIRE_CLASS(256);
	else
		WIRE_CLASS(HCB_WIRE_INLINE_MAX);
}

/* A run with no state (the kernel had no memory for it): its device and
 * seq read alone, to count the packet lost. */
static __noinline void lost_no_state(const struct hcb_wire_packet *arg)
{
	__u32 device = 0;
	__u64 seq = 0;

	if (read_user(&device, sizeof(device), &arg->device) ||
	    read_user(&seq, sizeof(seq), &arg->seq))
		return;
	count(device, LOST_NOMEM);
	handled(device, seq);
}

/* The consumer's registration, the first time one of its packets gets
 * here, as REG chunks; remembered as sent once it all went. */
static __always_inline void send_registration(struct hcbtap_run *r)
{
	struct copy_ctx *c = &r->c;
	struct loop_ref ref = { c };
	__u8 one = 1;

	if (bpf_map_lookup_elem(&seen, &r->pkt.consumer_id) || r->pkt.reg_len > HCB_MAX_REG_BYTES)
		return;
	__builtin_memset(c, 0, sizeof(*c));
	c->type = HCB_EV_REG;
	c->consumer_id = r->pkt.consumer_id;
	c->device = r->pkt.device;
	c->seq = r->pkt.seq;   /* the packet that carried this copy, for diagnostics */
	c->total = r->pkt.reg_len;
	c->src = r->pkt.reg_addr;
	c->left = r->pkt.reg_len;
	bpf_loop(MAX_STEPS, copy_step, &ref, 0);
	/* retry on the next packet if it did not get through */
	if (c->failed)
		return;
	__sync_fetch_and_add(&hcbtap_regs_sent, 1);
	bpf_map_update_elem(&seen, &c->consumer_id, &one, BPF_ANY);
}

/* The packet's leaves as DATA chunks, after its PKT record. */
static __always_inline void send_payload(struct hcbtap_run *r)
{
	struct copy_ctx *c = &r->c;
	struct loop_ref ref = { c };

	__builtin_memset(c, 0, sizeof(*c));
	c->type = HCB_EV_DATA;
	c->consumer_id = r->pkt.consumer_id;
	c->device = r->pkt.device;
	c->seq = r->pkt.seq;
	c->total = r->pkt.total_bytes;
	c->nleaves = r->pkt.nleaves > HCB_MAX_LEAVES ? HCB_MAX_LEAVES : r->pkt.nleaves;
	c->data_addrs = r->pkt.data_addrs;
	c->leaf_bytes = r->pkt.leaf_bytes;
	bpf_loop(MAX_STEPS, copy_step, &ref, 0);
}

/* hcbtap:packet (struct hcb_wire_packet *arg, u64 inline_bytes) */
SEC("usdt")
int hcbtap_packet(struct pt_regs *ctx)
{
	struct hcbtap_run *r;
	struct hcb_ev_pkt *e;
	__u64 need, inline_bytes;
	const void *arg;
	int lost;

	usdt_args2(ctx, (__u64 *)&arg, &inline_bytes);

	/* the common case, a small tap of a consumer already sent */
	if (inline_bytes && inline_bytes <= HCB_WIRE_INLINE_MAX && send_wire(arg, inline_bytes))
		return 0;
	r = task_state(&hcbtap_runs);
	if (!r) {
		lost_no_state(arg);
		return 0;
	}
	if (read_user(&r->pkt, sizeof(r->pkt), arg))
		return 0;

	need = ring_need(&r->pkt);
	lost = ring_take(need);
	if (lost) {
		count(r->pkt.device, lost);
		handled(r->pkt.device, r->pkt.seq);
		return 0;
	}
	send_registration(r);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e) {
		ring_release(need);
		count(r->pkt.device, LOST_RING);
		handled(r->pkt.device, r->pkt.seq);
		return 0;
	}
	fill_pkt(e, &r->pkt, HCB_EV_PKT);
	bpf_ringbuf_submit(e, r->pkt.total_bytes ? BPF_RB_NO_WAKEUP : wake_flag(sizeof(*e)));
	count(r->pkt.device, 0);
	send_payload(r);
	ring_release(need);
	if (r->c.failed)
		count(r->pkt.device, r->c.failed);
	handled(r->pkt.device, r->pkt.seq);
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
	bpf_ringbuf_submit(e, wake_flag(sizeof(*e)));
	return 0;
}
