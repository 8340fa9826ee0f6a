/* SPDX-License-Identifier: MIT */
/*
 * streamkey.h - the key that pairs the taps of two recordings: the device
 * and the tap's name, or, for a tap without a name, the device and its
 * consumer id; and a chained hash table of such keys, each embedded first
 * in the stream it keys.  The diff engine (diff.c) and the series its plot
 * draws (diff_series.c) key their streams through this one piece, so that
 * a plotted series is always a stream diff reported.
 */
#ifndef HCB_STREAMKEY_H
#define HCB_STREAMKEY_H

#include <stddef.h>
#include <stdint.h>

#include "core/consumer.h"

struct hcb_skey {
	struct hcb_skey *hnext;
	uint64_t hash;
	uint32_t device, consumer_id;   /* consumer_id: the first tap's */
	char *name;                     /* NULL: keyed by consumer id; freed by its owner */
};

/* t.b[0 .. t.nb), each a chain through hnext, holds every key */
struct hcb_skeys {
	struct hcb_skey **b;
	size_t nb, n;
};

/* The name c's taps are keyed by, or NULL (none: by consumer id). */
const char *hcb_skey_name(const struct hcb_consumer *c);

/* An empty table: 0 or -ENOMEM.  hcb_skeys_release() frees its buckets;
 * the keys belong to their streams (hcb_skeys_take() hands them back). */
int hcb_skeys_init(struct hcb_skeys *t);
void hcb_skeys_release(struct hcb_skeys *t);

/* The key of device and name (or id, when name is NULL), or NULL. */
struct hcb_skey *hcb_skeys_find(const struct hcb_skeys *t, uint32_t device, const char *name,
				uint32_t id);

/* Make k the key of device, name (copied) and id, and put it in t: 0, or
 * -ENOMEM with k neither named nor in t. */
int hcb_skeys_add(struct hcb_skeys *t, struct hcb_skey *k, uint32_t device, const char *name,
		  uint32_t id);

/* Some key of t, taken out of it, or NULL when t is empty: for freeing
 * the streams one by one. */
struct hcb_skey *hcb_skeys_take(struct hcb_skeys *t);

/* The order reports list streams in: by device, named before unnamed,
 * then by name or consumer id. */
int hcb_skey_cmp(const struct hcb_skey *a, const struct hcb_skey *b);

#endif
