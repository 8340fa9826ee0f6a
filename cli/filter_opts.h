/* SPDX-License-Identifier: MIT */
/* filter_opts.h - --device and --consumer, as attach, run, record, replay, view and convert take them. */
#ifndef HCB_CLI_FILTER_OPTS_H
#define HCB_CLI_FILTER_OPTS_H

#include <stdint.h>

#include "core/filter.h"
#include "core/registry.h"
#include "cli.h"

/* OPT_DEVICE, OPT_CONSUMER: enum cli_long_opt (cli.h) */

#define FILTER_OPTS \
	{ OPT_DEVICE, "device", "N", "only taps from device N (repeatable)" }, \
	{ OPT_CONSUMER, "consumer", "ID|NAME", "only taps of this consumer (repeatable)" }

/* Handle OPT_DEVICE/OPT_CONSUMER into f: 0, 1 if c is neither, or EXIT_USAGE. */
int filter_opt(const struct cli_cmd *cmd, struct hcb_filter *f, int c, const char *arg);
/* Warn about each --consumer that matched none of the consumers in the
 * nregs registries regs (NULL entries are none). */
void filter_warn_unmatched(const struct hcb_filter *f, const struct hcb_registry *const *regs,
			   unsigned int nregs);

#endif
