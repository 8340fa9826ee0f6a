/* SPDX-License-Identifier: MIT */
/*
 * jsonl_num.c - JSONL data numbers, fast (jsonl_num.h).
 *
 * Written: dragonbox's shortest digits are Dragon4's unique digits with no
 * cutoff (digits.c says why), so the text is the Dragon4 path's once laid
 * out the same way (put_repr in jsonl.c).  Read: a data number whose
 * decimal the parser kept (jsonscan.h) and one rounding makes exact is
 * converted from that, any other by fast_float; both round as strtod /
 * strtof do.  Integers are read here only when plain and in range,
 * everything else is left to the general path in jsonl_tap.c.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/dtype.h"
#include "json/jsonparse.h"
#include "text/digits.h"
#include "text/fastfloat.h"
#include "jsonl_num.h"

typedef unsigned __int128 u128;

#define ASCII64 0x3030303030303030ull
#define ASCII128 ((u128)ASCII64 << 64 | ASCII64)

/*
 * A float's digits held in registers: the first 16 characters in d (the
 * first in the lowest byte, '0's past the last digit), a 17th in x.
 * Digits are stored to the text straight from there, not through a buffer
 * read back at an offset (a store-forwarding stall the profile showed).
 */
struct digs {
	u128 d;
	char x;
	int n;
};

static inline void store16(char *p, u128 v)
{
	memcpy(p, &v, 16);
}

/* 0 < sig < 10^9: float32's. */
static inline struct digs digs9(uint32_t sig)
{
	uint32_t top = sig / 100000000;
	uint64_t b = hcb_eight_digits(sig % 100000000);
	int lz = top ? 0 : 1 + (__builtin_ctzll(b) >> 3);
	u128 s = top | (u128)b << 8;

	return (struct digs){ s >> (8 * lz) | ASCII128, '0', 9 - lz };
}

/* 0 < sig < 10^17: float64's. */
static inline struct digs digs17(uint64_t sig)
{
	uint64_t top = sig / 10000000000000000ull, r = sig % 10000000000000000ull;
	uint64_t a = hcb_eight_digits((uint32_t)(r / 100000000)), b = hcb_eight_digits((uint32_t)(r % 100000000));
	u128 s = (u128)a | (u128)b << 64;
	int lz;

	if (top)   /* 17 digits: the last one apart */
		return (struct digs){ ((u128)top | s << 8) | ASCII128, (char)('0' + (b >> 56)), 17 };
	lz = a ? __builtin_ctzll(a) >> 3 : 8 + (__builtin_ctzll(b) >> 3);
	return (struct digs){ s >> (8 * lz) | ASCII128, '0', 16 - lz };
}

/*
 * Python repr's layout of the digits g whose first is the 10^e digit:
 * positional for -4 <= e < 16, always with a '.'; else d.ddde+XX.  What
 * put_repr in jsonl.c writes.  Stores are fixed-size: t takes up to
 * HCB_JSON_REAL_MAX bytes though the text is at most 24.
 */
static inline size_t repr_layout(char *t, bool neg, struct digs g, int e)
{
	char *w = t + neg;

	t[0] = '-';
	if (e >= -4 && e < 16) {
		if (e < 0) {
			memcpy(w, "0.000000", 8);       /* "0." and -e-1 zeros */
			w += 1 - e;
			store16(w, g.d);
			w[16] = g.x;
			return (size_t)(w + g.n - t);
		}
		if (g.n <= e + 1) {
			/* the '0's past the digits are the integer's zeros */
			store16(w, g.d);
			memcpy(w + e + 1, ".0", 2);
			return (size_t)(w + e + 3 - t);
		}
		store16(w, g.d);
		store16(w + e + 2, e < 15 ? g.d >> (8 * (e + 1)) : 0);
		w[17] = g.x;
		w[e + 1] = '.';
		return (size_t)(w + g.n + 1 - t);
	}
	store16(w + 1, g.d);
	w[17] = g.x;
	w[0] = (char)g.d;
	w[1] = '.';
	w += g.n > 1 ? g.n + 1 : 1;
	w[0] = 'e';
	w[1] = e < 0 ? '-' : '+';
	if (e < 0)
		e = -e;
	if (e >= 100) {
		w[2] = (char)('0' + e / 100);
		e %= 100;
		w++;
	}
	w[2] = (char)('0' + e / 10);
	w[3] = (char)('0' + e % 10);
	return (size_t)(w + 4 - t);
}

/* The non-finite and zero spellings. */
static size_t special(char *t, double v)
{
	const char *s = isnan(v) ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"";

	if (v == 0)
		s = signbit(v) ? "-0.0" : "0.0";
	memcpy(t, s, strlen(s));
	return strlen(s);
}

/* The text of the element at p, its shortest digits s already known
 * (anything for zero, inf, nan). */
static inline size_t real_text(char *text, unsigned int dtype, const void *p, struct hcb_shortest s)
{
	struct digs g;
	uint64_t bits;
	uint32_t b32;
	double v;
	float f;

	if (dtype == HCB_DT_FLOAT32) {
		memcpy(&b32, p, 4);
		memcpy(&f, p, 4);
		/* zero, inf, nan */
		if ((b32 << 1) == 0 || (b32 & 0x7f800000) == 0x7f800000)
			return special(text, f);
		g = digs9((uint32_t)s.sig);
		return repr_layout(text, b32 >> 31, g, s.exp + g.n - 1);
	}
	memcpy(&bits, p, 8);
	memcpy(&v, p, 8);
	if ((bits << 1) == 0 || (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
		return special(text, v);
	g = digs17(s.sig);
	return repr_layout(text, bits >> 63, g, s.exp + g.n - 1);
}

size_t hcb_json_real_text(char *text, unsigned int dtype, const void *p)
{
	struct hcb_shortest s;

	if (dtype == HCB_DT_FLOAT32)
		hcb_shortest_f32_n(p, 1, &s);
	else
		hcb_shortest_f64_n(p, 1, &s);
	return real_text(text, dtype, p, s);
}

int hcb_json_reals(struct hcb_buf *out, unsigned int dtype, const void *data, uint64_t n)
{
	struct hcb_shortest sh[256];
	const char *p = data;
	size_t size = dtype == HCB_DT_FLOAT32 ? 4 : 8;
	uint64_t i = 0;

	if (dtype != HCB_DT_FLOAT32 && dtype != HCB_DT_FLOAT64)
		return -EINVAL;
	while (i < n) {
		/* the digits of a batch in one call, then its text: room for
		 * it reserved at once, not checked per element */
		uint64_t batch = n - i < 256 ? n - i : 256;
		int err = hcb_buf_reserve(out, (size_t)batch * (HCB_JSON_REAL_LEN + 1) +
					  HCB_JSON_REAL_MAX);
		char *w;

		if (err)
			return err;
		if (dtype == HCB_DT_FLOAT32)
			hcb_shortest_f32_n(p + i * size, batch, sh);
		else
			hcb_shortest_f64_n(p + i * size, batch, sh);
		w = out->data + out->len;
		for (uint64_t k = 0; k < batch; k++, i++) {
			if (i)
				*w++ = ',';
			w += real_text(w, dtype, p + i * size, sh[k]);
		}
		out->len = (size_t)(w - out->data);
		out->data[out->len] = '\0';
	}
	return 0;
}

/* A plain JSON integer (-?digits, at most 19 of them) in range of dtype. */
static int json_int(const char *s, size_t len, unsigned int dtype, void *p)
{
	size_t i = 0;
	bool neg = len > 0 && s[0] == '-';
	uint64_t x = 0, max;
	int64_t min;

	i = neg;
	if (len - i < 1 || len - i > 19)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned int c = (unsigned char)s[i] - '0';

		if (c > 9)
			return -EINVAL;
		x = x * 10 + c;
	}
	hcb_dtype_int_range(dtype, &min, &max);
	if (hcb_dtype_is_signed(dtype)) {
		if (x > (neg ? 0 - (uint64_t)min : max))
			return -EINVAL;
		hcb_int_store(dtype, neg ? 0 - x : x, p);
		return 0;
	}
	if (!hcb_dtype_is_unsigned(dtype) || neg || x > max)
		return -EINVAL;
	hcb_int_store(dtype, x, p);
	return 0;
}

int hcb_json_number(const char *text, size_t len, unsigned int dtype, void *p)
{
	double v;
	float f;
	uint32_t bits;

	switch (dtype) {
	case HCB_DT_FLOAT32:
		if (hcb_parse_f32(text, len, &f))
			return -EINVAL;
		memcpy(p, &f, 4);
		return 0;
	case HCB_DT_FLOAT64:
		if (hcb_parse_f64(text, len, &v))
			return -EINVAL;
		memcpy(p, &v, 8);
		return 0;
	default:
		if (!hcb_dtype_is_float(dtype))
			return json_int(text, len, dtype, p);
		/* the narrow floats: rounded from the nearest double, as before */
		if (hcb_parse_f64(text, len, &v))
			return -EINVAL;
		bits = hcb_double_to_narrow_bits(dtype, v);
		memcpy(p, &bits, hcb_dtype_size(dtype));
		return 0;
	}
}

bool hcb_json_nonfinite(const char *t, double *v)
{
	if (!strcmp(t, "nan"))
		*v = NAN;
	else if (!strcmp(t, "inf"))
		*v = INFINITY;
	else if (!strcmp(t, "-inf"))
		*v = -INFINITY;
	else
		return false;
	return true;
}

/*
 * sig * 10^exp10 (sign apart) as a double, when one rounding gives it:
 * sig and 10^|exp10| are both exact doubles (sig <= 2^53, |exp10| <= 22),
 * so their product or quotient, rounded once, is the correctly rounded
 * value (Clinger's fast path).  Most data numbers are such.
 */
static inline bool decimal_f64(uint64_t sig, int32_t exp10, double *out)
{
	static const double pow10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
					  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
					  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

	if (sig > (UINT64_C(1) << 53) || exp10 < -22 || exp10 > 22)
		return false;
	*out = exp10 < 0 ? (double)sig / pow10[-exp10] : (double)sig * pow10[exp10];
	return true;
}

/*
 * The same as a float32, rounded from that double, which is right unless
 * the double lies exactly halfway between two float32s: only then can the
 * second rounding differ from rounding the decimal once (the halfway
 * point is a double, so a decimal on either side of it rounds to it or
 * to its own side).  The double is a normal float32's size (1e-22 up to
 * 9.1e37), so halfway means its 29 low mantissa bits are 1 then zeros.
 */
static inline bool decimal_f32(uint64_t sig, int32_t exp10, float *out)
{
	uint64_t bits;
	double v;

	if (!decimal_f64(sig, exp10, &v))
		return false;
	memcpy(&bits, &v, 8);
	if ((bits & ((UINT64_C(1) << 29) - 1)) == UINT64_C(1) << 28)
		return false;
	*out = (float)v;
	return true;
}

/* The J_NUM node n as a float32 / float64 at p: 0, or -EINVAL. */
static inline int node_f32(const struct jnode *n, unsigned char *p)
{
	uint32_t bits;
	float f;

	if (n->exp10 != JNUM_LONG && decimal_f32(n->sig, n->exp10, &f)) {
		/* the sign's bit set without a branch: signs are data */
		memcpy(&bits, &f, 4);
		bits |= (uint32_t)(n->num[0] == '-') << 31;
		memcpy(p, &bits, 4);
		return 0;
	}
	if (hcb_parse_f32(n->num, n->numlen, &f))
		return -EINVAL;
	memcpy(p, &f, 4);
	return 0;
}

static inline int node_f64(const struct jnode *n, unsigned char *p)
{
	uint64_t bits;
	double v;

	if (n->exp10 != JNUM_LONG && decimal_f64(n->sig, n->exp10, &v)) {
		memcpy(&bits, &v, 8);
		bits |= (uint64_t)(n->num[0] == '-') << 63;
		memcpy(p, &bits, 8);
		return 0;
	}
	if (hcb_parse_f64(n->num, n->numlen, &v))
		return -EINVAL;
	memcpy(p, &v, 8);
	return 0;
}

uint64_t hcb_json_reals_read(const struct jdoc *d, uint32_t *node, unsigned int dtype, void *out,
			     uint64_t n)
{
	const bool f32 = dtype == HCB_DT_FLOAT32;
	unsigned char *p = out;
	uint32_t e = *node;
	uint64_t k = 0;
	double v;

	if (dtype != HCB_DT_FLOAT32 && dtype != HCB_DT_FLOAT64)
		return 0;
	for (; k < n; k++) {
		const struct jnode *nd = &d->nodes[e];

		/* within the reader's limit on a number's length; a number's
		 * node is a leaf (its end is the next), which the loop need
		 * not wait to load */
		if (nd->kind == J_NUM && nd->numlen < 64) {
			if (f32 ? node_f32(nd, p + 4 * k) : node_f64(nd, p + 8 * k))
				break;
			e++;
			continue;
		}
		if (nd->kind != J_STR || !hcb_json_nonfinite(jstr(d, e), &v))
			break;
		e = nd->end;
		if (f32) {
			float f = (float)v;

			memcpy(p + 4 * k, &f, 4);
		} else {
			memcpy(p + 8 * k, &v, 8);
		}
	}
	*node = e;
	return k;
}
