/* SPDX-License-Identifier: MIT */
/* clock.h - the one way hcbtrace reads a clock: nanoseconds since its epoch. */
#ifndef HCB_CLOCK_H
#define HCB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC for intervals and deadlines (the BPF side stamps packets
 * on it too), CLOCK_REALTIME for what recordings say. */
static inline uint64_t hcb_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
