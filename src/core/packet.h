/* SPDX-License-Identifier: MIT */
/*
 * packet.h - what every provider's decoder hands the capture engine: a
 * decoded packet (a tap as it came off the ring), the problems a decoder
 * counts, the operations a decoder calls back, and a stream's figures.
 * The decoders (providers/NAME/) speak it; the formats and the viewer see
 * what the engine made of it, records (record.h), never a decoder.
 */
#ifndef HCB_PACKET_H
#define HCB_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "consumer.h"
#include "wire.h"

/*
 * One decoded packet, as a decoder delivers it: valid during the packet
 * callback only.  Its time is the probe's, CLOCK_MONOTONIC; the engine
 * makes it a record's tap (struct hcb_tap, record.h), on the other clock.
 */
struct hcb_packet {
	uint32_t device;                    /* its slot (bpf/ring.h), the engine
					     * makes it the device's id */
	uint64_t seq;
	uint64_t mono_ns;                   /* when the probe fired: CLOCK_MONOTONIC */
	uint32_t pid, tid;
	const struct hcb_consumer *consumer;
	const unsigned char *payload;       /* leaves back to back, consumer->total_bytes */
	/* a JAX Python callback's: the Python callable jaxlib called (the
	 * PyObject * in the target, not checked here); 0: not known */
	uint64_t py_callable;
	/* a jax.debug.print's: the line the program wrote, as it wrote it
	 * (UTF-8, without the "\n" it ended in), text_len bytes; NULL: none
	 * known (the operands say what was printed) */
	const char *text;
	uint32_t text_len;
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
	 * (the decoder's feed returns it). */
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
	/* Optional: something to tell once, that loses nothing (a call site
	 * that keeps XLA's name: why). */
	void (*notice)(void *ctx, const char *what);
	/* Optional: news that is no trouble at all (the text probe taken off:
	 * what it did). */
	void (*info)(void *ctx, const char *what);
	/* Optional: the id of device (a slot, where the probes number their
	 * devices so: bpf/ring.h), for the decoder's words; none: the device
	 * is its id. */
	uint32_t (*device_id)(void *ctx, uint32_t device);
};

struct hcb_stream_stats {
	uint64_t packets;        /* decoded and delivered */
	uint64_t bytes;          /* payload bytes delivered */
	uint64_t first_seq, last_seq;
	uint64_t problems[HCB_DECODE_PROBLEMS];
	uint64_t lost[HCB_LOST_REASONS];   /* packets the emitter itself said it lost, by
					    * enum hcb_lost_reason (0: a reason it did not know) */
};

/* Packets missing from a device's sequence: (last - first + 1) - delivered. */
uint64_t hcb_stream_gaps(const struct hcb_stream_stats *s);
/* A problem's name in words ("unknown consumer"). */
const char *hcb_decode_problem_name(enum hcb_decode_problem what);

#endif
