/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace convert IN -o OUT: between .jsonl and .hcbcap, or to NumPy .npz,
 * or to a .json timeline for Perfetto and chrome://tracing.  The output's
 * name picks the format, as for record: a timeline is one more written
 * format (formats/timeline.c), so it needs no option of its own.  Parquet
 * (OUT.parquet, or a dataset OUTDIR/) takes several inputs and directories,
 * and is written by pyarrow: convert_parquet.c.
 */
#include <string.h>

#include "cli.h"
#include "convert_parquet.h"
#include "job_input.h"
#include "playback_job.h"
#include "trace.h"

static const struct cli_opt convert_opts[] = {
	{ 'o', "output", "FILE", "the output: .jsonl, .hcbcap, .npz, .json (a timeline for Perfetto), "
	  ".parquet or DIR/ (Parquet, by pyarrow)" },
	FILTER_OPTS,
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

struct convert_args {
	const struct cli_cmd *cmd;
	struct playback_opts o;
	const char *out;
};

static int convert_opt(void *ctx, int c, const char *arg)
{
	struct convert_args *a = ctx;

	if (c == 'o') {
		a->out = arg;
		return 0;
	}
	return filter_opt(a->cmd, &a->o.filter, c, arg);
}

static int run_convert(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct convert_args a = { .cmd = cmd };
	struct hcb_jobset set;
	struct cli_output dest;
	const char *out;
	struct hcb_writer *w;
	int code, err;

	code = cli_parse_opts(cmd, argc, argv, convert_opt, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	out = a.out;
	if (out && convert_parquet_wanted(out))
		return convert_parquet(cmd, argc - optind, argv + optind, out, &a.o.filter);
	if (optind >= argc)
		return cli_usage_err(cmd, "which recording? hcbtrace convert IN -o OUT");
	if (!out)
		return cli_usage_err(cmd, "where to? give the output with -o OUT.jsonl, OUT.hcbcap, OUT.npz, "
				     "OUT.json (timeline), OUT.parquet or OUTDIR/ (Parquet)");
	switch (hcb_file_format_of(out)) {
	case HCB_FMT_JSONL: case HCB_FMT_HCBCAP: case HCB_FMT_NPZ: case HCB_FMT_TIMELINE:
		break;
	default:
		return cli_usage_err(cmd, "'%s': name the output .jsonl, .hcbcap, .npz, .json (timeline) or .parquet", out);
	}
	/* by the file, not its name: ./x, x and a hard link of x are one */
	for (int i = optind; i < argc; i++)
		if (!strcmp(out, argv[i]) || cli_same_file(out, argv[i]))
			return cli_usage_err(cmd, "'%s' is the input '%s' itself: converting it into itself "
					     "would lose it; give the output another name", out, argv[i]);
	/* .npz and the timeline name a tap by its device alone: the processes
	 * of a job (each its cuda:0) would run together */
	if (job_input_is_job((const char *const *)argv + optind, argc - optind) &&
	    hcb_file_format_of(out) != HCB_FMT_JSONL && hcb_file_format_of(out) != HCB_FMT_HCBCAP)
		return cli_usage_err(cmd, "'%s': a job's recordings convert to .jsonl or .hcbcap, which keep "
				     "who each process is; convert one process's recording to .npz or a timeline", out);
	trace_install_signals();
	hcb_jobset_init(&set);
	if (job_input_is_job((const char *const *)argv + optind, argc - optind) &&
	    (code = job_input_load(&set, (const char *const *)argv + optind, argc - optind, 0, EXIT_FAIL))) {
		hcb_jobset_free(&set);
		return code;
	}
	err = cli_output_open(&dest, out, HCB_FMT_UNKNOWN, &w);
	if (err) {
		cli_err("cannot create '%s': %s", out, strerror(-err));
		hcb_jobset_free(&set);
		return EXIT_FAIL;
	}
	a.o.dest = &dest;
	code = set.n ? playback_job(&set, w, out, &a.o) : playback(argv[optind], w, out, &a.o);
	cli_output_done(&dest);
	hcb_jobset_free(&set);
	return code;
}

const struct cli_cmd cmd_convert = {
	.name = "convert",
	.run = run_convert,
	.summary = "convert a recording between .jsonl and .hcbcap, or to .npz, a timeline or Parquet",
	.usage = "[OPTIONS] IN|DIR... -o OUT   or   FILE|DIR... -o OUT.parquet|OUTDIR/",
	.description = "Convert a recording between .jsonl and .hcbcap (losslessly), to NumPy .npz, or to a "
		       ".json timeline (Chrome Trace Event format) that Perfetto and chrome://tracing open; a directory "
		       "or several files (one job's recordings) become one, merged by time.  "
		       "To OUT.parquet (and OUT.events.parquet), or to OUTDIR/ (a dataset by host= and "
		       "process=): recordings and directories of them, a row per tap leaf, for DuckDB and "
		       "Spark; written by pyarrow in HCB_PYTHON or the python3 on PATH "
		       "(formats/PARQUET.md).",
	.opts = convert_opts,
};
