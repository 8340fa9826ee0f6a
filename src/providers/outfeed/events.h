/* SPDX-License-Identifier: MIT */
/*
 * events.h - the records the xla-outfeed provider's probe (outfeed.bpf.c)
 * puts in the ring buffer for its decoder (decode.c), numbered in
 * bpf/ring.h: per call of XLA's outfeed runtime, HCB_EV_XLEAF, then the
 * leaf's bytes as HCB_EV_XDATA chunks (struct hcb_ev_chunk).
 */
#ifndef HCB_OUTFEED_EVENTS_H
#define HCB_OUTFEED_EVENTS_H

#include "bpf/ring.h"
#include "core/wire.h"

/*
 * One call of XLA's CPU outfeed runtime (jaxlib <= 0.4.31): a leaf of an
 * outfeed tuple, with its serialized xla.ShapeProto; the leaf's bytes follow
 * as HCB_EV_XDATA chunks of the same device and seq.
 */
#define HCB_XSHAPE_MAX 512u
struct hcb_ev_xleaf {
	HCB_WIRE_U32 type;         /* HCB_EV_XLEAF */
	HCB_WIRE_U32 device;       /* its device's slot (bpf/ring.h) */
	HCB_WIRE_U64 seq;          /* per device, counted by the BPF side */
	HCB_WIRE_U64 ts_ns;        /* CLOCK_MONOTONIC */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 len;          /* the leaf's bytes */
	HCB_WIRE_U32 shape_len;    /* the ShapeProto's bytes (0 copied if > HCB_XSHAPE_MAX) */
	unsigned char shape[HCB_XSHAPE_MAX];
};

#endif
