/* SPDX-License-Identifier: MIT */
/*
 * diff_plot.c - the picture of hcbtrace diff --plot FILE.svg (cmd_diff.c):
 * the words and the choice of panels over what src/diff/series.c gathered,
 * drawn by formats/svg/svgplot.c.  Per differing stream and leaf, REF and NEW
 * over the occurrence index, the first difference marked and each
 * differing tap flagged; then a close-up of the first array that differed:
 * REF, NEW and NEW - REF per element (a line chart, or heatmaps for 2-D).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/dtype.h"
#include "svg/svgplot.h"
#include "text/idprint.h"
#include "text/leafpath.h"
#include "diff_report.h"

#define PANELS_MAX 24            /* series drawn at most; the report lists them all */

static const char *const side_word[2] = { "REF", "NEW" };

/* "REF golden.jsonl": the legend names a file by its last component (the
 * document's title gives the paths whole). */
static void side_label(struct hcb_buf *b, const struct diff_run *run, int side)
{
	const char *slash = strrchr(run->path[side], '/');

	hcb_buf_printf(b, "%s %s", side_word[side], slash && slash[1] ? slash + 1 : run->path[side]);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void shape_text(struct hcb_buf *b, const struct hcb_leaf_shape *l)
{
	hcb_buf_puts(b, hcb_dtype_name(l->dtype) ? hcb_dtype_name(l->dtype) : "?");
	if (!l->ndim) {
		hcb_buf_puts(b, " scalar");
		return;
	}
	hcb_buf_putc(b, '[');
	for (unsigned int i = 0; i < l->ndim; i++)
		hcb_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)l->dims[i]);
	hcb_buf_putc(b, ']');
}

/* "cpu:0 params: w" ("consumer 12" for taps without a name). */
static void stream_text(struct hcb_buf *b, const struct diff_run *run, uint32_t device,
			const char *name, uint32_t id, const char *path)
{
	hcb_idprint_device(b, run->platform[0], device);
	if (name)
		hcb_buf_printf(b, " %s", name);
	else
		hcb_buf_printf(b, " consumer %u", id);
	if (path && *path)
		hcb_buf_printf(b, ": %s", path);
}

/* ---- a series over the occurrence index ---- */

struct points {                  /* one side's points of a series */
	double x[HCB_SERIES_BUCKETS], y[HCB_SERIES_BUCKETS];
	double lo[HCB_SERIES_BUCKETS], hi[HCB_SERIES_BUCKETS];
	size_t n;
};

static void side_points(const struct hcb_series *se, int side, struct points *p)
{
	p->n = 0;
	for (unsigned int i = 0; i < se->nbuckets; i++) {
		const struct hcb_series_bucket *b = &se->b[i];

		if (!b->taps[side])
			continue;
		p->x[p->n] = hcb_series_bucket_x(se, i, side);
		p->y[p->n] = b->finite[side] ? b->sum[side] / b->finite[side] : NAN;
		p->lo[p->n] = b->finite[side] ? b->min[side] : NAN;
		p->hi[p->n] = b->finite[side] ? b->max[side] : NAN;
		p->n++;
	}
}

/* What the chart of se shows, and how its stream differs. */
static void series_subtitle(struct hcb_buf *b, const struct hcb_series_stream *st,
			    const struct hcb_series *se, enum hcb_stat stat)
{
	const struct hcb_leaf_shape *l = se->have_shape[0] ? &se->shape[0] : &se->shape[1];
	uint64_t pairs = st->taps[0] < st->taps[1] ? st->taps[0] : st->taps[1];

	shape_text(b, l);
	if (se->have_shape[0] && se->have_shape[1] &&
	    (se->shape[0].dtype != se->shape[1].dtype || se->shape[0].nelems != se->shape[1].nelems ||
	     se->shape[0].ndim != se->shape[1].ndim)) {
		hcb_buf_puts(b, " in REF, ");
		shape_text(b, &se->shape[1]);
		hcb_buf_puts(b, " in NEW");
	}
	if (l->nelems == 1)
		hcb_buf_puts(b, ", its value per tap");
	else
		hcb_buf_printf(b, ", the %s of its elements per tap", hcb_stat_name(stat));
	hcb_buf_printf(b, " | %llu of %llu pair%s differ", (unsigned long long)se->differ,
		       (unsigned long long)pairs, plural(pairs));
	if (st->unmatched[0])
		hcb_buf_printf(b, ", %llu missing from NEW", (unsigned long long)st->unmatched[0]);
	if (st->unmatched[1])
		hcb_buf_printf(b, ", %llu extra in NEW", (unsigned long long)st->unmatched[1]);
}

static void series_note(struct hcb_buf *b, const struct hcb_series *se)
{
	if (se->width > 1)
		hcb_buf_printf(b, "Downsampled to at most %u points: each point is the mean of %llu "
			       "consecutive taps, the band their min..max. ", HCB_SERIES_BUCKETS,
			       (unsigned long long)se->width);
	for (int k = 0; k < 2; k++)
		if (se->nonfinite[k])
			hcb_buf_printf(b, "%llu tap%s of %s with no finite value not drawn. ",
				       (unsigned long long)se->nonfinite[k], plural(se->nonfinite[k]),
				       side_word[k]);
}

struct chart_text {
	struct hcb_buf title, subtitle, note, mark, label[2];
};

static void chart_text_free(struct chart_text *t)
{
	hcb_buf_free(&t->title);
	hcb_buf_free(&t->subtitle);
	hcb_buf_free(&t->note);
	hcb_buf_free(&t->mark);
	hcb_buf_free(&t->label[0]);
	hcb_buf_free(&t->label[1]);
}

static int series_chart(struct svgplot *plot, const struct diff_run *run, const struct hcb_series_stream *st,
			const struct hcb_series *se, const char *path)
{
	static struct points pts[2];   /* 16 KB: not on the stack */
	static double flags[HCB_SERIES_BUCKETS];
	struct chart_text t = { 0 };
	struct svgplot_series s[2];
	struct svgplot_chart c = { .xlabel = "occurrence of the tap on its device", .xprefix = "#",
				   .series = s, .flags = flags };
	uint64_t first = se->first_differ < st->first_differ ? se->first_differ : st->first_differ;
	uint64_t taps = st->taps[0] > st->taps[1] ? st->taps[0] : st->taps[1];
	int err;

	for (int k = 0; k < 2; k++) {
		side_points(se, k, &pts[k]);
		side_label(&t.label[k], run, k);
		if (pts[k].n)
			s[c.nseries++] = (struct svgplot_series){
				hcb_buf_str(&t.label[k]), k ? SVGPLOT_NEW : SVGPLOT_REF, pts[k].n, pts[k].x,
				pts[k].y, se->width > 1 ? pts[k].lo : NULL, se->width > 1 ? pts[k].hi : NULL };
	}
	for (unsigned int i = 0; i < se->nbuckets; i++)
		if (se->b[i].differ)
			flags[c.nflags++] = hcb_series_bucket_x(se, i, -1);
	stream_text(&t.title, run, st->device, st->name, st->consumer_id, path);
	series_subtitle(&t.subtitle, st, se, hcb_series_stat(run->series));
	series_note(&t.note, se);
	if (first != HCB_SERIES_NONE)
		hcb_buf_printf(&t.mark, "%s #%llu", first == se->first_differ ? "first difference" :
			       "first unmatched tap", (unsigned long long)first);
	c.title = hcb_buf_str(&t.title);
	c.subtitle = hcb_buf_str(&t.subtitle);
	c.note = t.note.len ? hcb_buf_str(&t.note) : NULL;
	c.xmax = taps ? (double)(taps - 1) : 0;
	c.mark = first != HCB_SERIES_NONE ? (double)first : NAN;
	c.mark_label = hcb_buf_str(&t.mark);
	c.flags_label = se->width > 1 ? "points with taps that differ" : "taps that differ";
	err = svgplot_chart(plot, &c);
	chart_text_free(&t);
	return err;
}

/* Which leaves of a stream to draw: those that differ, or every one when
 * the stream differs as a whole (structure, taps missing or extra). */
static int series_differs(const struct hcb_series_stream *st, const struct hcb_series *se)
{
	return se->differ || st->whole || st->unmatched[0] || st->unmatched[1];
}

static int stream_charts(struct svgplot *plot, const struct diff_run *run, const struct hcb_series_stream *st,
			 unsigned int *drawn, unsigned long long *skipped)
{
	char **paths = NULL;
	int err = hcb_leaf_paths(st->tree, st->leaves, &paths);

	for (unsigned int i = 0; i < st->nseries && !err; i++) {
		if (!series_differs(st, &st->series[i]))
			continue;
		if (*drawn >= PANELS_MAX) {
			++*skipped;
			continue;
		}
		err = series_chart(plot, run, st, &st->series[i], paths[i]);
		++*drawn;
	}
	hcb_leaf_paths_free(paths, st->leaves);
	return err;
}

/* ---- the close-up of the first array that differs ---- */

static int sample_line(struct svgplot *plot, const struct diff_run *run, const struct hcb_sample *sm,
		       const char *title, const char *subtitle)
{
	double *x = malloc((sm->cols ? sm->cols : 1) * 2 * sizeof(double)), *flags;
	struct hcb_buf label[2] = { HCB_BUF_INIT, HCB_BUF_INIT }, note = HCB_BUF_INIT;
	int down = sm->block_cols > 1, err;
	struct svgplot_series s[2];
	struct svgplot_chart c = { .title = title, .subtitle = subtitle, .series = s, .nseries = 2,
				   .xlabel = sm->shape.ndim > 1 ? "element, flattened in row-major order" :
								  "element", .mark = NAN };

	if (!x)
		return -ENOMEM;
	flags = x + sm->cols;
	for (uint64_t i = 0; i < sm->cols; i++) {
		uint64_t first = i * sm->block_cols, in = sm->shape.nelems - first;

		x[i] = (double)first + (double)((in < sm->block_cols ? in : sm->block_cols) - 1) / 2;
		if (sm->mismatch[i])
			flags[c.nflags++] = x[i];
	}
	for (int k = 0; k < 2; k++) {
		side_label(&label[k], run, k);
		s[k] = (struct svgplot_series){ hcb_buf_str(&label[k]), k ? SVGPLOT_NEW : SVGPLOT_REF,
						sm->cols, x, sm->mean[k], down ? sm->min[k] : NULL,
						down ? sm->max[k] : NULL };
	}
	if (down)
		hcb_buf_printf(&note, "Downsampled: each point is the mean of %llu consecutive elements, "
			       "the band their min..max.", (unsigned long long)sm->block_cols);
	c.note = note.len ? hcb_buf_str(&note) : NULL;
	c.xmax = sm->shape.nelems ? (double)(sm->shape.nelems - 1) : 0;
	c.flags = flags;
	c.flags_label = down ? "points with elements not close" : "elements not close";
	err = svgplot_chart(plot, &c);
	/* the difference on its own scale, under it */
	s[0] = (struct svgplot_series){ "NEW - REF", SVGPLOT_DIFF, sm->cols, x, sm->mean[2],
					down ? sm->min[2] : NULL, down ? sm->max[2] : NULL };
	c.title = "NEW - REF per element";
	c.subtitle = "the same elements: how far NEW is from REF";
	c.nseries = 1;
	if (!err)
		err = svgplot_chart(plot, &c);
	free(x);
	hcb_buf_free(&label[0]);
	hcb_buf_free(&label[1]);
	hcb_buf_free(&note);
	return err;
}

static int sample_maps(struct svgplot *plot, const struct hcb_sample *sm, const char *title,
		       const char *subtitle)
{
	struct hcb_buf note = HCB_BUF_INIT;
	struct svgplot_map m[3] = {
		{ "REF", sm->rows, sm->cols, sm->mean[0], 0 },
		{ "NEW", sm->rows, sm->cols, sm->mean[1], 0 },
		{ "NEW - REF", sm->rows, sm->cols, sm->extreme, 1, sm->mismatch },
	};
	struct svgplot_maps ms = { .title = title, .subtitle = subtitle, .rows_label = "row",
				   .cols_label = "col", .row1 = sm->shape.dims[0] - 1,
				   .col1 = sm->shape.dims[1] - 1, .nmaps = 3, .maps = m };
	int err;

	if (sm->block_rows > 1 || sm->block_cols > 1)
		hcb_buf_printf(&note, "Each cell is a block of %llu x %llu elements: REF and NEW their mean, "
			       "NEW - REF its largest difference. ", (unsigned long long)sm->block_rows,
			       (unsigned long long)sm->block_cols);
	hcb_buf_puts(&note, "Outlined: cells with elements not close.");
	ms.note = hcb_buf_str(&note);
	err = svgplot_heatmaps(plot, &ms);
	hcb_buf_free(&note);
	return err;
}

static int sample_panels(struct svgplot *plot, const struct diff_run *run, const struct hcb_sample *sm)
{
	struct hcb_buf title = HCB_BUF_INIT, sub = HCB_BUF_INIT, path = HCB_BUF_INIT;
	const struct hcb_series_stream *const *all;
	size_t n = hcb_series_streams(run->series, &all);
	char **paths = NULL;
	int err = 0;

	/* the leaf's name, from its stream's tree */
	for (size_t i = 0; i < n && !err; i++)
		if (all[i]->device == sm->device && !all[i]->name == !sm->name &&
		    (sm->name ? !strcmp(all[i]->name, sm->name) : all[i]->consumer_id == sm->consumer_id) &&
		    !(err = hcb_leaf_paths(all[i]->tree, all[i]->leaves, &paths))) {
			if (sm->leaf < all[i]->leaves)
				hcb_buf_puts(&path, paths[sm->leaf]);
			hcb_leaf_paths_free(paths, all[i]->leaves);
		}
	stream_text(&title, run, sm->device, sm->name, sm->consumer_id, hcb_buf_str(&path));
	hcb_buf_printf(&title, " #%llu, per element: the first array that differs",
		       (unsigned long long)sm->index);
	shape_text(&sub, &sm->shape);
	hcb_buf_printf(&sub, " | mismatched elements: %llu / %llu (rtol %g, atol %g)",
		       (unsigned long long)sm->mismatched, (unsigned long long)sm->shape.nelems,
		       run->opts->rtol, run->opts->atol);
	if (!err)
		err = sm->grid ? sample_maps(plot, sm, hcb_buf_str(&title), hcb_buf_str(&sub)) :
				 sample_line(plot, run, sm, hcb_buf_str(&title), hcb_buf_str(&sub));
	hcb_buf_free(&title);
	hcb_buf_free(&sub);
	hcb_buf_free(&path);
	return err;
}

/* ---- the document ---- */

static int plot_doc(struct svgplot **plot, const struct diff_run *run)
{
	const struct hcb_diff_counts *c = hcb_diff_counts(run->d);
	struct hcb_buf title = HCB_BUF_INIT, sub = HCB_BUF_INIT;
	int err;

	hcb_buf_puts(&title, "hcbtrace diff: ");
	side_label(&title, run, 0);
	hcb_buf_puts(&title, " vs ");
	side_label(&title, run, 1);
	hcb_buf_printf(&sub, "REF: %s\nNEW: %s\nrtol %g, atol %g%s | %llu tap%s in REF, %llu in NEW: %llu pair%s compared, "
		       "%llu differ; %llu missing, %llu extra | arrays drawn as their %s",
		       run->path[0], run->path[1], run->opts->rtol, run->opts->atol,
		       run->opts->equal_nan ? ", NaN equal to NaN" : "",
		       (unsigned long long)c->taps[0], plural(c->taps[0]), (unsigned long long)c->taps[1],
		       (unsigned long long)c->compared, plural(c->compared), (unsigned long long)c->differ,
		       (unsigned long long)c->unmatched[0], (unsigned long long)c->unmatched[1],
		       hcb_stat_name(hcb_series_stat(run->series)));
	err = svgplot_new(plot, hcb_buf_str(&title), hcb_buf_str(&sub));
	hcb_buf_free(&title);
	hcb_buf_free(&sub);
	return err;
}

int diff_plot_write(const struct diff_run *run, const char *file)
{
	const struct hcb_series_stream *const *all;
	size_t n = hcb_series_streams(run->series, &all);
	unsigned long long skipped = 0;
	unsigned int drawn = 0;
	struct svgplot *plot;
	char more[160];
	int err = plot_doc(&plot, run);

	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++)
		if (all[i]->first_differ != HCB_SERIES_NONE)
			err = stream_charts(plot, run, all[i], &drawn, &skipped);
	if (!err && skipped) {
		snprintf(more, sizeof(more), "%llu more differing series not drawn (at most %d are): "
			 "the text report lists every difference.", skipped, PANELS_MAX);
		err = svgplot_note(plot, more);
	}
	if (!err && !drawn)
		err = svgplot_note(plot, "No tap values to draw: the recordings differ in their devices only.");
	if (!err && hcb_series_sample(run->series))
		err = sample_panels(plot, run, hcb_series_sample(run->series));
	if (!err)
		err = svgplot_write(plot, file);
	svgplot_free(plot);
	return err;
}
