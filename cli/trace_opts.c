/* SPDX-License-Identifier: MIT */
/* trace_opts.c - the options every tracing command takes (TRACE_OPTS in
 * trace.h): parsed into a struct trace_opts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/provider.h"
#include "identity_opts.h"
#include "trace.h"
#include "words.h"

void trace_opts_init(struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ring_bytes = 64ull << 20;
	o->max_lag_ns = TRACE_MAX_LAG_MS * 1000000ull;
	o->print = (struct print_choice)PRINT_CHOICE_DEFAULT;
}

static int parse_duration(const struct cli_cmd *cmd, struct trace_opts *o, const char *arg)
{
	char *end;

	errno = 0;
	o->duration = strtod(arg, &end);
	if (errno || end == arg || *end || !(o->duration > 0) || o->duration > 1e9)
		return cli_usage_err(cmd, "invalid duration '%s': expected seconds, such as 10 or 0.5", arg);
	return 0;
}

/* The largest ring: the kernel counts a ring's bytes in 32 bits (4096 MiB
 * was 0 there), and takes powers of two only. */
#define TRACE_MAX_BUFFER_MIB 2048ull

static int parse_buffer(const struct cli_cmd *cmd, struct trace_opts *o, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || strchr(arg, '-') || v == 0 || (v & (v - 1)) ||
	    v > TRACE_MAX_BUFFER_MIB)
		return cli_usage_err(cmd, "invalid buffer size '%s': expected a power of two from 1 to "
				     "%llu (MiB)", arg, TRACE_MAX_BUFFER_MIB);
	o->ring_bytes = v << 20;
	return 0;
}

static int parse_provider(const struct cli_cmd *cmd, struct trace_opts *o, const char *arg)
{
	int i = hcb_provider_index(arg);
	char names[128];

	if (i < 0) {
		cli_provider_names(names, sizeof(names));
		return cli_usage_err(cmd, "unknown provider '%s': expected %s", arg, names);
	}
	o->providers |= 1u << i;
	return 0;
}

int trace_opt(const struct cli_cmd *cmd, struct trace_opts *o, int c, const char *arg)
{
	unsigned long long v;
	int code = filter_opt(cmd, &o->filter, c, arg);

	if (code == 1)
		code = print_flag(cmd, &o->print, c, arg);
	if (code == 1)
		code = identity_opt(cmd, &o->ident, c, arg);
	if (code != 1)
		return code;
	switch (c) {
	case 'c':
		if (cli_parse_u64(cmd, "count", arg, ~0ull, &v))
			return EXIT_USAGE;
		if (v == 0)
			return cli_usage_err(cmd, "invalid count '0': expected at least 1");
		o->count = v;
		return 0;
	case 'd':
		return parse_duration(cmd, o, arg);
	case 'f':
		if (!strcmp(arg, "text"))
			o->format = FORMAT_TEXT;
		else if (!strcmp(arg, "jsonl"))
			o->format = FORMAT_JSONL;
		else
			return cli_usage_err(cmd, "unknown format '%s': expected text or jsonl", arg);
		return 0;
	case 'b':
		return parse_buffer(cmd, o, arg);
	case OPT_MAX_LAG:
		/* up to a minute: past that it is no limit anyone means */
		if (cli_parse_u64(cmd, "max lag", arg, 60000, &v))
			return EXIT_USAGE;
		o->max_lag_ns = v * 1000000ull;
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	case OPT_PROVIDER:
		return parse_provider(cmd, o, arg);
	case OPT_CUDA:
		o->cuda = 1;
		return 0;
	case OPT_NO_TEXT:
		o->without |= HCB_WITHOUT_TEXT;
		return 0;
	case OPT_TEXT_PROBE:
		o->without |= HCB_WITHOUT_MADE_TEXT;
		return 0;
	default:
		return 1;
	}
}
