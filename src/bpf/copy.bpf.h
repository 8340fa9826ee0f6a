/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * copy.bpf.h - copying bytes out of the target into the ring buffer as
 * chunk records (struct hcb_ev_chunk), with bpf_loop: a registration blob,
 * or a packet's leaves back to back.  Shared by the providers' programs;
 * each .bpf.c that includes it gets its own copy of these functions.  The
 * copy's state (struct copy_ctx) is the run's, off the stack
 * (state.bpf.h).
 */
#ifndef HCB_COPY_BPF_H
#define HCB_COPY_BPF_H

#include "capture.bpf.h"
#include "state.bpf.h"

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
	__u32 failed;        /* LOST_RING or LOST_UNREADABLE */
	__u64 src;           /* current leaf or blob */
	__u64 left;          /* bytes of it still to copy */
	__u64 offset;        /* of the next byte in the whole blob or payload */
};

/* One chunk record of a fixed class size; all-constant sizes keep the
 * verifier happy, the classes keep small packets from wasting ring space. */
#define EMIT_CLASS(SIZE)							\
	do {									\
		struct { struct hcb_ev_chunk h; unsigned char d[SIZE]; } *e;	\
		__u32 n = c->left < (SIZE) ? (__u32)c->left : (SIZE);		\
		e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);			\
		if (!e)								\
			return LOST_RING;					\
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
		if (read_user(e->d, n, (const void *)c->src)) {		\
			bpf_ringbuf_discard(e, 0);				\
			return LOST_UNREADABLE;					\
		}								\
		bpf_ringbuf_submit(e, c->left == n && c->leaf >= c->nleaves ?	\
				   wake_flag(sizeof(*e)) : BPF_RB_NO_WAKEUP);	\
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

/* One step of a copy whose copy_ctx is in the run's state (arg: a
 * struct loop_ref to it, state.bpf.h). */
static long copy_step(__u32 i, void *arg)
{
	struct copy_ctx *c = ((struct loop_ref *)arg)->state;
	__u64 slot;
	int err;

	if (c->left == 0) {
		if (c->leaf >= c->nleaves)
			return 1;
		slot = (__u64)c->leaf * sizeof(__u64);
		if (read_user(&c->src, sizeof(c->src), (const void *)(c->data_addrs + slot)) ||
		    read_user(&c->left, sizeof(c->left), (const void *)(c->leaf_bytes + slot))) {
			c->failed = LOST_UNREADABLE;
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
