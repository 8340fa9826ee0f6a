/* SPDX-License-Identifier: MIT */
/*
 * dragon4.h - exact decimal digits of binary floating point values, by
 * Steele & White's Dragon4 (free-format, with Burger & Dybvig's margins),
 * in the variant numpy's arrayprint uses: the same digit modes and cutoffs
 * and the same final rounding, so digits agree with numpy's to the last one.
 *
 * The value is mant * 2^exp2 of a format with mant_bits explicit mantissa
 * bits; the format matters for "unique" digits: the shortest digits that
 * read back as the value in its own type (float16 needs fewer than float64).
 */
#ifndef HCB_DRAGON4_H
#define HCB_DRAGON4_H

#include <stdbool.h>
#include <stdint.h>

enum hcb_d4_mode {
	HCB_D4_UNIQUE,   /* shortest digits that identify the value (then cutoffs) */
	HCB_D4_EXACT,    /* the exact value's digits, cut off and rounded */
};

enum hcb_d4_cutoff {
	HCB_D4_TOTAL,    /* cutoffs count significant digits */
	HCB_D4_FRACTION, /* cutoffs count digits after the decimal point */
};

/* A positive decimal d[0].d[1]...d[n-1] * 10^e, digits as characters. */
#define HCB_D4_MAX_DIGITS 800
struct hcb_decimal {
	int n;
	int e;
	char d[HCB_D4_MAX_DIGITS];
};

/* A binary float's parts: value = mant * 2^exp2, mant > 0. */
struct hcb_d4_float {
	uint64_t mant;
	int exp2;
	int mant_bits;        /* explicit mantissa bits of the type: 52, 23, 10, ... */
	bool unequal_margins; /* the value is the smallest normal mantissa of its
				 binade: the gap below is half the gap above */
};

/*
 * Split a finite, nonzero value of a type with mant_bits explicit mantissa
 * bits and min_exp (the exponent of its smallest normal, e.g. -14 for
 * float16) into Dragon4's parts.  x must be exactly representable in that
 * type (a float16 or float32 widened to double is).
 */
struct hcb_d4_float hcb_d4_split(double x, int mant_bits, int min_exp);

/*
 * Digits of f in mode.  cutoff_max: stop by this many digits (-1: none);
 * cutoff_min: in unique mode, go on to at least this many digits even once
 * unique (-1: none).  Fraction cutoffs count from the decimal point, so a
 * fraction cutoff_min of 0 keeps every digit down to the units.
 * Trailing zeros are not removed.  Returns the number of digits.
 */
int hcb_dragon4(const struct hcb_d4_float *f, enum hcb_d4_mode mode, enum hcb_d4_cutoff cutoff,
		int cutoff_max, int cutoff_min, struct hcb_decimal *out);

#endif
