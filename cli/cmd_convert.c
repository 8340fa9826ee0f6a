/* SPDX-License-Identifier: MIT */
/* hcbtrace convert IN -o OUT: between .jsonl and .hcbcap, or to NumPy .npz. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "playback.h"
#include "trace.h"

static const struct cli_opt convert_opts[] = {
	{ 'o', "output", "FILE", "the converted recording: .jsonl, .hcbcap or .npz" },
	FILTER_OPTS,
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

static int run_convert(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct playback_opts o = { .speed = 0, .quiet = 0 };
	const struct option *longopts;
	const char *shortopts, *out = NULL;
	struct hcb_writer *w;
	int c, code, err;

	cli_getopt_tables(cmd, &shortopts, &longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd, stdout);
			return EXIT_OK;
		case 'o':
			out = optarg;
			break;
		case ':':
			return cli_usage_err(cmd, "option '%s' needs an argument", argv[optind - 1]);
		case '?':
			return cli_usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			code = filter_opt(cmd, &o.filter, c, optarg);
			if (code)
				return code;
		}
	}
	if (optind >= argc)
		return cli_usage_err(cmd, "which recording? hcbtrace convert IN -o OUT");
	if (optind + 1 < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind + 1]);
	if (!out)
		return cli_usage_err(cmd, "where to? give the output with -o OUT.jsonl, OUT.hcbcap or OUT.npz");
	switch (hcb_file_format_of(out)) {
	case HCB_FMT_JSONL: case HCB_FMT_HCBCAP: case HCB_FMT_NPZ:
		break;
	default:
		return cli_usage_err(cmd, "'%s': name the output .jsonl, .hcbcap or .npz", out);
	}
	if (!strcmp(out, argv[optind]))
		return cli_usage_err(cmd, "'%s' is both input and output", out);
	trace_install_signals();
	err = hcb_writer_open(&w, out, HCB_FMT_UNKNOWN);
	if (err) {
		cli_err("cannot create '%s': %s", out, strerror(-err));
		return EXIT_FAIL;
	}
	return playback(argv[optind], w, out, &o);
}

const struct cli_cmd cmd_convert = {
	.name = "convert",
	.run = run_convert,
	.summary = "convert a recording between .jsonl and .hcbcap, or to .npz",
	.usage = "[OPTIONS] IN -o OUT",
	.description = "Convert a recording between .jsonl and .hcbcap (losslessly), or to NumPy .npz.",
	.opts = convert_opts,
};
