/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * devices.bpf.h - a device id, as its runtime numbers it, to the slot of
 * devstats its calls are counted and sent on (ring.h says why): for the
 * providers whose ids are not dense (jax's callbacks, XLA's outfeed).
 * The maps and data are common.bpf.c's (capture.bpf.h).
 */
#ifndef HCB_DEVICES_BPF_H
#define HCB_DEVICES_BPF_H

#include "capture.bpf.h"

/* Why a call went on no device's counters (nodev_count) */
#define LOST_NODEV 5         /* its runtime gave it none */

/* A call of device id past the slots: counted, by id while devover has
 * room. */
static __noinline void dev_over(__u32 id)
{
	__u64 one = 1, *n = bpf_map_lookup_elem(&devover, &id);

	__sync_fetch_and_add(&nodev[HCB_NODEV_OVER], 1);
	if (!n && !bpf_map_update_elem(&devover, &id, &one, BPF_NOEXIST))
		return;
	if (!n)
		n = bpf_map_lookup_elem(&devover, &id);   /* another thread's insert */
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		__sync_fetch_and_add(&nodev[HCB_NODEV_OVER_UNNAMED], 1);
}

/*
 * First sight of device id: the next slot, its id in dev_ids before the
 * slot is found through devslots (a record of the slot comes later
 * still).  Two threads seeing a new id at once each take a slot; BPF_NOEXIST
 * lets one in, and the other takes that one's (its own stays unused).
 * -1 past the slots.  The counter is read before it is raised, so it stops
 * near the bound however many calls come past it.
 */
static __noinline int dev_slot_new(__u32 id)
{
	__u32 slot = dev_nslots, *won;

	if (slot >= HCB_MAX_DEVICES)
		return -1;
	slot = __sync_fetch_and_add(&dev_nslots, 1);
	if (slot >= HCB_MAX_DEVICES)
		return -1;
	dev_ids[slot] = id;
	if (!bpf_map_update_elem(&devslots, &id, &slot, BPF_NOEXIST))
		return (int)slot;
	won = bpf_map_lookup_elem(&devslots, &id);
	return won ? (int)*won : -1;
}

/* Device id's slot, or -1: past the slots, counted (dev_over). */
static __always_inline int dev_slot(__u32 id)
{
	__u32 *slot = bpf_map_lookup_elem(&devslots, &id);
	int s;

	if (slot)
		return (int)*slot;
	s = dev_slot_new(id);
	if (s < 0)
		dev_over(id);
	return s;
}

/* A call lost before it had a device: counted in nodev, why (LOST_*). */
static __always_inline void nodev_count(int why)
{
	if (why == LOST_NOMEM)
		__sync_fetch_and_add(&nodev[HCB_NODEV_NO_MEMORY], 1);
	else if (why == LOST_NODEV)
		__sync_fetch_and_add(&nodev[HCB_NODEV_UNKNOWN], 1);
	else
		__sync_fetch_and_add(&nodev[HCB_NODEV_UNREADABLE], 1);
}

#endif
