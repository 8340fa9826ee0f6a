/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cache.h"
#include "detail.h"
#include "model.h"
#include "stats.h"

#define WAYS 4u

struct entry {
	int used;
	uint64_t index, stamp;          /* stamp: when last used */
	struct tui_row row;
	unsigned char *payload;         /* NULL: not kept */
	size_t len;
	char *why;                      /* a bad row: why it cannot be read back */
	uint64_t copy_start_ns, copy_end_ns;   /* the detail pane's, not the row's */
};

struct tui_cache {
	struct entry *e;
	size_t nsets;
	uint64_t clock, bytes, max_bytes, reads;
};

struct tui_cache *tui_cache_new(size_t entries, uint64_t bytes)
{
	struct tui_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nsets = (entries ? entries : TUI_CACHE_ENTRIES) / WAYS;
	if (!c->nsets)
		c->nsets = 1;
	c->max_bytes = bytes ? bytes : TUI_CACHE_BYTES;
	c->e = calloc(c->nsets * WAYS, sizeof(*c->e));
	if (!c->e) {
		free(c);
		return NULL;
	}
	return c;
}

void tui_cache_free(struct tui_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsets * WAYS; i++) {
		free(c->e[i].payload);
		free(c->e[i].why);
	}
	free(c->e);
	free(c);
}

uint64_t tui_cache_reads(const struct tui_cache *c)
{
	return c->reads;
}

static struct entry *find(struct tui_cache *c, uint64_t i)
{
	struct entry *set = &c->e[(i % c->nsets) * WAYS];

	for (unsigned int w = 0; w < WAYS; w++) {
		if (set[w].used && set[w].index == i) {
			set[w].stamp = ++c->clock;
			return &set[w];
		}
	}
	return NULL;
}

static void drop_payload(struct tui_cache *c, struct entry *e)
{
	c->bytes -= e->len;
	free(e->payload);
	e->payload = NULL;
	e->len = 0;
}

/* The entry for tap i: its own, or its set's least recently used, emptied. */
static struct entry *slot(struct tui_cache *c, uint64_t i)
{
	struct entry *set = &c->e[(i % c->nsets) * WAYS], *v = &set[0];

	for (unsigned int w = 0; w < WAYS; w++) {
		if (set[w].used && set[w].index == i)
			return &set[w];
		if (!set[w].used || (v->used && set[w].stamp < v->stamp))
			v = &set[w];
	}
	drop_payload(c, v);
	free(v->why);
	memset(v, 0, sizeof(*v));
	v->used = 1;
	v->index = i;
	v->stamp = ++c->clock;
	return v;
}

/* Keep a copy of the payload in e, letting the least recently used others
 * go to stay within the bytes; one larger than all of them is not kept. */
static void keep_payload(struct tui_cache *c, struct entry *e, const unsigned char *p, size_t len)
{
	if (e->payload || len > c->max_bytes)
		return;
	while (c->bytes + len > c->max_bytes) {
		struct entry *old = NULL;

		for (size_t k = 0; k < c->nsets * WAYS; k++)
			if (c->e[k].payload && &c->e[k] != e && (!old || c->e[k].stamp < old->stamp))
				old = &c->e[k];
		if (!old)
			return;
		drop_payload(c, old);
	}
	e->payload = malloc(len ? len : 1);
	if (!e->payload)
		return;
	memcpy(e->payload, p, len);
	e->len = len;
	c->bytes += len;
}

/* What a row shows of a tap of consumer c whose payload is p (with its
 * statistics when stats: a held tap has its mean already). */
static void fill_row(struct tui_row *row, const struct hcb_consumer *c, const unsigned char *p,
		     int stats)
{
	struct hcb_buf b = HCB_BUF_INIT;
	struct tui_stats st;

	if (stats) {
		tui_tap_stats(c, p, &st);
		row->stat[TUI_STAT_MEAN] = st.mean;
		row->stat[TUI_STAT_MIN] = st.min;
		row->stat[TUI_STAT_MAX] = st.max;
	}
	if (tui_tap_summary(&b, c, p))
		snprintf(row->value, sizeof(row->value), "?");
	else
		snprintf(row->value, sizeof(row->value), "%s", hcb_buf_str(&b));
	hcb_buf_free(&b);
}

/* Read tap i back into its entry (payload kept if keep); the payload read
 * in *p.  A tap that cannot be read is an entry too, bad. */
static struct entry *read_back(struct tui_model *m, uint64_t i, int keep, const unsigned char **p)
{
	const struct tui_stream *s = &m->streams[m->index[i] & TUI_INDEX_STREAMS];
	const struct hcb_consumer *c = m->cons[s->cons].c;
	uint64_t off = m->index[i] >> 16;
	struct hcb_record rec;
	struct entry *e;
	char err[200] = "";
	int n;

	m->cache->reads++;
	n = m->fetch->read(m->fetch_ctx, off, &rec, err, sizeof(err));
	if (!n && (rec.kind != HCB_REC_TAP || rec.tap.device != s->device || !rec.tap.consumer ||
		   rec.tap.consumer->id != c->id || rec.tap.consumer->total_bytes != c->total_bytes)) {
		n = -EBADMSG;
		snprintf(err, sizeof(err), "the record at offset %llu is not the tap indexed there "
			 "(was the file changed?)", (unsigned long long)off);
	}
	e = slot(m->cache, i);
	e->row = (struct tui_row){ .index = i, .device = s->device, .cons = s->cons,
				   .stat = { NAN, NAN, NAN } };
	*p = NULL;
	if (n) {
		e->row.bad = 1;
		snprintf(e->row.value, sizeof(e->row.value), "(cannot be read: Enter for why)");
		snprintf(m->fetch_error, sizeof(m->fetch_error), "%s", err);
		e->why = strdup(err);
		return e;
	}
	e->row.seq = rec.tap.seq;
	e->row.ts_ns = rec.tap.ts_ns;
	e->copy_start_ns = rec.tap.copy_start_ns;
	e->copy_end_ns = rec.tap.copy_end_ns;
	fill_row(&e->row, c, rec.tap.payload, 1);
	if (keep)
		keep_payload(m->cache, e, rec.tap.payload, c->total_bytes);
	*p = e->payload ? e->payload : rec.tap.payload;
	return e;
}

const struct tui_tap *tui_model_get(struct tui_model *m, uint64_t i)
{
	const unsigned char *p;
	struct entry *e;

	if (!m->indexed)
		return tui_model_tap(m, i);
	if (i >= m->received)
		return NULL;
	e = find(m->cache, i);
	if (e && e->row.bad) {
		snprintf(m->fetch_error, sizeof(m->fetch_error), "%s", e->why ? e->why : "");
		return NULL;
	}
	if (e && e->payload)
		p = e->payload;
	else if (!(e = read_back(m, i, 1, &p)) || e->row.bad)
		return NULL;
	m->got = (struct tui_tap){
		.index = i, .seq = e->row.seq, .ts_ns = e->row.ts_ns, .device = e->row.device,
		.cons = e->row.cons, .stream = (unsigned int)(m->index[i] & TUI_INDEX_STREAMS),
		.value = e->row.stat[TUI_STAT_MEAN], .payload = (unsigned char *)p,
		.len = m->cons[e->row.cons].c->total_bytes,
		.copy_start_ns = e->copy_start_ns, .copy_end_ns = e->copy_end_ns };
	return &m->got;
}

int tui_model_row(struct tui_model *m, uint64_t i, struct tui_row *row)
{
	const struct tui_tap *t;
	const unsigned char *p;
	struct entry *e;

	if (m->indexed) {
		if (i >= m->received)
			return -ENOENT;
		e = find(m->cache, i);
		if (!e)
			e = read_back(m, i, 0, &p);
		*row = e->row;
		return 0;
	}
	t = tui_model_tap(m, i);
	if (!t)
		return -ENOENT;
	*row = (struct tui_row){ .index = i, .seq = t->seq, .ts_ns = t->ts_ns, .device = t->device,
				 .cons = t->cons, .stat = { t->value, NAN, NAN } };
	fill_row(row, m->cons[t->cons].c, t->payload, 0);
	return 0;
}

int tui_model_row_cached(struct tui_model *m, uint64_t i, struct tui_row *row)
{
	struct entry *e;

	if (!m->indexed)
		return tui_model_row(m, i, row);
	e = i < m->received ? find(m->cache, i) : NULL;
	if (!e)
		return -ENOENT;
	*row = e->row;
	return 0;
}
