/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "progress.h"

#define FIRST_NS 250000000ull       /* quick work shows nothing */
#define EVERY_NS 250000000ull       /* at most four redraws a second */

/* Do stdout and stderr go to the same terminal? */
static int same_terminal(void)
{
	struct stat a, b;

	return isatty(STDOUT_FILENO) && fstat(STDOUT_FILENO, &a) == 0 &&
	       fstat(STDERR_FILENO, &b) == 0 && a.st_rdev == b.st_rdev;
}

void progress_start(struct progress *p, uint64_t total, int stdout_used)
{
	*p = (struct progress){ .total = total };
	p->on = isatty(STDERR_FILENO) && !(stdout_used && same_terminal());
	p->start_ns = p->last_ns = hcb_clock_ns(CLOCK_MONOTONIC);
}

void progress_bytes(char *out, int cap, double n)
{
	if (n >= 1e9)
		snprintf(out, (size_t)cap, "%.1f GB", n / 1e9);
	else if (n >= 1e6)
		snprintf(out, (size_t)cap, "%.0f MB", n / 1e6);
	else if (n >= 1e3)
		snprintf(out, (size_t)cap, "%.0f kB", n / 1e3);
	else
		snprintf(out, (size_t)cap, "%.0f B", n);
}

void progress_update(struct progress *p, uint64_t done)
{
	uint64_t now;
	char a[32], b[32], rate[32];
	double secs;

	if (!p->on)
		return;
	now = hcb_clock_ns(CLOCK_MONOTONIC);
	if (now - p->start_ns < FIRST_NS || (p->shown && now - p->last_ns < EVERY_NS))
		return;
	p->last_ns = now;
	secs = (double)(now - p->start_ns) / 1e9;
	progress_bytes(a, sizeof(a), (double)done);
	progress_bytes(rate, sizeof(rate), (double)done / secs);
	if (p->total) {
		progress_bytes(b, sizeof(b), (double)p->total);
		fprintf(stderr, "\r[%3d%%] %s of %s, %s/s\033[K",
			(int)(done >= p->total ? 100 : done * 100 / p->total), a, b, rate);
	} else {
		fprintf(stderr, "\r%s, %s/s\033[K", a, rate);
	}
	fflush(stderr);
	p->shown = 1;
}

void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = 0;
	p->on = 0;
}
