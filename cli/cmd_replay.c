/* SPDX-License-Identifier: MIT */
/* hcbtrace replay FILE: print a recording exactly as attach printed it live;
 * replay DIR (or FILE FILE...): a job's recordings as one, merged by time. */
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "job_input.h"
#include "playback_job.h"
#include "trace.h"

static const struct cli_opt replay_opts[] = {
	FILTER_OPTS,
	{ 'c', "count", "N", "stop after N taps" },
	FORMAT_OPT,
	PRINT_FLAGS,
	{ OPT_SPEED, "speed", "X", "replay X times as fast as recorded (default 1)" },
	{ OPT_NO_WAIT, "no-wait", NULL, "do not wait between taps" },
	{ 'q', "quiet", NULL, "no warnings about filters that match nothing" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

struct replay_args {
	const struct cli_cmd *cmd;
	struct playback_opts o;
	enum trace_format format;
	struct print_choice print;
};

static int replay_opt(void *ctx, int c, const char *arg)
{
	struct replay_args *a = ctx;
	unsigned long long v;
	char *end;

	switch (c) {
	case 'c':
		if (cli_parse_u64(a->cmd, "count", arg, ~0ull, &v))
			return EXIT_USAGE;
		if (v == 0)
			return cli_usage_err(a->cmd, "invalid count '0': expected at least 1");
		a->o.count = v;
		return 0;
	case 'f':
		if (!strcmp(arg, "text"))
			a->format = FORMAT_TEXT;
		else if (!strcmp(arg, "jsonl"))
			a->format = FORMAT_JSONL;
		else
			return cli_usage_err(a->cmd, "unknown format '%s': expected text or jsonl", arg);
		return 0;
	case OPT_SPEED:
		errno = 0;
		a->o.speed = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->o.speed > 0) || a->o.speed > 1e9)
			return cli_usage_err(a->cmd, "invalid speed '%s': expected a factor above 0, such as 2 or 0.5", arg);
		return 0;
	case OPT_NO_WAIT:
		a->o.speed = 0;
		return 0;
	case 'q':
		a->o.quiet = 1;
		return 0;
	default: {
		int code = print_flag(a->cmd, &a->print, c, arg);

		return code == 1 ? filter_opt(a->cmd, &a->o.filter, c, arg) : code;
	}
	}
}

/* One recording, or a job's (job_input.h): into w, closed. */
static int replay_into(struct replay_args *a, struct hcb_writer *w, const char *const *paths, int n)
{
	struct hcb_jobset set;
	int code;

	if (!job_input_is_job(paths, n))
		return playback(paths[0], w, "standard output", &a->o);
	hcb_jobset_init(&set);
	code = job_input_load(&set, paths, n, a->o.quiet, EXIT_FAIL);
	if (code)
		hcb_writer_close(w);
	else
		code = playback_job(&set, w, "standard output", &a->o);
	hcb_jobset_free(&set);
	return code;
}

static int run_replay(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct replay_args a = { .cmd = cmd, .o = { .speed = 1, .to_stdout = 1 }, .format = FORMAT_TEXT,
				 .print = PRINT_CHOICE_DEFAULT };
	struct hcb_writer *w;
	int code;

	code = cli_parse_opts(cmd, argc, argv, replay_opt, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	if (optind >= argc)
		return cli_usage_err(cmd, "which recording? hcbtrace replay FILE (or DIR, or FILE FILE...)");
	trace_install_signals();
	code = hcb_writer_open_fd(&w, STDOUT_FILENO, a.format == FORMAT_JSONL ? HCB_FMT_JSONL : HCB_FMT_TEXT);
	if (code) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	hcb_writer_set_print_opts(w, &a.print.numpy);
	a.o.nonfinite = a.print.nonfinite;
	return replay_into(&a, w, (const char *const *)argv + optind, argc - optind);
}

const struct cli_cmd cmd_replay = {
	.name = "replay",
	.run = run_replay,
	.summary = "print a recording exactly as attach printed it live",
	.usage = "[OPTIONS] FILE|DIR...",
	.description = "Print a recording (.jsonl, .hcbcap, or - for JSONL on stdin) as attach printed it live; "
		       "a directory or several files are one job's recordings, one a process, merged by time.",
	.opts = replay_opts,
};
