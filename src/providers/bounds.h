/* SPDX-License-Identifier: MIT */
/*
 * decode_bounds.h - what a decoder may hold and count for a target, and no
 * more.  The target is not trusted with anything: its device numbers, the
 * sizes it claims, how many consumers it registers, how much it leaves
 * half-sent.  Every decoder of ring records (hcbtap_decode.c for hcbtap; the
 * jax-callback and outfeed decoders can take it up the same way) keeps
 * these in one struct hcb_bounds instead of each writing its own device()
 * and problem():
 *
 *   - devices: figures per device below HCB_MAX_DEVICES (a device's slot
 *     where the probes number devices so, bpf/ring.h: its words give the
 *     id, hcb_bounds_id), and one more slot where everything claimed for a
 *     device out of range is counted, apart from real ones (hcb_bounds_dev);
 *   - problems: counted on their device (or that slot) and told through
 *     the decoder's warn callback (hcb_bounds_problem);
 *   - memory held for what is not finished yet (registrations, packets),
 *     each in a pool with a byte budget and a count cap: a take that would
 *     pass either is refused, and the decoder gives the oldest up, counted
 *     (hcb_bounds_take, hcb_bounds_give);
 *   - time: what made no progress for HCB_BOUNDS_EXPIRY_NS is given up
 *     (hcb_bounds_expired), on the clock the provider's tick brings.
 *
 * Bounds passed are counted per kind (hcb_bounds_counts) and told as
 * HCB_OVER_BOUND; a packet lost to one is also a problem of its device,
 * so the accounting calls it lost ("malformed or incomplete packet").
 * libc only: the unit tests and the fuzzers drive it directly.
 */
#ifndef HCB_DECODE_BOUNDS_H
#define HCB_DECODE_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/packet.h"

/* Unfinished packets: their payloads while chunks come, and packets held
 * back in order behind one that waits for its registration.  The default
 * budget; a provider sets its ring's size (hcb_hcbtap_set_budget): an
 * honest target never has more in flight than its ring holds. */
#define HCB_BOUNDS_PACKET_BYTES (64ull << 20)
#define HCB_BOUNDS_PACKETS 4096u
/* Unfinished registrations: blob and byte map each.  An honest target has
 * one or two at a time, each of a few hundred bytes. */
#define HCB_BOUNDS_REG_BYTES (16ull << 20)
#define HCB_BOUNDS_REGS 64u
/* Consumers kept: as many as the probe remembers as sent (its `seen` map),
 * and their blobs' bytes. */
#define HCB_BOUNDS_CONSUMERS 16384u
#define HCB_BOUNDS_CONSUMER_BYTES (64ull << 20)
/* No progress for this long: given up (a live session ticks every poll). */
#define HCB_BOUNDS_EXPIRY_NS 5000000000ull

/* The kinds of bound, for the counts and the words. */
enum hcb_bound {
	HCB_BOUND_DEVICE,       /* a device number out of range */
	HCB_BOUND_PACKET_MEM,   /* unfinished packets over their budget or count */
	HCB_BOUND_REG_MEM,      /* unfinished registrations over theirs */
	HCB_BOUND_CONSUMERS,    /* consumers past their count or bytes */
	HCB_BOUND_EXPIRED,      /* something unfinished made no progress */
	HCB_BOUNDS
};

/* Memory held for unfinished things of one kind. */
struct hcb_bounds_pool {
	uint64_t bytes, limit, peak;
	unsigned int n, max_n;
};

struct hcb_bounds_dev {
	int seen;               /* a packet of it was delivered */
	struct hcb_stream_stats st;
};

struct hcb_bounds {
	const struct hcb_decoder_ops *ops;
	void *ctx;
	/* the last slot: every device out of range */
	struct hcb_bounds_dev dev[HCB_MAX_DEVICES + 1];
	struct hcb_bounds_pool packets, regs;
	unsigned int consumers;
	uint64_t consumer_bytes;
	uint64_t passed[HCB_BOUNDS];   /* bounds passed, per kind */
	uint64_t now_ns;               /* the last tick's time; 0: none yet */
};

void hcb_bounds_init(struct hcb_bounds *b, const struct hcb_decoder_ops *ops, void *ctx);
/* 1 if dev names a device hcbtrace keeps figures for. */
static inline int hcb_bounds_device_ok(uint32_t dev)
{
	return dev < HCB_MAX_DEVICES;
}
/* The id of device dev (a slot: decoder_ops.device_id), for words. */
uint32_t hcb_bounds_id(const struct hcb_bounds *b, uint32_t dev);
/* Device dev's figures; every dev out of range shares the last slot. */
struct hcb_bounds_dev *hcb_bounds_dev(struct hcb_bounds *b, uint32_t dev);
/* Device dev's figures if it was ever heard of, else NULL (and NULL for
 * any dev out of range: those are hcb_bounds_stray). */
const struct hcb_stream_stats *hcb_bounds_stats(const struct hcb_bounds *b, uint32_t dev);
/* The figures of every device out of range together; NULL if none came. */
const struct hcb_stream_stats *hcb_bounds_stray(const struct hcb_bounds *b);
/* A problem with dev's stream: counted there and told. */
void hcb_bounds_problem(struct hcb_bounds *b, enum hcb_decode_problem what, uint32_t dev,
			uint32_t cid, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A bound passed that loses no packet by itself (a registration given up):
 * counted per kind and told as HCB_OVER_BOUND, on no device's figures. */
void hcb_bounds_note(struct hcb_bounds *b, enum hcb_bound kind, uint32_t dev, uint32_t cid,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A packet lost to a bound: a problem (HCB_OVER_BOUND) of its device, and
 * counted per kind. */
void hcb_bounds_lose(struct hcb_bounds *b, enum hcb_bound kind, uint32_t dev, uint32_t cid,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Packet seq of dev, of n payload bytes, was delivered. */
void hcb_bounds_delivered(struct hcb_bounds *b, uint32_t dev, uint64_t seq, uint64_t n);
/* Hold n more bytes in pool p: 0, or -ENOBUFS if that would pass its
 * budget or count (nothing taken: the caller gives something up first, or
 * refuses).  hcb_bounds_give returns them. */
int hcb_bounds_take(struct hcb_bounds_pool *p, uint64_t n);
void hcb_bounds_give(struct hcb_bounds_pool *p, uint64_t n);
/* Whether something last touched at since_ns has expired by now. */
int hcb_bounds_expired(const struct hcb_bounds *b, uint64_t since_ns);

/* The bucket of (a, b) in an index of nbuckets, a power of two: what a
 * decoder holds, found by (device, seq) or (pid, tid) without a walk.
 * The target picks the keys, so both are mixed in, neither trusted to
 * spread. */
static inline unsigned int hcb_bounds_bucket(uint64_t a, uint64_t b, unsigned int nbuckets)
{
	uint64_t h = (a ^ (b * UINT64_C(0xc2b2ae3d27d4eb4f))) * UINT64_C(0x9e3779b97f4a7c15);

	return (unsigned int)(h >> 32) & (nbuckets - 1);
}
const char *hcb_bound_name(enum hcb_bound kind);

#endif
