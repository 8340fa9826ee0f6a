/* SPDX-License-Identifier: MIT */
/*
 * model_read.c - a recording browsed in place (model.h): its taps read back
 * through the source's fetch operations, what their rows show and the
 * payloads the detail pane shows kept in a bounded cache (cache.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/grow.h"
#include "watch/nonfinite.h"
#include "cache.h"
#include "model.h"
#include "summary.h"

/* What the cache keeps of a tap read back (its payload beside it). */
struct cached_tap {
	struct tui_row row;
	uint64_t copy_start_ns, copy_end_ns;   /* the detail pane's, not the row's */
	int has_text;                          /* a print's text, kept after the payload */
	uint32_t text_len;
};

int tui_model_init_indexed(struct tui_model *m, const struct tui_fetch_ops *ops, void *ctx)
{
	int err = tui_model_init(m, 1, 1);

	if (err)
		return err;
	m->indexed = 1;
	m->fetch = ops;
	m->fetch_ctx = ctx;
	m->cache = tui_cache_new(0, 0, sizeof(struct cached_tap));
	if (!m->cache) {
		tui_model_free(m);
		return -ENOMEM;
	}
	return 0;
}

int tui_model_cache_bounds(struct tui_model *m, size_t entries, uint64_t bytes)
{
	struct tui_cache *c = tui_cache_new(entries, bytes, sizeof(struct cached_tap));

	if (!c)
		return -ENOMEM;
	tui_cache_free(m->cache);
	m->cache = c;
	return 0;
}

/* What a row shows of a tap of consumer c whose payload is p (with its
 * statistics when stats: a held tap has its mean already). */
static void fill_row(struct tui_row *row, const struct hcb_consumer *c, const unsigned char *p,
		     int stats)
{
	struct hcb_buf b = HCB_BUF_INIT;
	struct hcb_leaf_figures st;

	if (stats) {
		hcb_tap_figures(c, p, &st);
		for (unsigned int k = 0; k < TUI_STATS; k++)
			row->stat[k] = st.v[k];
	}
	if (tui_tap_summary(&b, c, p))
		snprintf(row->value, sizeof(row->value), "?");
	else
		snprintf(row->value, sizeof(row->value), "%s", hcb_buf_str(&b));
	hcb_buf_free(&b);
}

/* Tap i's marks (model.h): bit 0 read back, bit 1 a NaN or inf in it. */
#define NF_SEEN 1u
#define NF_FOUND 2u

static unsigned int nf_marks(const struct tui_model *m, uint64_t i)
{
	return i / 4 < m->nfmarks_cap ? (m->nfmarks[i / 4] >> (i % 4 * 2)) & 3u : 0;
}

/* Mark tap i read back (found: holding a NaN or inf); no memory: it is
 * read back again when asked. */
static void nf_mark(struct tui_model *m, uint64_t i, int found)
{
	size_t cap = m->nfmarks_cap;

	if (hcb_grow(&m->nfmarks, &cap, (size_t)(m->received / 4 + 1), 1))
		return;
	memset(m->nfmarks + m->nfmarks_cap, 0, cap - m->nfmarks_cap);
	m->nfmarks_cap = cap;
	m->nfmarks[i / 4] |= (unsigned char)((NF_SEEN | (found ? NF_FOUND : 0)) << (i % 4 * 2));
}

/* Tap t's payload and text, back to back, into the cache for item e. */
static const unsigned char *keep_tap(struct tui_model *m, struct cached_tap *e,
				     const struct hcb_tap *t)
{
	size_t n = t->consumer->total_bytes;
	const unsigned char *kept;
	unsigned char *both;

	if (!t->text)
		return tui_cache_keep(m->cache, e, t->payload, n);
	both = malloc(n + e->text_len + 1);
	if (!both)
		return NULL;
	memcpy(both, t->payload, n);
	memcpy(both + n, t->text, e->text_len);
	kept = tui_cache_keep(m->cache, e, both, n + e->text_len);
	free(both);
	return kept;
}

/* Read tap i back into its cached item (payload kept if keep); the payload
 * read in *p.  A tap that cannot be read is an item too, bad. */
static struct cached_tap *read_back(struct tui_model *m, uint64_t i, int keep, const unsigned char **p)
{
	const struct tui_stream *s = &m->streams[m->index[i] & TUI_INDEX_STREAMS];
	const struct hcb_consumer *c = m->cons[s->cons].c;
	uint64_t off = m->index[i] >> 16;
	const unsigned char *kept = NULL;
	struct hcb_record rec;
	struct cached_tap *e;
	struct hcb_nonfinite_at at;
	char err[200] = "";
	int n;

	m->reads++;
	n = m->fetch->read(m->fetch_ctx, off, &rec, err, sizeof(err));
	if (!n && (rec.kind != HCB_REC_TAP || rec.tap.device != s->device || !rec.tap.consumer ||
		   rec.tap.consumer->id != c->id || rec.tap.consumer->total_bytes != c->total_bytes)) {
		n = -EBADMSG;
		snprintf(err, sizeof(err), "the record at offset %llu is not the tap indexed there "
			 "(was the file changed?)", (unsigned long long)off);
	}
	e = tui_cache_put(m->cache, i);
	e->row = (struct tui_row){ .index = i, .device = s->device, .cons = s->cons,
				   .stat = { NAN, NAN, NAN } };
	*p = NULL;
	if (n) {
		e->row.bad = 1;
		snprintf(e->row.value, sizeof(e->row.value), "(cannot be read: Enter for why)");
		snprintf(m->fetch_error, sizeof(m->fetch_error), "%s", err);
		tui_cache_set_note(m->cache, e, err);
		return e;
	}
	e->row.seq = rec.tap.seq;
	e->row.wall_ns = rec.tap.wall_ns;
	e->copy_start_ns = rec.tap.copy_start_ns;
	e->copy_end_ns = rec.tap.copy_end_ns;
	fill_row(&e->row, c, rec.tap.payload, 1);
	e->row.nonfinite = hcb_tap_nonfinite(c, rec.tap.payload, &at);
	nf_mark(m, i, e->row.nonfinite);
	e->has_text = !!rec.tap.text;
	e->text_len = rec.tap.text ? rec.tap.text_len : 0;
	if (keep)
		kept = keep_tap(m, e, &rec.tap);
	*p = kept ? kept : rec.tap.payload;
	m->text = kept ? (const char *)kept + c->total_bytes : rec.tap.text;
	return e;
}

const struct tui_tap *tui_model_get(struct tui_model *m, uint64_t i)
{
	const unsigned char *p = NULL;
	struct cached_tap *e;

	if (!m->indexed)
		return tui_model_tap(m, i);
	if (i >= m->received)
		return NULL;
	e = tui_cache_find(m->cache, i);
	if (e && e->row.bad) {
		const char *why = tui_cache_note(m->cache, e);

		snprintf(m->fetch_error, sizeof(m->fetch_error), "%s", why ? why : "");
		return NULL;
	}
	if (e)
		p = tui_cache_bytes(m->cache, e);
	if (p)
		m->text = (const char *)p + m->cons[e->row.cons].c->total_bytes;
	if (!p && (!(e = read_back(m, i, 1, &p)) || e->row.bad))
		return NULL;
	m->got = (struct tui_tap){
		.index = i, .seq = e->row.seq, .wall_ns = e->row.wall_ns, .device = e->row.device,
		.cons = e->row.cons, .stream = (unsigned int)(m->index[i] & TUI_INDEX_STREAMS),
		.value = e->row.stat[HCB_STAT_MEAN], .payload = (unsigned char *)p,
		.len = m->cons[e->row.cons].c->total_bytes,
		.copy_start_ns = e->copy_start_ns, .copy_end_ns = e->copy_end_ns,
		.text = e->has_text ? m->text : NULL, .text_len = e->text_len };
	return &m->got;
}

int tui_model_row(struct tui_model *m, uint64_t i, struct tui_row *row)
{
	const struct tui_tap *t;
	const unsigned char *p;
	struct cached_tap *e;

	if (m->indexed) {
		if (i >= m->received)
			return -ENOENT;
		e = tui_cache_find(m->cache, i);
		if (!e)
			e = read_back(m, i, 0, &p);
		*row = e->row;
		return 0;
	}
	t = tui_model_tap(m, i);
	if (!t)
		return -ENOENT;
	*row = (struct tui_row){ .index = i, .seq = t->seq, .wall_ns = t->wall_ns, .device = t->device,
				 .cons = t->cons, .stat = { t->value, NAN, NAN },
				 .nonfinite = t->nonfinite };
	fill_row(row, m->cons[t->cons].c, t->payload, 0);
	return 0;
}

int tui_model_row_cached(struct tui_model *m, uint64_t i, struct tui_row *row)
{
	struct cached_tap *e;

	if (!m->indexed)
		return tui_model_row(m, i, row);
	e = i < m->received ? tui_cache_find(m->cache, i) : NULL;
	if (!e)
		return -ENOENT;
	*row = e->row;
	return 0;
}

int tui_model_nonfinite(struct tui_model *m, uint64_t i, int may_read)
{
	const struct tui_tap *t;
	struct tui_row row;
	unsigned int marks;

	if (!m->indexed) {
		t = tui_model_tap(m, i);
		return t ? t->nonfinite : -ENOENT;
	}
	if (i >= m->received)
		return -ENOENT;
	marks = nf_marks(m, i);
	if (marks & NF_SEEN)
		return !!(marks & NF_FOUND);
	if (!may_read)
		return -EAGAIN;
	/* read back (and marked) now, its row cached for the frame */
	if (tui_model_row(m, i, &row))
		return -ENOENT;
	return row.nonfinite;
}
