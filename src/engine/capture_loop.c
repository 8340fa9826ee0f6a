/* SPDX-License-Identifier: MIT */
/* capture_loop.c - libbpf's messages, and the poll loop (capture_loop.h). */
#include <time.h>

#include <bpf/libbpf.h>

#include "core/clock.h"
#include "capture_loop.h"

static FILE *libbpf_log;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return libbpf_log ? vfprintf(libbpf_log, fmt, ap) : 0;
}

void hcb_capture_libbpf_log(FILE *f)
{
	libbpf_log = f;
	libbpf_set_print(print_libbpf);
}

static int poll_once(struct hcb_capture *c, const struct hcb_run_opts *o)
{
	if (o->drain_every_ms) {
		struct timespec ts = { o->drain_every_ms / 1000,
				       (long)(o->drain_every_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return hcb_capture_poll(c, 0);
	}
	return hcb_capture_poll(c, o->poll_ms);
}

enum hcb_run_end hcb_capture_run(struct hcb_capture *c, const struct hcb_run_opts *o, int *err)
{
	int gone = 0;

	*err = 0;
	while (!o->stop || !*o->stop) {
		*err = poll_once(c, o);
		if (*err < 0)
			return HCB_RUN_FAILED;
		*err = 0;
		switch (hcb_capture_stopped(c)) {
		case HCB_STOP_COUNT:
			return HCB_RUN_COUNT;
		case HCB_STOP_EXEC:
			return HCB_RUN_EXEC;
		case HCB_STOP_NONE:
			break;
		}
		if (o->deadline_ns && hcb_clock_ns(CLOCK_MONOTONIC) >= o->deadline_ns)
			return HCB_RUN_DEADLINE;
		/* gone is a verdict of two polls in a row: a thread that
		 * exec's shows the process ended for a moment (its leader
		 * ends first), and its exec is seen in the ring after */
		gone = o->alive && !o->alive(o->ctx) ? gone + 1 : 0;
		if (gone > 1)
			return HCB_RUN_TARGET_GONE;
	}
	return HCB_RUN_STOPPED;
}
