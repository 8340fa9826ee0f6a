/* SPDX-License-Identifier: MIT */
/*
 * nonfinite_bench [--json] - how fast a tap's elements are checked for NaN
 * and inf (src/watch/nonfinite.h), against memcpy of the same bytes in the same
 * run: what a flight recorder's `--until nonfinite` adds to every tap it
 * keeps.  64 MiB of finite float32, bfloat16 and float8_e4m3fn, each
 * scanned whole (the worst case: nothing found), best of 7; GB/s and the
 * ratio to memcpy.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/dtype.h"
#include "watch/nonfinite.h"

#define BYTES (64u << 20)
#define RUNS 7

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best GB/s of fn over the buffer. */
static double rate(int (*fn)(unsigned int, const unsigned char *, unsigned char *), unsigned int dtype,
		   const unsigned char *src, unsigned char *dst)
{
	double best = 0;

	for (int r = 0; r < RUNS; r++) {
		double t0 = now(), gbs;

		if (fn(dtype, src, dst))
			return -1;
		gbs = BYTES / (now() - t0) / 1e9;
		if (gbs > best)
			best = gbs;
	}
	return best;
}

static int copy(unsigned int dtype, const unsigned char *src, unsigned char *dst)
{
	(void)dtype;
	memcpy(dst, src, BYTES);
	/* keep the copy from being optimised away */
	return dst[BYTES / 2] != src[BYTES / 2];
}

static int check(unsigned int dtype, const unsigned char *src, unsigned char *dst)
{
	(void)dst;
	return hcb_first_nonfinite(dtype, src, BYTES / hcb_dtype_size(dtype), NULL) != -1;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; unsigned int dtype; } kinds[] = {
		{ "float32", HCB_DT_FLOAT32 }, { "bfloat16", HCB_DT_BFLOAT16 },
		{ "float8_e4m3fn", HCB_DT_FLOAT8_E4M3FN },
	};
	int json = argc > 1 && !strcmp(argv[1], "--json");
	unsigned char *src = malloc(BYTES), *dst = malloc(BYTES);
	double mem;

	if (!src || !dst)
		return 1;
	/* finite values in every one of the three: small positive bytes */
	for (size_t i = 0; i < BYTES; i++)
		src[i] = (unsigned char)(0x10 + i % 0x30);
	mem = rate(copy, 0, src, dst);
	if (!json)
		printf("NaN/inf check of a tap's elements, %u MiB, best of %d:\n"
		       "  memcpy                    %6.2f GB/s\n", BYTES >> 20, RUNS, mem);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		double r = rate(check, kinds[k].dtype, src, dst);

		if (r < 0)
			return 1;
		if (json)
			printf("%s\"nonfinite_%s_gbs\": %.2f, \"nonfinite_%s_vs_memcpy\": %.3f",
			       k ? ", " : "{", kinds[k].name, r, kinds[k].name, r / mem);
		else
			printf("  check %-18s  %6.2f GB/s  (%.2fx memcpy)\n", kinds[k].name, r, r / mem);
	}
	if (json)
		printf(", \"nonfinite_memcpy_gbs\": %.2f}\n", mem);
	free(src);
	free(dst);
	return 0;
}
