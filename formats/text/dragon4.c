/* SPDX-License-Identifier: MIT */
/*
 * dragon4.c - Dragon4 with exact big integers (see dragon4.h).
 *
 * The value v = mant * 2^exp2 and the half-gaps to its neighbours are
 * scaled to integers: value / scale == v / 10^k, margins likewise, so each
 * digit is an exact integer division and the "is it unique yet" tests are
 * exact comparisons.  Numbers stay below about 2^1200 (float64's extremes:
 * 2^-1074 and 10^308 scaled against each other).
 */
#include <math.h>
#include <string.h>

#include "dragon4.h"

#define LIMBS 48   /* 1536 bits */

struct big {
	int len;                 /* limbs in use; 0 for zero */
	uint32_t w[LIMBS];       /* little endian */
};

static void big_set(struct big *b, uint64_t v)
{
	b->w[0] = (uint32_t)v;
	b->w[1] = (uint32_t)(v >> 32);
	b->len = b->w[1] ? 2 : b->w[0] ? 1 : 0;
}

static void big_trim(struct big *b)
{
	while (b->len > 0 && b->w[b->len - 1] == 0)
		b->len--;
}

static int big_cmp(const struct big *a, const struct big *b)
{
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (int i = a->len - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

static void big_add(struct big *out, const struct big *a, const struct big *b)
{
	const struct big *lo = a->len < b->len ? a : b, *hi = lo == a ? b : a;
	uint64_t carry = 0;
	int i;

	for (i = 0; i < hi->len; i++) {
		carry += (uint64_t)hi->w[i] + (i < lo->len ? lo->w[i] : 0);
		out->w[i] = (uint32_t)carry;
		carry >>= 32;
	}
	if (carry && i < LIMBS)
		out->w[i++] = (uint32_t)carry;
	out->len = i;
}

/* a -= b, for a >= b. */
static void big_sub(struct big *a, const struct big *b)
{
	int64_t borrow = 0;

	for (int i = 0; i < a->len; i++) {
		int64_t d = (int64_t)a->w[i] - (i < b->len ? b->w[i] : 0) - borrow;

		borrow = d < 0;
		a->w[i] = (uint32_t)(d + (borrow << 32));
	}
	big_trim(a);
}

static void big_mul_small(struct big *a, uint32_t m)
{
	uint64_t carry = 0;
	int i;

	for (i = 0; i < a->len; i++) {
		carry += (uint64_t)a->w[i] * m;
		a->w[i] = (uint32_t)carry;
		carry >>= 32;
	}
	if (carry && i < LIMBS)
		a->w[a->len++] = (uint32_t)carry;
}

static void big_shl(struct big *a, unsigned int bits)
{
	unsigned int limbs = bits / 32, sh = bits % 32;
	int n = a->len;

	if (!n)
		return;
	if (sh) {
		uint32_t top = a->w[n - 1] >> (32 - sh);

		for (int i = n - 1; i > 0; i--)
			a->w[i] = a->w[i] << sh | a->w[i - 1] >> (32 - sh);
		a->w[0] <<= sh;
		if (top && n < LIMBS)
			a->w[n++] = top;
	}
	if (limbs) {
		if (n + (int)limbs > LIMBS)
			limbs = (unsigned int)(LIMBS - n);
		memmove(a->w + limbs, a->w, (size_t)n * sizeof(a->w[0]));
		memset(a->w, 0, limbs * sizeof(a->w[0]));
		n += (int)limbs;
	}
	a->len = n;
}

static void big_mul_pow10(struct big *a, unsigned int n)
{
	static const uint32_t small[10] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	};

	for (; n >= 9; n -= 9)
		big_mul_small(a, small[9]);
	if (n)
		big_mul_small(a, small[n]);
}

static int big_bits(const struct big *a)
{
	return a->len ? 32 * (a->len - 1) + (32 - __builtin_clz(a->w[a->len - 1])) : 0;
}

/* The 64 bits of a from bit pos up (bits past the end are zero). */
static uint64_t big_bits_at(const struct big *a, int pos)
{
	int limb = pos / 32, sh = pos % 32;
	uint64_t lo = (uint64_t)(limb < a->len ? a->w[limb] : 0) |
		      (uint64_t)(limb + 1 < a->len ? a->w[limb + 1] : 0) << 32;
	uint64_t hi = limb + 2 < a->len ? a->w[limb + 2] : 0;

	return sh ? lo >> sh | hi << (64 - sh) : lo;
}

/*
 * value / scale, for value < 10 * scale: the quotient digit, value left as
 * the remainder.  The estimate from the top bits is at most a little low.
 */
static unsigned int big_divmod_digit(struct big *value, const struct big *scale)
{
	struct big t;
	unsigned int q = 0;
	int pos = big_bits(scale) - 32;
	uint64_t vt, st;

	if (big_cmp(value, scale) < 0)
		return 0;
	if (pos < 0)
		pos = 0;
	vt = big_bits_at(value, pos);
	st = big_bits_at(scale, pos);
	q = (unsigned int)(vt / (st + 1));
	if (q > 9)
		q = 9;
	if (q) {
		t = *scale;
		big_mul_small(&t, q);
		big_sub(value, &t);
	}
	while (big_cmp(value, scale) >= 0) {
		big_sub(value, scale);
		q++;
	}
	return q;
}

struct hcb_d4_float hcb_d4_split(double x, int mant_bits, int min_exp)
{
	struct hcb_d4_float f;
	int ex;
	double fr = frexp(fabs(x), &ex);   /* |x| = fr * 2^ex, fr in [0.5, 1) */

	f.mant_bits = mant_bits;
	if (ex - 1 >= min_exp) {
		f.exp2 = ex - 1 - mant_bits;
		f.mant = (uint64_t)ldexp(fr, mant_bits + 1);
		/* at the bottom of a binade the neighbour below is closer, except
		 * in the lowest binade, whose neighbour below is a subnormal */
		f.unequal_margins = f.mant == (UINT64_C(1) << mant_bits) && ex - 1 > min_exp;
	} else {
		f.exp2 = min_exp - mant_bits;
		f.mant = (uint64_t)ldexp(fabs(x), -f.exp2);
		f.unequal_margins = false;
	}
	return f;
}

/* One digit generation: value and the margins over scale, all integers;
 * mhigh is mlow or, for unequal margins, its own double of it. */
struct d4 {
	struct big value, scale, mlow, mhigh_own, vhigh;
	struct big *mhigh;
	int digit_exp;              /* of the next digit, plus one */
	unsigned int digit;         /* the last digit generated */
	bool low, high;             /* it is within the low / high margin */
};

static void d4_init(struct d4 *s, const struct hcb_d4_float *f)
{
	int e = f->exp2;

	big_set(&s->value, f->mant);
	big_set(&s->mlow, 1);
	s->mhigh = &s->mlow;
	s->low = s->high = false;
	s->digit = 0;
	if (!f->unequal_margins) {
		if (e > 0) {
			big_shl(&s->value, (unsigned int)e + 1);
			big_set(&s->scale, 2);
			big_shl(&s->mlow, (unsigned int)e);
		} else {
			big_shl(&s->value, 1);
			big_set(&s->scale, 1);
			big_shl(&s->scale, (unsigned int)(-e + 1));
		}
		return;
	}
	if (e > 0) {
		big_shl(&s->value, (unsigned int)e + 2);
		big_set(&s->scale, 4);
		big_shl(&s->mlow, (unsigned int)e);
	} else {
		big_shl(&s->value, 2);
		big_set(&s->scale, 1);
		big_shl(&s->scale, (unsigned int)(-e + 2));
	}
	s->mhigh_own = s->mlow;
	big_shl(&s->mhigh_own, 1);
	s->mhigh = &s->mhigh_own;
}

/* The value and the margins times ten: the next digit's turn. */
static inline void d4_times_ten(struct d4 *s)
{
	big_mul_small(&s->value, 10);
	big_mul_small(&s->mlow, 10);
	if (s->mhigh != &s->mlow) {
		*s->mhigh = s->mlow;
		big_shl(s->mhigh, 1);
	}
}

/* Scale so that value / scale is in [0.1, 1): the first digit's exponent. */
static void d4_scale(struct d4 *s, const struct hcb_d4_float *f, enum hcb_d4_cutoff cutoff,
		     int cutoff_max)
{
	static const double log10_2 = 0.30102999566398119521373889472449;
	int hb = 63 - __builtin_clzll(f->mant);

	/* the first digit's exponent, estimated low by at most one */
	s->digit_exp = (int)ceil((double)(hb + f->exp2) * log10_2 - 0.69);
	/* no digits are wanted below a fraction cutoff: start no lower */
	if (cutoff == HCB_D4_FRACTION && cutoff_max >= 0 && s->digit_exp <= -cutoff_max)
		s->digit_exp = -cutoff_max + 1;
	if (s->digit_exp > 0) {
		big_mul_pow10(&s->scale, (unsigned int)s->digit_exp);
	} else if (s->digit_exp < 0) {
		big_mul_pow10(&s->value, (unsigned int)-s->digit_exp);
		big_mul_pow10(&s->mlow, (unsigned int)-s->digit_exp);
		if (s->mhigh != &s->mlow)
			big_mul_pow10(s->mhigh, (unsigned int)-s->digit_exp);
	}
	if (big_cmp(&s->value, &s->scale) >= 0)
		s->digit_exp++;
	else
		d4_times_ten(s);
}

/* The shortest digits that read back as the value: all but the last into
 * out->d, returning their count; the last in s->digit. */
static int d4_unique(struct d4 *s, bool even, int max_exp, int min_exp, struct hcb_decimal *out)
{
	int n = 0, digit_exp = s->digit_exp;   /* locals: the loop is hot */
	unsigned int digit;
	bool low, high;

	for (;;) {
		digit_exp--;
		digit = big_divmod_digit(&s->value, &s->scale);
		big_add(&s->vhigh, &s->value, s->mhigh);
		/* an even mantissa wins ties when read back (IEEE
		 * round-half-even), so its interval includes its ends */
		if (even) {
			low = big_cmp(&s->value, &s->mlow) <= 0;
			high = big_cmp(&s->vhigh, &s->scale) >= 0;
		} else {
			low = big_cmp(&s->value, &s->mlow) < 0;
			high = big_cmp(&s->vhigh, &s->scale) > 0;
		}
		if (((low || high) && digit_exp <= min_exp) || digit_exp == max_exp)
			break;
		out->d[n++] = (char)('0' + digit);
		d4_times_ten(s);
	}
	s->digit_exp = digit_exp;
	s->digit = digit;
	s->low = low;
	s->high = high;
	return n;
}

/* The exact digits down to max_exp, as d4_unique returns them. */
static int d4_exact(struct d4 *s, int max_exp, struct hcb_decimal *out)
{
	int n = 0, digit_exp = s->digit_exp;
	unsigned int digit;

	for (;;) {
		digit_exp--;
		digit = big_divmod_digit(&s->value, &s->scale);
		if (s->value.len == 0 || digit_exp == max_exp)
			break;
		out->d[n++] = (char)('0' + digit);
		big_mul_small(&s->value, 10);
	}
	s->digit_exp = digit_exp;
	s->digit = digit;
	return n;
}

/* The last digit after the n in out: toward the side the margins allow,
 * else to nearest, a tie to the even digit.  Returns the digit count. */
static int d4_round_last(struct d4 *s, int n, struct hcb_decimal *out)
{
	bool round_down = s->low;

	if (s->low == s->high) {
		int c;

		big_shl(&s->value, 1);
		c = big_cmp(&s->value, &s->scale);
		round_down = c < 0;
		if (c == 0)
			round_down = (s->digit & 1) == 0;
	}
	if (round_down) {
		out->d[n++] = (char)('0' + s->digit);
		return n;
	}
	if (s->digit != 9) {
		out->d[n++] = (char)('0' + s->digit + 1);
		return n;
	}
	for (;;) {
		if (n == 0) {
			out->d[n++] = '1';
			out->e++;
			return n;
		}
		if (out->d[n - 1] != '9') {
			out->d[n - 1]++;
			return n;
		}
		n--;
	}
}

int hcb_dragon4(const struct hcb_d4_float *f, enum hcb_d4_mode mode, enum hcb_d4_cutoff cutoff,
		int cutoff_max, int cutoff_min, struct hcb_decimal *out)
{
	struct d4 s;
	int max_exp, min_exp, n;

	d4_init(&s, f);
	d4_scale(&s, f, cutoff, cutoff_max);
	max_exp = s.digit_exp - HCB_D4_MAX_DIGITS;
	if (cutoff_max >= 0) {
		int want = cutoff == HCB_D4_TOTAL ? s.digit_exp - cutoff_max : -cutoff_max;

		if (want > max_exp)
			max_exp = want;
	}
	min_exp = s.digit_exp;
	if (cutoff_min >= 0) {
		int want = cutoff == HCB_D4_TOTAL ? s.digit_exp - cutoff_min : -cutoff_min;

		if (want < min_exp)
			min_exp = want;
	}
	out->e = s.digit_exp - 1;
	if (mode == HCB_D4_UNIQUE)
		n = d4_unique(&s, (f->mant & 1) == 0, max_exp, min_exp, out);
	else
		n = d4_exact(&s, max_exp, out);
	n = d4_round_last(&s, n, out);
	out->n = n;
	return n;
}
