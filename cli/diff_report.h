/* SPDX-License-Identifier: MIT */
/*
 * diff_report.h - what hcbtrace diff (cmd_diff.c) shares with its reports:
 * the text report (diff_text.c) and the JSON report (diff_json.c), each fed
 * by the engine's callbacks, and the picture of --plot (diff_plot.c), drawn
 * at the end from what src/diff/series.c gathered.  Each returns 0 or
 * -errno (-EIO: stdout).
 */
#ifndef HCB_CLI_DIFF_REPORT_H
#define HCB_CLI_DIFF_REPORT_H

#include "diff/diff.h"
#include "diff/series.h"

enum out_format { OUT_TEXT, OUT_JSON, OUT_QUIET };

/* One run of the command: its files, the engine, the report's state. */
struct diff_run {
	enum out_format fmt;
	const char *path[2];
	struct hcb_diff *d;
	const char *platform[2];    /* for device names */
	int list;                   /* JSON: the open list (diff_json.c) */
	unsigned long long nitems;  /* JSON: items written in it */
	const struct hcb_diff_opts *opts;
	const char *plot;           /* --plot FILE, or NULL */
	int stat;                   /* --plot-stat: enum hcb_stat, -1 not given */
	struct hcb_series_set *series;   /* with --plot: what the picture needs */
	int across;                 /* --across-processes (diff_job.c) */
	/* there: each side's devices, ascending: a tap's device is fed to the
	 * engine as its position among them, and named back by it */
	const uint32_t *devices[2];
	size_t ndevices[2];
	/* the first difference of a pair: its key and seq (the step), NEW's
	 * but for a tap missing from NEW */
	int have_first;
	int first_side;
	uint64_t first_seq;
	struct hcb_diff_key first_key;
	char first_name[128];
	char first_platform[16];    /* its side's platform then (the engine's goes with it) */
};

/* The device a key names on side: itself, or the one at its position. */
static inline uint32_t diff_device(const struct diff_run *run, int side, uint32_t device)
{
	return run->devices[side] && device < run->ndevices[side] ? run->devices[side][device] : device;
}

/* Mismatched elements of a leaf that differs in values, in percent. */
static inline double diff_leaf_percent(const struct hcb_diff_leaf *l)
{
	return l->shape[0]->nelems ? 100.0 * (double)l->mismatched / (double)l->shape[0]->nelems : 0;
}

int diff_text_tap(const struct diff_run *run, const struct hcb_diff_tap *t);
int diff_text_unmatched(const struct diff_run *run, const struct hcb_diff_unmatched *u);
/* After the engine finished: the device sets, platforms and counts. */
int diff_text_summary(const struct diff_run *run);

/* Before anything is fed: the object's head, the "differences" list open. */
int diff_json_begin(struct diff_run *run, const struct hcb_diff_opts *o);
int diff_json_tap(struct diff_run *run, const struct hcb_diff_tap *t);
int diff_json_unmatched(struct diff_run *run, const struct hcb_diff_unmatched *u);
/* Close the lists and the object; error: why reading stopped, or NULL. */
int diff_json_end(struct diff_run *run, const char *error);

/* The picture of the drift into file (an SVG document): 0 or -errno. */
int diff_plot_write(const struct diff_run *run, const char *file);

#endif
