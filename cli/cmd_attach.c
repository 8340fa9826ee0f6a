/* SPDX-License-Identifier: MIT */
/* hcbtrace attach PID: print a running program's taps like id_print. */
#include <getopt.h>

#include "cli.h"
#include "trace.h"

static const struct cli_opt attach_opts[] = {
	{ 'p', "pid", "PID", "the process to attach to (or give PID as the argument)" },
	FORMAT_OPT,
	TRACE_OPTS,
	{ 0 }
};

static int run_attach(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct option *longopts;
	const char *shortopts;
	struct trace_opts o;
	struct trace *t = NULL;
	int pid = 0, c, code;

	trace_opts_init(&o);
	cli_getopt_tables(cmd, &shortopts, &longopts);
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd, stdout);
			return EXIT_OK;
		case 'p':
			if (cli_parse_pid(cmd, optarg, &pid))
				return EXIT_USAGE;
			break;
		case ':':
			return cli_usage_err(cmd, "option '%s' needs an argument", argv[optind - 1]);
		case '?':
			return cli_usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			code = trace_opt(cmd, &o, c, optarg);
			if (code)
				return code;
		}
	}
	if (optind < argc) {
		if (pid)
			return cli_usage_err(cmd, "give the pid once, with -p or as the argument");
		if (cli_parse_pid(cmd, argv[optind++], &pid))
			return EXIT_USAGE;
	}
	if (optind < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	if (!pid)
		return cli_usage_err(cmd, "which process? give its pid: hcbtrace attach PID");

	trace_install_signals();
	code = trace_new(&t, &o);
	if (code == EXIT_OK)
		code = trace_attach(t, pid);
	if (code == EXIT_OK)
		code = trace_run(t, NULL, NULL);
	trace_free(t);
	return code;
}

const struct cli_cmd cmd_attach = {
	.name = "attach",
	.run = run_attach,
	.summary = "attach to a running program and print its taps like id_print",
	.usage = "[OPTIONS] PID",
	.description = "Attach to a running program and print its taps like id_print.",
	.opts = attach_opts,
};
