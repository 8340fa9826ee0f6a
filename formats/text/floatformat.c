/* SPDX-License-Identifier: MIT */
/*
 * floatformat.c - numpy 1.26's FloatingFormat for array2string
 * (arrayprint.c): how a column of floats is laid out (positional or
 * scientific, padding, precision) from the values it shows, and each value
 * printed in it with Dragon4's digits (digits.c, mostly without running
 * dragon4.c), called the way numpy's FloatingFormat calls its own: the
 * same modes, precisions and minimum digit counts.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "digits.h"
#include "floatformat.h"

/* ---- decimal digits ------------------------------------------------- */

/*
 * snprintf in the C locale's spelling: a locale with ',' as radix must
 * not leak into numpy-compatible text, so whatever the radix is, it
 * becomes '.'.  Only used with %e / %f / %g of finite values.
 */
void fmt_c(char *buf, size_t size, const char *fmt, int prec, double v)
{
	char tmp[400];
	size_t i = 0, j = 0;

	snprintf(tmp, sizeof(tmp), fmt, prec, v);
	while (tmp[i] && j + 1 < size) {
		unsigned char c = (unsigned char)tmp[i];

		if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e') {
			buf[j++] = tmp[i++];
			continue;
		}
		/* the radix character, possibly several bytes */
		buf[j++] = '.';
		while (tmp[i] && !(tmp[i] >= '0' && tmp[i] <= '9') && tmp[i] != 'e')
			i++;
	}
	buf[j] = '\0';
}

/* Nearest float16 to x (ties to even), as a double; overflow gives inf. */
static double round_to_half(double x)
{
	double a = fabs(x), q, r;

	if (!isfinite(x) || a == 0)
		return x;
	if (a < ldexp(1, -14))
		q = ldexp(1, -24);
	else
		q = ldexp(1, ilogb(a) - 10);
	/* scaling by a power of two is exact, so this rounds once */
	r = nearbyint(a / q) * q;
	if (r > 65504.0)  /* the next step up, 65536, is past the largest half */
		r = INFINITY;
	return copysign(r, x);
}

/* Dragon4's view of its column's type: whose shortest digits count. */
static struct hcb_d4_type d4_type(unsigned int t)
{
	switch (t) {
	case HCB_DT_FLOAT16:
		return (struct hcb_d4_type){ 10, -14 };
	case HCB_DT_FLOAT32:
		return (struct hcb_d4_type){ 23, -126 };
	default:
		return (struct hcb_d4_type){ 52, -1022 };
	}
}

/* ---- floating point columns (numpy's FloatingFormat) ----------------- */

/*
 * Positional text of |v| (finite): "12.5", "3.", at most prec decimals.
 * whole: numpy's min_digits=0, which array2string passes when printing
 * (not when sizing): the digits up to the units are the value's own, not
 * the zeros a shorter unique form would leave ("26512." for float16, where
 * the unique digits alone give "26510.").  Returns the text's length and
 * sets *dot to where its '.' is, which the callers need and would
 * otherwise search for.
 */
static int pos_body(double v, const struct ffmt *f, int prec, bool whole, char *out,
		    size_t size, int *dot)
{
	struct hcb_decimal d;
	int i, j = 0, last;

	v = fabs(v);
	*dot = 1;
	if (v == 0) {
		snprintf(out, size, "0.");
		return 2;
	}
	/* numpy's dragon4_positional(precision=prec, unique=True, min_digits=0
	 * when printing, none when sizing) */
	hcb_unique_digits(v, d4_type(f->dtype), HCB_D4_FRACTION, prec, whole ? 0 : -1, &d);
	/* trim='.': no zeros at the end of the fraction */
	for (last = d.n; last > 0 && d.d[last - 1] == '0' && d.e - (last - 1) < 0; last--)
		;
	if (last == 0 || d.e < 0) {
		out[j++] = '0';
		out[j++] = '.';
		for (i = 0; last && i < -d.e - 1 && j + 2 < (int)size; i++)
			out[j++] = '0';
		for (i = 0; i < last && j + 1 < (int)size; i++)
			out[j++] = d.d[i];
	} else {
		for (i = 0; i <= d.e && j + 2 < (int)size; i++)
			out[j++] = i < last ? d.d[i] : '0';
		*dot = j;
		out[j++] = '.';
		for (; i < last && j + 1 < (int)size; i++)
			out[j++] = d.d[i];
	}
	out[j] = '\0';
	return j;
}

/* Number of exponent digits numpy writes: at least two. */
static int exp_digits(int e)
{
	int n = 0;

	e = abs(e);
	do {
		n++;
		e /= 10;
	} while (e);
	return n < 2 ? 2 : n;
}

/*
 * Scientific digits of |v| (finite).  frac < 0: the count and exponent
 * (d->n, d->e) of the unique digits capped at prec fraction digits,
 * trailing zeros dropped (the sizing pass); else exactly frac fraction
 * digits.
 */
static void sci_digits(double v, const struct ffmt *f, int prec, int frac, struct hcb_decimal *d)
{
	v = fabs(v);
	if (v == 0) {
		d->n = frac < 0 ? 1 : frac + 1;
		memset(d->d, '0', (size_t)d->n);
		d->e = 0;
		return;
	}
	if (frac < 0) {
		/* dragon4_scientific(precision=prec, unique=True, trim='.'):
		 * sizing needs the count and exponent, not the digits */
		d->n = hcb_unique_count(v, d4_type(f->dtype), HCB_D4_TOTAL, prec + 1, -1, &d->e);
		return;
	}
	/* dragon4_scientific(precision=frac, min_digits=frac, unique=True) */
	hcb_unique_digits(v, d4_type(f->dtype), HCB_D4_TOTAL, frac + 1, frac + 1, d);
	while (d->n < frac + 1)
		d->d[d->n++] = '0';
}

/* Append n spaces (n <= 0: none). */
static int pad(struct hcb_buf *out, int n)
{
	return n > 0 ? hcb_buf_fill(out, ' ', (size_t)n) : 0;
}

static const char *sign_of(double v, const struct ffmt *f)
{
	if (signbit(v))
		return "-";
	return f->sign_plus ? "+" : "";
}

/* Append one element formatted as the column f decided. */
int ffmt_put(struct hcb_buf *out, const struct ffmt *f, double v)
{
	char body[400];
	int err;

	if (!isfinite(v)) {
		const char *s = isnan(v) ? (f->sign_plus ? "+nan" : "nan") :
				v < 0 ? "-inf" : (f->sign_plus ? "+inf" : "inf");

		err = pad(out, f->pad_left + f->pad_right + 1 - (int)strlen(s));
		return err ?: hcb_buf_puts(out, s);
	}
	if (f->exp_format) {
		struct hcb_decimal d;
		int e;

		sci_digits(v, f, f->precision, f->precision, &d);
		e = d.e;
		return hcb_put_sci(out, f->pad_left - 1 - (int)strlen(sign_of(v, f)), sign_of(v, f),
				   d.d, d.n, e, f->exp_size);
	} else {
		int dot, len = pos_body(v, f, f->precision, true, body, sizeof(body), &dot);
		int ilen = dot + (int)strlen(sign_of(v, f)), flen = len - dot - 1;

		err = pad(out, f->pad_left - ilen);
		err = err ?: hcb_buf_puts(out, sign_of(v, f));
		err = err ?: hcb_buf_add(out, body, (size_t)len);
		return err ?: pad(out, f->pad_right - flen);
	}
}

void fstats_add(struct fstats *s, double v)
{
	double a = fabs(v);

	if (!isfinite(v)) {
		s->any_nonfinite = true;
		if (isinf(v) && v < 0)
			s->any_neginf = true;
		return;
	}
	s->any_finite = true;
	if (a == 0)
		return;
	if (!s->any_nonzero || a > s->max_abs)
		s->max_abs = a;
	if (!s->any_nonzero || a < s->min_abs)
		s->min_abs = a;
	s->any_nonzero = true;
}

/* numpy divides max by min in the array's own type; float16 via float32. */
static double ratio_in_type(double max, double min, unsigned int t)
{
	volatile float q;

	switch (t) {
	case HCB_DT_FLOAT32:
		q = (float)max / (float)min;
		return q;
	case HCB_DT_FLOAT16:
		q = (float)max / (float)min;
		return round_to_half(q);
	default:
		return max / min;
	}
}

/* Decide scientific or positional from the stats (first half of fillFormat). */
void ffmt_choose(struct ffmt *f, const struct fstats *s)
{
	double cutoff = 1e8;

	if (f->cutoff_by_type)
		cutoff = f->dtype == HCB_DT_FLOAT16 ? 1e3 : f->dtype == HCB_DT_FLOAT32 ? 1e6 : 1e8;
	f->exp_format = false;
	if (s->any_nonzero &&
	    (s->max_abs >= cutoff ||
	     (!f->suppress && (s->min_abs < 0.0001 ||
			       ratio_in_type(s->max_abs, s->min_abs, f->dtype) > 1000.))))
		f->exp_format = true;
	f->pad_left = f->pad_right = 0;
	f->exp_size = -1;
}

/* Widen the column for one finite value (second half of fillFormat). */
void ffmt_measure(struct ffmt *f, double v, int prec)
{
	int ilen = (int)strlen(sign_of(v, f)) + 1;

	if (!isfinite(v))
		return;
	if (f->exp_format) {
		struct hcb_decimal d;

		sci_digits(v, f, prec, -1, &d);
		if (d.n - 1 > f->precision)
			f->precision = d.n - 1;
		if (exp_digits(d.e) > f->exp_size)
			f->exp_size = exp_digits(d.e);
		if (ilen > f->pad_left)
			f->pad_left = ilen;
	} else {
		char body[400];
		int dot, flen = pos_body(v, f, prec, false, body, sizeof(body), &dot);

		ilen = dot + ilen - 1;
		flen -= dot + 1;
		if (ilen > f->pad_left)
			f->pad_left = ilen;
		if (flen > f->pad_right)
			f->pad_right = flen;
	}
}

/* After all values were measured: sizes nan and inf need (end of fillFormat). */
void ffmt_finish(struct ffmt *f, const struct fstats *s)
{
	if (f->exp_format && s->any_finite)
		f->pad_right = f->exp_size + 2 + f->precision;
	if (s->any_nonfinite) {
		int offset = f->pad_right + 1;
		int neginf = f->sign_plus || s->any_neginf;

		if (3 - offset > f->pad_left)
			f->pad_left = 3 - offset;
		if (3 + neginf - offset > f->pad_left)
			f->pad_left = 3 + neginf - offset;
	}
}
