/* SPDX-License-Identifier: MIT */
/*
 * staging.h - a device's staging memory for the CUDA tap handler: a fixed
 * region (pinned host memory, allocated once) handed out as a ring, with
 * a fixed number of taps in flight.  Taps normally complete in the order
 * they were staged (one stream per device); one that completes early is
 * marked done and its bytes come back with those of the taps before it,
 * so memory stays bounded whatever the order.
 */
#ifndef HCBTAP_STAGING_H
#define HCBTAP_STAGING_H

#include <pthread.h>
#include <stdint.h>

#define HCB_STAGE_ALIGN 64u

struct hcb_staging;

/* One tap in flight: its bytes, and what the handler needs to emit it. */
struct hcb_stage {
	struct hcb_staging *pool;
	char *buf;                  /* bytes asked for, HCB_STAGE_ALIGN aligned */
	uint64_t start, end;        /* ring positions, with any skip at the wrap */
	int done;
	/* the handler's */
	uint32_t consumer;
	unsigned int device;
	int failed;
	uint64_t tap_id;
};

struct hcb_staging {
	pthread_mutex_t lock;
	char *base;
	uint64_t size;
	uint64_t head, tail;        /* handed out up to head, back up to tail */
	uint32_t nslots, first, count;  /* taps in flight, oldest first */
	uint64_t refused;           /* hcb_staging_get()s that found no room */
	struct hcb_stage slots[];
};

/* A pool over size bytes at base (not owned), at most nslots taps in
 * flight; NULL when out of memory. */
struct hcb_staging *hcb_staging_new(void *base, uint64_t size, uint32_t nslots);

/* bytes for one tap, or NULL when there is no room or no slot now. */
struct hcb_stage *hcb_staging_get(struct hcb_staging *s, uint64_t bytes);

/* The tap is done with its bytes (any thread, any order). */
void hcb_staging_put(struct hcb_stage *st);

/* Bytes handed out and not back yet (for tests and statistics). */
uint64_t hcb_staging_used(struct hcb_staging *s);

#endif /* HCBTAP_STAGING_H */
