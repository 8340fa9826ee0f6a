/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace record: write a running program's taps to a recording, or
 * launch a program and record it from its first tap.
 *   hcbtrace record -p PID -o FILE        hcbtrace record -o FILE -- CMD
 */
#include <string.h>

#include "cli.h"
#include "recfile.h"
#include "trace.h"

static const struct cli_opt record_opts[] = {
	{ 'p', "pid", "PID", "record the running process PID" },
	{ 'o', "output", "FILE", "the recording: FILE.jsonl (JSONL) or FILE.hcbcap (binary)" },
	CUDA_OPT,
	TRACE_OPTS,
	{ 0 }
};

static int pid_arg;

static int record_opt(const struct cli_cmd *cmd, struct trace_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'p':
		return cli_parse_pid(cmd, arg, &pid_arg) ? EXIT_USAGE : 0;
	case 'o': {
		enum hcb_file_format f = hcb_file_format_of(arg);

		if (f != HCB_FMT_JSONL && f != HCB_FMT_HCBCAP)
			return cli_usage_err(cmd, "'%s': a recording is named FILE.jsonl or FILE.hcbcap", arg);
		o->output = arg;
		return 0;
	}
	default:
		return 1;
	}
}

static int run_record(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct trace_opts o;
	struct trace *t = NULL;
	int first, code;

	trace_opts_init(&o);
	pid_arg = 0;
	code = parse_launch_opts(cmd, argc, argv, &o, record_opt, &first);
	if (code)
		return code < 0 ? EXIT_OK : code;
	if (!o.output)
		return cli_usage_err(cmd, "where to? give the recording with -o FILE.jsonl or -o FILE.hcbcap");
	if (pid_arg && first < argc)
		return cli_usage_err(cmd, "give either -p PID or -- CMD, not both");
	if (!pid_arg && first >= argc)
		return cli_usage_err(cmd, "what to record? -p PID for a running process, or -- CMD [ARGS...]");
	if (pid_arg && o.cuda)
		return cli_usage_err(cmd, "--cuda is for a command hcbtrace starts (CUPTI is loaded "
				     "into a program as it starts): record -o FILE --cuda -- CMD");
	trace_install_signals();
	code = trace_new(&t, &o);
	if (code == EXIT_OK) {
		if (pid_arg) {
			code = trace_attach(t, pid_arg);
			if (code == EXIT_OK)
				code = trace_run(t, NULL, NULL);
		} else {
			code = trace_launch(t, argv + first);
		}
	}
	trace_free(t);
	return code;
}

const struct cli_cmd cmd_record = {
	.name = "record",
	.run = run_record,
	.summary = "record a program's taps to a file (.jsonl or .hcbcap)",
	.usage = "[OPTIONS] -o FILE (-p PID | -- CMD [ARGS...])",
	.description = "Record the taps of a running process, or of CMD from its first tap, to FILE.",
	.opts = record_opts,
	.takes_command = 1,
};
