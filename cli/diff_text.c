/* SPDX-License-Identifier: MIT */
/*
 * diff_text.c - the text report of hcbtrace diff (cmd_diff.c): per tap that
 * differs its leaves, mismatch counts, max differences and first
 * mismatches; the unmatched runs; the summary line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/dtype.h"
#include "jsonl.h"
#include "text/idprint.h"
#include "diff_report.h"

static const char *const side_name[2] = { "REF", "NEW" };

/* ---- numbers as text ---- */

/* The shortest text of an element (hcb_json_element), without JSON quoting
 * of the non-finite, booleans and complex as numpy prints them. */
static void elem_text(struct hcb_buf *b, unsigned int dtype, const void *p)
{
	struct hcb_buf t = HCB_BUF_INIT;

	if (dtype == HCB_DT_BOOL) {
		hcb_buf_puts(b, *(const unsigned char *)p ? "True" : "False");
		return;
	}
	if (hcb_dtype_is_complex(dtype)) {
		unsigned int part = dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64;
		size_t half = hcb_dtype_size(dtype) / 2;
		struct hcb_buf im = HCB_BUF_INIT;
		const char *s;

		elem_text(&t, part, p);
		elem_text(&im, part, (const char *)p + half);
		s = hcb_buf_str(&im);
		hcb_buf_printf(b, "(%s%s%sj)", hcb_buf_str(&t), s[0] == '-' ? "" : "+", s);
		hcb_buf_free(&im);
		hcb_buf_free(&t);
		return;
	}
	hcb_json_element(&t, dtype, p);
	if (t.len && t.data[0] == '"')
		hcb_buf_add(b, t.data + 1, t.len - 2);
	else
		hcb_buf_add(b, t.data, t.len);
	hcb_buf_free(&t);
}

/* A max difference: in its dtype's shortest text; integers exactly. */
static void maxdiff_text(struct hcb_buf *b, unsigned int dt, double v)
{
	unsigned char bytes[8];

	if (isnan(v) || isinf(v)) {
		hcb_buf_puts(b, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	switch (dt) {
	case HCB_DT_INT64:
		hcb_buf_printf(b, "%.17g", v);
		return;
	case HCB_DT_FLOAT64:
		memcpy(bytes, &v, 8);
		break;
	case HCB_DT_FLOAT32: {
		float f = (float)v;

		memcpy(bytes, &f, 4);
		break;
	}
	default: {
		uint32_t bits = hcb_double_to_narrow_bits(dt, v);

		memcpy(bytes, &bits, 4);
	}
	}
	elem_text(b, dt, bytes);
}

static void key_text(struct hcb_buf *b, const struct diff_run *run, enum hcb_diff_side side,
		     const struct hcb_diff_key *k)
{
	hcb_idprint_device(b, run->platform[side], diff_device(run, side, k->device));
	if (k->name)
		hcb_buf_printf(b, " %s", k->name);
	else
		hcb_buf_printf(b, " consumer %u", k->consumer_id);
	hcb_buf_printf(b, " #%llu", (unsigned long long)k->index);
}

static void seq_text(struct hcb_buf *b, uint64_t seq)
{
	if (seq == UINT64_MAX)
		hcb_buf_puts(b, "-");
	else
		hcb_buf_printf(b, "%llu", (unsigned long long)seq);
}

static void shape_text(struct hcb_buf *b, const struct hcb_leaf_shape *l)
{
	hcb_buf_putc(b, '[');
	for (unsigned int i = 0; i < l->ndim; i++)
		hcb_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)l->dims[i]);
	hcb_buf_putc(b, ']');
}

/* ---- the report ---- */

static int emit(struct hcb_buf *b)
{
	fwrite(b->data ? b->data : "", 1, b->len, stdout);
	hcb_buf_free(b);
	return ferror(stdout) ? -EIO : 0;
}

static void leaf_text(struct hcb_buf *b, const struct hcb_diff_leaf *l)
{
	const struct hcb_leaf_shape *r = l->shape[0], *n = l->shape[1];

	hcb_buf_printf(b, "  leaf %u ", l->leaf);
	switch (l->verdict) {
	case HCB_LEAF_DTYPE:
		hcb_buf_printf(b, "dtype differs: %s in REF, %s in NEW\n", hcb_dtype_name(r->dtype),
			       hcb_dtype_name(n->dtype));
		return;
	case HCB_LEAF_SHAPE:
		hcb_buf_printf(b, "%s shape differs: ", hcb_dtype_name(r->dtype));
		shape_text(b, r);
		hcb_buf_puts(b, " in REF, ");
		shape_text(b, n);
		hcb_buf_puts(b, " in NEW\n");
		return;
	default:
		break;
	}
	hcb_buf_puts(b, hcb_dtype_name(r->dtype));
	shape_text(b, r);
	hcb_buf_printf(b, ": mismatched elements: %llu / %llu (%.3g%%)\n", (unsigned long long)l->mismatched,
		       (unsigned long long)r->nelems, diff_leaf_percent(l));
	hcb_buf_puts(b, "    max absolute difference: ");
	maxdiff_text(b, l->diff_dtype, l->max_abs);
	hcb_buf_puts(b, "\n    max relative difference: ");
	maxdiff_text(b, l->diff_dtype == HCB_DT_INT64 ? HCB_DT_FLOAT64 : l->diff_dtype, l->max_rel);
	hcb_buf_putc(b, '\n');
	for (unsigned int e = 0; e < l->nexamples; e++) {
		const struct hcb_diff_example *x = &l->examples[e];

		hcb_buf_puts(b, "    [");
		for (unsigned int i = 0; i < r->ndim; i++)
			hcb_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)x->index[i]);
		hcb_buf_puts(b, "]: REF ");
		elem_text(b, r->dtype, x->ref);
		hcb_buf_puts(b, ", NEW ");
		elem_text(b, r->dtype, x->new);
		hcb_buf_putc(b, '\n');
	}
	if (l->mismatched > l->nexamples)
		hcb_buf_printf(b, "    ... %llu more\n", (unsigned long long)(l->mismatched - l->nexamples));
}

int diff_text_tap(const struct diff_run *run, const struct hcb_diff_tap *t)
{
	struct hcb_buf b = HCB_BUF_INIT;

	hcb_buf_puts(&b, "tap ");
	/* across a job's processes, the device of the process that diverges */
	key_text(&b, run, run->across ? HCB_DIFF_NEW : HCB_DIFF_REF, &t->key);
	hcb_buf_puts(&b, " (REF seq ");
	seq_text(&b, t->seq[0]);
	hcb_buf_puts(&b, ", NEW seq ");
	seq_text(&b, t->seq[1]);
	hcb_buf_puts(&b, ")\n");
	if (t->leaves_differ)
		hcb_buf_printf(&b, "  %u leaves in REF, %u in NEW\n", t->consumer[0]->nleaves,
			       t->consumer[1]->nleaves);
	if (t->tree_differs)
		hcb_buf_printf(&b, "  structure differs: %s in REF, %s in NEW\n", t->consumer[0]->tree,
			       t->consumer[1]->tree);
	for (unsigned int i = 0; i < t->nleaves; i++)
		leaf_text(&b, &t->leaves[i]);
	return emit(&b);
}

int diff_text_unmatched(const struct diff_run *run, const struct hcb_diff_unmatched *u)
{
	struct hcb_buf b = HCB_BUF_INIT;

	hcb_buf_puts(&b, u->side == HCB_DIFF_REF ? "missing " : "extra ");
	key_text(&b, run, u->side, &u->key);
	if (u->count > 1)
		hcb_buf_printf(&b, "..#%llu (%llu taps, %s seq ", (unsigned long long)(u->key.index + u->count - 1),
			       (unsigned long long)u->count, side_name[u->side]);
	else
		hcb_buf_printf(&b, " (%s seq ", side_name[u->side]);
	seq_text(&b, u->first_seq);
	if (u->count > 1) {
		hcb_buf_puts(&b, "..");
		seq_text(&b, u->last_seq);
	}
	hcb_buf_printf(&b, ")%s\n", u->side == HCB_DIFF_REF ? ": in REF, not in NEW" : ": in NEW, not in REF");
	return emit(&b);
}

static void devices_text(struct hcb_buf *b, const struct diff_run *run, enum hcb_diff_side side)
{
	const uint32_t *dev;
	unsigned int n = hcb_diff_devices(run->d, side, &dev);

	if (!n)
		hcb_buf_puts(b, " (none)");
	for (unsigned int i = 0; i < n; i++) {
		hcb_buf_putc(b, ' ');
		hcb_idprint_device(b, run->platform[side], diff_device(run, side, dev[i]));
	}
}

int diff_text_summary(const struct diff_run *run)
{
	const struct hcb_diff_counts *c = hcb_diff_counts(run->d);
	struct hcb_buf b = HCB_BUF_INIT;

	if (hcb_diff_devices_differ(run->d)) {
		hcb_buf_puts(&b, "devices differ: REF has");
		devices_text(&b, run, HCB_DIFF_REF);
		hcb_buf_puts(&b, ", NEW has");
		devices_text(&b, run, HCB_DIFF_NEW);
		hcb_buf_putc(&b, '\n');
	}
	if (strcmp(run->platform[0], run->platform[1]))
		hcb_buf_printf(&b, "platform differs: %s in REF, %s in NEW\n", run->platform[0],
			       run->platform[1]);
	hcb_buf_printf(&b, "%llu tap%s in REF, %llu in NEW: %llu pair%s compared, %llu same, %llu differ; "
			   "%llu missing, %llu extra\n",
		       (unsigned long long)c->taps[0], c->taps[0] == 1 ? "" : "s",
		       (unsigned long long)c->taps[1], (unsigned long long)c->compared,
		       c->compared == 1 ? "" : "s", (unsigned long long)c->same,
		       (unsigned long long)c->differ, (unsigned long long)c->unmatched[0],
		       (unsigned long long)c->unmatched[1]);
	return emit(&b);
}
