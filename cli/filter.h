/* SPDX-License-Identifier: MIT */
/* filter.h - --device and --consumer, as attach, run, record and replay take them. */
#ifndef HCB_CLI_FILTER_H
#define HCB_CLI_FILTER_H

#include <stdint.h>

#include "cli.h"
#include "decode.h"
#include "registry.h"

/* OPT_DEVICE, OPT_CONSUMER: enum cli_long_opt (cli.h) */

#define FILTER_OPTS \
	{ OPT_DEVICE, "device", "N", "only taps from device N (repeatable)" }, \
	{ OPT_CONSUMER, "consumer", "ID|NAME", "only taps of this consumer (repeatable)" }

struct tap_filter {
	uint64_t devices[4];          /* bitmap; all zero: every device */
	int device_filter;
	const char *consumers[64];
	unsigned int nconsumers;
};

/* Handle OPT_DEVICE/OPT_CONSUMER: 0, 1 if c is neither, or EXIT_USAGE. */
int filter_opt(const struct cli_cmd *cmd, struct tap_filter *f, int c, const char *arg);
int filter_match(const struct tap_filter *f, const struct hcb_packet *p);
/* Warn about each --consumer that matched none of the consumers in reg. */
void filter_warn_unmatched(const struct tap_filter *f, const struct hcb_registry *reg);

#endif
