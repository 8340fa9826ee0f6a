/* SPDX-License-Identifier: MIT */
/* print_flags.h - numpy.set_printoptions as command line options of the
 * commands that print id_print text (attach, run, replay), and
 * --nonfinite: which of the taps they print. */
#ifndef HCB_CLI_PRINT_FLAGS_H
#define HCB_CLI_PRINT_FLAGS_H

#include "text/print_opts.h"
#include "watch/nanwatch.h"
#include "cli.h"

/* The ids OPT_THRESHOLD ... OPT_NONFINITE are in enum cli_long_opt (cli.h). */
#define PRINT_FLAGS \
	{ OPT_NONFINITE, "nonfinite", NULL, "only taps holding a NaN or inf (any float leaf), " \
	  "and at the end the first of each call site and device" }, \
	{ OPT_THRESHOLD, "threshold", "N", "text: summarize arrays of more than N elements (default 1024)" }, \
	{ OPT_PRECISION, "precision", "N", "text: at most N digits after the point (default 8)" }, \
	{ OPT_LINEWIDTH, "linewidth", "N", "text: wrap array rows at N columns (default 75)" }, \
	{ OPT_EDGEITEMS, "edgeitems", "N", "text: items kept at each end when summarizing (default 3)" }, \
	{ OPT_SUPPRESS, "suppress", NULL, "text: print small floats positionally, not in scientific notation" }

/* What a command that prints taps prints, and how. */
struct print_choice {
	struct hcb_print_opts numpy;   /* text: numpy's print options */
	int nonfinite;                 /* --nonfinite: only taps holding NaN or inf */
};

#define PRINT_CHOICE_DEFAULT { HCB_PRINT_OPTS_IDPRINT, 0 }

/* Handle one of PRINT_FLAGS: 0, 1 if c is none of them, or EXIT_USAGE. */
int print_flag(const struct cli_cmd *cmd, struct print_choice *o, int c, const char *arg);

/* --nonfinite: the watch (nanwatch.h) between the records and *rx, which
 * then is the watch's; or nothing (*w NULL).  0, or EXIT_FAIL after the
 * message. */
int print_watch_around(const struct print_choice *o, struct hcb_nanwatch **w,
		       struct hcb_receiver *rx);
/* --nonfinite's summary on stderr: per call site and device, the first tap
 * that held NaN or inf and how many did; nothing for w NULL. */
void print_watch_summary(const struct hcb_nanwatch *w);

#endif
