/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace record: write a running program's taps to a recording, or
 * launch a program and record it from its first tap.
 *   hcbtrace record -p PID -o FILE        hcbtrace record -o FILE -- CMD
 * and its flight recorder (--keep-last SIZE|DURATION, --until, --after, --until-signal:
 * src/watch/flight.h): the last SIZE bytes of taps before the first NaN.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recfile.h"
#include "watch/flight.h"
#include "cli.h"
#include "launch_user.h"
#include "trace.h"
#include "trace_fleet.h"
#include "trace_flight.h"
#include "follow.h"
#include "trace_job.h"
#include "trace_many.h"

static const struct cli_opt record_opts[] = {
	{ 'p', "pid", "PID", "record the running process PID (repeatable: one recording a "
	  "process, -o naming each by %p or %r)" },
	{ OPT_FOLLOW, "follow", NULL, "with -- CMD: record CMD and every process it starts, "
	  "through fork and exec, each from its first tap into a recording of its own (-o "
	  "naming each by %p or %r)" },
	{ 'o', "output", "FILE", "the recording: FILE.jsonl (JSONL) or FILE.hcbcap (binary); "
	  "%h, %p, %r, %q{VAR} in FILE: the process's host, pid, index in its job, VAR of its "
	  "environment (%% a percent sign)" },
	CUDA_OPT,
	USER_OPT,
	{ OPT_KEEP_LAST, "keep-last", "SIZE|DUR", "flight recorder: hold the most recent SIZE bytes "
	  "(K, M, G: KiB, MiB, GiB) or DUR (ms, s, m, h; at most 256M too) of taps and write them "
	  "only when --until fires or SIGUSR1 comes (give both: the tighter bound wins)" },
	{ OPT_UNTIL, "until", "COND", "end when a tap meets COND: 'nonfinite', '[NAME][@DEVICE]: "
	  "[abs] min|max|mean|sum CMP NUMBER', or when a process dies abnormally: 'exit' (on with "
	  "--keep-last) (repeatable: any one); a trigger record says which; several processes: "
	  "one firing writes every process's ring" },
	{ OPT_AFTER, "after", "N", "with --until or --until-signal: record N more taps after the "
	  "trigger, then end (default 0)" },
	{ OPT_UNTIL_SIGNAL, "until-signal", NULL, "SIGUSR1 to hcbtrace fires as --until would "
	  "(the trigger record says \"signal\"); any --keep-last takes SIGUSR1 (hcbtrace dump)" },
	{ OPT_ON_TRIGGER, "on-trigger", "ACTION", "when a tap fires --until: 'none' (default) "
	  "leaves the program running, 'stop' stops it (SIGSTOP) to be inspected; resume it with "
	  "kill -CONT PID" },
	{ OPT_REARM, "rearm", "N", "with --keep-last: after each firing (and its --after taps) arm "
	  "again with an empty ring, each firing its own recording (-o run.hcbcap: run.hcbcap, "
	  "run.1.hcbcap, ...), N at most (0: no limit)" },
	{ OPT_FLEET_DIR, "fleet-dir", "DIR", "with --keep-last and --until, across hosts: a "
	  "firing here is published in DIR, a directory every host's hcbtrace shares (NFS, "
	  "Lustre), and another host's firing there writes every ring here (looked at every "
	  "100 ms; fire files from before this hcbtrace started are ignored)" },
	IDENTITY_OPTS,
	TRACE_OPTS,
	{ 0 }
};

static pid_t pid_args[TRACE_MANY_MAX];
static size_t n_pids;
static int follow_arg;
static int user_arg;
static const char *fleet_arg;
static int until_exit_arg;      /* --until exit given, not implied */

/* --keep-last DURATION: a number and ms, s, m (minutes) or h, from 1 ms
 * to a week.  1 if arg is not a duration (no such unit), 0, or -1. */
static int parse_duration_arg(const char *arg, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (end == arg || strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (errno || arg[0] == '-' || !(v >= 1e6) || v > 7 * 86400e9)
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	return 1;
}

/* --keep-last SIZE: bytes, or K, M, G (powers of 1024), 1 KiB to 1 TiB */
static int parse_size_arg(const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end && !end[1])
		shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' ? 20 :
			*end == 'G' || *end == 'g' ? 30 : -1;
	if (errno || end == arg || arg[0] == '-' || (*end && (shift <= 0 || end[1])) ||
	    v > (1ull << 40) >> (shift > 0 ? shift : 0) || (v << (shift > 0 ? shift : 0)) < 1024)
		return -1;
	*out = v << (shift > 0 ? shift : 0);
	return 0;
}

/* --keep-last SIZE or DURATION; one of each may be given: both bound it */
static int parse_keep(const struct cli_cmd *cmd, struct trace_opts *o, const char *arg)
{
	int err = parse_duration_arg(arg, &o->keep_ns);

	if (err == 1)
		err = parse_size_arg(arg, &o->keep_bytes);
	if (err)
		return cli_usage_err(cmd, "invalid --keep-last '%s': expected bytes from 1K to "
				     "1024G (such as 64M) or a duration from 1ms to 168h (such "
				     "as 500ms, 30s, 5m)", arg);
	return 0;
}

/* --until COND: parsed now, its fault named by column */
static int parse_until(const struct cli_cmd *cmd, struct trace_opts *o, const char *arg)
{
	const char *why;
	size_t col;

	/* a process's abnormal end, not a tap's values */
	if (!strcmp(arg, "exit")) {
		o->until_exit = 1;
		until_exit_arg = 1;
		return 0;
	}
	if (o->n_until == TRACE_MAX_UNTIL)
		return cli_usage_err(cmd, "at most %u --until conditions", TRACE_MAX_UNTIL);
	if (hcb_trigger_parse(arg, &o->until[o->n_until], &col, &why)) {
		fprintf(stderr, "hcbtrace %s: --until '%s': column %zu: expected %s\n", cmd->name,
			cli_vis(arg), col, why);
		return EXIT_USAGE;
	}
	o->n_until++;
	return 0;
}

static int record_opt(const struct cli_cmd *cmd, struct trace_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'p':
		return cli_add_pid(cmd, arg, pid_args, &n_pids, TRACE_MANY_MAX) ? EXIT_USAGE : 0;
	case OPT_FOLLOW:
		follow_arg = 1;
		return 0;
	case 'o': {
		enum hcb_file_format f = hcb_file_format_of(arg);

		if (f != HCB_FMT_JSONL && f != HCB_FMT_HCBCAP)
			return cli_usage_err(cmd, "'%s': a recording is named FILE.jsonl or FILE.hcbcap", arg);
		o->output = arg;
		return 0;
	}
	case OPT_KEEP_LAST:
		return parse_keep(cmd, o, arg);
	case OPT_UNTIL:
		return parse_until(cmd, o, arg);
	case OPT_AFTER: {
		unsigned long long v;

		if (cli_parse_u64(cmd, "after", arg, ~0ull, &v))
			return EXIT_USAGE;
		o->after = v;
		return 0;
	}
	case OPT_UNTIL_SIGNAL:
		o->until_signal = 1;
		return 0;
	case OPT_FLEET_DIR:
		fleet_arg = arg;
		return 0;
	case OPT_USER:
		user_arg = 1;
		return launch_user_opt(arg);
	case OPT_ON_TRIGGER:
		if (strcmp(arg, "stop") && strcmp(arg, "none"))
			return cli_usage_err(cmd, "unknown --on-trigger action '%s': expected none "
					     "or stop", arg);
		o->stop_at_trigger = !strcmp(arg, "stop");
		return 0;
	case OPT_REARM: {
		unsigned long long v;

		if (cli_parse_u64(cmd, "rearm", arg, ~0ull, &v))
			return EXIT_USAGE;
		/* 1 is a recording not re-armed, as without --rearm */
		o->rearm = v ? v : HCB_FLIGHT_NO_LIMIT;
		return 0;
	}
	default:
		return 1;
	}
}

/* The flight recorder's options make sense together only. */
static int flight_usage(const struct cli_cmd *cmd, struct trace_opts *o)
{
	int fires = o->n_until || o->until_signal || o->until_exit;

	/* a duration alone is still bounded in bytes */
	if (o->keep_ns && !o->keep_bytes)
		o->keep_bytes = TRACE_KEEP_DEFAULT_BYTES;
	/* a firing to tell the other hosts of, and a ring to write on theirs */
	if (fleet_arg && (!o->keep_bytes || (!o->n_until && !until_exit_arg)))
		return cli_usage_err(cmd, "--fleet-dir tells the other hosts when this one's ring "
				     "fires, and writes it when theirs do: give --keep-last SIZE "
				     "and --until COND");
	/* the lead-up to a crash is what a ring is most for: an abnormal end
	 * fires it too, whatever else does */
	if (o->keep_bytes && fires)
		o->until_exit = 1;
	if (o->keep_bytes && !fires)
		return cli_usage_err(cmd, "--keep-last holds taps back until something fires: give "
				     "--until COND or --until-signal");
	if (o->after && !fires)
		return cli_usage_err(cmd, "--after counts taps after a trigger: give --until COND or "
				     "--until-signal");
	if (o->stop_at_trigger && !o->n_until)
		return cli_usage_err(cmd, "--on-trigger stop acts when a tap meets --until COND: "
				     "give one");
	if (o->rearm && !o->keep_bytes)
		return cli_usage_err(cmd, "--rearm arms the ring again after each firing: give "
				     "--keep-last SIZE (and --until COND or --until-signal)");
	return 0;
}

/* Several processes, -p or --follow: one recording each, told apart by
 * name; each has its ring, written once, when any fires (trace_job.h). */
static int many_usage(const struct cli_cmd *cmd, const struct trace_opts *o, int has_cmd)
{
	if (follow_arg && !has_cmd)
		return cli_usage_err(cmd, "--follow follows a command hcbtrace starts: record "
				     "--follow -o 'DIR/%%p.jsonl' -- CMD [ARGS...]");
	if (n_pids < 2 && !follow_arg)
		return 0;
	if (!trace_many_name_ok(o->output))
		return cli_usage_err(cmd, "several processes are recorded, one file each: name "
				     "them apart with %%p (pid) or %%r (process index) in -o, such "
				     "as -o 'run/taps-%%h-%%p%s'", o->output &&
				     hcb_file_format_of(o->output) == HCB_FMT_HCBCAP ?
				     ".hcbcap" : ".jsonl");
	if (o->rearm)
		return cli_usage_err(cmd, "--rearm arms one process's ring again: with several "
				     "processes each ring is written once, when the first fires "
				     "(give --keep-last and --until without --rearm)");
	if (o->stop_at_trigger)
		return cli_usage_err(cmd, "--on-trigger stop stops one process: with several "
				     "processes give --keep-last and --until without it");
	return 0;
}

/* What to record: -p PID..., -- CMD, --follow -- CMD. */
static int record_what(const struct cli_cmd *cmd, struct trace_opts *o, int has_cmd)
{
	if (!o->output)
		return cli_usage_err(cmd, "where to? give the recording with -o FILE.jsonl or -o FILE.hcbcap");
	if (n_pids && has_cmd)
		return cli_usage_err(cmd, "give either -p PID or -- CMD, not both");
	if (!n_pids && !has_cmd)
		return cli_usage_err(cmd, "what to record? -p PID for a running process, or -- CMD [ARGS...]");
	if (n_pids && user_arg)
		return cli_usage_err(cmd, "--user is whom a command hcbtrace starts runs as: "
				     "record -o FILE --user NAME -- CMD");
	if (n_pids && o->cuda)
		return cli_usage_err(cmd, "--cuda is for a command hcbtrace starts (CUPTI is loaded "
				     "into a program as it starts): record -o FILE --cuda -- CMD");
	return many_usage(cmd, o, has_cmd);
}

static int record_one(struct trace_opts *o, char **argv)
{
	struct trace *t = NULL;
	int code = trace_new(&t, o);

	if (code == EXIT_OK) {
		if (n_pids) {
			code = trace_attach(t, pid_args[0]);
			if (code == EXIT_OK)
				code = trace_run(t, NULL, NULL);
		} else {
			code = trace_launch(t, argv);
		}
	}
	trace_free(t);
	return code;
}

static int run_record(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct trace_opts o;
	int first, code;

	trace_opts_init(&o);
	n_pids = 0;
	follow_arg = 0;
	user_arg = 0;
	fleet_arg = NULL;
	until_exit_arg = 0;
	code = parse_launch_opts(cmd, argc, argv, &o, record_opt, &first);
	if (code)
		return code < 0 ? EXIT_OK : code;
	code = record_what(cmd, &o, first < argc);
	o.own_cmd = first < argc;
	if (!code)
		code = flight_usage(cmd, &o);
	if (code)
		return code;
	trace_install_signals();
	/* a ring is written on SIGUSR1 (`hcbtrace dump`) whatever else fires it */
	if (o.until_signal || o.keep_bytes)
		trace_install_flight_signal();
	if (fleet_arg && (code = trace_fleet_open(fleet_arg, o.quiet)))
		return code;
	/* one trigger, the whole job's lead-up: each process's ring written
	 * when any fires (any host's, with --fleet-dir) */
	if (follow_arg || n_pids > 1 || fleet_arg)
		trace_job_begin();
	if (follow_arg)
		code = trace_follow(&o, argv + first);
	/* under --until exit, a process not hcbtrace's child too: its end is
	 * the kernel's word to the loop of several (trace_many.c) */
	else if (n_pids > 1 || (n_pids == 1 && o.until_exit))
		code = trace_many_pids(&o, pid_args, n_pids);
	else
		code = record_one(&o, argv + first);
	trace_fleet_end();
	return code;
}

const struct cli_cmd cmd_record = {
	.name = "record",
	.run = run_record,
	.summary = "record a program's taps to a file (.jsonl or .hcbcap)",
	.usage = "[OPTIONS] -o FILE (-p PID [-p PID...] | [--follow] -- CMD [ARGS...])",
	.description = "Record the taps of running processes, or of CMD (and with --follow every "
		       "process it starts) from its first tap, to FILE (one a process).",
	.opts = record_opts,
	.takes_command = 1,
};
