/* SPDX-License-Identifier: MIT */
/*
 * digits.c - Dragon4's unique-mode digits without big integers, and the
 * printf formats arrayprint.c used for integers and exponents (digits.h).
 *
 * What Dragon4 (dragon4.c) does in unique mode, in decimal positions: the
 * value's leading digit is at 10^E; going down from there, it stops at the
 * first position P where the value is "unique" (some number with no
 * digits below 10^P reads back as the value) if P is at or below the
 * cutoff_min position Lmin, or else where P reaches the cutoff_max
 * position Lmax, and rounds its last digit there.  Unique at P is exactly
 * P <= p, p the last position of the shortest digits (Burger & Dybvig's
 * test fires first where a number of that length fits the rounding
 * interval).  With s = min(p, E) it stops at P = max(min(s, Lmin), Lmax):
 *
 *  (a) P == s: its digits are the shortest ones, and of those the
 *      nearest, ties to the even one, as dragonbox picks them (p > E when
 *      they round up to a power of ten);
 *  (b) P > s, the cutoff_max position: nothing there reads back yet, both
 *      margin tests fail and Dragon4 rounds the exact value to nearest,
 *      ties to the even digit;
 *  (c) P < s, digits past unique ones (cutoff_min): one margin test or
 *      both pass; where both pass it rounds to nearest (ties to even), and
 *      where only one passes it rounds toward that side, which is also the
 *      nearest when the margins are equal.  Unequal margins (the bottom of
 *      a binade) can make it round away from the nearest: that goes to
 *      Dragon4, unless the exact value has no digits there at all.
 *
 * Rounding the exact value m * 2^e2 at a decimal position is integer
 * arithmetic in 128 bits; what does not fit goes to Dragon4, as do values
 * below a fraction cutoff (Dragon4 starts at the cutoff then).
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "digits.h"
#include "fastfloat.h"

typedef unsigned __int128 u128;

static bool fast_on = true;
static uint64_t fallbacks;

void hcb_fast_digits_enable(bool on)
{
	fast_on = on;
}

uint64_t hcb_fast_digits_fallbacks(void)
{
	return __atomic_load_n(&fallbacks, __ATOMIC_RELAXED);
}

/* neg ? '-' : nothing, then mag's digits, right-aligned in width columns:
 * one reservation, written in place. */
static int put_int(struct hcb_buf *out, bool neg, uint64_t mag, int width)
{
	int n = hcb_ndigits_u64(mag) + neg, pad = width > n ? width - n : 0;
	int err = hcb_buf_reserve(out, (size_t)pad + 32);
	char *w;

	if (err)
		return err;
	w = out->data + out->len;
	memset(w, ' ', (size_t)pad);
	w[pad] = '-';
	hcb_digits_u64(mag, w + pad + neg);
	out->len += (size_t)(pad + n);
	out->data[out->len] = '\0';
	return 0;
}

int hcb_put_u64(struct hcb_buf *out, uint64_t v, int width)
{
	return put_int(out, false, v, width);
}

int hcb_put_i64(struct hcb_buf *out, int64_t v, int width)
{
	return put_int(out, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, width);
}

int hcb_put_sci(struct hcb_buf *out, int pad, const char *sign, const char *d, int n, int e,
		int width)
{
	size_t ns = strlen(sign);
	int ae = e < 0 ? -e : e, nx = ae >= 100 ? 3 : ae >= 10 ? 2 : 1, err;
	char *w;

	if (pad < 0)
		pad = 0;
	if (width < nx)
		width = nx;
	/* pad, sign, n digits and the '.', 'e' and its sign, width digits */
	err = hcb_buf_reserve(out, (size_t)pad + ns + (size_t)n + 3 + (size_t)width);
	if (err)
		return err;
	w = out->data + out->len;
	memset(w, ' ', (size_t)pad);
	w += pad;
	memcpy(w, sign, ns);
	w += ns;
	*w++ = d[0];
	*w++ = '.';
	memcpy(w, d + 1, (size_t)n - 1);
	w += n - 1;
	*w++ = 'e';
	*w++ = e < 0 ? '-' : '+';
	for (; width > nx; width--)
		*w++ = '0';
	/* |e| of a float is below 1000 */
	if (nx == 3)
		*w++ = (char)('0' + ae / 100);
	if (nx >= 2)
		*w++ = (char)('0' + ae / 10 % 10);
	*w++ = (char)('0' + ae % 10);
	out->len = (size_t)(w - out->data);
	out->data[out->len] = '\0';
	return 0;
}

static int bits128(u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;

	return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* 5^k for k <= 54 (5^54 < 2^126). */
static u128 pow5(int k)
{
	static const uint64_t p[28] = {
		1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull,
		1953125ull, 9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull,
		30517578125ull, 152587890625ull, 762939453125ull, 3814697265625ull,
		19073486328125ull, 95367431640625ull, 476837158203125ull, 2384185791015625ull,
		11920928955078125ull, 59604644775390625ull, 298023223876953125ull,
		1490116119384765625ull, 7450580596923828125ull,
	};

	return k <= 27 ? p[k] : (u128)p[27] * p[k - 27];
}

/* Where a remainder lies against half a unit. */
enum rem { REM_ZERO, REM_BELOW, REM_HALF, REM_ABOVE };

static enum rem rem_class(u128 r, u128 half2, u128 r2)
{
	if (r == 0)
		return REM_ZERO;
	return r2 < half2 ? REM_BELOW : r2 == half2 ? REM_HALF : REM_ABOVE;
}

/*
 * floor(m * 2^e2 / 10^q) into *quot (it must fit 64 bits) and where the
 * remainder lies; false when the numbers do not fit 128 bits.
 */
static bool div_pow10(uint64_t m, int e2, int q, uint64_t *quot, enum rem *rem)
{
	u128 x, d, qq;

	if (q <= 0) {
		/* m * 5^k * 2^(e2 + k), k = -q */
		int k = -q, s = e2 + k, t;

		if (k > 54 || bits128(m) + bits128(pow5(k)) > 128)
			return false;
		x = (u128)m * pow5(k);
		if (s >= 0) {
			if (s >= 64 || bits128(x) + s > 64)
				return false;
			*quot = (uint64_t)(x << s);
			*rem = REM_ZERO;
			return true;
		}
		t = -s;
		if (t > 127)
			return false;
		qq = x >> t;
		if (qq >> 64)
			return false;
		*quot = (uint64_t)qq;
		x &= ((u128)1 << t) - 1;
		/* the remainder is below 2^t: compare 2r with 2^t as r with 2^(t-1) */
		*rem = rem_class(x, (u128)1 << (t - 1), x);
		return true;
	}
	/* m * 2^(e2 - q) / 5^q */
	if (q > 54)
		return false;
	d = pow5(q);
	x = m;
	if (e2 - q >= 0) {
		if (bits128(m) + e2 - q > 128)
			return false;
		x <<= e2 - q;
	} else {
		if (bits128(d) + q - e2 > 127)
			return false;
		d <<= q - e2;
	}
	if (bits128(d) > 127)
		return false;
	qq = x / d;
	if (qq >> 64)
		return false;
	*quot = (uint64_t)qq;
	x -= qq * d;
	*rem = rem_class(x, d, x << 1);
	return true;
}

/* v as a float32 or float64: exactly m * 2^e2, its shortest digits, and
 * whether its margins are unequal (hcb_d4_split's rule: a binade's bottom,
 * not the lowest normal one). */
struct split {
	uint64_t m, sig;
	int e2, p;
	bool unequal;
};

static bool split(double v, struct hcb_d4_type t, struct split *s)
{
	struct hcb_shortest sh;
	uint64_t frac;
	int be;

	if (t.mant_bits == 23 && t.min_exp == -126) {
		float f = (float)fabs(v);
		uint32_t b;

		memcpy(&b, &f, 4);
		be = (int)(b >> 23);
		frac = b & 0x7fffff;
		s->m = be ? frac | 0x800000 : frac;
		s->e2 = (be ? be : 1) - 150;
		sh = hcb_shortest_f32(f);
	} else if (t.mant_bits == 52 && t.min_exp == -1022) {
		double a = fabs(v);
		uint64_t b;

		memcpy(&b, &a, 8);
		be = (int)(b >> 52);
		frac = b & 0xfffffffffffffull;
		s->m = be ? frac | 0x10000000000000ull : frac;
		s->e2 = (be ? be : 1) - 1075;
		sh = hcb_shortest_f64(a);
	} else {
		return false;
	}
	s->unequal = frac == 0 && be > 1;
	s->sig = sh.sig;
	s->p = sh.exp;
	return true;
}

/* The fast path's answer: digits as the integer r, its last digit the
 * 10^last one, trailing zeros in it only if strip. */
struct answer {
	uint64_t r;
	int last;
	bool strip;
};

/* Where Dragon4 stops and what it gives there (see the top); false when
 * only Dragon4 can tell. */
static bool fast_unique(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff,
			int cutoff_max, int cutoff_min, struct answer *a)
{
	struct split sp;
	uint64_t quot;
	int e, stop, short_stop, lmax = INT_MIN, lmin = INT_MAX;
	enum rem rem;

	if (!split(v, t, &sp))
		return false;
	/* E, the exact value's leading position: the shortest's, unless the
	 * shortest rounded up to a power of ten */
	e = sp.p + hcb_ndigits_u64(sp.sig) - 1;
	if (sp.sig == 1) {
		if (!div_pow10(sp.m, sp.e2, sp.p, &quot, &rem))
			return false;
		if (quot == 0)
			e = sp.p - 1;
	}
	if (cutoff_max >= 0)
		lmax = cutoff == HCB_D4_TOTAL ? e + 1 - cutoff_max : -cutoff_max;
	if (cutoff_min >= 0)
		lmin = cutoff == HCB_D4_TOTAL ? e + 1 - cutoff_min : -cutoff_min;
	/* a fraction cutoff above the leading digit: Dragon4 starts there */
	if (lmax > e)
		return false;
	short_stop = sp.p < e ? sp.p : e;
	stop = short_stop < lmin ? short_stop : lmin;
	if (stop < lmax)
		stop = lmax;
	if (stop == short_stop) {                                 /* (a) */
		*a = (struct answer){ sp.sig, sp.p, false };
		return true;
	}
	if (!div_pow10(sp.m, sp.e2, stop, &quot, &rem))
		return false;
	/* (c) is stop < short_stop, (b) stop > short_stop: see above */
	if (stop < short_stop && sp.unequal && rem != REM_ZERO)
		return false;
	if (rem == REM_ABOVE || (rem == REM_HALF && (quot & 1)))
		quot++;
	*a = (struct answer){ quot, stop, true };
	return true;
}

/* Dragon4 itself, trailing zeros dropped. */
static int dragon4(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff, int cutoff_max,
		   int cutoff_min, struct hcb_decimal *out)
{
	struct hcb_d4_float f = hcb_d4_split(v, t.mant_bits, t.min_exp);

	__atomic_fetch_add(&fallbacks, 1, __ATOMIC_RELAXED);
	hcb_dragon4(&f, HCB_D4_UNIQUE, cutoff, cutoff_max, cutoff_min, out);
	while (out->n > 1 && out->d[out->n - 1] == '0')
		out->n--;
	return out->n;
}

int hcb_unique_digits(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff,
		      int cutoff_max, int cutoff_min, struct hcb_decimal *out)
{
	struct answer a;
	int n;

	if (!fast_on) {
		struct hcb_d4_float f = hcb_d4_split(v, t.mant_bits, t.min_exp);

		return hcb_dragon4(&f, HCB_D4_UNIQUE, cutoff, cutoff_max, cutoff_min, out);
	}
	if (!fast_unique(v, t, cutoff, cutoff_max, cutoff_min, &a))
		return dragon4(v, t, cutoff, cutoff_max, cutoff_min, out);
	n = hcb_digits_u64(a.r, out->d);
	out->e = a.last + n - 1;
	while (a.strip && n > 1 && out->d[n - 1] == '0')
		n--;
	out->n = n;
	return n;
}

int hcb_unique_count(double v, struct hcb_d4_type t, enum hcb_d4_cutoff cutoff,
		     int cutoff_max, int cutoff_min, int *e)
{
	struct hcb_decimal d;
	struct answer a;
	int n;

	if (!fast_on || !fast_unique(v, t, cutoff, cutoff_max, cutoff_min, &a)) {
		hcb_unique_digits(v, t, cutoff, cutoff_max, cutoff_min, &d);
		*e = d.e;
		while (d.n > 1 && d.d[d.n - 1] == '0')
			d.n--;
		return d.n;
	}
	n = hcb_ndigits_u64(a.r);
	*e = a.last + n - 1;
	for (; a.strip && n > 1 && a.r % 10 == 0; a.r /= 10)
		n--;
	return n;
}
