/* SPDX-License-Identifier: MIT */
/*
 * digits.h - Dragon4's unique-mode digits of float32 and float64 values by
 * faster means: dragonbox's shortest digits (fastfloat.h) where Dragon4
 * stops at them, exact integer rounding where its cutoffs stop it sooner or
 * later; Dragon4 itself (dragon4.h) for everything else.
 */
#ifndef HCB_DIGITS_H
#define HCB_DIGITS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "dragon4.h"

/* Two decimal digits as byte values, the tens in the low byte. */
#define HCB_PAIRS10(t) (t), (t) | 1 << 8, (t) | 2 << 8, (t) | 3 << 8, (t) | 4 << 8, \
	(t) | 5 << 8, (t) | 6 << 8, (t) | 7 << 8, (t) | 8 << 8, (t) | 9 << 8
static const uint16_t hcb_digit_pairs[100] = {
	HCB_PAIRS10(0), HCB_PAIRS10(1), HCB_PAIRS10(2), HCB_PAIRS10(3), HCB_PAIRS10(4),
	HCB_PAIRS10(5), HCB_PAIRS10(6), HCB_PAIRS10(7), HCB_PAIRS10(8), HCB_PAIRS10(9),
};

/*
 * The 8 decimal digits of x < 10^8 as byte values 0-9, the most
 * significant in the lowest byte (first in memory).  x / 10^6 as a 48-bit
 * fixed-point number, its constant ceil(2^48 / 10^6) rounded up by less
 * than 0.3: each product by 100 brings the next two digits above the
 * point, and the excess, below 1.1e-7 * 100^k after k of them, never
 * reaches the next digit (10^-6 * 100^k).  Four multiplies in a chain and
 * table reads beside them: shorter than dividing (checked against plain
 * division for every x < 10^8).
 */
static inline uint64_t hcb_eight_digits(uint32_t x)
{
	const uint64_t frac = (1ull << 48) - 1;
	uint64_t y = (uint64_t)x * 281474977u, r = hcb_digit_pairs[y >> 48];

	y = (y & frac) * 100;
	r |= (uint64_t)hcb_digit_pairs[y >> 48] << 16;
	y = (y & frac) * 100;
	r |= (uint64_t)hcb_digit_pairs[y >> 48] << 32;
	y = (y & frac) * 100;
	return r | (uint64_t)hcb_digit_pairs[y >> 48] << 48;
}

/* Decimal digits in x: 1 to 20. */
static inline int hcb_ndigits_u64(uint64_t x)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull,
		10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};
	/* from the bit length: 1233 / 4096 is just above log10(2) */
	int n = ((64 - __builtin_clzll(x | 1)) * 1233 >> 12) + 1;

	return n - (n > 1 && x < pow10[n - 1]);
}

/* The digits of x < 10^8, leading zeros dropped, stored as 8 bytes at
 * out; returns how many. */
static inline int hcb_digits8(uint32_t x, char *out)
{
	uint64_t w = hcb_eight_digits(x);
	/* the leading zeros are the low zero bytes */
	int lz = w ? __builtin_ctzll(w) >> 3 : 7;

	w = w >> (8 * lz) | 0x3030303030303030ull;
	__builtin_memcpy(out, &w, 8);
	return 8 - lz;
}

/* All 8 digits of x < 10^8, leading zeros kept. */
static inline void hcb_digits8_full(uint32_t x, char *out)
{
	uint64_t w = hcb_eight_digits(x) | 0x3030303030303030ull;

	__builtin_memcpy(out, &w, 8);
}

/*
 * The decimal digits of x into out, "0" for 0, no NUL; returns how many
 * (1 to 20).  out must have room for 32 bytes: it is written in 8-byte
 * blocks, and the bytes past the digits are '0's or left as they were.
 */
static inline int hcb_digits_u64(uint64_t x, char *out)
{
	int n;

	if (x < 100) {
		/* small integers, exponents */
		out[0] = (char)('0' + (x < 10 ? x : x / 10));
		out[1] = (char)('0' + x % 10);
		return 1 + (x >= 10);
	}
	if (x < 1000000000) {
		/* a float32's significand, an int32: nine digits without a
		 * branch on how many (a predictor cannot follow them) */
		uint32_t top = (uint32_t)x / 100000000;
		uint64_t b = hcb_eight_digits((uint32_t)x % 100000000);
		int lz = top ? 0 : b ? 1 + (__builtin_ctzll(b) >> 3) : 8;
		unsigned __int128 d = (top | (unsigned __int128)b << 8) >> (8 * lz);

		d |= (unsigned __int128)0x3030303030303030ull << 64 | 0x3030303030303030ull;
		__builtin_memcpy(out, &d, 16);
		return 9 - lz;
	}
	if (x < 100000000)
		return hcb_digits8((uint32_t)x, out);
	if (x < 10000000000000000ull) {
		n = hcb_digits8((uint32_t)(x / 100000000), out);
		hcb_digits8_full((uint32_t)(x % 100000000), out + n);
		return n + 8;
	}
	n = hcb_digits8((uint32_t)(x / 10000000000000000ull), out);
	x %= 10000000000000000ull;
	hcb_digits8_full((uint32_t)(x / 100000000), out + n);
	hcb_digits8_full((uint32_t)(x % 100000000), out + n + 8);
	return n + 16;
}

/* printf's "%*lld" and "%*llu": v right-aligned in width columns,
 * appended to out.  0 or -ENOMEM. */
int hcb_put_i64(struct hcb_buf *out, int64_t v, int width);
int hcb_put_u64(struct hcb_buf *out, uint64_t v, int width);

/* pad spaces, then printf's "%s%c.%.*se%c%0*d" of sign, d[0], d + 1 (n - 1
 * digits), the sign of e and |e| in at least width digits: "  -1.25e-05".
 * 0 or -ENOMEM. */
int hcb_put_sci(struct hcb_buf *out, int pad, const char *sign, const char *d, int n, int e,
		int width);

/* A float type as Dragon4 sees it: hcb_d4_split's mant_bits and min_exp
 * (float32: 23, -126; float64: 52, -1022; float16: 10, -14). */
struct hcb_d4_type {
	int mant_bits;
	int min_exp;
};

/*
 * hcb_dragon4(&f, HCB_D4_UNIQUE, cutoff, cutoff_max, cutoff_min, out) for
 * f = hcb_d4_split(v, t.mant_bits, t.min_exp), v finite and nonzero (its
 * sign is ignored) and exactly a value of type t: the same digits and
 * exponent, except that trailing zeros are removed (Dragon4 may leave some
 * when a cutoff stops it; at least one digit stays).  Fast for float32 and
 * float64; any other type goes to Dragon4.  Returns out->n.
 */
int hcb_unique_digits(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff,
		      int cutoff_max, int cutoff_min, struct hcb_decimal *out);

/* How many digits hcb_unique_digits gives, and their exponent (*e), without
 * writing them: what sizing a column needs. */
int hcb_unique_count(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff,
		     int cutoff_max, int cutoff_min, int *e);

/* Off: hcb_unique_digits is plain Dragon4 (trailing zeros and all), for
 * tests that compare the two paths end to end.  On by default. */
void hcb_fast_digits_enable(bool on);
/* How many hcb_unique_digits calls (with fast digits on) went to Dragon4:
 * for tests and profiles that check the fast path is the common one. */
uint64_t hcb_fast_digits_fallbacks(void);

#endif
