/* SPDX-License-Identifier: MIT */
/*
 * hcbtap_decode.h - the hcbtap provider's decoder: turns the ring buffer's
 * records (bpf/hcbtap_events.h) back into packets: registrations first, then per device each packet's chunks,
 * reassembled and checked against the consumer's registered shape.
 *
 * Malformed input is counted per device and reported through ops->warn,
 * never trusted: wrong magic, unknown consumer, a payload whose size does not
 * match the registration, chunks outside their packet, a device out of
 * range.  What it holds for the target is bounded (decode_bounds.h).  No
 * BPF in here, so the unit tests feed it records directly.
 */
#ifndef HCB_HCBTAP_DECODE_H
#define HCB_HCBTAP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "consumer.h"
#include "hcb_wire.h"
#include "packet.h"
#include "registry.h"

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
struct hcb_registry *hcb_decoder_registry(struct hcb_decoder *d);

#endif
