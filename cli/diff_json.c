/* SPDX-License-Identifier: MIT */
/*
 * diff_json.c - the JSON report of hcbtrace diff -f json (cmd_diff.c): one
 * object, its lists of differences, missing and extra taps streamed as the
 * engine finds them, the counts at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/dtype.h"
#include "diff_report.h"

/* The lists of the JSON report, streamed in this order. */
enum json_list { L_DIFFERENCES, L_MISSING, L_EXTRA, L_CLOSED };

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
					    "percent", diff_leaf_percent(l),
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

int diff_json_tap(struct diff_run *run, const struct hcb_diff_tap *t)
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
static void json_list_to(struct diff_run *run, int list)
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

int diff_json_unmatched(struct diff_run *run, const struct hcb_diff_unmatched *u)
{
	json_t *o = jkey(&u->key);
	if (!o)
		return -ENOMEM;
	json_object_update_new(o, json_pack("{sI so so}", "count", (json_int_t)u->count,
					    "first_seq", jseq(u->first_seq), "last_seq", jseq(u->last_seq)));
	json_list_to(run, u->side == HCB_DIFF_REF ? L_MISSING : L_EXTRA);
	return json_item(o, run->nitems++ == 0);
}

static json_t *jdevices(const struct diff_run *run, enum hcb_diff_side side)
{
	const uint32_t *dev;
	unsigned int n = hcb_diff_devices(run->d, side, &dev);
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(dev[i]));
	return a;
}

int diff_json_begin(struct diff_run *run, const struct hcb_diff_opts *o)
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
int diff_json_end(struct diff_run *run, const char *error)
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
