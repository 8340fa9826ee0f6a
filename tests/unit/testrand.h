/* SPDX-License-Identifier: MIT */
/*
 * testrand.h - the unit tests' random numbers: splitmix64, small, fast and
 * well mixed, from a seed a test can print and take back, so a failing
 * case can be run again.
 */
#ifndef HCB_TESTRAND_H
#define HCB_TESTRAND_H

#include <stdint.h>
#include <stdlib.h>

static inline uint64_t testrand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Below n (n > 0); the modulo's slight bias does not matter to a test. */
static inline uint64_t testrand_below(uint64_t *state, uint64_t n)
{
	return testrand_next(state) % n;
}

/* HCB_FASTFLOAT_CASES=N and HCB_FASTFLOAT_SEED=S, where set, over the
 * differential tests' defaults: more cases, or another sequence. */
static inline void testrand_env(uint64_t *ncases, uint64_t *seed)
{
	const char *s;

	if ((s = getenv("HCB_FASTFLOAT_CASES")))
		*ncases = strtoull(s, NULL, 0);
	if ((s = getenv("HCB_FASTFLOAT_SEED")))
		*seed = strtoull(s, NULL, 0);
}

#endif
