/* SPDX-License-Identifier: MIT */
/*
 * diff.c - the diff engine (diff.h): pairs the taps of two recordings by
 * device, consumer and occurrence as they stream in, and hands each pair's
 * leaves to the isclose rule (diff_isclose.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/registry.h"
#include "diff.h"
#include "isclose.h"
#include "streamkey.h"

struct pending {                 /* a tap waiting for its partner */
	struct pending *next;
	uint64_t seq;
	const struct hcb_consumer *c;   /* the engine's copy */
	unsigned char payload[];        /* c->total_bytes */
};

struct lone {                    /* a side's unmatched run of one key */
	uint64_t first, count, first_seq, last_seq;
};

struct stream {                  /* one key without its index */
	struct hcb_skey key;             /* first: a key in the table is its stream */
	uint32_t side_id[2];         /* each side's first tap's consumer id */
	uint64_t count[2];           /* taps seen per side */
	enum hcb_diff_side qside;    /* whose taps are queued */
	struct pending *head, *tail;
	uint64_t queued;
	struct lone lone[2];
};

struct side {
	struct hcb_registry *copies;     /* consumers of queued taps, by id */
	struct hcb_consumer **odd;       /* copies of an id whose content changed */
	size_t nodd, capodd;
	uint32_t *devices;
	unsigned int ndevices;
	size_t capdevices;
	char platform[16];
	int ended;
};

struct hcb_diff {
	struct hcb_diff_opts opts;
	const struct hcb_diff_ops *ops;
	void *ctx;
	struct side side[2];
	struct hcb_skeys streams;
	struct hcb_diff_counts counts;
	/* per-tap report scratch, grown to the most leaves seen */
	struct hcb_diff_leaf *leaves;
	struct hcb_diff_example *examples;
	size_t capleaves, capexamples;
};

void hcb_diff_opts_default(struct hcb_diff_opts *o)
{
	*o = (struct hcb_diff_opts){ .rtol = 1e-5, .atol = 1e-8, .equal_nan = 0, .max_examples = 5 };
}

int hcb_diff_new(struct hcb_diff **out, const struct hcb_diff_opts *opts,
		 const struct hcb_diff_ops *ops, void *ctx)
{
	struct hcb_diff *d;

	if (opts->max_examples > HCB_DIFF_MAX_EXAMPLES)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->opts = *opts;
	d->ops = ops;
	d->ctx = ctx;
	d->side[0].copies = hcb_registry_new();
	d->side[1].copies = hcb_registry_new();
	if (hcb_skeys_init(&d->streams) || !d->side[0].copies || !d->side[1].copies) {
		hcb_diff_free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

static void free_queue(struct hcb_diff *d, struct stream *s)
{
	while (s->head) {
		struct pending *p = s->head;

		s->head = p->next;
		d->counts.pending--;
		d->counts.pending_bytes -= p->c->total_bytes;
		free(p);
	}
	s->tail = NULL;
	s->queued = 0;
}

void hcb_diff_free(struct hcb_diff *d)
{
	if (!d)
		return;
	for (struct hcb_skey *k; (k = hcb_skeys_take(&d->streams));) {
		struct stream *s = (struct stream *)k;

		free_queue(d, s);
		free(k->name);
		free(s);
	}
	hcb_skeys_release(&d->streams);
	for (int i = 0; i < 2; i++) {
		hcb_registry_free(d->side[i].copies);
		for (size_t k = 0; k < d->side[i].nodd; k++)
			hcb_consumer_free(d->side[i].odd[k]);
		free(d->side[i].odd);
		free(d->side[i].devices);
	}
	free(d->leaves);
	free(d->examples);
	free(d);
}

static struct stream *stream_get(struct hcb_diff *d, uint32_t device, const struct hcb_consumer *c)
{
	const char *name = hcb_skey_name(c);
	struct hcb_skey *k = hcb_skeys_find(&d->streams, device, name, c->id);
	struct stream *s;

	if (k)
		return (struct stream *)k;
	s = calloc(1, sizeof(*s));
	if (s && hcb_skeys_add(&d->streams, &s->key, device, name, c->id)) {
		free(s);
		return NULL;
	}
	return s;
}

/* The engine's own copy of c, which outlives the producer's record. */
static int intern(struct side *sd, const struct hcb_consumer *c, const struct hcb_consumer **out)
{
	const struct hcb_consumer *known = hcb_registry_get(sd->copies, c->id);
	struct hcb_consumer *copy;
	int err;

	if (known && hcb_consumer_equal(known, c)) {
		*out = known;
		return 0;
	}
	for (size_t i = sd->nodd; i-- > 0;)
		if (hcb_consumer_equal(sd->odd[i], c)) {
			*out = sd->odd[i];
			return 0;
		}
	err = hcb_consumer_dup(c, &copy);
	if (err)
		return err;
	if (!known) {
		err = hcb_registry_add(sd->copies, copy);
		if (err)
			return err;
		*out = copy;
		return 0;
	}
	/* the same id with other content: a damaged file, but keep going */
	if (hcb_grow(&sd->odd, &sd->capodd, sd->nodd + 1, sizeof(*sd->odd))) {
		hcb_consumer_free(copy);
		return -ENOMEM;
	}
	sd->odd[sd->nodd++] = copy;
	*out = copy;
	return 0;
}

static int note_device(struct side *sd, uint32_t dev)
{
	unsigned int lo = 0, hi = sd->ndevices;

	if (hi && sd->devices[hi - 1] == dev)
		return 0;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (sd->devices[mid] == dev)
			return 0;
		if (sd->devices[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (hcb_grow(&sd->devices, &sd->capdevices, (size_t)sd->ndevices + 1, sizeof(*sd->devices)))
		return -ENOMEM;
	memmove(sd->devices + lo + 1, sd->devices + lo, (sd->ndevices - lo) * sizeof(uint32_t));
	sd->devices[lo] = dev;
	sd->ndevices++;
	return 0;
}

static int same_shape(const struct hcb_leaf_shape *a, const struct hcb_leaf_shape *b)
{
	return a->ndim == b->ndim && !memcmp(a->dims, b->dims, a->ndim * sizeof(a->dims[0]));
}

/* Compare a pair; c, p and seq indexed by side. */
static int compare(struct hcb_diff *d, const struct stream *s, uint64_t index,
		   const struct hcb_consumer *c[2], const unsigned char *p[2], const uint64_t seq[2])
{
	struct hcb_diff_tap t = {
		.key = { s->key.device, s->key.name, s->side_id[0], index },
		.seq = { seq[0], seq[1] },
		.consumer = { c[0], c[1] },
		.payload = { p[0], p[1] },
	};
	const unsigned char *off[2] = { p[0], p[1] };

	d->counts.compared++;
	t.leaves_differ = c[0]->nleaves != c[1]->nleaves;
	t.tree_differs = strcmp(c[0]->tree ? c[0]->tree : "", c[1]->tree ? c[1]->tree : "") != 0;
	/* the report's scratch: a leaf and max_examples examples per leaf */
	if (!t.leaves_differ &&
	    (hcb_grow(&d->leaves, &d->capleaves, c[0]->nleaves, sizeof(*d->leaves)) ||
	     hcb_grow(&d->examples, &d->capexamples,
		      (size_t)c[0]->nleaves * (d->opts.max_examples ? d->opts.max_examples : 1),
		      sizeof(*d->examples))))
		return -ENOMEM;
	t.leaves = d->leaves;
	for (unsigned int i = 0; !t.leaves_differ && i < c[0]->nleaves; i++) {
		const struct hcb_leaf_shape *a = &c[0]->leaves[i], *b = &c[1]->leaves[i];
		struct hcb_diff_leaf *l = &d->leaves[t.nleaves];

		*l = (struct hcb_diff_leaf){ .leaf = i, .shape = { a, b } };
		if (a->dtype != b->dtype)
			l->verdict = HCB_LEAF_DTYPE;
		else if (!same_shape(a, b))
			l->verdict = HCB_LEAF_SHAPE;
		else if (hcb_isclose_leaf(a, off[0], off[1], &d->opts, l,
					  d->examples + (size_t)t.nleaves * d->opts.max_examples))
			l->verdict = HCB_LEAF_VALUES;
		if (l->verdict != HCB_LEAF_EQUAL)
			t.nleaves++;
		off[0] += a->nbytes;
		off[1] += b->nbytes;
	}
	if (!t.leaves_differ && !t.tree_differs && !t.nleaves) {
		d->counts.same++;
		return 0;
	}
	d->counts.differ++;
	return d->ops && d->ops->tap_differs ? d->ops->tap_differs(d->ctx, &t) : 0;
}

static void lone_add(struct lone *l, uint64_t index, uint64_t seq)
{
	if (!l->count) {
		l->first = index;
		l->first_seq = seq;
	}
	l->count++;
	l->last_seq = seq;
}

/* The tap's partner is the first waiting in s: compare them, drop it. */
static int pair_with_head(struct hcb_diff *d, struct stream *s, enum hcb_diff_side side,
			  uint64_t index, const struct hcb_tap *tap)
{
	enum hcb_diff_side other = side == HCB_DIFF_REF ? HCB_DIFF_NEW : HCB_DIFF_REF;
	struct pending *p = s->head;
	const struct hcb_consumer *c[2];
	const unsigned char *pl[2];
	uint64_t seq[2];
	int err;

	c[side] = tap->consumer, c[other] = p->c;
	pl[side] = tap->payload, pl[other] = p->payload;
	seq[side] = tap->seq, seq[other] = p->seq;
	err = compare(d, s, index, c, pl, seq);
	s->head = p->next;
	if (!s->head)
		s->tail = NULL;
	s->queued--;
	d->counts.pending--;
	d->counts.pending_bytes -= p->c->total_bytes;
	free(p);
	return err;
}

/* The tap waits in s for its partner, with copies of its consumer and payload. */
static int enqueue(struct hcb_diff *d, struct stream *s, enum hcb_diff_side side,
		   const struct hcb_tap *tap)
{
	const struct hcb_consumer *copy;
	struct pending *p;
	int err;

	err = intern(&d->side[side], tap->consumer, &copy);
	if (err)
		return err;
	p = malloc(sizeof(*p) + copy->total_bytes);
	if (!p)
		return -ENOMEM;
	p->next = NULL;
	p->seq = tap->seq;
	p->c = copy;
	if (copy->total_bytes)
		memcpy(p->payload, tap->payload, copy->total_bytes);
	if (s->tail)
		s->tail->next = p;
	else
		s->head = p;
	s->tail = p;
	s->qside = side;
	s->queued++;
	d->counts.pending++;
	d->counts.pending_bytes += copy->total_bytes;
	if (d->counts.pending > d->counts.pending_max)
		d->counts.pending_max = d->counts.pending;
	if (d->counts.pending_bytes > d->counts.pending_bytes_max)
		d->counts.pending_bytes_max = d->counts.pending_bytes;
	return 0;
}

int hcb_diff_feed(struct hcb_diff *d, enum hcb_diff_side side, const struct hcb_record *rec)
{
	enum hcb_diff_side other = side == HCB_DIFF_REF ? HCB_DIFF_NEW : HCB_DIFF_REF;
	const struct hcb_tap *tap = &rec->tap;
	struct side *sd = &d->side[side];
	struct stream *s;
	uint64_t index;
	int err;

	if ((side != HCB_DIFF_REF && side != HCB_DIFF_NEW) || sd->ended)
		return -EINVAL;
	if (rec->kind == HCB_REC_SESSION) {
		snprintf(sd->platform, sizeof(sd->platform), "%s", rec->session.platform);
		return 0;
	}
	if (rec->kind != HCB_REC_TAP)
		return 0;
	if (!tap->consumer || (!tap->payload && tap->consumer->total_bytes))
		return -EINVAL;
	err = note_device(sd, tap->device);
	if (err)
		return err;
	s = stream_get(d, tap->device, tap->consumer);
	if (!s)
		return -ENOMEM;
	d->counts.taps[side]++;
	if (!s->count[side])
		s->side_id[side] = tap->consumer->id;
	index = s->count[side]++;
	if (s->head && s->qside == other)
		return pair_with_head(d, s, side, index, tap);
	if (d->side[other].ended) {
		lone_add(&s->lone[side], index, tap->seq);
		return 0;
	}
	return enqueue(d, s, side, tap);
}

int hcb_diff_end(struct hcb_diff *d, enum hcb_diff_side side)
{
	enum hcb_diff_side other = side == HCB_DIFF_REF ? HCB_DIFF_NEW : HCB_DIFF_REF;

	if (side != HCB_DIFF_REF && side != HCB_DIFF_NEW)
		return -EINVAL;
	if (d->side[side].ended)
		return 0;
	d->side[side].ended = 1;
	/* what the other side has queued can never pair now */
	for (size_t b = 0; b < d->streams.nb; b++)
		for (struct hcb_skey *k = d->streams.b[b]; k; k = k->hnext) {
			struct stream *s = (struct stream *)k;

			if (!s->head || s->qside != other)
				continue;
			s->lone[other].first = s->count[side];
			s->lone[other].count = s->queued;
			s->lone[other].first_seq = s->head->seq;
			s->lone[other].last_seq = s->tail->seq;
			free_queue(d, s);
		}
	return 0;
}

static int by_key(const void *pa, const void *pb)
{
	const struct stream *a = *(const struct stream *const *)pa, *b = *(const struct stream *const *)pb;

	return hcb_skey_cmp(&a->key, &b->key);
}

int hcb_diff_finish(struct hcb_diff *d)
{
	struct stream **all;
	size_t n = 0;
	int err = 0;

	hcb_diff_end(d, HCB_DIFF_REF);
	hcb_diff_end(d, HCB_DIFF_NEW);
	all = malloc((d->streams.n ? d->streams.n : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t b = 0; b < d->streams.nb; b++)
		for (struct hcb_skey *k = d->streams.b[b]; k; k = k->hnext) {
			struct stream *s = (struct stream *)k;

			if (s->lone[0].count || s->lone[1].count)
				all[n++] = s;
		}
	qsort(all, n, sizeof(*all), by_key);
	for (int side = 0; side < 2 && !err; side++)
		for (size_t i = 0; i < n && !err; i++) {
			struct stream *s = all[i];
			struct lone *l = &s->lone[side];
			struct hcb_diff_unmatched u = {
				.side = (enum hcb_diff_side)side,
				.key = { s->key.device, s->key.name, s->side_id[side], l->first },
				.count = l->count,
				.first_seq = l->first_seq,
				.last_seq = l->last_seq,
			};

			if (!l->count)
				continue;
			d->counts.unmatched[side] += l->count;
			if (d->ops && d->ops->unmatched)
				err = d->ops->unmatched(d->ctx, &u);
		}
	free(all);
	return err;
}

const struct hcb_diff_counts *hcb_diff_counts(const struct hcb_diff *d)
{
	return &d->counts;
}

unsigned int hcb_diff_devices(const struct hcb_diff *d, enum hcb_diff_side side,
			      const uint32_t **devices)
{
	*devices = d->side[side].devices;
	return d->side[side].ndevices;
}

int hcb_diff_devices_differ(const struct hcb_diff *d)
{
	const struct side *a = &d->side[0], *b = &d->side[1];

	return a->ndevices != b->ndevices ||
	       (a->ndevices && memcmp(a->devices, b->devices, a->ndevices * sizeof(uint32_t)));
}

const char *hcb_diff_platform(const struct hcb_diff *d, enum hcb_diff_side side)
{
	return d->side[side].platform;
}

int hcb_diff_differs(const struct hcb_diff *d)
{
	return d->counts.differ || d->counts.unmatched[0] || d->counts.unmatched[1] ||
	       hcb_diff_devices_differ(d);
}
