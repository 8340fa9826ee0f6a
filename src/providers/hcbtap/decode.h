/* SPDX-License-Identifier: MIT */
/*
 * decode.h - the hcbtap provider's decoder (struct hcb_hcbtap, as
 * struct hcb_jaxffi and struct hcb_outfeed are the other providers'): turns
 * the ring buffer's records (events.h) back into packets:
 * registrations first, then per device each packet's chunks, reassembled
 * and checked against the consumer's registered shape.
 *
 * Malformed input is counted per device and reported through ops->warn,
 * never trusted: wrong magic, unknown consumer, a payload whose size does not
 * match the registration, chunks outside their packet, a device out of
 * range.  What it holds for the target is bounded (providers/bounds.h).  No
 * BPF in here, so the unit tests feed it records directly.
 */
#ifndef HCB_HCBTAP_DECODE_H
#define HCB_HCBTAP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/consumer.h"
#include "core/packet.h"
#include "core/registry.h"
#include "core/wire.h"

struct hcb_hcbtap;
struct hcb_bounds;

int hcb_hcbtap_new(struct hcb_hcbtap **out, const struct hcb_decoder_ops *ops, void *ctx);
/* Unfinished packets may hold up to packet_bytes (never less than the
 * default of providers/bounds.h): a live session's ring size. */
void hcb_hcbtap_set_budget(struct hcb_hcbtap *d, uint64_t packet_bytes);
void hcb_hcbtap_free(struct hcb_hcbtap *d);
/* Feed one ring-buffer record.  Returns 0 (malformed records included: they
 * are counted), or the packet callback's negative value, or -ENOMEM. */
int hcb_hcbtap_feed(struct hcb_hcbtap *d, const void *rec, size_t len);
/* Time passes (CLOCK_MONOTONIC): what made no progress for a while is
 * given up, counted (providers/bounds.h).  0, or the packet callback's error. */
int hcb_hcbtap_tick(struct hcb_hcbtap *d, uint64_t now_ns);
/* Packets not delivered yet: chunks still coming, or held in order. */
unsigned int hcb_hcbtap_pending(const struct hcb_hcbtap *d);
/* End of input: what waited for a registration is delivered or counted,
 * packets still incomplete are counted as HCB_INCOMPLETE.  0, or the packet
 * callback's error. */
int hcb_hcbtap_finish(struct hcb_hcbtap *d);
/* Per-device figures; NULL for a device never seen (or out of range). */
const struct hcb_stream_stats *hcb_hcbtap_stats(const struct hcb_hcbtap *d, uint32_t device);
/* What came for devices out of range, together; NULL if nothing did. */
const struct hcb_stream_stats *hcb_hcbtap_stray(const struct hcb_hcbtap *d);
/* Its bounds: what it holds, the most it held, the bounds passed. */
const struct hcb_bounds *hcb_hcbtap_bounds(const struct hcb_hcbtap *d);
struct hcb_registry *hcb_hcbtap_registry(struct hcb_hcbtap *d);

#endif
