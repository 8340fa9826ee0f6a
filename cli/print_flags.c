/* SPDX-License-Identifier: MIT */
#include "print_flags.h"

int print_flag(const struct cli_cmd *cmd, struct hcb_print_opts *o, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case OPT_THRESHOLD:
		if (cli_parse_u64(cmd, "threshold", arg, ~0ull >> 1, &v))
			return EXIT_USAGE;
		o->threshold = v;
		return 0;
	case OPT_PRECISION:
		/* numpy takes any; past 100 digits there is nothing left to show */
		if (cli_parse_u64(cmd, "precision", arg, 100, &v))
			return EXIT_USAGE;
		o->precision = (int)v;
		return 0;
	case OPT_LINEWIDTH:
		if (cli_parse_u64(cmd, "line width", arg, 1000000, &v))
			return EXIT_USAGE;
		if (v == 0)
			return cli_usage_err(cmd, "invalid line width '0': expected at least 1");
		o->linewidth = (int)v;
		return 0;
	case OPT_EDGEITEMS:
		if (cli_parse_u64(cmd, "edge items", arg, 1000000, &v))
			return EXIT_USAGE;
		o->edgeitems = (int)v;
		return 0;
	case OPT_SUPPRESS:
		o->suppress = 1;
		return 0;
	default:
		return 1;
	}
}
