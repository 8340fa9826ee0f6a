/* SPDX-License-Identifier: MIT */
/* hcbtrace attach PID: print a running program's taps like id_print. */

#include "cli.h"
#include "trace.h"

static const struct cli_opt attach_opts[] = {
	{ 'p', "pid", "PID", "the process to attach to (or give PID as the argument)" },
	FORMAT_OPT,
	PRINT_FLAGS,
	IDENTITY_OPTS,
	TRACE_OPTS,
	{ 0 }
};

struct attach_args {
	const struct cli_cmd *cmd;
	struct trace_opts o;
	int pid;
};

static int attach_opt(void *ctx, int c, const char *arg)
{
	struct attach_args *a = ctx;

	if (c == 'p')
		return cli_parse_pid(a->cmd, arg, &a->pid) ? EXIT_USAGE : 0;
	return trace_opt(a->cmd, &a->o, c, arg);
}

static int run_attach(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct attach_args a = { .cmd = cmd };
	struct trace *t = NULL;
	int code, pid;

	trace_opts_init(&a.o);
	code = cli_parse_opts(cmd, argc, argv, attach_opt, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	pid = a.pid;
	code = cli_pid_arg(cmd, argc, argv, &pid);
	if (code)
		return code;

	trace_install_signals();
	code = trace_new(&t, &a.o);
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
