/* SPDX-License-Identifier: MIT */
/*
 * diff_series.c - the series of a drift picture (diff_series.h): streams
 * keyed as the diff engine keys them, a bounded series of buckets per
 * leaf, and the engine's findings marked in them.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "series_impl.h"
#include "streamkey.h"

struct entry {
	struct hcb_skey key;            /* first: a key in the table is its entry */
	struct hcb_series_stream s;     /* s.name is key.name */
	char *tree;                     /* s.tree points here */
};

/* The entry of one of its streams, as hcb_series_streams() hands them out. */
#define ENTRY_OF(st) ((const struct entry *)((const char *)(st) - offsetof(struct entry, s)))

struct hcb_series_set {
	enum hcb_stat stat;
	struct hcb_diff_opts opts;
	struct hcb_skeys entries;
	const struct hcb_series_stream **sorted;
	struct hcb_sample *sample;
};

int hcb_series_new(struct hcb_series_set **out, enum hcb_stat stat, const struct hcb_diff_opts *opts)
{
	struct hcb_series_set *s;

	if ((unsigned int)stat >= HCB_STATS)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->stat = stat;
	s->opts = *opts;
	if (hcb_skeys_init(&s->entries)) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void hcb_series_free(struct hcb_series_set *s)
{
	if (!s)
		return;
	for (struct hcb_skey *k; (k = hcb_skeys_take(&s->entries));) {
		struct entry *e = (struct entry *)k;

		for (unsigned int i = 0; i < e->s.nseries; i++)
			free(e->s.series[i].b);
		free(e->s.series);
		free(k->name);
		free(e->tree);
		free(e);
	}
	hcb_skeys_release(&s->entries);
	free(s->sorted);
	hcb_sample_free(s->sample);
	free(s);
}

enum hcb_stat hcb_series_stat(const struct hcb_series_set *s)
{
	return s->stat;
}

const struct hcb_sample *hcb_series_sample(const struct hcb_series_set *s)
{
	return s->sample;
}

/* ---- streams, keyed as diff.c keys them (streamkey.h) ---- */

/* A new stream for the first tap of c on device. */
static struct entry *stream_new(struct hcb_series_set *s, uint32_t device,
				const struct hcb_consumer *c)
{
	struct entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->tree = strdup(c->tree ? c->tree : "");
	e->s.nseries = c->nleaves < HCB_SERIES_LEAVES ? c->nleaves : HCB_SERIES_LEAVES;
	e->s.series = calloc(e->s.nseries ? e->s.nseries : 1, sizeof(*e->s.series));
	if (!e->tree || !e->s.series ||
	    hcb_skeys_add(&s->entries, &e->key, device, hcb_skey_name(c), c->id)) {
		free(e->tree);
		free(e->s.series);
		free(e);
		return NULL;
	}
	e->s.device = device;
	e->s.name = e->key.name;
	e->s.tree = e->tree;
	e->s.consumer_id = c->id;
	e->s.leaves = c->nleaves;
	e->s.first_differ = HCB_SERIES_NONE;
	for (unsigned int i = 0; i < e->s.nseries; i++)
		e->s.series[i] = (struct hcb_series){ .leaf = i, .width = 1,
						      .first_differ = HCB_SERIES_NONE };
	return e;
}

/* ---- a series' buckets ---- */

static void bucket_merge(struct hcb_series_bucket *to, const struct hcb_series_bucket *a,
			 const struct hcb_series_bucket *b)
{
	struct hcb_series_bucket m = *a;

	for (int k = 0; k < 2; k++) {
		if (b->finite[k]) {
			m.min[k] = m.finite[k] && m.min[k] <= b->min[k] ? m.min[k] : b->min[k];
			m.max[k] = m.finite[k] && m.max[k] >= b->max[k] ? m.max[k] : b->max[k];
			m.sum[k] += b->sum[k];
		}
		m.taps[k] += b->taps[k];
		m.finite[k] += b->finite[k];
	}
	m.differ += b->differ;
	*to = m;
}

/* Halve the buckets: each pair becomes one of twice the width. */
static void halve(struct hcb_series *se)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < se->nbuckets; i += 2, n++) {
		if (i + 1 < se->nbuckets)
			bucket_merge(&se->b[n], &se->b[i], &se->b[i + 1]);
		else
			se->b[n] = se->b[i];
	}
	memset(se->b + n, 0, (se->nbuckets - n) * sizeof(*se->b));
	se->nbuckets = n;
	se->width *= 2;
}

/* The bucket of tap index, made if need be; NULL: out of memory. */
static struct hcb_series_bucket *locate(struct hcb_series *se, uint64_t index)
{
	unsigned int i;

	while (index / se->width >= HCB_SERIES_BUCKETS)
		halve(se);
	i = (unsigned int)(index / se->width);
	if (i >= se->nbuckets) {
		if (hcb_grow(&se->b, &se->capbuckets, (size_t)i + 1, sizeof(*se->b)))
			return NULL;
		memset(se->b + se->nbuckets, 0, ((size_t)i + 1 - se->nbuckets) * sizeof(*se->b));
		se->nbuckets = i + 1;
	}
	return &se->b[i];
}

static int series_add(struct hcb_series *se, int side, uint64_t index,
		      const struct hcb_leaf_shape *shape, double v)
{
	struct hcb_series_bucket *b = locate(se, index);

	if (!b)
		return -ENOMEM;
	if (!se->have_shape[side]) {
		se->shape[side] = *shape;
		se->have_shape[side] = 1;
	}
	se->taps[side]++;
	b->taps[side]++;
	if (!isfinite(v)) {
		se->nonfinite[side]++;
		return 0;
	}
	if (!b->finite[side] || v < b->min[side])
		b->min[side] = v;
	if (!b->finite[side] || v > b->max[side])
		b->max[side] = v;
	b->sum[side] += v;
	b->finite[side]++;
	return 0;
}

static int series_differs(struct hcb_series *se, uint64_t index)
{
	struct hcb_series_bucket *b = locate(se, index);

	if (!b)
		return -ENOMEM;
	b->differ++;
	se->differ++;
	if (index < se->first_differ)
		se->first_differ = index;
	return 0;
}

double hcb_series_bucket_x(const struct hcb_series *se, unsigned int i, int side)
{
	uint64_t first = (uint64_t)i * se->width, taps, in;

	taps = side >= 0 ? se->taps[side] : se->taps[0] > se->taps[1] ? se->taps[0] : se->taps[1];
	in = taps > first ? taps - first : 1;
	if (in > se->width)
		in = se->width;
	return (double)first + (double)(in - 1) / 2;
}

/* ---- feeding ---- */

int hcb_series_feed(struct hcb_series_set *s, enum hcb_diff_side side, const struct hcb_record *rec)
{
	const struct hcb_tap *tap = &rec->tap;
	const struct hcb_consumer *c = tap->consumer;
	const unsigned char *p = tap->payload;
	struct entry *e;
	uint64_t index;

	if (rec->kind != HCB_REC_TAP)
		return 0;
	if (!c || (!p && c->total_bytes) || (side != HCB_DIFF_REF && side != HCB_DIFF_NEW))
		return -EINVAL;
	e = (struct entry *)hcb_skeys_find(&s->entries, tap->device, hcb_skey_name(c), c->id);
	if (!e && !(e = stream_new(s, tap->device, c)))
		return -ENOMEM;
	index = e->s.taps[side]++;
	for (unsigned int i = 0; i < e->s.nseries && i < c->nleaves; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		int err = series_add(&e->s.series[i], side, index, l, hcb_leaf_value(l, p, s->stat));

		if (err)
			return err;
		p += l->nbytes;
	}
	return 0;
}

static struct entry *find_key(const struct hcb_series_set *s, const struct hcb_diff_key *k)
{
	return (struct entry *)hcb_skeys_find(&s->entries, k->device, k->name, k->consumer_id);
}

int hcb_series_tap_differs(struct hcb_series_set *s, const struct hcb_diff_tap *t)
{
	struct entry *e = find_key(s, &t->key);
	int err = 0;

	if (!e)
		return 0;   /* never fed: nothing to draw it in */
	e->s.differ++;
	if (t->key.index < e->s.first_differ)
		e->s.first_differ = t->key.index;
	if (t->leaves_differ || t->tree_differs) {
		e->s.whole = 1;
		for (unsigned int i = 0; i < e->s.nseries && !err; i++)
			err = series_differs(&e->s.series[i], t->key.index);
		return err;
	}
	for (unsigned int i = 0; i < t->nleaves && !err; i++) {
		const struct hcb_diff_leaf *l = &t->leaves[i];

		if (l->leaf < e->s.nseries)
			err = series_differs(&e->s.series[l->leaf], t->key.index);
		if (!err && !s->sample && l->verdict == HCB_LEAF_VALUES && l->shape[0]->nelems > 1)
			err = hcb_sample_take(t, l, &s->opts, &s->sample);
	}
	return err;
}

int hcb_series_unmatched(struct hcb_series_set *s, const struct hcb_diff_unmatched *u)
{
	struct entry *e = find_key(s, &u->key);

	if (!e)
		return 0;
	e->s.unmatched[u->side] += u->count;
	if (u->key.index < e->s.first_differ)
		e->s.first_differ = u->key.index;
	return 0;
}

static int by_key(const void *pa, const void *pb)
{
	const struct hcb_series_stream *a = *(const struct hcb_series_stream *const *)pa;
	const struct hcb_series_stream *b = *(const struct hcb_series_stream *const *)pb;

	return hcb_skey_cmp(&ENTRY_OF(a)->key, &ENTRY_OF(b)->key);
}

size_t hcb_series_streams(struct hcb_series_set *s, const struct hcb_series_stream *const **out)
{
	const struct hcb_series_stream **all = realloc(s->sorted, (s->entries.n + 1) * sizeof(*all));
	size_t n = 0;

	if (!all) {
		*out = NULL;
		return 0;
	}
	s->sorted = all;
	for (size_t b = 0; b < s->entries.nb; b++)
		for (struct hcb_skey *k = s->entries.b[b]; k; k = k->hnext)
			all[n++] = &((struct entry *)k)->s;
	qsort(all, n, sizeof(*all), by_key);
	*out = all;
	return n;
}
