/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "detail.h"
#include "frame.h"
#include "grow.h"

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

static int build_taps(struct tui_frame *f, const struct tui_model *m,
		      const struct tui_snapshot *snap, const struct tui_filter *flt)
{
	uint64_t from = m->first, to = snap->limit < m->received ? snap->limit : m->received;
	size_t need = to > from ? (size_t)(to - from) : 0, kcap = f->tcap, ccap = f->tcap;

	if (hcb_grow(&f->tkeys, &kcap, need, sizeof(*f->tkeys)) ||
	    hcb_grow(&f->tcons, &ccap, need, sizeof(*f->tcons)))
		return -ENOMEM;
	f->tcap = kcap;
	f->nt = 0;
	for (uint64_t i = from; i < to; i++) {
		const struct tui_tap *t = tui_model_tap(m, i);

		if (!t || !tui_filter_match(flt, &m->cons[t->cons], t->device))
			continue;
		f->tkeys[f->nt] = i;
		f->tcons[f->nt++] = t->cons;
	}
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

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int tui_frame_build(struct tui_frame *f, const struct tui_model *m, const struct tui_snapshot *snap,
		    struct tui_state *st, int rows, int cols)
{
	const struct tui_tap *t;
	int err;

	err = build_streams(f, m, snap, &st->filter);
	if (!err)
		err = build_taps(f, m, snap, &st->filter);
	if (err)
		return err;
	/* the sparkline's rows depend on the selected stream, the layout on them */
	tui_layout_compute(&f->lay, rows, cols, (int)f->ns, 0, st->detail);
	tui_cursor_place(&st->streams, f->skeys, f->ns, f->lay.streams.h - 1, &f->stop, &f->ssel);
	build_spark(f, snap);
	f->spark_stat = st->spark_stat;
	tui_layout_compute(&f->lay, rows, cols, (int)f->ns, f->nspark, st->detail);
	tui_cursor_place(&st->streams, f->skeys, f->ns, f->lay.streams.h - 1, &f->stop, &f->ssel);
	tui_cursor_place(&st->taps, f->tkeys, f->nt, f->lay.taps.h - 1, &f->ttop, &f->tsel);

	hcb_buf_reset(&f->detail);
	f->detail_lines = 0;
	if (st->detail && f->nt && (t = tui_model_tap(m, f->tkeys[f->tsel]))) {
		err = tui_detail_text(&f->detail, &m->cons[t->cons], m->platform, t);
		if (err)
			return err;
		f->detail_lines = count_lines(hcb_buf_str(&f->detail));
	}
	if (st->detail && st->detail_top > f->detail_lines - (f->lay.detail.h - 1))
		st->detail_top = f->detail_lines - (f->lay.detail.h - 1);
	if (st->detail_top < 0)
		st->detail_top = 0;
	if (!st->detail && st->focus == TUI_PANE_DETAIL)
		st->focus = TUI_PANE_TAPS;

	f->view = (struct tui_view){
		.skeys = f->skeys, .slast = f->slast, .ns = f->ns,
		.tkeys = f->tkeys, .tcons = f->tcons, .nt = f->nt, .cons = m->cons,
		.streams_h = f->lay.streams.h - 1, .taps_h = f->lay.taps.h - 1,
		.detail_h = f->lay.detail.h - 1, .detail_lines = f->detail_lines,
	};
	return 0;
}

void tui_frame_free(struct tui_frame *f)
{
	free(f->skeys);
	free(f->slast);
	free(f->sidx);
	free(f->tkeys);
	free(f->tcons);
	hcb_buf_free(&f->detail);
	memset(f, 0, sizeof(*f));
}
