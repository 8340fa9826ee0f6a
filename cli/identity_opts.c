/* SPDX-License-Identifier: MIT */
/* identity_opts.c - who the process is, as the user says it (identity_opts.h). */
#include <string.h>

#include "core/procid.h"
#include "identity_opts.h"

/* Checked together, in any order: an index below the count. */
int identity_opt(const struct cli_cmd *cmd, struct hcb_ident_flags *f, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case OPT_PROCESS_INDEX:
		if (cli_parse_u64(cmd, "process index", arg, HCB_PROCESS_MAX - 1, &v))
			return EXIT_USAGE;
		f->has_index = 1;
		f->index = (uint32_t)v;
		break;
	case OPT_PROCESS_COUNT:
		if (cli_parse_u64(cmd, "process count", arg, HCB_PROCESS_MAX, &v))
			return EXIT_USAGE;
		if (!v)
			return cli_usage_err(cmd, "invalid process count '0': expected at least 1");
		f->count = (uint32_t)v;
		break;
	case OPT_JOB:
		if (!hcb_job_name_ok(arg, strlen(arg)))
			return cli_usage_err(cmd, "invalid job name '%s': expected 1 to %d printable "
					     "characters, no space", cli_vis(arg), HCB_JOB_MAX - 1);
		f->job = arg;
		return 0;
	default:
		return 1;
	}
	if (f->has_index && f->count && f->index >= f->count)
		return cli_usage_err(cmd, "--process-index %u is not below --process-count %u",
				     f->index, f->count);
	return 0;
}
