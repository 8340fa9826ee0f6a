/* SPDX-License-Identifier: MIT */
/* hcbtrace run -- CMD: launch CMD and print its taps from the very first one. */

#include "cli.h"
#include "launch_user.h"
#include "trace.h"

static const struct cli_opt run_opts[] = {
	FORMAT_OPT,
	CUDA_OPT,
	USER_OPT,
	PRINT_FLAGS,
	IDENTITY_OPTS,
	TRACE_OPTS,
	{ 0 }
};

struct launch_args {
	const struct cli_cmd *cmd;
	struct trace_opts *o;
	int (*own)(const struct cli_cmd *, struct trace_opts *, int, const char *);
};

static int launch_opt(void *ctx, int c, const char *arg)
{
	struct launch_args *a = ctx;
	int code = a->own ? a->own(a->cmd, a->o, c, arg) : 1;

	if (code == 1 && c == OPT_USER)
		return launch_user_opt(arg);
	return code == 1 ? trace_opt(a->cmd, a->o, c, arg) : code;
}

int parse_launch_opts(const struct cli_cmd *cmd, int argc, char **argv, struct trace_opts *o,
		      int (*own)(const struct cli_cmd *, struct trace_opts *, int, const char *),
		      int *first)
{
	struct launch_args a = { cmd, o, own };
	int code = cli_parse_opts(cmd, argc, argv, launch_opt, &a);

	*first = optind;
	return code;
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
	o.own_cmd = 1;
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
