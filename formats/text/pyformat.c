/* SPDX-License-Identifier: MIT */
/*
 * pyformat.c - str.format in C, the subset pyformat.h proves: the parse
 * follows CPython's MarkupIterator (Objects/stringlib/unicode_format.h),
 * the specs its format_float_internal / format_long_internal.  What
 * numpy does around them was measured in numpy 1.26 and 2.x: a scalar's
 * __format__ hands the value to Python's bool, int or float (so a
 * float32's '{}' is the double's repr), and an n-d array's is str(array).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "arrayprint.h"
#include "digits.h"
#include "floatformat.h"
#include "pyformat.h"

/* One replacement field: its argument and its spec, bytes of fmt. */
struct field {
	int index;              /* positional argument, or -1: name */
	const char *name;
	size_t name_len;
	const char *spec;
	size_t spec_len;
};

/* A parsed format spec: [[fill]align][sign][width][.precision][type]. */
struct spec {
	char fill[4];
	int fill_len;
	char align;             /* '<', '>', '^'; '\0': the default (right) */
	char sign;              /* '+', ' ', '-' or '\0' */
	int width;              /* -1: none */
	int prec;               /* -1: none */
	char type;              /* 'f', 'e', 'g', 'd', '%' or '\0' */
};

struct parse {
	const char *p, *end;
	int auto_next;          /* the next "{}"'s index; -1 once manual */
	bool manual;
};

/* The field's name part: "" (auto), digits (manual) or a plain name. */
static int field_name(struct parse *ps, struct field *f, const char *s, size_t n)
{
	bool digits = n > 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		/* attribute, index, or a name Python might read as a
		 * Unicode decimal: not proven here */
		if (c == '.' || c == '[' || c >= 0x80)
			return -ENOTSUP;
		digits = digits && c >= '0' && c <= '9';
	}
	f->index = -1;
	f->name = s;
	f->name_len = n;
	if (!n) {
		if (ps->manual)
			return -ENOTSUP;
		ps->auto_next = ps->auto_next < 0 ? 0 : ps->auto_next;
		f->index = ps->auto_next++;
	} else if (digits) {
		if (ps->auto_next >= 0 || n > 3)
			return -ENOTSUP;
		ps->manual = true;
		f->index = 0;
		for (size_t i = 0; i < n; i++)
			f->index = f->index * 10 + (s[i] - '0');
	}
	return f->index >= (int)HCB_PYFMT_MAX_FIELDS ? -ENOTSUP : 0;
}

/* One field's text between its braces (no brace in it). */
static int field_parse(struct parse *ps, struct field *f, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t name_n = colon ? (size_t)(colon - s) : n;

	if (memchr(s, '!', name_n))
		return -ENOTSUP;
	f->spec = colon ? colon + 1 : s + n;
	f->spec_len = colon ? n - name_n - 1 : 0;
	return field_name(ps, f, s, name_n);
}

/*
 * The next piece of fmt: 1 and a field; 2 and one literal byte in *lit
 * ("{{" and "}}" are one); 0 at the end; -ENOTSUP where Python raises or
 * the field is not in the subset.
 */
static int next_piece(struct parse *ps, struct field *f, char *lit)
{
	const char *close;

	if (ps->p >= ps->end)
		return 0;
	if (*ps->p == '}') {
		if (ps->p + 1 >= ps->end || ps->p[1] != '}')
			return -ENOTSUP;
		*lit = '}';
		ps->p += 2;
		return 2;
	}
	if (*ps->p != '{') {
		*lit = *ps->p++;
		return 2;
	}
	if (ps->p + 1 < ps->end && ps->p[1] == '{') {
		*lit = '{';
		ps->p += 2;
		return 2;
	}
	ps->p++;
	close = memchr(ps->p, '}', (size_t)(ps->end - ps->p));
	if (!close || memchr(ps->p, '{', (size_t)(close - ps->p)))
		return -ENOTSUP;
	if (field_parse(ps, f, ps->p, (size_t)(close - ps->p)))
		return -ENOTSUP;
	ps->p = close + 1;
	return 1;
}

/* c is one of set's characters (never its NUL). */
static bool in_set(char c, const char *set)
{
	return c && strchr(set, c);
}

/* Bytes of the UTF-8 sequence at s (n available), 0 if none is valid. */
static int utf8_len(const unsigned char *s, size_t n)
{
	int len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		  (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!len || (size_t)len > n || (len == 2 && s[0] < 0xc2) || (len == 4 && s[0] > 0xf4))
		return 0;
	for (int i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Up to 4 decimal digits at s[*i]: the number, or -1 if none; -2 if more. */
static int spec_number(const char *s, size_t n, size_t *i)
{
	int v = 0, k = 0;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (++k > 4)
			return -2;
		v = v * 10 + (s[(*i)++] - '0');
	}
	return k ? v : -1;
}

static int spec_parse(struct spec *sp, const char *s, size_t n)
{
	size_t i = 0;
	int fl = n ? utf8_len((const unsigned char *)s, n) : 0;

	memset(sp, 0, sizeof(*sp));
	if (n && !fl)
		return -ENOTSUP;
	if (fl && (size_t)fl < n && in_set(s[fl], "<>^=")) {
		memcpy(sp->fill, s, (size_t)fl);
		sp->fill_len = fl;
		sp->align = s[fl];
		i = (size_t)fl + 1;
	} else if (n && in_set(s[0], "<>^=")) {
		sp->align = s[i++];
	}
	if (sp->align == '=')
		return -ENOTSUP;
	if (i < n && in_set(s[i], "+- "))
		sp->sign = s[i++];
	/* 'z', '#' and a leading '0' are not proven */
	if (i < n && (s[i] == 'z' || s[i] == '#' || s[i] == '0'))
		return -ENOTSUP;
	sp->width = spec_number(s, n, &i);
	if (sp->width < -1 || sp->width > HCB_PYFMT_MAX_WIDTH)
		return -ENOTSUP;
	sp->prec = -1;
	if (i < n && s[i] == '.') {
		i++;
		sp->prec = spec_number(s, n, &i);
		if (sp->prec < 0 || sp->prec > HCB_PYFMT_MAX_PREC)
			return -ENOTSUP;
	}
	if (i + 1 < n || (i < n && !in_set(s[i], "fegd%")))
		return -ENOTSUP;
	sp->type = i < n ? s[i] : '\0';
	if (!sp->fill_len) {
		sp->fill[0] = ' ';
		sp->fill_len = 1;
	}
	return 0;
}

/* Python's repr of a finite double v >= 0 (float_repr_style 'short'):
 * the shortest digits that read back, positional from 1e-4 to below
 * 1e16, else d[.ddd]e+XX. */
static void repr_body(char *s, size_t cap, double v)
{
	struct hcb_d4_type t = { 52, -1022 };
	struct hcb_decimal d;
	int decpt, n;

	if (v == 0) {
		snprintf(s, cap, "0.0");
		return;
	}
	n = hcb_unique_digits(v, t, HCB_D4_TOTAL, -1, -1, &d);
	decpt = d.e + 1;
	if (decpt <= -4 || decpt > 16) {
		snprintf(s, cap, "%c%s%.*se%c%02d", d.d[0], n > 1 ? "." : "", n - 1, d.d + 1,
			 d.e < 0 ? '-' : '+', abs(d.e));
	} else if (decpt <= 0) {
		snprintf(s, cap, "0.%.*s%.*s", -decpt, "0000", n, d.d);
	} else if (decpt >= n) {
		snprintf(s, cap, "%.*s%.*s.0", n, d.d, decpt - n, "0000000000000000");
	} else {
		snprintf(s, cap, "%.*s.%.*s", decpt, d.d, n - decpt, d.d + decpt);
	}
}

/* A float's digits without sign: for type (f e g %, or '\0': repr). */
static void float_body(char *s, size_t cap, double v, const struct spec *sp)
{
	char f[8];
	int prec = sp->prec < 0 ? 6 : sp->prec;

	if (isnan(v) || isinf(v)) {
		snprintf(s, cap, "%s%s", isnan(v) ? "nan" : "inf", sp->type == '%' ? "%" : "");
		return;
	}
	if (!sp->type) {
		repr_body(s, cap, v);
		return;
	}
	snprintf(f, sizeof(f), "%%.*%c", sp->type == '%' ? 'f' : sp->type);
	fmt_c(s, cap - 1, f, prec, sp->type == '%' ? v * 100 : v);
	if (sp->type == '%')
		strcat(s, "%");
}

/* sign, body, padded to the spec's width by its fill and alignment. */
static int put_padded(struct hcb_buf *out, const struct spec *sp, const char *sign,
		      const char *body)
{
	size_t n = strlen(sign) + strlen(body);
	size_t pad = sp->width > 0 && (size_t)sp->width > n ? (size_t)sp->width - n : 0;
	size_t left = sp->align == '<' ? 0 : sp->align == '^' ? pad / 2 : pad;
	int err = 0;

	for (size_t i = 0; i < left && !err; i++)
		err = hcb_buf_add(out, sp->fill, (size_t)sp->fill_len);
	err = err ?: hcb_buf_puts(out, sign);
	err = err ?: hcb_buf_puts(out, body);
	for (size_t i = left; i < pad && !err; i++)
		err = hcb_buf_add(out, sp->fill, (size_t)sp->fill_len);
	return err;
}

static const char *sign_of(const struct spec *sp, bool negative)
{
	if (negative)
		return "-";
	return sp->sign == '+' ? "+" : sp->sign == ' ' ? " " : "";
}

/* A Python float (a numpy float scalar, or an int formatted as one). */
static int put_float(struct hcb_buf *out, const struct spec *sp, double v)
{
	char body[HCB_PYFMT_MAX_PREC + 420];

	/* 'd' of a float raises; a float's none with a precision is a
	 * variant of 'g' not proven here */
	if (sp->type == 'd' || (!sp->type && sp->prec >= 0))
		return -ENOTSUP;
	float_body(body, sizeof(body), fabs(v), sp);
	/* Python drops a NaN's sign */
	return put_padded(out, sp, sign_of(sp, signbit(v) && !isnan(v)), body);
}

/* A 0-d leaf, as numpy's scalar formats itself through Python. */
static int put_scalar(struct hcb_buf *out, const struct hcb_array *a, const char *s, size_t n)
{
	unsigned int t = a->dtype;
	bool is_float = t == HCB_DT_FLOAT16 || t == HCB_DT_FLOAT32 || t == HCB_DT_FLOAT64;
	bool is_int = hcb_dtype_bits(t) >= 8 && (hcb_dtype_is_signed(t) ||
						 hcb_dtype_is_unsigned(t));
	bool neg = false;
	char body[32];
	struct spec sp;
	uint64_t mag;

	if (t != HCB_DT_BOOL && !is_int && !is_float)
		return -ENOTSUP;
	if (!n && t == HCB_DT_BOOL)
		return hcb_buf_puts(out, hcb_elem_to_u64(t, a->data) ? "True" : "False");
	if (spec_parse(&sp, s, n))
		return -ENOTSUP;
	if (is_float)
		return put_float(out, &sp, hcb_elem_to_double(t, a->data));
	if (hcb_dtype_is_signed(t)) {
		int64_t v = hcb_elem_to_i64(t, a->data);

		neg = v < 0;
		mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
	} else {
		mag = hcb_elem_to_u64(t, a->data);
	}
	/* an int under a float's type is converted, rounded to nearest */
	if (sp.type && sp.type != 'd')
		return put_float(out, &sp, neg ? -(double)mag : (double)mag);
	if (sp.prec >= 0)
		return -ENOTSUP;
	snprintf(body, sizeof(body), "%llu", (unsigned long long)mag);
	return put_padded(out, &sp, sign_of(&sp, neg), body);
}

/* numpy's version not known: the text only where either cutoff gives it. */
static int put_array_either(struct hcb_buf *out, const struct hcb_array *a,
			    const struct hcb_print_opts *o)
{
	struct hcb_print_opts before = *o, after = *o;
	struct hcb_buf other = HCB_BUF_INIT;
	size_t start = out->len;
	int err;

	before.exp_cutoff_by_type = 0;
	after.exp_cutoff_by_type = 1;
	err = hcb_array2string(out, a, &before);
	err = err ?: hcb_array2string(&other, a, &after);
	if (!err && (other.len != out->len - start ||
		     memcmp(other.data, out->data + start, other.len)))
		err = -ENOTSUP;
	hcb_buf_free(&other);
	return err == -EINVAL ? -ENOTSUP : err;
}

/* str(array) of an n-d leaf; numpy's own dtypes only. */
static int put_array(struct hcb_buf *out, const struct hcb_array *a,
		     const struct hcb_print_opts *o, size_t spec_len)
{
	unsigned int t = a->dtype;
	int err;

	/* ndarray.__format__ takes no spec but the empty one */
	if (spec_len)
		return -ENOTSUP;
	if (t != HCB_DT_BOOL && t != HCB_DT_FLOAT16 && t != HCB_DT_FLOAT32 &&
	    t != HCB_DT_FLOAT64 && !hcb_dtype_is_complex(t) &&
	    !(hcb_dtype_bits(t) >= 8 && (hcb_dtype_is_signed(t) || hcb_dtype_is_unsigned(t))))
		return -ENOTSUP;
	if (o->exp_cutoff_by_type < 0)
		return put_array_either(out, a, o);
	err = hcb_array2string(out, a, o);
	return err == -EINVAL ? -ENOTSUP : err;
}

static int name_cmp(const struct field *a, const struct field *b)
{
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->name, b->name, n);

	return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

/* qsort's order of two named fields (pointers): Python's of their names */
static int name_order(const void *a, const void *b)
{
	return name_cmp(*(const struct field *const *)a, *(const struct field *const *)b);
}

/*
 * Give each field its leaf: positional i is leaf i, a name is leaf P +
 * its rank among the distinct names (sorted: jax flattens the kwargs
 * dict by sorted key).  -ENOTSUP unless the indices used are 0..P-1 and
 * P plus the names is nleaves.
 */
static int map_fields(struct field *f, unsigned int nf, unsigned int nleaves, int *leaf)
{
	unsigned char used[HCB_PYFMT_MAX_FIELDS] = { 0 };
	const struct field *names[HCB_PYFMT_MAX_FIELDS];
	unsigned int npos = 0, nnames = 0, k;

	for (unsigned int i = 0; i < nf; i++) {
		if (f[i].index >= 0) {
			npos += !used[f[i].index]++;
			continue;
		}
		for (k = 0; k < nnames && name_cmp(names[k], &f[i]); k++)
			;
		if (k == nnames)
			names[nnames++] = &f[i];
	}
	for (unsigned int i = 0; i < npos; i++)
		if (!used[i])
			return -ENOTSUP;
	if (npos + nnames != nleaves)
		return -ENOTSUP;
	qsort(names, nnames, sizeof(names[0]), name_order);
	for (unsigned int i = 0; i < nf; i++) {
		for (k = 0; f[i].index < 0 && name_cmp(names[k], &f[i]); k++)
			;
		leaf[i] = f[i].index >= 0 ? f[i].index : (int)(npos + k);
	}
	return 0;
}

/* Pass 1: every field of fmt, or -ENOTSUP. */
static int collect(const char *fmt, size_t len, struct field *f, unsigned int *nf)
{
	struct parse ps = { fmt, fmt + len, -1, false };
	char lit;
	int r;

	*nf = 0;
	while ((r = next_piece(&ps, &f[*nf], &lit)) > 0)
		if (r == 1 && ++*nf == HCB_PYFMT_MAX_FIELDS)
			return -ENOTSUP;
	return r;
}

static int emit(struct hcb_buf *out, const char *fmt, size_t len, const struct field *f,
		const int *leaf, const struct hcb_print_opts *o, const struct hcb_array *leaves)
{
	struct parse ps = { fmt, fmt + len, -1, false };
	size_t start = out->len;
	const struct hcb_array *a;
	struct field cur;
	unsigned int k = 0;
	char lit;
	int r, err = 0;

	while (!err && (r = next_piece(&ps, &cur, &lit)) > 0) {
		if (r == 2) {
			err = hcb_buf_putc(out, lit);
			continue;
		}
		a = &leaves[leaf[k]];
		if (a->ndim)
			err = put_array(out, a, o, f[k].spec_len);
		else
			err = put_scalar(out, a, f[k].spec, f[k].spec_len);
		k++;
		if (!err && out->len - start > HCB_PYFMT_MAX_LINE)
			err = -E2BIG;
	}
	if (!err && out->len - start > HCB_PYFMT_MAX_LINE)
		err = -E2BIG;
	return err ? err : r;
}

int hcb_pyformat(struct hcb_buf *out, const char *fmt, size_t fmt_len,
		 const struct hcb_print_opts *opts, const struct hcb_array *leaves,
		 unsigned int nleaves)
{
	struct field *f;
	unsigned int nf;
	int *leaf;
	int err;

	if (!out || !fmt || !opts || (nleaves && !leaves))
		return -EINVAL;
	for (unsigned int i = 0; i < nleaves; i++)
		if (!leaves[i].data || (leaves[i].ndim && !leaves[i].dims))
			return -EINVAL;
	f = calloc(HCB_PYFMT_MAX_FIELDS, sizeof(*f));
	leaf = calloc(HCB_PYFMT_MAX_FIELDS, sizeof(*leaf));
	err = f && leaf ? 0 : -ENOMEM;
	err = err ?: collect(fmt, fmt_len, f, &nf);
	err = err ?: map_fields(f, nf, nleaves, leaf);
	err = err ?: emit(out, fmt, fmt_len, f, leaf, opts, leaves);
	free(f);
	free(leaf);
	return err;
}
