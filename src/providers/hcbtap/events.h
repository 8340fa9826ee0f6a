/* SPDX-License-Identifier: MIT */
/*
 * hcbtap_events.h - the records the BPF side (hcbtap.bpf.c) puts in the ring
 * buffer for the user side (src/live.c).  Per probe hit, in this order:
 *   HCB_EV_REG chunks   the consumer's registration blob, on first sight only
 *   HCB_EV_PKT          the packet: consumer, device, seq, size, time
 *   HCB_EV_DATA chunks  the payload, leaves back to back, offset-addressed
 * A record that cannot be reserved ends the packet there: the BPF side
 * counts the drop per device and the user side discards the partial packet.
 * A small packet of a consumer already sent comes in one record instead,
 * HCB_EV_PKT_WIRE: header, time and payload as libhcbtap laid them out
 * beside each other, taken in one read.
 * HCB_EV_EXEC says the target replaced its program image: what follows it
 * comes from a different program.
 */
#ifndef HCBTAP_EVENTS_H
#define HCBTAP_EVENTS_H

#include "core/wire.h"

enum hcb_ev_type {
	HCB_EV_REG = 1,
	HCB_EV_PKT = 2,
	HCB_EV_DATA = 3,
	HCB_EV_EXEC = 4,
	HCB_EV_XLEAF = 5,   /* legacy XLA outfeed: one leaf's header and shape */
	HCB_EV_XDATA = 6,   /* its bytes, in chunks (struct hcb_ev_chunk) */
	/* 7..9: jaxffi_events.h */
	HCB_EV_COPY = 10,   /* a CUDA tap's device-side copy times (CUPTI) */
	/* 11: not used */
	HCB_EV_PKT_WIRE = 12,     /* a small packet as it was on the wire:
				   * struct hcb_ev_pkt_wire, then its payload */
};

/*
 * A small packet, header and payload read in one piece from where
 * libhcbtap put them (HCB_WIRE_INLINE_MAX); the record may be longer than
 * the payload.  Only for a consumer whose registration was already sent.
 */
struct hcb_ev_pkt_wire {
	HCB_WIRE_U32 type;         /* HCB_EV_PKT_WIRE */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 pad;
	struct hcb_wire_packet pkt;
	struct hcb_wire_inline in; /* the time, taken by the program */
	/* followed by pkt.total_bytes of payload, leaves back to back */
};

/*
 * When a tap's leaves were copied off its device, as libhcbtap_cupti.so's
 * hcbtap_cupti:tap_copy probe tells it (CUPTI's activity records, joined
 * to the tap by its device and seq); it comes after the tap's packet.
 */
struct hcb_ev_copy {
	HCB_WIRE_U32 type;         /* HCB_EV_COPY */
	HCB_WIRE_U32 device;
	HCB_WIRE_U64 seq;
	HCB_WIRE_U64 start_ns;     /* the first copy's start, device side */
	HCB_WIRE_U64 end_ns;       /* the last copy's end */
	HCB_WIRE_U64 bytes;
	HCB_WIRE_U32 ncopies;
	HCB_WIRE_U32 pad;
};

/*
 * One call of XLA's CPU outfeed runtime (jaxlib <= 0.4.31): a leaf of an
 * outfeed tuple, with its serialized xla.ShapeProto; the leaf's bytes follow
 * as HCB_EV_XDATA chunks of the same device and seq.
 */
#define HCB_XSHAPE_MAX 512u
struct hcb_ev_xleaf {
	HCB_WIRE_U32 type;         /* HCB_EV_XLEAF */
	HCB_WIRE_U32 device;
	HCB_WIRE_U64 seq;          /* per device, counted by the BPF side */
	HCB_WIRE_U64 ts_ns;        /* CLOCK_MONOTONIC */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 len;          /* the leaf's bytes */
	HCB_WIRE_U32 shape_len;    /* the ShapeProto's bytes (0 copied if > HCB_XSHAPE_MAX) */
	unsigned char shape[HCB_XSHAPE_MAX];
};

struct hcb_ev_exec {
	HCB_WIRE_U32 type;         /* HCB_EV_EXEC */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U64 ts_ns;        /* CLOCK_MONOTONIC */
};

struct hcb_ev_pkt {
	HCB_WIRE_U32 type;         /* HCB_EV_PKT */
	HCB_WIRE_U32 consumer_id;
	HCB_WIRE_U32 device;
	HCB_WIRE_U32 nleaves;
	HCB_WIRE_U64 seq;
	HCB_WIRE_U64 total_bytes;
	HCB_WIRE_U64 ts_ns;        /* CLOCK_MONOTONIC */
	HCB_WIRE_U64 reg_addr;     /* to read the registration if its chunks were lost */
	HCB_WIRE_U64 reg_len;
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 magic;        /* the packet header's magic, as the target wrote it */
	HCB_WIRE_U32 lost_reason;  /* magic HCB_LOST_MAGIC: why (enum hcb_lost_reason) */
};

struct hcb_ev_chunk {
	HCB_WIRE_U32 type;         /* HCB_EV_REG or HCB_EV_DATA */
	HCB_WIRE_U32 consumer_id;
	HCB_WIRE_U32 device;
	HCB_WIRE_U32 len;          /* valid bytes in data[] */
	HCB_WIRE_U64 seq;
	HCB_WIRE_U64 offset;       /* of data[0] in the blob or payload */
	HCB_WIRE_U64 total;        /* blob or payload size */
	/* followed by the chunk's bytes: len valid, padded to a size class */
};

/* Per-device counters kept by the BPF side (array map "devstats"). */
struct hcb_dev_stats {
	HCB_WIRE_U64 packets;      /* PKT records emitted */
	HCB_WIRE_U64 drops;        /* packets lost: ring buffer full */
	HCB_WIRE_U64 read_errors;  /* packets lost: target memory unreadable */
	HCB_WIRE_U64 lag_drops;    /* packets turned away: output over --max-lag */
	HCB_WIRE_U64 handled;      /* seq + 1 of the last packet through the probe,
				    * sent or lost (a device's packets come in order) */
};

/*
 * record --on-trigger stop with --until nonfinite: the float leaves of a
 * consumer that the probe checks itself in a small packet's inline
 * payload, so that it stops the target (SIGSTOP from the target's own
 * thread) at the tap with a NaN or infinity, not steps later.  Spans of
 * one float kind, at most HCB_NF_SPAN bytes each, offsets into the
 * payload; devices the condition is on, a bit each.  Filled by the user
 * side (src/engine/capture_nfstop.c) for the consumers the condition selects.
 */
#define HCB_NF_SPAN 64u
#define HCB_NF_MAX_SPANS 32u
#define HCB_NF_MAX_CONSUMERS 4096u

enum hcb_nf_kind { HCB_NF_F16 = 1, HCB_NF_BF16 = 2, HCB_NF_F32 = 3, HCB_NF_F64 = 4 };

struct hcb_nf_span {
	HCB_WIRE_U32 off;          /* into the payload, < HCB_WIRE_INLINE_MAX */
	HCB_WIRE_U32 len;          /* 1..HCB_NF_SPAN, whole elements */
	HCB_WIRE_U32 kind;         /* enum hcb_nf_kind */
	HCB_WIRE_U32 pad;
};

struct hcb_nf_layout {
	HCB_WIRE_U32 nspans;
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 device_mask[HCB_MAX_DEVICES / 64];
	struct hcb_nf_span span[HCB_NF_MAX_SPANS];
};

#endif
