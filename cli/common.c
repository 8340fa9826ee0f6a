/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "cli.h"

/* A message names what a target or a file named (a path, a consumer): a
 * control character in it is shown, never acted on (hcb_buf_put_visible). */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	struct hcb_buf raw = HCB_BUF_INIT, shown = HCB_BUF_INIT;

	fflush(stdout);
	if (hcb_buf_vprintf(&raw, fmt, ap) || hcb_buf_put_visible(&shown, raw.data, raw.len))
		fprintf(stderr, "hcbtrace: %sout of memory\n", prefix);
	else
		fprintf(stderr, "hcbtrace: %s%s\n", prefix, hcb_buf_str(&shown));
	hcb_buf_free(&raw);
	hcb_buf_free(&shown);
}

const char *cli_vis(const char *s)
{
	/* a few at once: one printf may show several */
	static struct hcb_buf ring[8];
	static unsigned int next;
	struct hcb_buf *b = &ring[next++ % 8];

	hcb_buf_reset(b);
	if (!s || hcb_buf_put_visible(b, s, strlen(s)))
		return "?";
	return hcb_buf_str(b);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int cli_usage_err(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "Try 'hcbtrace %s --help'.\n", cmd->name);
	else
		fprintf(stderr, "Try 'hcbtrace --help'.\n");
	return EXIT_USAGE;
}

void cli_print_help(const struct cli_cmd *cmd, FILE *f)
{
	fprintf(f, "Usage: hcbtrace %s %s\n\n%s\n\nOptions:\n", cmd->name, cmd->usage,
		cmd->description);
	for (const struct cli_opt *o = cmd->opts; o->name; o++) {
		char shortname[8] = "    ", longname[64];

		if (o->id < OPT_LONG_FIRST)
			snprintf(shortname, sizeof(shortname), "-%c, ", o->id);
		snprintf(longname, sizeof(longname), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %s%-21s%s\n", shortname, longname, o->help);
	}
}

void cli_getopt_tables(const struct cli_cmd *cmd, const char **shortopts,
		       const struct option **longopts)
{
	static char sbuf[128];
	static struct option lbuf[64];
	size_t s = 0, l = 0;

	/* '+': stop at the first non-option, so `run CMD -x` keeps CMD's options;
	 * other commands take options before and after their operands */
	if (cmd->takes_command)
		sbuf[s++] = '+';
	sbuf[s++] = ':';
	for (const struct cli_opt *o = cmd->opts; o->name && l + 1 < 64; o++) {
		if (o->id < OPT_LONG_FIRST && s + 3 < sizeof(sbuf)) {
			sbuf[s++] = (char)o->id;
			if (o->arg)
				sbuf[s++] = ':';
		}
		lbuf[l++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->id };
	}
	sbuf[s] = '\0';
	lbuf[l] = (struct option){ 0 };
	*shortopts = sbuf;
	*longopts = lbuf;
}

int cli_parse_opts(const struct cli_cmd *cmd, int argc, char **argv,
		   int (*opt)(void *ctx, int c, const char *arg), void *ctx)
{
	const struct option *longopts;
	const char *shortopts;
	int c, code;

	cli_getopt_tables(cmd, &shortopts, &longopts);
	optind = 1;
	opterr = 0;   /* the messages are ours */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd, stdout);
			return CLI_HELP_SHOWN;
		case ':':
			return cli_usage_err(cmd, "option '%s' needs an argument", argv[optind - 1]);
		case '?':
			return cli_usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			code = opt(ctx, c, optarg);
			if (code)
				return code;
		}
	}
	return 0;
}

int cli_parse_u64(const struct cli_cmd *cmd, const char *opt, const char *s,
		  unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s || *end || strchr(s, '-') || *out > max) {
		cli_usage_err(cmd, "invalid %s '%s': expected a whole number from 0 to %llu", opt, s, max);
		return -EINVAL;
	}
	return 0;
}

int cli_parse_pid(const struct cli_cmd *cmd, const char *s, int *pid)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || v == 0 || v > 0x3fffffff) {
		cli_usage_err(cmd, "invalid pid '%s': expected a process id such as 1234", s);
		return -EINVAL;
	}
	*pid = (int)v;
	return 0;
}

int cli_add_pid(const struct cli_cmd *cmd, const char *s, pid_t *pids, size_t *n, size_t max)
{
	int pid;

	if (*n == max) {
		cli_usage_err(cmd, "at most %zu processes (-p)", max);
		return -EINVAL;
	}
	if (cli_parse_pid(cmd, s, &pid))
		return -EINVAL;
	for (size_t i = 0; i < *n; i++) {
		if (pids[i] == pid) {
			cli_usage_err(cmd, "process %d is given twice (-p)", pid);
			return -EINVAL;
		}
	}
	pids[(*n)++] = pid;
	return 0;
}

int cli_parse_seconds(const struct cli_cmd *cmd, const char *s, int allow_zero, double max,
		      double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(allow_zero ? *out >= 0 : *out > 0) || *out > max) {
		cli_usage_err(cmd, "invalid timeout '%s': expected seconds, such as 10 or 0.5%s", s,
			      allow_zero ? " (0: no limit)" : "");
		return -EINVAL;
	}
	return 0;
}

int cli_pid_arg(const struct cli_cmd *cmd, int argc, char **argv, int *pid)
{
	if (optind < argc) {
		if (*pid)
			return cli_usage_err(cmd, "give the pid once, with -p or as the argument");
		if (cli_parse_pid(cmd, argv[optind++], pid))
			return EXIT_USAGE;
	}
	if (optind < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	if (!*pid)
		return cli_usage_err(cmd, "which process? give its pid: hcbtrace %s PID", cmd->name);
	return 0;
}
