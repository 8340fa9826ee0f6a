// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * copy.bpf.h - copying bytes from the target into the ring buffer in chunk
 * records (struct hcb_ev_chunk), shared by the BPF programs of every
 * provider (hcbtap.bpf.c, jaxffi.bpf.c).
 *
 * The file that includes this declares the ring buffer map "rb" first (the
 * definition in hcbtap.bpf.c, an extern declaration elsewhere): all
 * providers write into the one ring.  Callers set up a struct copy_ctx and
 * either run copy_step() under bpf_loop() (leaves whose addresses and sizes
 * are u64 arrays in the target) or call emit_chunk() from a step function
 * of their own.
 */
#ifndef HCB_COPY_BPF_H
#define HCB_COPY_BPF_H

struct copy_ctx {
	/* what is being copied: one blob (REG) or the packet's leaves (DATA) */
	__u32 type;
	__u32 consumer_id;
	__u32 device;
	__u32 nleaves;
	__u64 seq;
	__u64 total;
	__u64 data_addrs;    /* u64[nleaves] in the target */
	__u64 leaf_bytes;    /* u64[nleaves] in the target */
	__u32 leaf;          /* next leaf to start */
	__u32 failed;        /* 1: ring full, 2: unreadable */
	__u64 src;           /* current leaf or blob */
	__u64 left;          /* bytes of it still to copy */
	__u64 offset;        /* of the next byte in the whole blob or payload */
};

/*
 * Waking the reader for every record costs the target microseconds per tap.
 * Records go in quietly; the last one of a packet wakes the reader once this
 * much is pending.  The reader also looks on its own every poll interval, so
 * a slow trickle of taps waits at most that long.
 */
#define WAKE_BYTES (64 * 1024)

static __always_inline __u64 wake_flag(void)
{
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >= WAKE_BYTES ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* One chunk record of a fixed class size; all-constant sizes keep the
 * verifier happy, the classes keep small packets from wasting ring space. */
#define EMIT_CLASS(SIZE)							\
	do {									\
		struct { struct hcb_ev_chunk h; unsigned char d[SIZE]; } *e;	\
		__u32 n = c->left < (SIZE) ? (__u32)c->left : (SIZE);		\
		e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);			\
		if (!e)								\
			return 1;						\
		e->h.type = c->type;						\
		e->h.consumer_id = c->consumer_id;				\
		e->h.device = c->device;					\
		e->h.seq = c->seq;						\
		e->h.offset = c->offset;					\
		e->h.total = c->total;						\
		e->h.len = n;							\
		barrier_var(n);							\
		if (n > (SIZE))							\
			n = (SIZE);						\
		if (bpf_copy_from_user(e->d, n, (const void *)c->src)) {	\
			bpf_ringbuf_discard(e, 0);				\
			return 2;						\
		}								\
		bpf_ringbuf_submit(e, c->left == n && c->leaf >= c->nleaves ?	\
				   wake_flag() : BPF_RB_NO_WAKEUP);		\
		c->src += n;							\
		c->left -= n;							\
		c->offset += n;							\
	} while (0)

/*
 * Chunk classes a factor 4 apart.  The rest of a leaf goes in the smallest
 * class that holds it if that is at least half full, else the largest
 * class it fills, and so on: at most two chunks a class and less than
 * twice the bytes in padding, so small leaves neither waste ring space
 * nor split into dozens of records.
 */
static __always_inline int emit_chunk(struct copy_ctx *c)
{
	__u64 left = c->left;

	if (left > 16384 * 2 || left == 65536)
		EMIT_CLASS(65536);
	else if (left > 16384)
		EMIT_CLASS(16384);
	else if (left > 4096 * 2 || left == 16384)
		EMIT_CLASS(16384);
	else if (left > 4096)
		EMIT_CLASS(4096);
	else if (left > 1024 * 2 || left == 4096)
		EMIT_CLASS(4096);
	else if (left > 1024)
		EMIT_CLASS(1024);
	else if (left > 256 * 2 || left == 1024)
		EMIT_CLASS(1024);
	else if (left > 256)
		EMIT_CLASS(256);
	else if (left > 64 * 2 || left == 256)
		EMIT_CLASS(256);
	else if (left > 64)
		EMIT_CLASS(64);
	else
		EMIT_CLASS(64);
	return 0;
}

static long copy_step(__u32 i, void *arg)
{
	struct copy_ctx *c = arg;
	__u64 slot;
	int err;

	if (c->left == 0) {
		if (c->leaf >= c->nleaves)
			return 1;
		slot = (__u64)c->leaf * sizeof(__u64);
		if (bpf_copy_from_user(&c->src, sizeof(c->src), (const void *)(c->data_addrs + slot)) ||
		    bpf_copy_from_user(&c->left, sizeof(c->left), (const void *)(c->leaf_bytes + slot))) {
			c->failed = 2;
			return 1;
		}
		c->leaf++;
		return 0;
	}
	err = emit_chunk(c);
	if (err) {
		c->failed = err;
		return 1;
	}
	return 0;
}

/* Worst case: 64 MiB leaves at 64 KiB a step, plus one step per leaf. */
#define MAX_STEPS (1u << 23)

#endif
