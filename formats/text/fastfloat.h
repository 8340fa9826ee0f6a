/* SPDX-License-Identifier: MIT */
/*
 * fastfloat.h - C interface to two maintained C++ libraries (fastfloat.cc):
 * dragonbox (shortest round-trip digits) and fast_float (exact text to
 * binary), the fast paths beside Dragon4 (dragon4.h) and strtod.
 *
 * Both are exact: the shortest digits are those of Steele & White /
 * Burger & Dybvig (the nearest of the shortest, ties to even, the interval
 * closed for an even mantissa), and parsing rounds correctly to nearest,
 * ties to even, as glibc's strtod and strtof do.
 */
#ifndef HCB_FASTFLOAT_H
#define HCB_FASTFLOAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The shortest decimal sig * 10^exp that reads back as |v| in v's type,
 * the nearest to |v| of those, ties to an even sig; sig has no trailing
 * zeros.  v finite and nonzero.  (Returned by value: in registers.)
 */
struct hcb_shortest {
	uint64_t sig;
	int exp;
};

struct hcb_shortest hcb_shortest_f64(double v);
struct hcb_shortest hcb_shortest_f32(float v);

/* The same for n float32 / float64 values at v (any alignment), into out;
 * zeros, infinities and NaNs get { 0, 0 }.  One call for many: the loop's
 * iterations overlap. */
void hcb_shortest_f32_n(const void *v, size_t n, struct hcb_shortest *out);
void hcb_shortest_f64_n(const void *v, size_t n, struct hcb_shortest *out);

/*
 * The value of text[0..len), a decimal number as JSON writes one
 * (-?digits[.digits][e[+-]digits]), rounded to nearest, ties to even: what
 * strtod / strtof give in the C locale, overflow to +-inf and underflow to
 * +-0 included.  0, or -EINVAL when text is not such a number as a whole.
 */
int hcb_parse_f64(const char *text, size_t len, double *out);
int hcb_parse_f32(const char *text, size_t len, float *out);

#ifdef __cplusplus
}
#endif

#endif
