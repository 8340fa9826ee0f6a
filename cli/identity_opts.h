/* SPDX-License-Identifier: MIT */
/*
 * identity_opts.h - --process-index, --process-count and --job, as attach,
 * run and record take them: who the process is where nothing better says
 * (process/identity.h weighs its jax, then its launcher's environment,
 * then these).
 */
#ifndef HCB_CLI_IDENTITY_OPTS_H
#define HCB_CLI_IDENTITY_OPTS_H

#include "process/identity.h"
#include "cli.h"

/* OPT_PROCESS_INDEX, OPT_PROCESS_COUNT, OPT_JOB: enum cli_long_opt (cli.h) */
#define IDENTITY_OPTS \
	{ OPT_PROCESS_INDEX, "process-index", "N", "the process is process N of its job, where " \
	  "neither its jax nor its launcher's environment says (the session record, headers, %r)" }, \
	{ OPT_PROCESS_COUNT, "process-count", "N", "its job has N processes, where nothing else " \
	  "says" }, \
	{ OPT_JOB, "job", "NAME", "the job's name, where its launcher names none (1 to 63 " \
	  "printable characters, no space)" }

/* Handle one of them into f, checked with what f holds (index < count):
 * 0, 1 if c is none of them, or EXIT_USAGE. */
int identity_opt(const struct cli_cmd *cmd, struct hcb_ident_flags *f, int c, const char *arg);

#endif
