/* SPDX-License-Identifier: MIT */
/* hcbtrace run -- CMD: launch CMD and print its taps from the very first one. */
#include <getopt.h>

#include "cli.h"
#include "trace.h"

static const struct cli_opt run_opts[] = {
	FORMAT_OPT,
	TRACE_OPTS,
	{ 0 }
};

/* Options of run and record: parse up to CMD.  Returns 0 or an exit code;
 * *first is CMD's index in argv. */
int parse_launch_opts(const struct cli_cmd *cmd, int argc, char **argv, struct trace_opts *o,
		      int (*own)(const struct cli_cmd *, struct trace_opts *, int, const char *),
		      int *first)
{
	const struct option *longopts;
	const char *shortopts;
	int c, code;

	cli_getopt_tables(cmd, &shortopts, &longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd, stdout);
			return -1;
		case ':':
			return cli_usage_err(cmd, "option '%s' needs an argument", argv[optind - 1]);
		case '?':
			return cli_usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			code = own ? own(cmd, o, c, optarg) : 1;
			if (code == 1)
				code = trace_opt(cmd, o, c, optarg);
			if (code)
				return code;
		}
	}
	*first = optind;
	return 0;
}

static int run_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct trace_opts o;
	struct trace *t = NULL;
	int first, code;

	trace_opts_init(&o);
	code = parse_launch_opts(cmd, argc, argv, &o, NULL, &first);
	if (code)
		return code < 0 ? EXIT_OK : code;
	if (first >= argc)
		return cli_usage_err(cmd, "which command? hcbtrace run [OPTIONS] -- CMD [ARGS...]");
	trace_install_signals();
	code = trace_new(&t, &o);
	if (code == EXIT_OK)
		code = trace_launch(t, argv + first);
	trace_free(t);
	return code;
}

const struct cli_cmd cmd_run = {
	.name = "run",
	.run = run_run,
	.summary = "launch a command and print its taps from the very first one",
	.usage = "[OPTIONS] -- CMD [ARGS...]",
	.description = "Launch CMD and print its taps from the very first one; exit with CMD's status.",
	.opts = run_opts,
	.takes_command = 1,
};
