/* SPDX-License-Identifier: MIT */
/* bench_common.c - capture_bench's options, its messages, the CPU it runs on. */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "core/clock.h"
#include "capture_bench.h"

struct bench_opts opt = {
	.seconds = 2.0,
	.search_seconds = 1.0,
	.steps = 5,
	.threads = 1,
	.ring_bytes = 64ull << 20,
	.tapper_cpu = 0,
	.reader_cpu = 1,
	.sizes = { 64, 4096, 65536, 1048576 },
	.nsizes = 4,
	.detached_iterations = 200000000ull,
};

volatile sig_atomic_t exiting;

void note(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("capture_bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t clock_ns(void)
{
	return hcb_clock_ns(CLOCK_MONOTONIC);
}

int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

void size_label(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
		snprintf(buf, size, "%lluMiB", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, size, "%lluKiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
}
