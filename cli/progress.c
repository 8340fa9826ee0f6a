/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "progress.h"

#define FIRST_NS 250000000ull       /* quick work shows nothing */
#define FIRST_MS_MAX 3600000ul      /* an hour: a bigger delay is a typo */
#define EVERY_NS 250000000ull       /* at most four redraws a second */

/* Do stdout and stderr go to the same terminal? */
static int same_terminal(void)
{
	struct stat a, b;

	return isatty(STDOUT_FILENO) && fstat(STDOUT_FILENO, &a) == 0 &&
	       fstat(STDERR_FILENO, &b) == 0 && a.st_rdev == b.st_rdev;
}

/* How long work runs before its progress shows: HCBTRACE_PROGRESS_DELAY_MS,
 * whole milliseconds, or the default (an unreadable value is ignored, as an
 * unset one: the line is a courtesy, not worth an error). */
static uint64_t first_ns(void)
{
	const char *s = getenv("HCBTRACE_PROGRESS_DELAY_MS");
	char *end;
	unsigned long ms;

	if (!s || *s < '0' || *s > '9')
		return FIRST_NS;
	ms = strtoul(s, &end, 10);
	if (*end || ms > FIRST_MS_MAX)
		return FIRST_NS;
	return (uint64_t)ms * 1000000u;
}

void progress_start(struct progress *p, uint64_t total, int stdout_used)
{
	*p = (struct progress){ .total = total, .first_ns = first_ns() };
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
	if (now - p->start_ns < p->first_ns || (p->shown && now - p->last_ns < EVERY_NS))
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
