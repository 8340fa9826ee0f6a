/* SPDX-License-Identifier: MIT */
/* size_arg.h - "64", "4K", "1MiB", "2G": the size arguments both bench programs take. */
#ifndef HCB_BENCH_SIZE_ARG_H
#define HCB_BENCH_SIZE_ARG_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* 0 and *out, or -EINVAL: not a size (or one that overflows). */
static inline int parse_size_arg(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (shift && *end == 'i')
		end++;
	if (shift && *end == 'B')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

#endif
