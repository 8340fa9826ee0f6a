/* SPDX-License-Identifier: MIT */
/*
 * arrayprint.c - numpy 1.26 array2string, default options but threshold.
 *
 * The layout follows numpy's rules (numpy/core/arrayprint.py, _formatArray
 * and the *Format classes); the digits follow its Dragon4 in "unique" mode:
 * the shortest decimal that reads back as the same value of the element's
 * own type, capped at the precision.
 *
 * Digits come from Dragon4 (digits.c, mostly without running dragon4.c)
 * called the way numpy's FloatingFormat calls its own: the same modes,
 * precisions and minimum digit counts, so even the last digit of a value
 * printed with more digits than it needs is rounded as numpy rounds it.  That part, the columns of
 * floats, is floatformat.c; this file is the per-dtype element formats and
 * the layout.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "arrayprint.h"
#include "digits.h"
#include "floatformat.h"

#define MAX_NDIM 64  /* numpy allows 32 (64 in numpy 2) */

/* ---- per-dtype element formats -------------------------------------- */

enum kind { K_BOOL, K_INT, K_UINT, K_FLOAT, K_COMPLEX, K_REPR };

struct efmt {
	enum kind kind;
	unsigned int dtype;
	size_t esize;
	bool zero_d;
	int int_width;
	int64_t imin, imax;
	uint64_t umin, umax;
	bool have_int;
	struct ffmt re, im;
	struct fstats sre, sim;
};

static unsigned int component_type(unsigned int t)
{
	switch (t) {
	case HCB_DT_COMPLEX64: return HCB_DT_FLOAT32;
	case HCB_DT_COMPLEX128: return HCB_DT_FLOAT64;
	default: return t;
	}
}

static double imag_of(unsigned int t, const void *p)
{
	const char *c = p;

	if (t == HCB_DT_COMPLEX64)
		return hcb_elem_to_double(HCB_DT_FLOAT32, c + 4);
	return hcb_elem_to_double(HCB_DT_FLOAT64, c + 8);
}

static int efmt_init(struct efmt *e, const struct hcb_array *a, const struct hcb_print_opts *o)
{
	unsigned int t = a->dtype;

	memset(e, 0, sizeof(*e));
	e->dtype = t;
	e->esize = hcb_dtype_size(t);
	e->zero_d = a->ndim == 0;
	if (!e->esize)
		return -EINVAL;
	if (t == HCB_DT_BOOL)
		e->kind = K_BOOL;
	else if (hcb_dtype_bits(t) < 8)
		/* ml_dtypes' int2 and int4 are not np.integer either */
		e->kind = K_REPR;
	else if (hcb_dtype_is_signed(t))
		e->kind = K_INT;
	else if (hcb_dtype_is_unsigned(t))
		e->kind = K_UINT;
	else if (t == HCB_DT_FLOAT16 || t == HCB_DT_FLOAT32 || t == HCB_DT_FLOAT64)
		e->kind = K_FLOAT;
	else if (hcb_dtype_is_complex(t))
		e->kind = K_COMPLEX;
	else
		/* ml_dtypes scalars are not np.floating: numpy uses their repr */
		e->kind = K_REPR;
	e->re.dtype = e->im.dtype = component_type(t);
	e->re.precision = e->im.precision = o->precision;
	e->re.suppress = e->im.suppress = o->suppress;
	e->re.cutoff_by_type = e->im.cutoff_by_type = o->exp_cutoff_by_type == 1;
	e->im.sign_plus = true;
	return 0;
}

/* Pass 1 over the shown elements: ranges and float statistics. */
static void efmt_pass1(struct efmt *e, const void *p)
{
	switch (e->kind) {
	case K_INT: {
		int64_t v = hcb_elem_to_i64(e->dtype, p);

		if (!e->have_int || v < e->imin)
			e->imin = v;
		if (!e->have_int || v > e->imax)
			e->imax = v;
		e->have_int = true;
		break;
	}
	case K_UINT: {
		uint64_t v = hcb_elem_to_u64(e->dtype, p);

		if (!e->have_int || v < e->umin)
			e->umin = v;
		if (!e->have_int || v > e->umax)
			e->umax = v;
		e->have_int = true;
		break;
	}
	case K_FLOAT:
		fstats_add(&e->sre, hcb_elem_to_double(e->dtype, p));
		break;
	case K_COMPLEX:
		fstats_add(&e->sre, hcb_elem_to_double(e->dtype, p));
		fstats_add(&e->sim, imag_of(e->dtype, p));
		break;
	default:
		break;
	}
}

static void efmt_between(struct efmt *e)
{
	char s[32];
	int a, b;

	if (e->kind == K_INT) {
		a = snprintf(s, sizeof(s), "%lld", (long long)e->imin);
		b = snprintf(s, sizeof(s), "%lld", (long long)e->imax);
		e->int_width = a > b ? a : b;
	} else if (e->kind == K_UINT) {
		a = snprintf(s, sizeof(s), "%llu", (unsigned long long)e->umin);
		b = snprintf(s, sizeof(s), "%llu", (unsigned long long)e->umax);
		e->int_width = a > b ? a : b;
	}
	ffmt_choose(&e->re, &e->sre);
	ffmt_choose(&e->im, &e->sim);
	/* scientific columns print as many fraction digits as the longest
	 * value needs: start from none and let pass 2 widen it */
	if (e->re.exp_format)
		e->re.precision = 0;
	if (e->im.exp_format)
		e->im.precision = 0;
}

/* Pass 2 over the shown elements: column widths. */
static void efmt_pass2(struct efmt *e, const void *p, int prec)
{
	if (e->kind == K_FLOAT) {
		ffmt_measure(&e->re, hcb_elem_to_double(e->dtype, p), prec);
	} else if (e->kind == K_COMPLEX) {
		ffmt_measure(&e->re, hcb_elem_to_double(e->dtype, p), prec);
		ffmt_measure(&e->im, imag_of(e->dtype, p), prec);
	}
}

static int efmt_put(struct hcb_buf *out, const struct efmt *e, const void *p)
{
	int err;

	switch (e->kind) {
	case K_BOOL:
		if (hcb_elem_to_u64(e->dtype, p))
			return hcb_buf_puts(out, e->zero_d ? "True" : " True");
		return hcb_buf_puts(out, "False");
	case K_INT:
		return hcb_put_i64(out, hcb_elem_to_i64(e->dtype, p), e->int_width);
	case K_UINT:
		return hcb_put_u64(out, hcb_elem_to_u64(e->dtype, p), e->int_width);
	case K_FLOAT:
		return ffmt_put(out, &e->re, hcb_elem_to_double(e->dtype, p));
	case K_COMPLEX: {
		size_t start, end;

		err = ffmt_put(out, &e->re, hcb_elem_to_double(e->dtype, p));
		start = out->len;
		err = err ?: ffmt_put(out, &e->im, imag_of(e->dtype, p));
		if (err)
			return err;
		/* the 'j' goes before the imaginary part's right padding */
		end = out->len;
		while (end > start && out->data[end - 1] == ' ')
			end--;
		err = hcb_buf_putc(out, ' ');
		if (err)
			return err;
		memmove(out->data + end + 1, out->data + end, out->len - 1 - end);
		out->data[end] = 'j';
		return 0;
	}
	case K_REPR: {
		/* ml_dtypes' repr: the value as a float through an ostream,
		 * i.e. %g (its integers' too, exact at these sizes); NaN
		 * loses its sign */
		double v = hcb_elem_to_double(e->dtype, p);
		char s[64];

		if (isnan(v))
			return hcb_buf_puts(out, "nan");
		if (isinf(v))
			return hcb_buf_puts(out, v < 0 ? "-inf" : "inf");
		fmt_c(s, sizeof(s), "%.*g", 6, v);
		return hcb_buf_puts(out, s);
	}
	}
	return -EINVAL;
}

/* ---- layout (numpy's _formatArray) ---------------------------------- */

struct walk {
	const struct hcb_array *a;
	struct efmt *ef;
	const char *data;
	uint64_t stride[MAX_NDIM];   /* in elements */
	uint64_t edge;
	bool summarize;
	struct hcb_buf line;
	int prec;                    /* pass 2's cutoff */
};

/* Does this axis show only its edges? */
static bool axis_summarized(const struct walk *w, unsigned int axis)
{
	return w->summarize && 2 * w->edge < w->a->dims[axis];
}

/* Visit the shown elements (numpy's _leading_trailing) in order. */
static void visit(struct walk *w, unsigned int axis, uint64_t off, int pass)
{
	uint64_t len, i;

	if (axis == w->a->ndim) {
		const void *p = w->data + off * w->ef->esize;

		if (pass == 1)
			efmt_pass1(w->ef, p);
		else
			efmt_pass2(w->ef, p, w->prec);
		return;
	}
	len = w->a->dims[axis];
	for (i = 0; i < len; i++) {
		if (axis_summarized(w, axis) && i == w->edge)
			i = len - w->edge;
		visit(w, axis + 1, off + i * w->stride[axis], pass);
	}
}

/* Append line to out, without trailing spaces if asked, skipping *skip chars first. */
static int flush_line(struct hcb_buf *out, const struct hcb_buf *line, size_t *skip, bool rstrip)
{
	size_t n = line->len, from;

	if (rstrip)
		while (n > 0 && line->data[n - 1] == ' ')
			n--;
	if (*skip >= n) {
		*skip -= n;
		return 0;
	}
	from = *skip;
	*skip = 0;
	return hcb_buf_add(out, line->data + from, n - from);
}

/* numpy's _extendLine: wrap before word if it would pass width. */
static int extend_line(struct walk *w, struct hcb_buf *out, const char *word, size_t wlen,
		       int width, size_t indent, size_t *skip)
{
	int err;

	if ((long)(w->line.len + wlen) > width && w->line.len > indent) {
		err = flush_line(out, &w->line, skip, true);
		err = err ?: hcb_buf_putc(out, '\n');
		if (err)
			return err;
		hcb_buf_reset(&w->line);
		err = hcb_buf_fill(&w->line, ' ', indent);
		if (err)
			return err;
	}
	return hcb_buf_add(&w->line, word, wlen);
}

/*
 * An element, as extend_line would add it, but written straight into the
 * line (no copy through a word buffer for each of an array's elements);
 * moved to a new line, through word, only when it went past width.
 */
static int put_elem(struct walk *w, struct hcb_buf *out, struct hcb_buf *word, const void *p,
		    int width, size_t indent, size_t *skip)
{
	size_t start = w->line.len;
	int err = efmt_put(&w->line, w->ef, p);

	if (err || (long)w->line.len <= width || start <= indent)
		return err;
	hcb_buf_reset(word);
	err = hcb_buf_add(word, w->line.data + start, w->line.len - start);
	w->line.len = start;
	w->line.data[start] = '\0';  /* buf.h: data stays NUL terminated */
	return err ?: extend_line(w, out, hcb_buf_str(word), word->len, width, indent, skip);
}

static int recurse(struct walk *w, unsigned int axis, uint64_t off, struct hcb_buf *out,
		   int width)
{
	unsigned int left = w->a->ndim - axis;
	size_t indent = axis + 1;  /* " " for the first '[', one more per level */
	uint64_t len, i;
	bool summary;
	int err;

	if (left == 0)
		return efmt_put(out, w->ef, w->data + off * w->ef->esize);
	len = w->a->dims[axis];
	summary = axis_summarized(w, axis);
	err = hcb_buf_putc(out, '[');
	if (err)
		return err;

	if (left == 1) {
		/* the room up to the separator or the closing bracket */
		int elem_width = width - 1;
		size_t skip = indent;  /* numpy strips the first hanging indent */
		struct hcb_buf word = HCB_BUF_INIT;

		hcb_buf_reset(&w->line);
		err = hcb_buf_fill(&w->line, ' ', indent);
		for (i = 0; !err && i < len; i++) {
			if (summary && i == w->edge) {
				err = extend_line(w, out, "...", 3, elem_width, indent, &skip);
				err = err ?: hcb_buf_putc(&w->line, ' ');
				i = len - w->edge;
			}
			err = err ?: put_elem(w, out, &word, w->data + (off + i * w->stride[axis]) *
					      w->ef->esize, elem_width, indent, &skip);
			if (!err && i + 1 < len)
				err = hcb_buf_putc(&w->line, ' ');
		}
		hcb_buf_free(&word);
		err = err ?: flush_line(out, &w->line, &skip, false);
		return err ?: hcb_buf_putc(out, ']');
	}

	for (i = 0; i < len; i++) {
		if (summary && i == w->edge) {
			err = hcb_buf_puts(out, "...");
			err = err ?: hcb_buf_fill(out, '\n', left - 1);
			err = err ?: hcb_buf_fill(out, ' ', indent);
			if (err)
				return err;
			i = len - w->edge;
		}
		err = recurse(w, axis + 1, off + i * w->stride[axis], out, width - 1);
		if (!err && i + 1 < len) {
			err = hcb_buf_fill(out, '\n', left - 1);
			err = err ?: hcb_buf_fill(out, ' ', indent);
		}
		if (err)
			return err;
	}
	return hcb_buf_putc(out, ']');
}

int hcb_array2string(struct hcb_buf *out, const struct hcb_array *a,
		     const struct hcb_print_opts *o)
{
	struct walk w = { .a = a, .line = HCB_BUF_INIT };
	struct efmt ef;
	uint64_t size;
	int err;

	if (!a || !o || a->ndim > MAX_NDIM || (a->ndim && !a->dims) ||
	    o->precision < 0 || o->edgeitems < 0 || o->linewidth < 0)
		return -EINVAL;
	err = efmt_init(&ef, a, o);
	if (err)
		return err;
	err = hcb_shape_elems(a->ndim, a->dims, &size);
	if (err)
		return -EINVAL;
	if (size == 0)
		return hcb_buf_puts(out, "[]");
	if (!a->data)
		return -EINVAL;

	w.ef = &ef;
	w.data = a->data;
	w.edge = (uint64_t)o->edgeitems;
	w.summarize = size > o->threshold;
	/* no edge items to show: numpy's own text is none this walk makes */
	if (w.summarize && !w.edge)
		return -EINVAL;
	for (unsigned int i = a->ndim; i-- > 0;)
		w.stride[i] = i + 1 == a->ndim ? 1 : w.stride[i + 1] * a->dims[i + 1];

	visit(&w, 0, 0, 1);
	efmt_between(&ef);
	w.prec = o->precision;
	if (ef.kind == K_FLOAT || ef.kind == K_COMPLEX)
		visit(&w, 0, 0, 2);
	ffmt_finish(&ef.re, &ef.sre);
	ffmt_finish(&ef.im, &ef.sim);

	err = recurse(&w, 0, 0, out, o->linewidth);
	hcb_buf_free(&w.line);
	return err;
}
