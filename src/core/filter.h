/* SPDX-License-Identifier: MIT */
/*
 * filter.h - which taps a session or a playback keeps: by device and by
 * consumer (its name or its id).  Live sessions apply it before a tap is
 * written (and to the drop records of devices left out); playback and the
 * viewer apply it to recordings.  The command line fills it (cli/filter_opts.c).
 */
#ifndef HCB_FILTER_H
#define HCB_FILTER_H

#include <stdint.h>

#include "consumer.h"

#define HCB_FILTER_MAX_CONSUMERS 64

/* Devices by id (any u32: jax numbers a CPU device process_index * 2048 +
 * local): every one, or those named, at most HCB_DEVSET_MAX. */
#define HCB_DEVSET_MAX 64
struct hcb_devset {
	int all;
	unsigned int n;
	uint32_t ids[HCB_DEVSET_MAX];
};

/* Add device id (once).  -E2BIG: HCB_DEVSET_MAX named already. */
int hcb_devset_add(struct hcb_devset *s, uint32_t id);
/* 1 if the set holds device id. */
int hcb_devset_has(const struct hcb_devset *s, uint32_t id);

struct hcb_filter {
	struct hcb_devset devices;                 /* when device_filter */
	int device_filter;                         /* 0: every device */
	const char *consumers[HCB_FILTER_MAX_CONSUMERS];   /* names or ids; none: every one */
	unsigned int nconsumers;
};

/* Keep device d.  -EINVAL: no such device number (past u32); -E2BIG: more
 * than HCB_DEVSET_MAX devices. */
int hcb_filter_add_device(struct hcb_filter *f, uint64_t d);
/* Keep consumer want (a name, or an id in C notation; the string is not
 * copied).  -EINVAL: empty; -E2BIG: more than HCB_FILTER_MAX_CONSUMERS. */
int hcb_filter_add_consumer(struct hcb_filter *f, const char *want);
/* 1 if the filter keeps device d's taps (and drops). */
int hcb_filter_device(const struct hcb_filter *f, uint32_t d);
/* 1 if the filter keeps a tap of consumer c on device. */
int hcb_filter_match(const struct hcb_filter *f, uint32_t device, const struct hcb_consumer *c);
/* 1 if want names consumer c, by name or by id. */
int hcb_filter_names(const char *want, const struct hcb_consumer *c);

#endif
