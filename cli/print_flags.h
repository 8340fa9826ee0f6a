/* SPDX-License-Identifier: MIT */
/* print_flags.h - numpy.set_printoptions as command line options of the
 * commands that print id_print text (attach, run, replay). */
#ifndef HCB_CLI_PRINT_FLAGS_H
#define HCB_CLI_PRINT_FLAGS_H

#include "cli.h"
#include "print_opts.h"

/* The ids OPT_THRESHOLD ... OPT_SUPPRESS are in enum cli_long_opt (cli.h). */
#define PRINT_FLAGS \
	{ OPT_THRESHOLD, "threshold", "N", "text: summarize arrays of more than N elements (default 1024)" }, \
	{ OPT_PRECISION, "precision", "N", "text: at most N digits after the point (default 8)" }, \
	{ OPT_LINEWIDTH, "linewidth", "N", "text: wrap array rows at N columns (default 75)" }, \
	{ OPT_EDGEITEMS, "edgeitems", "N", "text: items kept at each end when summarizing (default 3)" }, \
	{ OPT_SUPPRESS, "suppress", NULL, "text: print small floats positionally, not in scientific notation" }

/* Handle one of PRINT_FLAGS: 0, 1 if c is none of them, or EXIT_USAGE. */
int print_flag(const struct cli_cmd *cmd, struct hcb_print_opts *o, int c, const char *arg);

#endif
