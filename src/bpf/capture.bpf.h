/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * capture.bpf.h - what every provider's BPF programs share.  Each provider
 * has its own .bpf.c; bpftool links them with common.bpf.c into the one
 * object hcbtrace loads (src/bpf/probes.c), so the ring buffer, the per-device
 * counters and the exec watch exist once: common.bpf.c defines them, the
 * others see them as extern (the linker checks the definitions match).
 */
#ifndef HCB_CAPTURE_BPF_H
#define HCB_CAPTURE_BPF_H

#include "core/wire.h"
#include "ring.h"

#define HCB_RB_MAP							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_RINGBUF);			\
		__uint(max_entries, 64 << 20);   /* resized by user space */ \
	}

#define HCB_DEVSTATS_MAP						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, HCB_MAX_DEVICES);			\
		__type(key, __u32);					\
		__type(value, struct hcb_dev_stats);			\
	}

/* A device's id (as its runtime numbers it) -> its slot in devstats:
 * bpf/devices.bpf.h. */
#define HCB_DEVSLOTS_MAP						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, HCB_MAX_DEVICES);			\
		__type(key, __u32);					\
		__type(value, __u32);					\
	}
/* Ids past the slots -> the calls of each lost (devices.bpf.h) */
#define HCB_DEVOVER_MAP							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, HCB_DEVOVER_IDS);			\
		__type(key, __u32);					\
		__type(value, __u64);					\
	}

#ifdef HCB_BPF_COMMON
HCB_RB_MAP rb SEC(".maps");
HCB_DEVSTATS_MAP devstats SEC(".maps");
HCB_DEVSLOTS_MAP devslots SEC(".maps");
HCB_DEVOVER_MAP devover SEC(".maps");
/* The id of each slot handed out (devices.bpf.h), and how many were: user
 * space reads them where the slot first shows in a record. */
__u32 dev_ids[HCB_MAX_DEVICES] = { 0 };
__u32 dev_nslots = 0;
/* What no device's counters can take (enum hcb_nodev, ring.h). */
__u64 nodev[HCB_NODEV_COUNTERS] = { 0 };
/* Ring bytes promised to packets being copied right now, so that threads
 * checking for room at the same time do not all take the same room. */
__u64 inflight = 0;
/* The backlog (bytes written, not yet read) past which a packet is turned
 * away though it would fit: how far behind its output the reader may run
 * (--max-lag; user space sets it from its own reading rate, src/bpf/probes.c).
 * All ones: only the ring's size counts. */
__u64 lag_limit = ~0ULL;
/* What the reader has taken from the ring and not yet written: the tap it
 * is writing now, the chunks of one still coming (over_lag()). */
__u64 lag_held = 0;
/* When a packet was last turned away, full ring or lag (bpf_ktime_get_ns,
 * CLOCK_MONOTONIC): user space applies lag_limit only within a while of
 * one, so a burst the ring holds is kept whole (src/bpf/lag.h). */
__u64 last_refusal_ns = 0;
/* The ring's size in bytes, as user space made it (src/bpf/probes.c):
 * read here, not asked of the ring (a helper call) at every packet. */
const volatile __u64 hcb_ring_size = 0;
#else
extern HCB_RB_MAP rb SEC(".maps");
extern HCB_DEVSTATS_MAP devstats SEC(".maps");
extern HCB_DEVSLOTS_MAP devslots SEC(".maps");
extern HCB_DEVOVER_MAP devover SEC(".maps");
extern __u32 dev_ids[HCB_MAX_DEVICES];
extern __u32 dev_nslots;
extern __u64 nodev[HCB_NODEV_COUNTERS];
extern __u64 inflight;
extern __u64 lag_limit;
extern __u64 lag_held;
extern __u64 last_refusal_ns;
extern const volatile __u64 hcb_ring_size;
#endif

/* Why a packet was lost, as the probes count it (struct hcb_dev_stats). */
#define LOST_RING 1          /* drops */
#define LOST_UNREADABLE 2    /* read_errors */
#define LOST_LAG 3           /* lag_drops */
#define LOST_NOMEM 4         /* no_memory */

/*
 * Waking the reader costs the target an interrupt (a VM exit under a
 * hypervisor) on the tap's own thread, so records go in quietly.  The one
 * whose reservation crosses a multiple of WAKE_BYTES of the ring's written
 * position wakes the reader if at least that much is pending: a reader
 * asleep on a backlog is woken within two such steps, a busy one is left
 * alone.  The reader also looks on its own every poll interval, so a slow
 * trickle of taps waits at most that long.  Under concurrent producers the
 * position read may be a little ahead of this record's: a wake-up is then
 * late by one step, never lost for good.
 */
#define WAKE_BYTES (64 * 1024)
#define WAKE_SHIFT 16

/* 1 if x is not 0, else 0, without a branch: each branch here, in each of
 * the dozen places a record is submitted, multiplies what the verifier
 * walks (a jax-callback program took 0.65 s to load instead of 0.13). */
static __always_inline __u64 nonzero(__u64 x)
{
	barrier_var(x);
	return (x | -x) >> 63;
}

static __always_inline __u64 wake_flag(__u64 record_len)
{
	__u64 end = bpf_ringbuf_query(&rb, BPF_RB_PROD_POS);
	__u64 start = end - ((record_len + BPF_RINGBUF_HDR_SZ + 7) & ~7ULL);
	__u64 crossed = nonzero((start >> WAKE_SHIFT) ^ (end >> WAKE_SHIFT));

	_Static_assert(BPF_RB_FORCE_WAKEUP == BPF_RB_NO_WAKEUP + 1, "wake flags");
	/* the backlog is asked only of the one record in WAKE_BYTES that
	 * crossed: a query is a helper call, and most records cross none */
	if (!crossed)
		return BPF_RB_NO_WAKEUP;
	return BPF_RB_NO_WAKEUP + nonzero(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >> WAKE_SHIFT);
}

/*
 * A .bpf.c whose programs must not sleep defines HCB_BPF_NOSLEEP before it
 * includes this: its reads of the target never fault a page in, and a page
 * that is not in makes an unreadable packet, counted.  The others are
 * loaded sleepable, where the kernel has sleepable uprobe programs (6.0
 * on); where it has not, user space loads them as they are and sets
 * hcb_no_sleep (src/bpf/load.c): the verifier then never meets their
 * bpf_copy_from_user() (a branch on a read-only value it knows), and they
 * count what is not in as unreadable too.
 */
#ifdef HCB_BPF_COMMON
const volatile __u32 hcb_no_sleep = 0;
#else
extern const volatile __u32 hcb_no_sleep;
#endif

/* A read of the target that may fault its page in, where the program may. */
static __always_inline long copy_user(void *dst, __u32 len, const void *src)
{
#ifdef HCB_BPF_NOSLEEP
	return bpf_probe_read_user(dst, len, src);
#else
	if (hcb_no_sleep)
		return bpf_probe_read_user(dst, len, src);
	return bpf_copy_from_user(dst, len, src);
#endif
}

/*
 * Reading the target's memory.  bpf_probe_read_user() first: with page
 * faults off, hardened usercopy skips its look-up of a vmalloc'd
 * destination (the ring buffer is one), which otherwise costs a tap more
 * than the copy.  Only if that fails, because a page is not in,
 * bpf_copy_from_user(), which may sleep to fault it in (the programs are
 * sleepable for this, unless they may not: above).
 */
static __always_inline long read_user(void *dst, __u32 len, const void *src)
{
	if (!bpf_probe_read_user(dst, len, src))
		return 0;
#ifdef HCB_BPF_NOSLEEP
	return -14;   /* -EFAULT (vmlinux.h names no errno) */
#else
	if (hcb_no_sleep)
		return -14;
	return bpf_copy_from_user(dst, len, src);
#endif
}

/*
 * Whether a packet of need bytes would put the reader over lag_limit: it
 * would make the backlog more than the limit, and the reader is already
 * half the limit behind, counting what it holds.  So the backlog stays
 * under the limit, and a packet larger than the limit itself is taken
 * whenever the reader has caught up to half of it.  A small packet (a
 * sixteenth of the limit: a scalar's print, a loss) is taken until the
 * backlog is twice the limit: such taps are what a reader most wants to
 * see, cost little to write, and would otherwise be turned away behind
 * each large one.  (Bitwise, not &&: see nonzero().)
 */
static __always_inline __u64 over_lag(__u64 backlog, __u64 need)
{
	__u64 limit = lag_limit;
	__u64 over = (__u64)(backlog + need > limit) & (__u64)(backlog + lag_held > limit / 2);
	__u64 small = (__u64)(need <= limit / 16) & (__u64)(backlog / 2 + need <= limit);

	return over & (small ^ 1);
}

/* Why need bytes may not go in the ring now, used bytes of it written and
 * promised promised to packets in flight: 0, LOST_RING or LOST_LAG
 * (ring_take, ring_fits), a refusal's time noted. */
static __always_inline int ring_refusal(__u64 used, __u64 promised, __u64 need)
{
	int why = 0;

	if (used + promised + need > hcb_ring_size)
		why = LOST_RING;
	else if (over_lag(used + promised, need))
		why = LOST_LAG;
	if (why)
		last_refusal_ns = bpf_ktime_get_ns();
	return why;
}

/*
 * All or nothing where it can be known in advance: take need bytes of the
 * ring's free space for a packet about to be copied.  0: taken, and
 * ring_release() gives the promise back once the packet is in.  Else why
 * not, LOST_RING or LOST_LAG: it does not fit now, or would put the reader
 * over its lag (the packet is dropped whole, not half sent).
 */
static __always_inline int ring_take(__u64 need)
{
	__u64 promised = __sync_fetch_and_add(&inflight, need);
	int why = ring_refusal(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA), promised, need);

	if (why)
		__sync_fetch_and_sub(&inflight, need);
	return why;
}

/* As ring_take(), for a packet of one record of need bytes: its
 * reservation is all or nothing itself, so it takes no promise (two
 * atomic operations fewer), and leaves the room promised to others. */
static __always_inline int ring_fits(__u64 need)
{
	return ring_refusal(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA),
			    *(volatile __u64 *)&inflight, need);
}

static __always_inline void ring_release(__u64 need)
{
	__sync_fetch_and_sub(&inflight, need);
}

static __always_inline struct hcb_dev_stats *dev_stats(__u32 device)
{
	return bpf_map_lookup_elem(&devstats, &device);
}

/* Count a packet in its device's counters: 0, sent; else lost, why (LOST_*). */
static __always_inline void dev_count(struct hcb_dev_stats *s, int what)
{
	if (what == 0)
		__sync_fetch_and_add(&s->packets, 1);
	else if (what == LOST_RING)
		__sync_fetch_and_add(&s->drops, 1);
	else if (what == LOST_LAG)
		__sync_fetch_and_add(&s->lag_drops, 1);
	else if (what == LOST_NOMEM)
		__sync_fetch_and_add(&s->no_memory, 1);
	else
		__sync_fetch_and_add(&s->read_errors, 1);
}

#endif
