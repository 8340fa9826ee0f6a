/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the hcbtrace subcommands share: the command and option
 * tables that drive parsing, --help, the man page check and completions,
 * exit codes, and diagnostics ("hcbtrace: " on stderr).
 */
#ifndef HCB_CLI_H
#define HCB_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit codes; documented in hcbtrace(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,      /* failure while tracing: I/O, BPF at run time */
	EXIT_USAGE = 2,
	EXIT_TARGET = 3,    /* no such process, no libhcbtap in it */
	EXIT_SYSTEM = 4,    /* not enough privilege, kernel without BPF/uprobes */
};

/*
 * The getopt_long values of the options that have no short letter, for
 * every command: one list, so that no two options ever share a value (an
 * option table holding two would run one option for the other).  They
 * start past every short letter.  tests/tools/help_sync.sh (hs_option_ids)
 * checks the values and every command's table.
 */
enum cli_long_opt {
	OPT_LONG_FIRST = 256,
	OPT_DEVICE = OPT_LONG_FIRST,    /* filter.h: attach, run, record, replay, convert, view */
	OPT_CONSUMER,
	OPT_THRESHOLD,                  /* print_flags.h: attach, run, replay */
	OPT_PRECISION,
	OPT_LINEWIDTH,
	OPT_EDGEITEMS,
	OPT_SUPPRESS,
	OPT_NONFINITE,
	OPT_SPEED,                      /* replay */
	OPT_NO_WAIT,
	OPT_RTOL,                       /* diff */
	OPT_ATOL,
	OPT_EQUAL_NAN,
	OPT_PLOT,
	OPT_PLOT_STAT,
	OPT_ACROSS,
	OPT_PROVIDER,                   /* trace.h: attach, run, record, view */
	OPT_CUDA,                       /* trace.h: run, record */
	OPT_NO_TEXT,                    /* trace.h: attach, run, record */
	OPT_TEXT_PROBE,                 /* trace.h: attach, run, record */
	OPT_MAX_LAG,                    /* trace.h: attach, run, record, view */
	OPT_KEEP_LAST,                  /* record: the flight recorder */
	OPT_UNTIL,
	OPT_AFTER,
	OPT_UNTIL_SIGNAL,
	OPT_REARM,
	OPT_ON_TRIGGER,
	OPT_PROCESS_INDEX,              /* trace.h: attach, run, record */
	OPT_PROCESS_COUNT,
	OPT_JOB,
	OPT_FOLLOW,                     /* record */
	OPT_USER,                       /* launch_user.h: run, record */
	OPT_FLEET_DIR,                  /* record: trace_fleet.h */
	OPT_LONG_END
};

struct cli_opt {
	int id;              /* getopt_long's val: the short letter, or an enum cli_long_opt */
	const char *name;    /* long name */
	const char *arg;     /* argument name, NULL for a flag */
	const char *help;
};

struct cli_cmd {
	const char *name;
	int (*run)(const struct cli_cmd *cmd, int argc, char **argv);
	const char *summary;       /* one line for `hcbtrace --help` */
	const char *usage;         /* after "hcbtrace NAME " */
	const char *description;   /* one sentence for `hcbtrace NAME --help` */
	const struct cli_opt *opts; /* ends with { 0 } */
	int takes_command;         /* options end at the first operand: `-- CMD ARGS` */
};

extern const struct cli_cmd cmd_attach, cmd_barrier, cmd_run, cmd_record, cmd_replay, cmd_convert, cmd_diff, cmd_list;
extern const struct cli_cmd cmd_view;
extern const struct cli_cmd cmd_dump;
extern const struct cli_cmd cmd_check;

/* The message goes out with its control characters made visible (a target
 * or a file may have named what it shows): hcb_buf_put_visible(). */
__attribute__((format(printf, 1, 2))) void cli_err(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void cli_warn(const char *fmt, ...);
/* News that is no trouble: "hcbtrace: MSG" (the caller leaves it out under -q). */
__attribute__((format(printf, 1, 2))) void cli_note(const char *fmt, ...);
/* s as hcb_buf_put_visible() shows it, for printf: valid until eight more
 * calls ("?" if out of memory).  Everything a target or a file names that
 * goes to stdout or stderr by printf goes through here. */
const char *cli_vis(const char *s);
/* "hcbtrace: MSG\nTry 'hcbtrace NAME --help'.\n", returns EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) int cli_usage_err(const struct cli_cmd *cmd, const char *fmt, ...);

void cli_print_help(const struct cli_cmd *cmd, FILE *f);
/* getopt_long tables built from cmd->opts; *shortopts and *longopts are
 * static buffers valid until the next call. */
void cli_getopt_tables(const struct cli_cmd *cmd, const char **shortopts,
		       const struct option **longopts);

/*
 * Parse cmd's options from argv with getopt_long.  --help prints the help;
 * an unknown option or a missing argument is a usage error; every other
 * option goes to opt(ctx, c, optarg), which returns 0 or an exit code.
 * Returns 0 with optind at the first operand, CLI_HELP_SHOWN after --help,
 * or an exit code (> 0).
 */
#define CLI_HELP_SHOWN (-1)
int cli_parse_opts(const struct cli_cmd *cmd, int argc, char **argv,
		   int (*opt)(void *ctx, int c, const char *arg), void *ctx);

/* Parsing helpers: 0 or -EINVAL (after printing a usage error). */
int cli_parse_u64(const struct cli_cmd *cmd, const char *opt, const char *s,
		  unsigned long long max, unsigned long long *out);
int cli_parse_pid(const struct cli_cmd *cmd, const char *s, int *pid);
/* One more -p PID into pids[*n] (room for max): a pid given twice, or one
 * too many, is a usage error (said). */
int cli_add_pid(const struct cli_cmd *cmd, const char *s, pid_t *pids, size_t *n, size_t max);
/* -t SECS of a command that waits: seconds, 0 allowed only with allow_zero
 * (no limit), at most max. */
int cli_parse_seconds(const struct cli_cmd *cmd, const char *s, int allow_zero, double max,
		      double *out);
/* The PID argument of a command that takes it with -p or after the options
 * (*pid set by -p, else 0): 0, or an exit code after a usage error. */
int cli_pid_arg(const struct cli_cmd *cmd, int argc, char **argv, int *pid);

#endif
