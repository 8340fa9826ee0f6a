/* SPDX-License-Identifier: MIT */
/*
 * orderq.h - an order queue: records handed on through a callback in the
 * order they were put, a tap allowed to wait at the head for what comes
 * after it (its device copy times, set by device and seq), and everything
 * behind it waiting with it so that the order is kept.
 *
 * What it guarantees, whatever the callback does:
 *   - records are delivered in the order they were put, each once, never
 *     after hcb_orderq_free (which lets what waits go undelivered);
 *   - a flush delivers from the head and stops at the first tap that still
 *     waits: no copy end time, put less than wait_ns ago, and the queue
 *     within max_records and max_bytes (of tap payloads); a flush of all
 *     delivers every record;
 *   - a tap's payload is the queue's own copy from the put on;
 *   - the callback's error stops the flush there and is returned, the
 *     record it was given delivered and gone.
 *
 * The capture engine queues records here while device copy times come
 * (src/engine/out.c).  libc only; no clock of its own: the caller says
 * what time it is.
 */
#ifndef HCB_ORDERQ_H
#define HCB_ORDERQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

struct hcb_orderq_limits {
	uint64_t wait_ns;          /* how long a tap may wait for its times */
	size_t max_records;        /* past these, the oldest go, times or not */
	uint64_t max_bytes;
};

/* Where records go, in order: 0, or -errno (the flush stops). */
typedef int (*hcb_orderq_deliver_fn)(void *ctx, const struct hcb_record *rec);

/* NULL: no memory. */
struct hcb_orderq *hcb_orderq_new(const struct hcb_orderq_limits *lim, hcb_orderq_deliver_fn fn,
				  void *ctx);
void hcb_orderq_free(struct hcb_orderq *q);

/* Queue rec (a tap's payload copied), put at now_ns: 0, or -ENOMEM (not
 * queued: flush all, then deliver it). */
int hcb_orderq_put(struct hcb_orderq *q, const struct hcb_record *rec, uint64_t now_ns);
/* Deliver what need not wait any more at now_ns (all: everything).
 * Returns the callback's error, or 0. */
int hcb_orderq_flush(struct hcb_orderq *q, uint64_t now_ns, int all);
/* The copy times of the queued tap seq of device: 1 set, 0 none such. */
int hcb_orderq_set_times(struct hcb_orderq *q, uint32_t device, uint64_t seq, uint64_t start_ns,
			 uint64_t end_ns);
/* Records queued. */
size_t hcb_orderq_len(const struct hcb_orderq *q);

#endif
