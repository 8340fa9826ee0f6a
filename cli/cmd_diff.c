/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace diff REF NEW: the numeric regression check (DESIGN 8).  Reads both
 * recordings in step through the file providers and feeds src/diff.c, which
 * aligns and compares; this file only words the result (text or JSON) and
 * decides the exit status: 0 same, 1 differ, 2 trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "diff.h"
#include "dtype.h"
#include "idprint.h"
#include "jsonl.h"
#include "recfile.h"

enum { OPT_RTOL = 256, OPT_ATOL, OPT_EQUAL_NAN };

static const struct cli_opt diff_opts[] = {
	{ OPT_RTOL, "rtol", "R", "relative tolerance (default 1e-05)" },
	{ OPT_ATOL, "atol", "A", "absolute tolerance (default 1e-08)" },
	{ OPT_EQUAL_NAN, "equal-nan", NULL, "count NaN in both as equal" },
	{ 'f', "format", "FMT", "output format: text (default) or json" },
	{ 'q', "quiet", NULL, "print nothing: the exit status tells" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

enum out_format { OUT_TEXT, OUT_JSON, OUT_QUIET };

/* The lists of the JSON report, streamed in this order. */
enum json_list { L_DIFFERENCES, L_MISSING, L_EXTRA, L_CLOSED };

struct run {
	enum out_format fmt;
	const char *path[2];
	struct hcb_diff *d;
	const char *platform[2];    /* for device names */
	int list;                   /* JSON: the open list, enum json_list */
	unsigned long long nitems;  /* JSON: items written in it */
};

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
static void diff_text(struct hcb_buf *b, unsigned int dt, double v)
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

static void key_text(struct hcb_buf *b, const struct run *run, enum hcb_diff_side side,
		     const struct hcb_diff_key *k)
{
	hcb_idprint_device(b, run->platform[side], k->device);
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

static double percent(const struct hcb_diff_leaf *l)
{
	return l->shape[0]->nelems ? 100.0 * (double)l->mismatched / (double)l->shape[0]->nelems : 0;
}

/* ---- text ---- */

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
		       (unsigned long long)r->nelems, percent(l));
	hcb_buf_puts(b, "    max absolute difference: ");
	diff_text(b, l->diff_dtype, l->max_abs);
	hcb_buf_puts(b, "\n    max relative difference: ");
	diff_text(b, l->diff_dtype == HCB_DT_INT64 ? HCB_DT_FLOAT64 : l->diff_dtype, l->max_rel);
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

static int tap_text(const struct run *run, const struct hcb_diff_tap *t)
{
	struct hcb_buf b = HCB_BUF_INIT;

	hcb_buf_puts(&b, "tap ");
	key_text(&b, run, HCB_DIFF_REF, &t->key);
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

static int unmatched_text(const struct run *run, const struct hcb_diff_unmatched *u)
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

static void devices_text(struct hcb_buf *b, const struct run *run, enum hcb_diff_side side)
{
	const uint32_t *dev;
	unsigned int n = hcb_diff_devices(run->d, side, &dev);

	if (!n)
		hcb_buf_puts(b, " (none)");
	for (unsigned int i = 0; i < n; i++) {
		hcb_buf_putc(b, ' ');
		hcb_idprint_device(b, run->platform[side], dev[i]);
	}
}

static int summary_text(const struct run *run)
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

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

static json_t *jelem(unsigned int dtype, const unsigned char *p)
{
	if (dtype == HCB_DT_BOOL)
		return json_boolean(*p);
	if (hcb_dtype_is_signed(dtype))
		return json_integer(hcb_elem_to_i64(dtype, p));
	if (hcb_dtype_is_unsigned(dtype)) {
		uint64_t u = hcb_elem_to_u64(dtype, p);

		return u <= INT64_MAX ? json_integer((json_int_t)u) : json_real((double)u);
	}
	if (hcb_dtype_is_complex(dtype)) {
		unsigned int part = dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64;

		return json_pack("[oo]", jelem(part, p), jelem(part, p + hcb_dtype_size(dtype) / 2));
	}
	return jnum(hcb_elem_to_double(dtype, p));
}

static json_t *jshape(const struct hcb_leaf_shape *l)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < l->ndim; i++)
		json_array_append_new(a, json_integer((json_int_t)l->dims[i]));
	return a;
}

static json_t *jseq(uint64_t seq)
{
	return seq == UINT64_MAX ? json_null() : json_integer((json_int_t)seq);
}

static json_t *jkey(const struct hcb_diff_key *k)
{
	return json_pack("{sI so? sI sI}", "device", (json_int_t)k->device,
			 "consumer", k->name ? json_string(k->name) : NULL,
			 "consumer_id", (json_int_t)k->consumer_id, "index", (json_int_t)k->index);
}

static const char *verdict_name(enum hcb_leaf_verdict v)
{
	switch (v) {
	case HCB_LEAF_VALUES: return "values";
	case HCB_LEAF_DTYPE: return "dtype";
	case HCB_LEAF_SHAPE: return "shape";
	default: return "equal";
	}
}

static json_t *jleaf(const struct hcb_diff_leaf *l)
{
	const struct hcb_leaf_shape *r = l->shape[0], *n = l->shape[1];
	json_t *o = json_pack("{sI ss ss ss so so}", "leaf", (json_int_t)l->leaf,
			      "differs", verdict_name(l->verdict),
			      "ref_dtype", hcb_dtype_name(r->dtype), "new_dtype", hcb_dtype_name(n->dtype),
			      "ref_shape", jshape(r), "new_shape", jshape(n));
	json_t *ex;

	if (!o || l->verdict != HCB_LEAF_VALUES)
		return o;
	ex = json_array();
	for (unsigned int e = 0; e < l->nexamples; e++) {
		const struct hcb_diff_example *x = &l->examples[e];
		json_t *idx = json_array();

		for (unsigned int i = 0; i < r->ndim; i++)
			json_array_append_new(idx, json_integer((json_int_t)x->index[i]));
		json_array_append_new(ex, json_pack("{so so so}", "index", idx,
						    "ref", jelem(r->dtype, x->ref),
						    "new", jelem(r->dtype, x->new)));
	}
	json_object_update_new(o, json_pack("{sI sI sf so so so}",
					    "elements", (json_int_t)r->nelems,
					    "mismatched", (json_int_t)l->mismatched,
					    "percent", percent(l),
					    "max_abs", jnum(l->max_abs), "max_rel", jnum(l->max_rel),
					    "examples", ex));
	return o;
}

/* Print one item of a JSON list that is being streamed. */
static int json_item(json_t *o, int first)
{
	int err;

	if (!o)
		return -ENOMEM;
	if (!first)
		fputc(',', stdout);
	err = json_dumpf(o, stdout, JSON_COMPACT) ? -EIO : 0;
	json_decref(o);
	return err || ferror(stdout) ? -EIO : 0;
}

static int tap_json(struct run *run, const struct hcb_diff_tap *t)
{
	json_t *leaves = json_array(), *o = jkey(&t->key);

	if (!o || !leaves) {
		json_decref(o);
		json_decref(leaves);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < t->nleaves; i++)
		json_array_append_new(leaves, jleaf(&t->leaves[i]));
	json_object_update_new(o, json_pack("{so so}", "ref_seq", jseq(t->seq[0]), "new_seq", jseq(t->seq[1])));
	if (t->leaves_differ)
		json_object_update_new(o, json_pack("{sI sI}", "ref_leaves", (json_int_t)t->consumer[0]->nleaves,
						    "new_leaves", (json_int_t)t->consumer[1]->nleaves));
	if (t->tree_differs)
		json_object_update_new(o, json_pack("{ss ss}", "ref_tree", t->consumer[0]->tree,
						    "new_tree", t->consumer[1]->tree));
	json_object_set_new(o, "leaves", leaves);
	return json_item(o, run->nitems++ == 0);
}

/* Close the open lists up to list and open it. */
static void json_list_to(struct run *run, int list)
{
	static const char *const opener[] = { NULL, "\"missing\":[", "\"extra\":[", NULL };

	while (run->list < list) {
		fputs("]", stdout);
		run->list++;
		if (opener[run->list])
			printf(",%s", opener[run->list]);
		run->nitems = 0;
	}
}

static int unmatched_json(struct run *run, const struct hcb_diff_unmatched *u)
{
	json_t *o = jkey(&u->key);
	if (!o)
		return -ENOMEM;
	json_object_update_new(o, json_pack("{sI so so}", "count", (json_int_t)u->count,
					    "first_seq", jseq(u->first_seq), "last_seq", jseq(u->last_seq)));
	json_list_to(run, u->side == HCB_DIFF_REF ? L_MISSING : L_EXTRA);
	return json_item(o, run->nitems++ == 0);
}

static json_t *jdevices(const struct run *run, enum hcb_diff_side side)
{
	const uint32_t *dev;
	unsigned int n = hcb_diff_devices(run->d, side, &dev);
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(dev[i]));
	return a;
}

static int json_begin(struct run *run, const struct hcb_diff_opts *o)
{
	json_t *head = json_pack("{ss ss so so sb}", "ref", run->path[0], "new", run->path[1],
				 "rtol", jnum(o->rtol), "atol", jnum(o->atol), "equal_nan", o->equal_nan);
	char *s;

	if (!head)
		return -ENOMEM;
	s = json_dumps(head, JSON_COMPACT);
	json_decref(head);
	if (!s)
		return -ENOMEM;
	/* the same object, left open: "differences" streams in */
	s[strlen(s) - 1] = '\0';
	printf("%s,\"differences\":[", s);
	free(s);
	return 0;
}

/* Close the lists and the object; error: the reason reading stopped, or NULL. */
static int json_end(struct run *run, const char *error)
{
	const struct hcb_diff_counts *c = hcb_diff_counts(run->d);
	json_t *tail;
	char *s;

	json_list_to(run, L_CLOSED);
	fputc(',', stdout);
	tail = json_pack("{s{so so sb} s{ss ss} s{sI sI sI sI sI sI sI} sb}",
			 "devices", "ref", jdevices(run, HCB_DIFF_REF), "new", jdevices(run, HCB_DIFF_NEW),
			 "differ", hcb_diff_devices_differ(run->d),
			 "platform", "ref", run->platform[0], "new", run->platform[1],
			 "counts", "ref_taps", (json_int_t)c->taps[0], "new_taps", (json_int_t)c->taps[1],
			 "compared", (json_int_t)c->compared, "same", (json_int_t)c->same,
			 "differ", (json_int_t)c->differ, "missing", (json_int_t)c->unmatched[0],
			 "extra", (json_int_t)c->unmatched[1],
			 "same", !error && !hcb_diff_differs(run->d));
	if (tail && error)
		json_object_set_new(tail, "error", json_string(error));
	s = tail ? json_dumps(tail, JSON_COMPACT) : NULL;
	json_decref(tail);
	if (!s)
		return -ENOMEM;
	printf("%s\n", s + 1);   /* its fields, after the '{' */
	free(s);
	return ferror(stdout) ? -EIO : 0;
}

/* ---- the engine's callbacks ---- */

static int on_tap(void *ctx, const struct hcb_diff_tap *t)
{
	struct run *run = ctx;

	switch (run->fmt) {
	case OUT_QUIET: return -ECANCELED;   /* the answer is known: differ */
	case OUT_JSON: return tap_json(run, t);
	default: return tap_text(run, t);
	}
}

static int on_unmatched(void *ctx, const struct hcb_diff_unmatched *u)
{
	struct run *run = ctx;

	switch (run->fmt) {
	case OUT_QUIET: return -ECANCELED;
	case OUT_JSON: return unmatched_json(run, u);
	default: return unmatched_text(run, u);
	}
}

static const struct hcb_diff_ops diff_ops = {
	.tap_differs = on_tap,
	.unmatched = on_unmatched,
};

/* ---- the command ---- */

static int parse_tol(const struct cli_cmd *cmd, const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno == ERANGE && *out != 0)
		errno = 0;   /* "1e999" is inf: numpy would take it */
	if (errno || end == s || *end || isnan(*out) || *out < 0) {
		cli_usage_err(cmd, "invalid %s '%s': expected a number >= 0 such as 1e-5", opt, s);
		return -EINVAL;
	}
	return 0;
}

static int open_reader(struct hcb_reader **r, const char *path)
{
	int err = hcb_reader_open(r, path);

	if (err == -EPROTONOSUPPORT)
		cli_err("cannot read '%s': not a recording (.jsonl or .hcbcap)", path);
	else if (err)
		cli_err("cannot open '%s': %s", path, strerror(-err));
	return err;
}

static void reader_err(struct hcb_reader *r, const char *path, int err, const char **msg)
{
	const char *m = hcb_reader_error(r);

	if (!m || !*m)
		cli_err("%s: %s", path, strerror(-err));
	else
		cli_err("%s", m);
	*msg = m && *m ? m : strerror(-err);
}

/*
 * Both files in step, one record each in turn, so that for recordings in
 * a similar order a tap's partner arrives soon after it.  Returns 0, or
 * EXIT_USAGE-style trouble (2) with *error set, or -ECANCELED (quiet: found
 * a difference), or another -errno of the engine/output.
 */
static int read_both(struct run *run, struct hcb_reader *r[2], const char **error)
{
	int live[2] = { 1, 1 };
	struct hcb_record rec;

	while (live[0] || live[1]) {
		for (int side = 0; side < 2; side++) {
			int n, err;

			if (!live[side])
				continue;
			n = hcb_reader_next(r[side], &rec);
			if (n == 1) {
				err = hcb_diff_feed(run->d, (enum hcb_diff_side)side, &rec);
				if (err)
					return err;
				continue;
			}
			if (n == -ENODATA) {
				/* truncated: valid up to its last complete record */
				cli_warn("%s (compared up to there)", hcb_reader_error(r[side]));
				n = 0;
			}
			if (n < 0) {
				reader_err(r[side], run->path[side], n, error);
				return EXIT_USAGE;
			}
			live[side] = 0;
			err = hcb_diff_end(run->d, (enum hcb_diff_side)side);
			if (err)
				return err;
		}
	}
	return 0;
}

struct diff_args {
	const struct cli_cmd *cmd;
	struct hcb_diff_opts *opts;
	struct run *run;
};

static int diff_opt(void *ctx, int c, const char *arg)
{
	struct diff_args *a = ctx;

	switch (c) {
	case OPT_RTOL:
		return parse_tol(a->cmd, "--rtol", arg, &a->opts->rtol) ? EXIT_USAGE : 0;
	case OPT_ATOL:
		return parse_tol(a->cmd, "--atol", arg, &a->opts->atol) ? EXIT_USAGE : 0;
	case OPT_EQUAL_NAN:
		a->opts->equal_nan = 1;
		return 0;
	case 'f':
		if (!strcmp(arg, "text"))
			a->run->fmt = a->run->fmt == OUT_QUIET ? OUT_QUIET : OUT_TEXT;
		else if (!strcmp(arg, "json"))
			a->run->fmt = a->run->fmt == OUT_QUIET ? OUT_QUIET : OUT_JSON;
		else
			return cli_usage_err(a->cmd, "unknown format '%s': expected text or json", arg);
		return 0;
	case 'q':
		a->run->fmt = OUT_QUIET;
		return 0;
	default:
		return cli_usage_err(a->cmd, "unknown option");
	}
}

static int run_diff(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct hcb_diff_opts opts;
	const char *error = NULL;
	const char *pos[3];
	int npos = 0, err, code;
	struct hcb_reader *r[2] = { NULL, NULL };
	struct run run = { .fmt = OUT_TEXT };
	struct diff_args args = { cmd, &opts, &run };

	hcb_diff_opts_default(&opts);
	/* options may come before, between or after REF and NEW */
	code = cli_parse_opts(cmd, argc, argv, diff_opt, &args);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	for (; optind < argc && npos < 3; optind++)
		pos[npos++] = argv[optind];
	if (npos < 2)
		return cli_usage_err(cmd, npos ? "which recording to compare with '%s'?" :
					       "which recordings? expected REF and NEW%s", npos ? pos[0] : "");
	if (npos > 2)
		return cli_usage_err(cmd, "unexpected argument '%s'", pos[2]);
	run.path[0] = pos[0];
	run.path[1] = pos[1];

	if (open_reader(&r[0], pos[0]) || open_reader(&r[1], pos[1])) {
		hcb_reader_close(r[0]);
		return EXIT_USAGE;
	}
	err = hcb_diff_new(&run.d, &opts, &diff_ops, &run);
	if (err) {
		cli_err("out of memory");
		hcb_reader_close(r[0]);
		hcb_reader_close(r[1]);
		return EXIT_FAIL;
	}
	run.platform[0] = hcb_diff_platform(run.d, HCB_DIFF_REF);
	run.platform[1] = hcb_diff_platform(run.d, HCB_DIFF_NEW);
	if (run.fmt == OUT_JSON && json_begin(&run, &opts)) {
		code = EXIT_FAIL;
		goto out;
	}
	err = read_both(&run, r, &error);
	if (err == EXIT_USAGE) {
		code = EXIT_USAGE;
		if (run.fmt == OUT_JSON)
			json_end(&run, error);
		goto out;
	}
	if (!err)
		err = hcb_diff_finish(run.d);
	if (err == -ECANCELED) {
		code = EXIT_FAIL;   /* -q and a difference: nothing more to learn */
		goto out;
	}
	if (err) {
		if (err == -EIO || err == -EPIPE)
			cli_err("cannot write the report: %s", strerror(-err));
		else
			cli_err("%s", strerror(-err));
		code = EXIT_USAGE;
		goto out;
	}
	code = hcb_diff_differs(run.d) ? EXIT_FAIL : EXIT_OK;
	if (run.fmt == OUT_JSON)
		err = json_end(&run, NULL);
	else if (run.fmt == OUT_TEXT)
		err = summary_text(&run);
	if (err) {
		cli_err("cannot write the report: %s", strerror(-err));
		code = EXIT_USAGE;
	}
out:
	hcb_diff_free(run.d);
	hcb_reader_close(r[0]);
	hcb_reader_close(r[1]);
	return code;
}

const struct cli_cmd cmd_diff = {
	.name = "diff",
	.run = run_diff,
	.summary = "compare two recordings tap by tap (numeric regression check)",
	.usage = "[OPTIONS] REF NEW",
	.description = "Compare two recordings tap by tap with numpy's isclose rule; exit 0 same, 1 differ, 2 trouble.",
	.opts = diff_opts,
};
