/* SPDX-License-Identifier: MIT */
/*
 * outfeed.h - packets of XLA's legacy outfeed (the legacy provider, prov_outfeed.h), put back
 * together from the leaves the BPF side sees one by one
 * (HCB_EV_XLEAF + HCB_EV_XDATA records, events.h).
 *
 * host_callback sends each tap as a header leaf u32[2] {271828, consumer
 * id}, then the arrays of the tap as leaves of their own, in order, on the
 * tap's device.  Per device, a packet is the header and the data leaves
 * after it; it is complete when the device's next header comes, when the
 * device has been quiet for a moment (hcb_outfeed_flush_idle), or at the
 * end.  The consumer's kwargs stay in Python in such programs: a packet
 * becomes a tap of consumer "consumer-ID" with the kwarg consumer: ID, its
 * leaves a tuple (or one array).  Malformed shapes, lost leaves and leaves
 * outside a packet are counted and reported, never trusted.
 */
#ifndef HCB_OUTFEED_H
#define HCB_OUTFEED_H

#include <stddef.h>
#include <stdint.h>

#include "core/packet.h"
#include "core/registry.h"

struct hcb_outfeed;

int hcb_outfeed_new(struct hcb_outfeed **out, const struct hcb_decoder_ops *ops, void *ctx);
void hcb_outfeed_free(struct hcb_outfeed *x);
/* One ring-buffer record of type HCB_EV_XLEAF or HCB_EV_XDATA.  0, or the
 * packet callback's negative value, or -ENOMEM. */
int hcb_outfeed_feed(struct hcb_outfeed *x, const void *rec, size_t len);
/* Deliver the packets of devices quiet since before now_ns - quiet_ns
 * (CLOCK_MONOTONIC), or longer where the leaves of a packet have come
 * further apart (four times the longest such wait; ten times that for a
 * packet with no data leaf yet), never past HCB_OUTFEED_MAX_QUIET_NS.
 * Returns as feed. */
#define HCB_OUTFEED_MAX_QUIET_NS 2000000000ull

int hcb_outfeed_flush_idle(struct hcb_outfeed *x, uint64_t now_ns, uint64_t quiet_ns);
/* End of input: deliver every packet that is whole. */
int hcb_outfeed_finish(struct hcb_outfeed *x);
/* Device's figures (decode_bounds.h), from its first leaf on; NULL for a
 * device never seen; device HCB_MAX_DEVICES: every device out of range
 * together, and records that name none. */
const struct hcb_stream_stats *hcb_outfeed_stats(const struct hcb_outfeed *x, uint32_t device);
struct hcb_registry *hcb_outfeed_registry(struct hcb_outfeed *x);

#endif
