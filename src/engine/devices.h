/* SPDX-License-Identifier: MIT */
/*
 * devices.h - a session's devices by id.  A slot's probes number the
 * devices they meet by slots of their own where the provider's ids are
 * not dense (provider.h: HCB_PROV_DEVIDS, bpf/ring.h): every record, and
 * every per-device figure the engine keeps (accounting, the decoder's,
 * the session files), is by slot, and a slot's id is read from the
 * probes once, where the slot first shows, and kept.  What goes out
 * (taps, drops, warnings, the summary) speaks ids: the figures of one id
 * are summed over the slots (the providers) it came through.
 */
#ifndef HCB_ENGINE_DEVICES_H
#define HCB_ENGINE_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"

struct hcb_slot;
struct hcb_slots;

/* The id of the device in slot d of s (d itself where the slot is the id,
 * and for d past the slots: a decoder's "out of range"). */
uint32_t hcb_devices_id(struct hcb_slot *s, uint32_t d);
/* The figures of every device heard of, by id ascending: how many rows
 * (at most cap; HCB_CAPTURE_DEVICES hold every one). */
size_t hcb_devices_rows(const struct hcb_slots *slots, struct hcb_capture_dev *rows, size_t cap);
/* Every device out of range together: 0 and *f, or -ENOENT if none. */
int hcb_devices_stray(const struct hcb_slots *slots, struct hcb_capture_dev *f);
/* What the probes lost on no device. */
void hcb_devices_nodev(const struct hcb_slots *slots, struct hcb_capture_nodev *n);

#endif
