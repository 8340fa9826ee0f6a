/* SPDX-License-Identifier: MIT */
/*
 * decode_impl.h - the hcbtap decoder's state, shared by its files, and
 * what each file offers those above it.  A file calls only the files below
 * it, so that each can be read, and changed, knowing only what it builds
 * on:
 *
 *   decode.c        records into packets, and the API (decode.h)
 *   registration.c  registration blobs reassembled from their chunks
 *   pending.c       packets not delivered yet: chunks still coming, or
 *                   held in their device's order; their delivery
 *   consumers.c     the consumers kept, a blob read from the target when
 *                   its chunks were lost
 *
 * Only those files include it.
 */
#ifndef HCB_HCBTAP_DECODE_IMPL_H
#define HCB_HCBTAP_DECODE_IMPL_H

#include "providers/bounds.h"
#include "decode.h"
#include "events.h"

/*
 * A packet not delivered yet: its chunks are coming, or it is whole and
 * waits in its device's queue behind one that waits for its registration
 * (another thread's copy of it still arriving).  One per (device, seq).
 */
struct pending {
	struct pending *next, *prev;   /* every pending packet, newest first */
	struct pending *qnext;         /* its device's queue, in arrival order */
	/* its buckets in the indexes by (device, seq) and by thread, newest
	 * first in each (a chunk, a thread's next packet find it there) */
	struct pending *snext, **sprev, *tnext, **tprev;
	int queued;
	uint32_t device, consumer_id, nleaves;
	uint64_t seq, mono_ns, received, total;   /* mono_ns: CLOCK_MONOTONIC, the probe's */
	uint64_t reg_addr, reg_len;    /* where its registration is in the target */
	uint32_t pid, tid;
	const struct hcb_consumer *consumer;   /* NULL: waits for its registration */
	uint64_t touched_ns;
	unsigned char *buf;
	uint64_t held;                 /* bytes taken from the packet pool */
};

/* A copy of a registration under way: the thread whose packet (device,
 * seq) sends it.  Its packet record comes after its last chunk. */
#define REG_COPIES 8
struct reg_copy {
	uint32_t device;
	uint64_t seq;
};

/*
 * A registration blob being reassembled, per consumer id.  Several threads
 * may send copies at once, their chunks interleaved; the copies are the
 * same bytes, so a chunk of any copy fills its place, and a bitmap of the
 * bytes already there keeps the count honest.
 */
struct pending_reg {
	struct pending_reg *next;
	uint32_t consumer_id;
	uint64_t total, received, held;
	unsigned char *buf;
	unsigned char *have;   /* a bit per byte of buf */
	struct reg_copy copies[REG_COPIES];   /* under way */
	unsigned int ncopies;
	uint64_t touched_ns;
};

/* Devices to drain after a change freed packets of their queues, a bit
 * each. */
struct devset {
	uint64_t bit[HCB_MAX_DEVICES / 64];
};

/* Buckets of the pending packets' indexes: as many as packets may be held
 * (HCB_BOUNDS_PACKETS), a power of two. */
#define PENDING_BUCKETS 4096u

struct hcb_hcbtap {
	const struct hcb_decoder_ops *ops;
	void *ctx;
	struct hcb_registry *reg;
	struct pending *pending;
	struct pending *oldest;          /* the list's tail */
	struct pending *by_seq[PENDING_BUCKETS], *by_thread[PENDING_BUCKETS];
	struct pending_reg *regs;
	/* per device, packets to deliver in order (qhead's first) */
	struct pending *qhead[HCB_MAX_DEVICES], *qtail[HCB_MAX_DEVICES];
	struct hcb_bounds b;
};

/* consumers.c */
/* A registration read from the target or reassembled: into the registry. */
int hcb_hcbtap_consumer_add(struct hcb_hcbtap *d, uint32_t dev, uint32_t cid, const void *blob,
			    size_t len);
/* Read consumer cid's registration from the target (its chunks were
 * lost); the consumer, or NULL. */
const struct hcb_consumer *hcb_hcbtap_consumer_read(struct hcb_hcbtap *d, uint32_t dev,
						     uint32_t cid, uint64_t addr, uint64_t len);

/* pending.c */
/* A new pending packet of e's header (consumer c, NULL: waits), holding
 * total bytes; NULL when it cannot be held (a problem counted). */
struct pending *hcb_hcbtap_pending_new(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e,
				       const struct hcb_consumer *c);
void hcb_hcbtap_pending_free(struct hcb_hcbtap *d, struct pending *p);
/* Packet p, whole and of a known consumer, to the packet callback. */
int hcb_hcbtap_deliver(struct hcb_hcbtap *d, struct pending *p);
/* The newest pending packet (device, seq) of consumer cid, or NULL. */
struct pending *hcb_hcbtap_pending_find(struct hcb_hcbtap *d, uint32_t device, uint64_t seq,
					uint32_t cid);
/* Whether device's packets now wait in its queue. */
int hcb_hcbtap_queued(const struct hcb_hcbtap *d, uint32_t device);
void hcb_hcbtap_enqueue(struct hcb_hcbtap *d, struct pending *p);
/* Deliver what is whole at the head of device's queue. */
int hcb_hcbtap_drain(struct hcb_hcbtap *d, uint32_t device);
/* Each device of s: a change that freed packets of several queues drains
 * them once it is done, in device order. */
int hcb_hcbtap_drain_set(struct hcb_hcbtap *d, const struct devset *s);
/* Consumer cid is known now (c), or never will be (c NULL): the packets
 * that waited for it are checked and delivered in order, or lost. */
int hcb_hcbtap_resolve(struct hcb_hcbtap *d, uint32_t cid, const struct hcb_consumer *c);
/* A thread's next packet began: what it left unfinished was cut short. */
int hcb_hcbtap_cut_short(struct hcb_hcbtap *d, uint32_t pid, uint32_t tid);
/* Give up the packets that made no progress for a while.  Their devices
 * are added to touched for the caller to drain: it gives up the expired
 * registrations first, the order deliveries have always had. */
void hcb_hcbtap_pending_expire(struct hcb_hcbtap *d, struct devset *touched);

/* registration.c */
/* Chunk h of a registration blob. */
int hcb_hcbtap_reg_chunk(struct hcb_hcbtap *d, const struct hcb_ev_chunk *h,
			 const unsigned char *data);
/* Packet (device, seq) of consumer cid came: its own copy, if it sent one,
 * is over.  1 if another copy is still under way (wait for it), else 0. */
int hcb_hcbtap_reg_copy_over(struct hcb_hcbtap *d, uint32_t cid, uint32_t device, uint64_t seq);
/* Give up the registrations that made no progress for a while (what
 * waited for them resolved). */
void hcb_hcbtap_regs_expire(struct hcb_hcbtap *d);
/* The end: every unfinished registration given up (what waited resolved). */
int hcb_hcbtap_regs_finish(struct hcb_hcbtap *d);
void hcb_hcbtap_regs_free(struct hcb_hcbtap *d);

#endif
