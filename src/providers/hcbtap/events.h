/* SPDX-License-Identifier: MIT */
/*
 * events.h - the records the hcbtap provider's probe (hcbtap.bpf.c) puts
 * in the ring buffer for its decoder (decode.c), numbered in bpf/ring.h.
 * Per probe hit, in this order:
 *   HCB_EV_REG chunks   the consumer's registration blob, on first sight only
 *   HCB_EV_PKT          the packet: consumer, device, seq, size, time
 *   HCB_EV_DATA chunks  the payload, leaves back to back, offset-addressed
 * A record that cannot be reserved ends the packet there: the BPF side
 * counts the drop per device and the user side discards the partial packet.
 * A small packet of a consumer already sent comes in one record instead,
 * HCB_EV_PKT_WIRE: header, time and payload as libhcbtap laid them out
 * beside each other, taken in one read.
 */
#ifndef HCB_HCBTAP_EVENTS_H
#define HCB_HCBTAP_EVENTS_H

#include "bpf/ring.h"
#include "core/wire.h"

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

#endif
