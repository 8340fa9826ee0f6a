/* SPDX-License-Identifier: MIT */
/*
 * jsonscan.h - a JSON number's grammar checked and its decimal value taken
 * in the same pass over its text (jsonparse.c's number scanning).
 *
 * Why both at once: a tap's data is millions of numbers, and reading each
 * one twice (once to find where it ends, once more to convert it) was most
 * of what reading a JSONL recording cost.  The scan leaves, beside the
 * span, the exact decimal sig * 10^exp10 whenever sig has at most 19
 * digits (it then fits a uint64); jsonl_num.c turns that into a float
 * without looking at the text again, and falls back to the text otherwise.
 *
 * Digits go eight at a time where eight bytes can be read: a byte is a
 * digit when its high nibble is 3 and stays 3 with 6 added (a carry out of
 * a byte only comes from one >= 0xfa, itself not a digit, so the first
 * non-digit is found right); the run's value is then three multiplies
 * that fold neighbouring digits, pairs, then quads into one number.
 */
#ifndef HCB_JSONSCAN_H
#define HCB_JSONSCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* jnode.exp10 when the decimal was not kept: over 19 digits, or an
 * exponent of over 9 digits. */
#define JNUM_LONG INT32_MIN

/* The decimal so far of the number being scanned. */
struct jscan_dec {
	uint64_t sig;      /* its digits, while there are at most 19 */
	uint32_t ndigits;  /* how many digits sig took (leading zeros too) */
	bool long_sig;     /* over 19: sig no longer counts */
};

/* The value of the k (1..8) digits in the low bytes of x (the first in
 * the lowest byte); the bytes above them may hold anything. */
static inline uint64_t jscan_swar_value(uint64_t x, unsigned int k)
{
	x &= 0x0f0f0f0f0f0f0f0full;
	x <<= 8 * (8 - k);      /* leading zero digits in the low bytes */
	x = (x * (10 * 256 + 1)) >> 8;
	x = ((x & 0x00ff00ff00ff00ffull) * (100 * 65536 + 1)) >> 16;
	return ((x & 0x0000ffff0000ffffull) * (10000ull * 4294967296ull + 1)) >> 32;
}

static const uint64_t jscan_pow10[17] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					  100000000, 1000000000, 10000000000, 100000000000,
					  1000000000000, 10000000000000, 100000000000000,
					  1000000000000000, 10000000000000000 };

/* Appends k (0..16) digits worth v to dec. */
static inline void jscan_add(struct jscan_dec *dec, uint64_t v, unsigned int k)
{
	dec->ndigits += k;
	if (dec->ndigits <= 19)
		dec->sig = dec->sig * jscan_pow10[k] + v;
	else
		dec->long_sig = true;
}

/* How many (0..8) of the bytes of x, from the lowest, are digits. */
static inline unsigned int jscan_run8(uint64_t x)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ull, threes = 0x3030303030303030ull;
	uint64_t m = ((x & hi) ^ threes) | (((x + 0x0606060606060606ull) & hi) ^ threes);

	return m ? (unsigned int)__builtin_ctzll(m) >> 3 : 8;
}

/* The value of the k (0..8) digits in the low bytes of x. */
static inline uint64_t jscan_value8(uint64_t x, unsigned int k)
{
	return k ? jscan_swar_value(x, k) : 0;
}

/* Past the run of ASCII digits at s, each added to dec. */
/* (always_inline: called at every number, where a call's spills cost
 * more than the scan) */
static inline __attribute__((always_inline)) const char *
jscan_digits(const char *s, const char *end, struct jscan_dec *dec)
{
	/*
	 * Sixteen bytes a step, both halves' runs and values taken before
	 * either is looked at: a float's fraction is 6 to 10 digits, and
	 * whether it ended in the first eight decided a second pass of the
	 * loop, a misprediction every few numbers.
	 */
	while (end - s >= 16) {
		uint64_t x0, x1, v0, v1, v;
		unsigned int k0, k1, k;

		memcpy(&x0, s, 8);
		memcpy(&x1, s + 8, 8);
		k0 = jscan_run8(x0);
		k1 = jscan_run8(x1);
		v0 = jscan_value8(x0, k0);
		v1 = jscan_value8(x1, k1);
		k = k0 < 8 ? k0 : 8 + k1;
		v = k0 < 8 ? v0 : v0 * jscan_pow10[k1] + v1;
		jscan_add(dec, v, k);
		s += k;
		if (k < 16)
			return s;
	}
	while (end - s >= 8) {
		uint64_t x;
		unsigned int k;

		memcpy(&x, s, 8);
		k = jscan_run8(x);
		if (k)
			jscan_add(dec, jscan_swar_value(x, k), k);
		s += k;
		if (k < 8)
			return s;
	}
	while (s < end && *s >= '0' && *s <= '9') {
		jscan_add(dec, (uint64_t)(*s - '0'), 1);
		s++;
	}
	return s;
}

/* A scanned number: where it ends, and its decimal when kept. */
struct jscan_num {
	uint64_t sig;
	int32_t exp10;     /* the value is sig * 10^exp10; JNUM_LONG: not kept */
};

/* Past the number at s: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * its decimal in *num; or NULL, and *bad where it stops being one. */
static inline __attribute__((always_inline)) const char *
jscan_number(const char *s, const char *end, const char **bad, struct jscan_num *num)
{
	struct jscan_dec dec = { 0 }, ex = { 0 };
	int64_t e10 = 0;

	/* the sign and a float's first digit without a branch on either:
	 * data's signs and leading zeros are as good as random */
	if (s < end)
		s += *s == '-';
	if (end - s >= 2 && (unsigned int)(*s - '0') <= 9 && s[1] == '.') {
		/* one digit before the point, as in most floats' text; a
		 * leading 0 is no digit of sig, as below */
		dec.sig = (uint64_t)(*s - '0');
		dec.ndigits = *s != '0';
		s++;
	} else if (s < end && *s == '0') {
		s++;
	} else if (s < end && *s >= '1' && *s <= '9') {
		s = jscan_digits(s, end, &dec);
	} else {
		return *bad = s, NULL;
	}
	if (s < end && *s == '.') {
		const char *f = jscan_digits(s + 1, end, &dec);

		if (f == s + 1)
			return *bad = f, NULL;
		e10 = -(int64_t)(f - s - 1);
		s = f;
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		const char *x;
		bool neg;

		s++;
		neg = s < end && *s == '-';
		if (s < end && (*s == '+' || *s == '-'))
			s++;
		x = jscan_digits(s, end, &ex);
		if (x == s)
			return *bad = x, NULL;
		if (ex.ndigits > 9)
			dec.long_sig = true;
		e10 += neg ? -(int64_t)ex.sig : (int64_t)ex.sig;
		s = x;
	}
	num->sig = dec.sig;
	num->exp10 = dec.long_sig ? JNUM_LONG : (int32_t)e10;
	return s;
}

#endif
