/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace attach PID: print a running program's taps like id_print.
 * attach -p A -p B ...: several processes, each its own session
 * (trace_many.h), printed on one stream; a tap after another process's
 * says first whose it is (a "# pid" or "# process" line).
 */

#include "cli.h"
#include "trace.h"
#include "trace_many.h"

static const struct cli_opt attach_opts[] = {
	{ 'p', "pid", "PID", "the process to attach to (or give PID as the argument); again "
	  "for several, printed on one stream" },
	FORMAT_OPT,
	PRINT_FLAGS,
	IDENTITY_OPTS,
	TRACE_OPTS,
	{ 0 }
};

struct attach_args {
	const struct cli_cmd *cmd;
	struct trace_opts o;
	pid_t pids[TRACE_MANY_MAX];
	size_t n;
};

static int attach_opt(void *ctx, int c, const char *arg)
{
	struct attach_args *a = ctx;

	if (c == 'p')
		return cli_add_pid(a->cmd, arg, a->pids, &a->n, TRACE_MANY_MAX) ? EXIT_USAGE : 0;
	return trace_opt(a->cmd, &a->o, c, arg);
}

/* Several processes on one stream: text says whose each tap is; JSONL
 * records could not be told apart, so they go one file each. */
static int several(struct attach_args *a)
{
	if (a->o.format == FORMAT_JSONL)
		return cli_usage_err(a->cmd, "several processes' JSONL on one stream could not be "
				     "told apart: record them one file each, as in hcbtrace record "
				     "-p A -p B -o 'run/taps-%%p.jsonl'");
	a->o.shared_stdout = 1;
	trace_install_signals();
	return trace_many_pids(&a->o, a->pids, a->n);
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
	if (a.n > 1) {
		if (optind < argc)
			return cli_usage_err(cmd, "unexpected argument '%s': give each process "
					     "with -p", argv[optind]);
		return several(&a);
	}
	pid = a.n ? a.pids[0] : 0;
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
	.usage = "[OPTIONS] PID | -p PID [-p PID...]",
	.description = "Attach to a running program and print its taps like id_print. With "
		       "-p given several times, attach to each process and print all their "
		       "taps on one stream, a line before a tap from a different process saying "
		       "which process it is from.",
	.opts = attach_opts,
};
