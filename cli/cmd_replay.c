/* SPDX-License-Identifier: MIT */
/* hcbtrace replay FILE: print a recording exactly as attach printed it live. */
#include <errno.h>
#include <string.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "playback.h"
#include "trace.h"

enum { OPT_SPEED = 300, OPT_NO_WAIT };

static const struct cli_opt replay_opts[] = {
	FILTER_OPTS,
	{ 'c', "count", "N", "stop after N taps" },
	FORMAT_OPT,
	{ OPT_SPEED, "speed", "X", "replay X times as fast as recorded (default 1)" },
	{ OPT_NO_WAIT, "no-wait", NULL, "do not wait between taps" },
	{ 'q', "quiet", NULL, "no warnings about filters that match nothing" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

static int run_replay(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct playback_opts o = { .speed = 1 };
	enum trace_format format = FORMAT_TEXT;
	const struct option *longopts;
	const char *shortopts;
	struct hcb_writer *w;
	unsigned long long v;
	char *end;
	int c, code;

	cli_getopt_tables(cmd, &shortopts, &longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd, stdout);
			return EXIT_OK;
		case 'c':
			if (cli_parse_u64(cmd, "count", optarg, ~0ull, &v) || v == 0)
				return v == 0 ? cli_usage_err(cmd, "invalid count '0': expected at least 1") : EXIT_USAGE;
			o.count = v;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				format = FORMAT_TEXT;
			else if (!strcmp(optarg, "jsonl"))
				format = FORMAT_JSONL;
			else
				return cli_usage_err(cmd, "unknown format '%s': expected text or jsonl", optarg);
			break;
		case OPT_SPEED:
			errno = 0;
			o.speed = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o.speed > 0) || o.speed > 1e9)
				return cli_usage_err(cmd, "invalid speed '%s': expected a factor above 0, such as 2 or 0.5", optarg);
			break;
		case OPT_NO_WAIT:
			o.speed = 0;
			break;
		case 'q':
			o.quiet = 1;
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
		return cli_usage_err(cmd, "which recording? hcbtrace replay FILE");
	if (optind + 1 < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind + 1]);
	trace_install_signals();
	code = hcb_writer_open_fd(&w, STDOUT_FILENO, format == FORMAT_JSONL ? HCB_FMT_JSONL : HCB_FMT_TEXT);
	if (code) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	return playback(argv[optind], w, "standard output", &o);
}

const struct cli_cmd cmd_replay = {
	.name = "replay",
	.run = run_replay,
	.summary = "print a recording exactly as attach printed it live",
	.usage = "[OPTIONS] FILE",
	.description = "Print a recording (.jsonl, .hcbcap, or - for JSONL on stdin) as attach printed it live.",
	.opts = replay_opts,
};
