/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace diff REF NEW: the numeric regression check (the diff command in man/hcbtrace.1).  Reads both
 * recordings in step through the file providers and feeds src/diff/diff.c, which
 * aligns and compares; this file parses the options, runs the engine and
 * decides the exit status: 0 same, 1 differ, 2 trouble.  The reports that
 * word the result are diff_text.c and diff_json.c; with --plot, the
 * records also go to src/diff/series.c, and diff_plot.c draws what it
 * gathered once the recordings are known to differ.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "recfile.h"
#include "cli.h"
#include "diff_job.h"
#include "diff_report.h"
#include "job_input.h"
#include "progress.h"

static const struct cli_opt diff_opts[] = {
	{ OPT_RTOL, "rtol", "R", "relative tolerance (default 1e-05)" },
	{ OPT_ATOL, "atol", "A", "absolute tolerance (default 1e-08)" },
	{ OPT_EQUAL_NAN, "equal-nan", NULL, "count NaN in both as equal" },
	{ 'f', "format", "FMT", "output format: text (default) or json" },
	{ OPT_PLOT, "plot", "FILE", "when they differ, draw the drift in FILE (SVG)" },
	{ OPT_PLOT_STAT, "plot-stat", "STAT", "arrays drawn as their mean (default), min, max or norm" },
	{ OPT_ACROSS, "across-processes", NULL, "compare each process of one job with process 0" },
	{ 'q', "quiet", NULL, "print nothing: the exit status tells" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

/* ---- the engine's callbacks ---- */

/* The pair's first difference by NEW's seq, then device: where a replica
 * diverged, whatever order the engine finds them in. */
static void note_first(struct diff_run *run, const struct hcb_diff_key *k, uint64_t seq, int side)
{
	if (run->have_first && (run->first_seq < seq ||
				(run->first_seq == seq && run->first_key.device <= k->device)))
		return;
	run->have_first = 1;
	run->first_seq = seq;
	run->first_key = *k;
	snprintf(run->first_name, sizeof(run->first_name), "%s", k->name ? k->name : "");
	run->first_key.name = k->name ? run->first_name : NULL;
	run->first_side = side;
	snprintf(run->first_platform, sizeof(run->first_platform), "%s", run->platform[side]);
}

static int on_tap(void *ctx, const struct hcb_diff_tap *t)
{
	struct diff_run *run = ctx;
	int err = run->series ? hcb_series_tap_differs(run->series, t) : 0;

	note_first(run, &t->key, t->seq[1], HCB_DIFF_NEW);
	if (err)
		return err;
	switch (run->fmt) {
	/* the answer is known: differ; unless the picture needs the rest */
	case OUT_QUIET: return run->series ? 0 : -ECANCELED;
	case OUT_JSON: return diff_json_tap(run, t);
	default: return diff_text_tap(run, t);
	}
}

static int on_unmatched(void *ctx, const struct hcb_diff_unmatched *u)
{
	struct diff_run *run = ctx;
	int err = run->series ? hcb_series_unmatched(run->series, u) : 0;

	note_first(run, &u->key, u->first_seq, u->side);
	if (err)
		return err;
	switch (run->fmt) {
	case OUT_QUIET: return run->series ? 0 : -ECANCELED;
	case OUT_JSON: return diff_json_unmatched(run, u);
	default: return diff_text_unmatched(run, u);
	}
}

static const struct hcb_diff_ops diff_ops = {
	.tap_differs = on_tap,
	.unmatched = on_unmatched,
};

/* ---- the command ---- */

static int parse_tol(const struct cli_cmd *cmd, const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno == ERANGE && *out != 0)
		errno = 0;   /* "1e999" is inf: numpy would take it */
	if (errno || end == s || *end || isnan(*out) || *out < 0) {
		cli_usage_err(cmd, "invalid %s '%s': expected a number >= 0 such as 1e-5", opt, s);
		return -EINVAL;
	}
	return 0;
}

static int open_reader(struct hcb_reader **r, const char *path)
{
	int err = hcb_reader_open(r, path);

	if (err == -EPROTONOSUPPORT)
		cli_err("cannot read '%s': not a recording (.jsonl or .hcbcap)", path);
	else if (err)
		cli_err("cannot open '%s': %s", path, strerror(-err));
	return err;
}

static void reader_err(struct hcb_reader *r, const char *path, int err, const char **msg)
{
	const char *m = hcb_reader_error(r);

	if (!m || !*m)
		cli_err("%s: %s", path, strerror(-err));
	else
		cli_err("%s", m);
	*msg = m && *m ? m : strerror(-err);
}

/*
 * Both files in step, one record each in turn, so that for recordings in
 * a similar order a tap's partner arrives soon after it.  Returns 0, or
 * EXIT_USAGE-style trouble (2) with *error set, or -ECANCELED (quiet: found
 * a difference), or another -errno of the engine/output.
 */
static int read_both(struct diff_run *run, struct hcb_reader *r[2], struct progress *pg,
		     const char **error)
{
	int live[2] = { 1, 1 };
	struct hcb_record rec;

	while (live[0] || live[1]) {
		for (int side = 0; side < 2; side++) {
			int n, err;

			if (!live[side])
				continue;
			n = hcb_reader_next(r[side], &rec);
			progress_update(pg, hcb_reader_tell(r[0]) + hcb_reader_tell(r[1]));
			if (n == 1) {
				if (rec.kind == HCB_REC_TAP && run->devices[side])
					rec.tap.device = (uint32_t)hcb_job_device_position(
						run->devices[side], run->ndevices[side], rec.tap.device);
				/* the series first: the engine may mark a pair in them */
				err = run->series ? hcb_series_feed(run->series, (enum hcb_diff_side)side, &rec) : 0;
				if (!err)
					err = hcb_diff_feed(run->d, (enum hcb_diff_side)side, &rec);
				if (err)
					return err;
				continue;
			}
			if (n == -ENODATA) {
				/* truncated: valid up to its last complete record */
				progress_end(pg);
				cli_warn("%s (compared up to there)", hcb_reader_error(r[side]));
				n = 0;
			}
			if (n < 0) {
				progress_end(pg);
				reader_err(r[side], run->path[side], n, error);
				return EXIT_USAGE;
			}
			live[side] = 0;
			err = hcb_diff_end(run->d, (enum hcb_diff_side)side);
			if (err)
				return err;
		}
	}
	return 0;
}

struct diff_args {
	const struct cli_cmd *cmd;
	struct hcb_diff_opts *opts;
	struct diff_run *run;
};

static int diff_opt(void *ctx, int c, const char *arg)
{
	struct diff_args *a = ctx;

	switch (c) {
	case OPT_RTOL:
		return parse_tol(a->cmd, "--rtol", arg, &a->opts->rtol) ? EXIT_USAGE : 0;
	case OPT_ATOL:
		return parse_tol(a->cmd, "--atol", arg, &a->opts->atol) ? EXIT_USAGE : 0;
	case OPT_EQUAL_NAN:
		a->opts->equal_nan = 1;
		return 0;
	case 'f':
		if (!strcmp(arg, "text"))
			a->run->fmt = a->run->fmt == OUT_QUIET ? OUT_QUIET : OUT_TEXT;
		else if (!strcmp(arg, "json"))
			a->run->fmt = a->run->fmt == OUT_QUIET ? OUT_QUIET : OUT_JSON;
		else
			return cli_usage_err(a->cmd, "unknown format '%s': expected text or json", arg);
		return 0;
	case 'q':
		a->run->fmt = OUT_QUIET;
		return 0;
	case OPT_PLOT:
		if (!*arg)
			return cli_usage_err(a->cmd, "--plot needs a file name, such as drift.svg");
		a->run->plot = arg;
		return 0;
	case OPT_ACROSS:
		a->run->across = 1;
		return 0;
	case OPT_PLOT_STAT:
		a->run->stat = hcb_stat_from_name(arg);
		if (a->run->stat < 0)
			return cli_usage_err(a->cmd, "unknown --plot-stat '%s': expected mean, min, max or norm", arg);
		return 0;
	default:
		return cli_usage_err(a->cmd, "unknown option");
	}
}

/* REF and NEW, after the options; the options checked against each other. */
static int operands(const struct cli_cmd *cmd, int argc, char **argv, struct diff_run *run)
{
	const char *pos[3];
	int npos = 0;

	for (; optind < argc && npos < 3; optind++)
		pos[npos++] = argv[optind];
	if (npos < 2)
		return cli_usage_err(cmd, npos ? "which recording to compare with '%s'?" :
					       "which recordings? expected REF and NEW%s", npos ? pos[0] : "");
	if (npos > 2)
		return cli_usage_err(cmd, "unexpected argument '%s'", pos[2]);
	run->path[0] = pos[0];
	run->path[1] = pos[1];
	if (run->stat >= 0 && !run->plot)
		return cli_usage_err(cmd, "--plot-stat chooses what --plot draws: give --plot FILE too");
	if (run->plot && (!strcmp(run->plot, pos[0]) || !strcmp(run->plot, pos[1])))
		return cli_usage_err(cmd, "'%s' is both a recording and the plot", run->plot);
	return 0;
}

/* Both files were read whole: the verdict, the report's last words and
 * the picture.  Returns the exit status. */
static int conclude(struct diff_run *run)
{
	int code = hcb_diff_differs(run->d) ? EXIT_FAIL : EXIT_OK, err = 0;

	if (run->fmt == OUT_JSON)
		err = diff_json_end(run, NULL);
	else if (run->fmt == OUT_TEXT)
		err = diff_text_summary(run);
	if (err) {
		cli_err("cannot write the report: %s", strerror(-err));
		return EXIT_USAGE;
	}
	/* the same recordings have no drift to draw: no file is written */
	if (code == EXIT_FAIL && run->plot && (err = diff_plot_write(run, run->plot))) {
		cli_err("cannot write the plot '%s': %s", run->plot, strerror(-err));
		return EXIT_USAGE;
	}
	return code;
}

/* Read, compare and report; returns the exit status. */
static int compare(struct diff_run *run, struct hcb_reader *r[2])
{
	const char *error = NULL;
	struct progress pg;
	int err;

	if (run->fmt == OUT_JSON && diff_json_begin(run, run->opts))
		return EXIT_FAIL;
	/* the report streams to stdout as differences are found */
	progress_start(&pg, hcb_reader_size(r[0]) + hcb_reader_size(r[1]), run->fmt != OUT_QUIET);
	if (!hcb_reader_size(r[0]) || !hcb_reader_size(r[1]))
		pg.total = 0;   /* a pipe's size is not known */
	err = read_both(run, r, &pg, &error);
	progress_end(&pg);
	if (err == EXIT_USAGE) {
		if (run->fmt == OUT_JSON)
			diff_json_end(run, error);
		return EXIT_USAGE;
	}
	if (!err)
		err = hcb_diff_finish(run->d);
	if (err == -ECANCELED)
		return EXIT_FAIL;   /* -q and a difference: nothing more to learn */
	if (err) {
		if (err == -EIO || err == -EPIPE)
			cli_err("cannot write the report: %s", strerror(-err));
		else
			cli_err("%s", strerror(-err));
		return EXIT_USAGE;
	}
	return conclude(run);
}

/* run->path[0] against run->path[1]: the exit status (0 same, 1 differ,
 * 2 trouble), the report on stdout. */
static int diff_files(struct diff_run *run)
{
	struct hcb_reader *r[2] = { NULL, NULL };
	int code, err;

	if (open_reader(&r[0], run->path[0]) || open_reader(&r[1], run->path[1])) {
		hcb_reader_close(r[0]);
		return EXIT_USAGE;
	}
	err = hcb_diff_new(&run->d, run->opts, &diff_ops, run);
	if (!err && run->plot)
		err = hcb_series_new(&run->series, run->stat < 0 ? HCB_STAT_MEAN : (enum hcb_stat)run->stat,
				     run->opts);
	if (err) {
		cli_err("out of memory");
		code = EXIT_FAIL;
	} else {
		run->platform[0] = hcb_diff_platform(run->d, HCB_DIFF_REF);
		run->platform[1] = hcb_diff_platform(run->d, HCB_DIFF_NEW);
		code = compare(run, r);
	}
	hcb_series_free(run->series);
	hcb_diff_free(run->d);
	run->series = NULL;
	run->d = NULL;
	hcb_reader_close(r[0]);
	hcb_reader_close(r[1]);
	return code;
}

static int run_diff(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct hcb_diff_opts opts, defaults;
	struct diff_run run = { .fmt = OUT_TEXT, .opts = &opts, .stat = -1 };
	struct diff_args args = { cmd, &opts, &run };
	int code;

	hcb_diff_opts_default(&opts);
	defaults = opts;
	opts.rtol = opts.atol = -1;   /* not given */
	/* options may come before, between or after REF and NEW */
	code = cli_parse_opts(cmd, argc, argv, diff_opt, &args);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	/* replicas must be bit-identical: no tolerance unless one is given */
	if (opts.rtol < 0)
		opts.rtol = run.across ? 0 : defaults.rtol;
	if (opts.atol < 0)
		opts.atol = run.across ? 0 : defaults.atol;
	if (run.across)
		return diff_across(cmd, &run, argc - optind, (const char *const *)argv + optind, diff_files);
	code = operands(cmd, argc, argv, &run);
	if (code)
		return code;
	if (job_input_is_job(run.path, 1) || job_input_is_job(run.path + 1, 1))
		return diff_jobs(cmd, &run, diff_files);
	return diff_files(&run);
}

const struct cli_cmd cmd_diff = {
	.name = "diff",
	.run = run_diff,
	.summary = "compare two recordings tap by tap (numeric regression check)",
	.usage = "[OPTIONS] REF NEW | --across-processes DIR",
	.description = "Compare two recordings tap by tap with numpy's isclose rule; exit 0 same, 1 differ, 2 trouble.",
	.opts = diff_opts,
};
