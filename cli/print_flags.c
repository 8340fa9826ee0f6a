/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "core/buf.h"
#include "text/idprint.h"
#include "print_flags.h"

int print_flag(const struct cli_cmd *cmd, struct print_choice *o, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case OPT_NONFINITE:
		o->nonfinite = 1;
		return 0;
	case OPT_THRESHOLD:
		if (cli_parse_u64(cmd, "threshold", arg, ~0ull >> 1, &v))
			return EXIT_USAGE;
		o->numpy.threshold = v;
		return 0;
	case OPT_PRECISION:
		/* numpy takes any; past 100 digits there is nothing left to show */
		if (cli_parse_u64(cmd, "precision", arg, 100, &v))
			return EXIT_USAGE;
		o->numpy.precision = (int)v;
		return 0;
	case OPT_LINEWIDTH:
		if (cli_parse_u64(cmd, "line width", arg, 1000000, &v))
			return EXIT_USAGE;
		if (v == 0)
			return cli_usage_err(cmd, "invalid line width '0': expected at least 1");
		o->numpy.linewidth = (int)v;
		return 0;
	case OPT_EDGEITEMS:
		if (cli_parse_u64(cmd, "edge items", arg, 1000000, &v))
			return EXIT_USAGE;
		o->numpy.edgeitems = (int)v;
		return 0;
	case OPT_SUPPRESS:
		o->numpy.suppress = 1;
		return 0;
	default:
		return 1;
	}
}

int print_watch_around(const struct print_choice *o, struct hcb_nanwatch **w,
		       struct hcb_receiver *rx)
{
	*w = NULL;
	if (!o->nonfinite)
		return 0;
	if (hcb_nanwatch_new(w, *rx)) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	*rx = hcb_nanwatch_receiver(*w);
	return 0;
}

/* "14:20:01.123456 UTC (+1.234567 s)": the time of day, to match the
 * program's own log, and how far into the session (from its record) */
static void put_time(struct hcb_buf *b, uint64_t wall_ns, uint64_t start_ns)
{
	time_t s = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	if (gmtime_r(&s, &tm))
		hcb_buf_printf(b, "%02d:%02d:%02d.%06u UTC", tm.tm_hour, tm.tm_min, tm.tm_sec,
			       (unsigned int)(wall_ns % 1000000000u / 1000u));
	/* a launched program's first taps may be stamped before the session
	 * record: a minus then */
	if (start_ns)
		hcb_buf_printf(b, " (%+.6f s)", wall_ns >= start_ns ? (double)(wall_ns - start_ns) / 1e9 :
			       -(double)(start_ns - wall_ns) / 1e9);
}

static const char *value_word(double v)
{
	return isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

void print_watch_summary(const struct hcb_nanwatch *w)
{
	struct hcb_buf dev = HCB_BUF_INIT, when = HCB_BUF_INIT;
	uint64_t found, seen;

	if (!w)
		return;
	found = hcb_nanwatch_found(w);
	seen = hcb_nanwatch_seen(w);
	if (!found) {
		fprintf(stderr, "hcbtrace: --nonfinite: none of %" PRIu64 " taps held NaN or inf\n", seen);
		return;
	}
	fprintf(stderr, "hcbtrace: --nonfinite: %" PRIu64 " of %" PRIu64 " taps held NaN or inf; "
		"the first of each call site and device:\n", found, seen);
	for (unsigned int i = 0; i < hcb_nanwatch_sites(w); i++) {
		const struct hcb_nanwatch_site *s = hcb_nanwatch_site(w, i);

		hcb_buf_reset(&dev);
		hcb_buf_reset(&when);
		hcb_idprint_device(&dev, hcb_nanwatch_platform(w), s->device);
		put_time(&when, s->wall_ns, hcb_nanwatch_start_ns(w));
		fprintf(stderr, "  %-16s %-8s %8" PRIu64 " %s, first seq %" PRIu64 " at %s, "
			"leaf %u element %" PRIu64 ": %s\n", cli_vis(s->consumer), hcb_buf_str(&dev),
			s->taps, s->taps == 1 ? "tap" : "taps", s->seq, hcb_buf_str(&when), s->at.leaf,
			s->at.index, value_word(s->at.value));
	}
	if (hcb_nanwatch_untallied(w))
		fprintf(stderr, "  and %" PRIu64 " taps of call sites past the first %u, not told apart\n",
			hcb_nanwatch_untallied(w), HCB_NANWATCH_MAX_SITES);
	hcb_buf_free(&dev);
	hcb_buf_free(&when);
}
