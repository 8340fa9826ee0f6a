/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/grow.h"
#include "detail.h"
#include "frame.h"

static int build_streams(struct tui_frame *f, const struct tui_model *m,
			 const struct tui_snapshot *snap, const struct tui_filter *flt)
{
	/* parallel arrays of one capacity: each grows from it alike */
	size_t kcap = f->scap, lcap = f->scap, icap = f->scap;

	if (hcb_grow(&f->skeys, &kcap, snap->nstreams, sizeof(*f->skeys)) ||
	    hcb_grow(&f->slast, &lcap, snap->nstreams, sizeof(*f->slast)) ||
	    hcb_grow(&f->sidx, &icap, snap->nstreams, sizeof(*f->sidx)))
		return -ENOMEM;
	f->scap = kcap;
	f->ns = 0;
	for (unsigned int i = 0; i < snap->nstreams; i++) {
		const struct tui_stream *s = &snap->streams[i];

		if (!tui_filter_match(flt, &m->cons[s->cons], s->device))
			continue;
		f->skeys[f->ns] = tui_stream_key(s);
		f->slast[f->ns] = s->last_index;
		f->sidx[f->ns++] = i;
	}
	return 0;
}

/*
 * The tap list: unfiltered, every tap held (or indexed) up to the
 * snapshot, nothing stored; filtered, the matching indices, which for a
 * recording only grow: a frame adds the taps indexed since the last.
 */
static int build_taps(struct tui_frame *f, const struct tui_model *m,
		      const struct tui_snapshot *snap, const struct tui_filter *flt)
{
	uint64_t from = m->first, to = snap->limit < m->received ? snap->limit : m->received;

	if (to < from)
		to = from;
	if (!flt->active) {
		f->taps = (struct tui_keys){ NULL, from, (size_t)(to - from) };
		f->tvalid = 0;
		return 0;
	}
	if (!m->indexed || !f->tvalid || memcmp(&f->tfilter, flt, sizeof(*flt)) || f->tbuilt > to) {
		f->nt = 0;
		f->tbuilt = from;
	}
	if (hcb_grow(&f->tkeys, &f->tcap, f->nt + (size_t)(to - f->tbuilt) + 1, sizeof(*f->tkeys)))
		return -ENOMEM;
	for (uint64_t i = f->tbuilt; i < to; i++) {
		unsigned int cons;
		uint32_t device;

		if (!tui_model_tap_where(m, i, &device, &cons) &&
		    tui_filter_match(flt, &m->cons[cons], device))
			f->tkeys[f->nt++] = i;
	}
	f->tbuilt = to;
	f->tfilter = *flt;
	f->tvalid = 1;
	f->taps = (struct tui_keys){ f->tkeys, 0, f->nt };
	return 0;
}

/* The selected stream's consumer, on each device shown. */
static void build_spark(struct tui_frame *f, const struct tui_snapshot *snap)
{
	f->nspark = 0;
	f->spark_cons = -1;
	if (!f->ns)
		return;
	f->spark_cons = (int)snap->streams[f->sidx[f->ssel]].cons;
	for (size_t i = 0; i < f->ns && f->nspark < TUI_SPARK_MAX; i++)
		if (snap->streams[f->sidx[i]].cons == (unsigned int)f->spark_cons)
			f->spark[f->nspark++] = f->sidx[i];
}

/* The rows the lists show. */
static int build_rows(struct tui_frame *f, struct tui_model *m)
{
	int th = f->lay.taps.h > 1 ? f->lay.taps.h - 1 : 0, sh = f->lay.streams.h > 1 ? f->lay.streams.h - 1 : 0;

	if (hcb_grow(&f->rows, &f->rcap, (size_t)th + 1, sizeof(*f->rows)) ||
	    hcb_grow(&f->srows, &f->srcap, (size_t)sh + 1, sizeof(*f->srows)))
		return -ENOMEM;
	f->nrows = 0;
	for (size_t i = f->ttop; i < f->taps.n && f->nrows < th; i++) {
		struct tui_row *r = &f->rows[f->nrows++];

		if (tui_model_row(m, tui_key_at(&f->taps, i), r))
			r->index = UINT64_MAX;
	}
	f->nsrows = 0;
	for (size_t i = f->stop; i < f->ns && f->nsrows < sh; i++) {
		struct tui_row *r = &f->srows[f->nsrows++];

		if (tui_model_row(m, f->slast[i], r)) {
			/* the last tap left the ring: its shapes */
			struct hcb_buf b = HCB_BUF_INIT;
			unsigned int cons = tui_key_cons(f->skeys[i], m->nprocs > 1);

			memset(r, 0, sizeof(*r));
			tui_tap_summary(&b, m->cons[cons].c, NULL);
			snprintf(r->value, sizeof(r->value), "%s", hcb_buf_str(&b));
			hcb_buf_free(&b);
		}
	}
	return 0;
}

/* The sparkline's values: a live stream's own; a recording's read back,
 * within the frame's time (what is left: blank, and pending). */
static void spark_values(struct tui_frame *f, struct tui_model *m, const struct tui_snapshot *snap,
			 uint64_t start)
{
	f->pending = 0;
	for (int k = 0; k < f->nspark; k++) {
		const struct tui_stream *s = &snap->streams[f->spark[k]];

		if (!snap->indexed) {
			f->spark_len[k] = tui_stream_history(s, (enum hcb_stat)f->spark_stat, f->spark_vals[k]);
			continue;
		}
		for (unsigned int j = 0; j < s->hist_len; j++) {
			uint64_t i = s->recent[(s->hist_start + j) % TUI_HIST];
			struct tui_row r;
			int late = f->budget_ns && hcb_clock_ns(CLOCK_MONOTONIC) - start > f->budget_ns;

			if (tui_model_row_cached(m, i, &r) && (late || tui_model_row(m, i, &r))) {
				f->spark_vals[k][j] = NAN;
				f->pending = 1;
				continue;
			}
			f->spark_vals[k][j] = r.stat[f->spark_stat % TUI_STATS];
		}
		f->spark_len[k] = s->hist_len;
	}
}

static unsigned int tap_cons(const void *ctx, uint64_t i)
{
	unsigned int cons = 0;
	uint32_t device;

	tui_model_tap_where(ctx, i, &device, &cons);
	return cons;
}

static int tap_nonfinite(void *ctx, uint64_t i)
{
	struct tui_frame *f = ctx;
	int r = tui_model_nonfinite(f->nf_model, i, 0);
	uint64_t now;

	if (r != -EAGAIN)
		return r;
	if (!f->nf_reads_left)
		return -EAGAIN;
	now = hcb_clock_ns(CLOCK_MONOTONIC);
	if (!f->nf_since_ns)
		f->nf_since_ns = now;
	else if (now - f->nf_since_ns > TUI_NONFINITE_NS)
		return -EAGAIN;
	f->nf_reads_left--;
	return tui_model_nonfinite(f->nf_model, i, 1);
}

static int build_detail(struct tui_frame *f, struct tui_model *m, struct tui_state *st)
{
	const struct tui_tap *t;
	uint64_t i;
	int h = f->lay.detail.h - 1;

	hcb_buf_reset(&f->detail.text);
	f->detail.lines = 0;
	f->detail.mode = TUI_DETAIL_TEXT;
	if (!st->detail || !f->taps.n)
		return 0;
	i = tui_key_at(&f->taps, f->tsel);
	t = tui_model_get(m, i);
	if (t)
		return tui_detail_pane_build(&f->detail, &m->cons[t->cons],
					     tui_model_platform(m, t->cons), t, h,
					     f->lay.detail.w, st->text_only, &f->style);
	return m->indexed ? tui_detail_pane_error(&f->detail, i, m->fetch_error) : 0;
}

int tui_frame_build(struct tui_frame *f, struct tui_model *m, const struct tui_snapshot *snap,
		    struct tui_state *st, int rows, int cols)
{
	uint64_t start = hcb_clock_ns(CLOCK_MONOTONIC);
	int err, lines;

	err = build_streams(f, m, snap, &st->filter);
	if (!err)
		err = build_taps(f, m, snap, &st->filter);
	if (err)
		return err;
	/* the sparkline's rows depend on the selected stream, the layout on them */
	f->view.streams = (struct tui_keys){ f->skeys, 0, f->ns };
	tui_layout_compute(&f->lay, rows, cols, (int)f->ns, 0, st->detail);
	tui_cursor_place(&st->streams, &f->view.streams, f->lay.streams.h - 1, &f->stop, &f->ssel);
	build_spark(f, snap);
	f->spark_stat = st->spark_stat;
	tui_layout_compute(&f->lay, rows, cols, (int)f->ns, f->nspark, st->detail);
	tui_cursor_place(&st->streams, &f->view.streams, f->lay.streams.h - 1, &f->stop, &f->ssel);
	tui_cursor_place(&st->taps, &f->taps, f->lay.taps.h - 1, &f->ttop, &f->tsel);

	err = build_rows(f, m);
	if (!err)
		err = build_detail(f, m, st);
	if (err)
		return err;
	lines = f->detail.mode == TUI_DETAIL_TEXT ? f->detail.lines : 0;
	if (st->detail && st->detail_top > lines - (f->lay.detail.h - 1))
		st->detail_top = lines - (f->lay.detail.h - 1);
	if (st->detail_top < 0)
		st->detail_top = 0;
	if (!st->detail && st->focus == TUI_PANE_DETAIL)
		st->focus = TUI_PANE_TAPS;
	spark_values(f, m, snap, start);
	f->nf_model = m;
	f->nf_reads_left = TUI_NONFINITE_READS;
	f->nf_since_ns = 0;

	f->view = (struct tui_view){
		.streams = { f->skeys, 0, f->ns }, .slast = f->slast, .taps = f->taps,
		.tap_cons = tap_cons, .ctx = m, .cons = m->cons, .ncons = m->ncons,
		.multi = m->nprocs > 1,
		.tap_nonfinite = tap_nonfinite, .nf_ctx = f,
		.streams_h = f->lay.streams.h - 1, .taps_h = f->lay.taps.h - 1,
		.detail_h = f->lay.detail.h - 1, .detail_lines = lines,
	};
	return 0;
}

void tui_frame_free(struct tui_frame *f)
{
	free(f->skeys);
	free(f->slast);
	free(f->sidx);
	free(f->tkeys);
	free(f->rows);
	free(f->srows);
	tui_detail_pane_free(&f->detail);
	memset(f, 0, sizeof(*f));
}
