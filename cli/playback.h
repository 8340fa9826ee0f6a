/* SPDX-License-Identifier: MIT */
/* playback.h - a recording through filters (and pacing) into a writer: replay and convert. */
#ifndef HCB_CLI_PLAYBACK_H
#define HCB_CLI_PLAYBACK_H

#include "filter_opts.h"
#include "output.h"
#include "recfile.h"

struct playback_opts {
	struct hcb_filter filter;
	unsigned long long count;   /* taps; 0: all */
	double speed;               /* pacing: 1 original, 2 twice as fast; 0: no waiting */
	int quiet;
	int nonfinite;              /* only taps holding NaN or inf, and their summary (print_flags.h) */
	int to_stdout;              /* the output is standard output (progress.h) */
	struct cli_output *dest;    /* NULL, or w's file: put in place once in is open */
};

/*
 * Read the recording at in and write its records (taps that pass the
 * filter, up to count) to w, named wname in messages.  A damaged file gets
 * one message naming file and line/offset after everything before it was
 * written; a truncated one a warning.  On a terminal, stderr shows how far
 * the input has been read (progress.h).  Returns an exit code; closes w.
 */
int playback(const char *in, struct hcb_writer *w, const char *wname, const struct playback_opts *o);

struct hcb_nanwatch;

/* Whether rec goes on, as --count, the filter and --speed say: 1 it does
 * (a tap counted in *taps, paced after *last_ts), 0 it is filtered out,
 * -1 --count is reached: the playback ends. */
int playback_admit(const struct playback_opts *o, const struct hcb_record *rec, uint64_t *taps,
		   uint64_t *last_ts);

/* The end of a playback into w: close it, say a writing error err (or
 * the close's) as writing to wname, and --nonfinite's summary of nw (NULL:
 * none), freed.  Returns code, or EXIT_FAIL where the writing failed. */
int playback_finish(struct hcb_writer *w, int err, const char *wname, struct hcb_nanwatch *nw,
		    int code);


#endif
