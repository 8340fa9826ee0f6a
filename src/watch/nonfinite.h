/* SPDX-License-Identifier: MIT */
/*
 * nonfinite.h - finding the first NaN or infinity in a tap: every float
 * dtype hcbtrace knows (float16, bfloat16, float32, float64, both parts of
 * complex64 and complex128, the float8 kinds with the NaN and inf their
 * formats have, float4, which has neither).  What a flight recorder's
 * trigger and `attach --nonfinite` look for; fast enough to look at every
 * element of every tap (bench/nonfinite_bench.c).
 */
#ifndef HCB_NONFINITE_H
#define HCB_NONFINITE_H

#include <stdint.h>

#include "core/consumer.h"

/*
 * The first element of n of dtype at p (as a tap holds them: little
 * endian, unaligned is fine) that is NaN or infinite: its index, its value
 * into *value (complex: the part that is, as a double; NULL: not wanted).
 * -1 if none is, or dtype is no float or complex type.
 */
int64_t hcb_first_nonfinite(unsigned int dtype, const void *p, uint64_t n, double *value);

/* Where a tap's first non-finite element is: its leaf, its index there,
 * its value. */
struct hcb_nonfinite_at {
	unsigned int leaf;
	uint64_t index;
	double value;
};

/* The first non-finite element of a tap of c whose payload is p (leaves
 * back to back, as a packet holds them): 1 and *at, or 0 if none is. */
int hcb_tap_nonfinite(const struct hcb_consumer *c, const unsigned char *p,
		      struct hcb_nonfinite_at *at);

#endif
