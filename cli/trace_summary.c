/* SPDX-License-Identifier: MIT */
/*
 * trace_summary.c - what a session ends with on stderr (trace_summary.h):
 * per device, and the totals, as tcpdump does.
 */
#include <stdio.h>

#include "core/buf.h"
#include "text/idprint.h"
#include "filter_opts.h"
#include "trace_summary.h"

/* One row of the summary: a device, or a kind of loss no device took. */
static void summary_row(const char *name, const struct hcb_capture_dev *f, uint64_t *sums)
{
	sums[0] += f->taps;
	sums[1] += f->bytes;
	sums[2] += f->dropped;
	fprintf(stderr, "  %-10s %10llu taps %14llu bytes %8llu dropped %8llu gaps %8llu bad\n",
		name, (unsigned long long)f->taps, (unsigned long long)f->bytes,
		(unsigned long long)f->dropped, (unsigned long long)f->gaps,
		(unsigned long long)f->bad);
}

/* What no device took: what the target claimed for devices out of range,
 * calls of no device known, of devices past the slots. */
static void summary_nodev(struct hcb_capture *cap, uint64_t *sums)
{
	struct hcb_capture_nodev n;
	struct hcb_capture_dev f;

	if (hcb_capture_stray(cap, &f) == 0)
		summary_row("(invalid)", &f, sums);
	hcb_capture_nodev(cap, &n);
	f = (struct hcb_capture_dev){ .dropped = n.unreadable + n.no_memory + n.unknown };
	if (f.dropped)
		summary_row("(no device)", &f, sums);
	f = (struct hcb_capture_dev){ .dropped = n.over };
	if (f.dropped)
		summary_row("(too many devices)", &f, sums);
}

void trace_summary(struct hcb_capture *cap, pid_t pid, const char *why, uint64_t written)
{
	const struct hcb_target_info *ti = hcb_capture_target(cap);
	static struct hcb_capture_dev rows[HCB_CAPTURE_DEVICES];
	size_t devices = hcb_capture_devices(cap, rows, HCB_CAPTURE_DEVICES);
	uint64_t sums[3] = { 0 };   /* taps, bytes, lost */
	struct hcb_buf line = HCB_BUF_INIT;

	for (size_t i = 0; i < devices; i++) {
		hcb_idprint_device(&line, hcb_capture_device_platform(cap, rows[i].device),
				   rows[i].device);
		summary_row(hcb_buf_str(&line), &rows[i], sums);
		hcb_buf_reset(&line);
	}
	summary_nodev(cap, sums);
	fprintf(stderr, "hcbtrace: %s: %llu taps (%llu bytes) from %zu device%s of process %d (%s), "
		"%llu written, %llu lost\n", why, (unsigned long long)sums[0],
		(unsigned long long)sums[1], devices, devices == 1 ? "" : "s", (int)pid, ti->comm,
		(unsigned long long)written, (unsigned long long)sums[2]);
	hcb_buf_free(&line);
}

void trace_warn_unmatched(struct hcb_capture *cap, const struct hcb_filter *f)
{
	const struct hcb_registry *regs[HCB_CAPTURE_SLOTS];
	unsigned int n = 0;

	while (n < HCB_CAPTURE_SLOTS && (regs[n] = hcb_capture_consumers(cap, n)))
		n++;
	filter_warn_unmatched(f, regs, n);
}
