/* SPDX-License-Identifier: MIT */
/*
 * decode.h - turns the ring buffer's records (bpf/hcbtap_events.h) back into
 * packets: registrations first, then per device each packet's chunks,
 * reassembled and checked against the consumer's registered shape.
 *
 * Malformed input is counted per device and reported through ops->warn,
 * never trusted: wrong magic, unknown consumer, a payload whose size does not
 * match the registration, chunks outside their packet, a device out of
 * range.  What it holds for the target is bounded (decode_bounds.h).  No
 * BPF in here, so the unit tests feed it records directly.
 */
#ifndef HCB_DECODE_H
#define HCB_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "consumer.h"
#include "hcb_wire.h"
#include "registry.h"

/* One decoded packet, valid during the packet callback only. */
struct hcb_packet {
	uint32_t device;
	uint64_t seq;
	uint64_t ts_ns;                     /* CLOCK_MONOTONIC, as the probe took it */
	uint32_t pid, tid;
	const struct hcb_consumer *consumer;
	const unsigned char *payload;       /* leaves back to back, consumer->total_bytes */
	/* the device-side start and end of the tap's device-to-host copy
	 * (CUPTI, `run --cuda`), on ts_ns's clock; 0: not known */
	uint64_t copy_start_ns, copy_end_ns;
};

enum hcb_decode_problem {
	HCB_BAD_MAGIC,          /* the packet header's magic is not 271828 */
	HCB_UNKNOWN_CONSUMER,   /* no registration could be had for the id */
	HCB_BAD_REGISTRATION,   /* a registration blob failed validation */
	HCB_SHORT_PAYLOAD,      /* payload size differs from the registered shape,
				 * or is too large to hold */
	HCB_BAD_CHUNK,          /* chunk outside its packet's bounds or order (a chunk of no
				 * known packet is ignored: its PKT was counted already) */
	HCB_BAD_RECORD,         /* a record too short or of unknown type */
	HCB_INCOMPLETE,         /* a packet whose chunks stopped (ring buffer full) */
	HCB_BAD_DEVICE,         /* a device number past HCB_MAX_DEVICES */
	HCB_OVER_BOUND,         /* given up: what the target left unfinished passed
				 * a bound of decode_bounds.h (memory, count, age) */
	HCB_DECODE_PROBLEMS
};

struct hcb_decoder_ops {
	/* A complete, valid packet.  A negative return stops the decoder
	 * (hcb_decoder_feed returns it). */
	int (*packet)(void *ctx, const struct hcb_packet *p);
	/* Optional: read a registration blob from the target when its chunks
	 * were lost.  Returns 0 or -errno. */
	int (*read_target)(void *ctx, uint64_t addr, void *buf, size_t len);
	/* Optional: a problem with a device's stream, for diagnostics. */
	void (*warn)(void *ctx, enum hcb_decode_problem what, uint32_t device,
		     uint32_t consumer_id, const char *detail);
	/* Optional: when packet seq of device was copied off the device,
	 * device-side (CLOCK_MONOTONIC ns); it comes after the packet. */
	void (*copy_times)(void *ctx, uint32_t device, uint64_t seq, uint64_t start_ns,
			   uint64_t end_ns);
	/* Optional: the input cannot be read as this process lays it out (a
	 * layout check failed: why); the decoder reads no more, its feed
	 * returns -EPROTO. */
	void (*refuse)(void *ctx, const char *why);
};

struct hcb_stream_stats {
	uint64_t packets;        /* decoded and delivered */
	uint64_t bytes;          /* payload bytes delivered */
	uint64_t first_seq, last_seq;
	uint64_t problems[HCB_DECODE_PROBLEMS];
	uint64_t lost[HCB_LOST_REASONS];   /* packets the emitter itself said it lost, by
					    * enum hcb_lost_reason (0: a reason it did not know) */
};

struct hcb_decoder;
struct hcb_bounds;

int hcb_decoder_new(struct hcb_decoder **out, const struct hcb_decoder_ops *ops, void *ctx);
/* Unfinished packets may hold up to packet_bytes (never less than the
 * default of decode_bounds.h): a live session's ring size. */
void hcb_decoder_set_budget(struct hcb_decoder *d, uint64_t packet_bytes);
void hcb_decoder_free(struct hcb_decoder *d);
/* Feed one ring-buffer record.  Returns 0 (malformed records included: they
 * are counted), or the packet callback's negative value, or -ENOMEM. */
int hcb_decoder_feed(struct hcb_decoder *d, const void *rec, size_t len);
/* Time passes (CLOCK_MONOTONIC): what made no progress for a while is
 * given up, counted (decode_bounds.h).  0, or the packet callback's error. */
int hcb_decoder_tick(struct hcb_decoder *d, uint64_t now_ns);
/* Packets not delivered yet: chunks still coming, or held in order. */
unsigned int hcb_decoder_pending(const struct hcb_decoder *d);
/* End of input: what waited for a registration is delivered or counted,
 * packets still incomplete are counted as HCB_INCOMPLETE.  0, or the packet
 * callback's error. */
int hcb_decoder_finish(struct hcb_decoder *d);
/* Per-device figures; NULL for a device never seen (or out of range). */
const struct hcb_stream_stats *hcb_decoder_stats(const struct hcb_decoder *d, uint32_t device);
/* What came for devices out of range, together; NULL if nothing did. */
const struct hcb_stream_stats *hcb_decoder_stray(const struct hcb_decoder *d);
/* Its bounds: what it holds, the most it held, the bounds passed. */
const struct hcb_bounds *hcb_decode_bounds(const struct hcb_decoder *d);
/* Packets missing from a device's sequence: (last - first + 1) - delivered. */
uint64_t hcb_stream_gaps(const struct hcb_stream_stats *s);
struct hcb_registry *hcb_decoder_registry(struct hcb_decoder *d);
const char *hcb_decode_problem_name(enum hcb_decode_problem what);

#endif
