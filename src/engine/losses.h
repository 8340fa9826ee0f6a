/* SPDX-License-Identifier: MIT */
/*
 * losses.h - a slot's losses: acct.h's rules applied to the packets of one
 * attached provider (its struct hcb_acct), drop records written where
 * losses happened, whatever --device keeps (a filter selects taps, and a
 * recording's drop records add up to its end record's count, as replay and
 * convert keep them, cli/playback.c), and the slot's figures kept current
 * in the session files.
 *
 * What returns an int here returns the receiver's error (out.h), or 0.
 */
#ifndef HCB_ENGINE_LOSSES_H
#define HCB_ENGINE_LOSSES_H

#include <stdint.h>

struct hcb_out;
struct hcb_pub;
struct hcb_slot;
struct hcb_slots;

/* Where losses go: drop records out, figures into the session files. */
struct hcb_losses {
	struct hcb_out *out;
	struct hcb_pub *pub;
};

/* Device numbers here are slots (devices.h); what goes out, ids. */

/* Packet seq of device d of slot s, before it is written: the losses it
 * reveals become drop records first.  -ERANGE: a device out of range,
 * counted in the slot's stray, never to be written. */
int hcb_losses_packet(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d, uint64_t seq);
/* A tap of device d of slot s was written. */
void hcb_losses_written(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d);
/* Every seq of device d below upto has gone through slot s's probe: what
 * never arrived is lost. */
int hcb_losses_upto(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d, uint64_t upto);
/* The rings drained: each slot's losses that no packet showed, and the
 * calls of each device past the slots (bpf/ring.h: "too many devices"),
 * which no device's accounting holds: their count added to *unplaced. */
int hcb_losses_tail(const struct hcb_losses *l, struct hcb_slots *slots, uint64_t *unplaced);
/* Said once a slot: its probes met more devices than they hold slots for;
 * and once that they lost calls of no device known. */
void hcb_losses_watch_nodev(const struct hcb_losses *l, struct hcb_slots *slots);
/* What slot s's probe handled on device d, sent or lost (0: nothing, or
 * no count). */
uint64_t hcb_losses_handled(const struct hcb_slot *s, uint32_t d);

#endif
