/* SPDX-License-Identifier: MIT */
/*
 * svgplot_map.c - heatmaps for svgplot.h (cells as rectangles, a colour
 * bar under each map) and the document into its file.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "svgplot_impl.h"

#define NSTOPS 9
#define MAPS_T 68.0              /* the maps' top, from the panel's */
#define MAP_H 220.0              /* the tallest a map gets */
#define ROW_LABELS 52.0          /* room left of a map for its row labels */

/* viridis, and a blue-white-red ramp (ColorBrewer's RdBu, reversed) */
static const unsigned int ramps[2][NSTOPS] = {
	{ 0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c, 0x28ae80, 0x5ec962, 0xaddc30, 0xfde725 },
	{ 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7, 0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b },
};

/* The colour at t in [0, 1] of a ramp, as "#rrggbb". */
static void ramp_color(int diverging, double t, char out[8])
{
	const unsigned int *r = ramps[diverging ? 1 : 0];
	double pos = (t < 0 ? 0 : t > 1 ? 1 : t) * (NSTOPS - 1);
	int i = pos >= NSTOPS - 1 ? NSTOPS - 2 : (int)pos;
	double f = pos - i;
	unsigned int c = 0;

	for (int shift = 16; shift >= 0; shift -= 8) {
		double a = (r[i] >> shift) & 0xff, b = (r[i + 1] >> shift) & 0xff;

		c |= (unsigned int)lround(a + (b - a) * f) << shift;
	}
	snprintf(out, 8, "#%06x", c);
}

static void gradient(struct svgplot *p, const char *id, int diverging)
{
	svgplot_printf(p, "<linearGradient id=\"%s\">", id);
	for (int i = 0; i < NSTOPS; i++)
		svgplot_printf(p, "<stop offset=\"%d%%\" stop-color=\"#%06x\"/>", i * 100 / (NSTOPS - 1),
			       ramps[diverging ? 1 : 0][i]);
	svgplot_printf(p, "</linearGradient>\n");
}

struct mapbox {                  /* where a map goes, and its scale */
	double x, y, cell, w, h;
	double lo, hi;
	int have;
};

static void cells(struct svgplot *p, const struct svgplot_map *m, const struct mapbox *b)
{
	char color[8];

	svgplot_printf(p, "<g class=\"cells\" shape-rendering=\"crispEdges\">\n");
	for (size_t r = 0; r < m->rows; r++)
		for (size_t c = 0; c < m->cols; c++) {
			double v = m->v[r * m->cols + c];

			if (isfinite(v) && b->have)
				ramp_color(m->diverging, svgplot_scale(v, b->lo, b->hi, 0, 1), color);
			else
				snprintf(color, sizeof(color), "#bbbbbb");
			svgplot_printf(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
				       b->x + (double)c * b->cell, b->y + (double)r * b->cell, b->cell + 0.02,
				       b->cell + 0.02, color);
		}
	svgplot_printf(p, "</g>\n");
	for (size_t i = 0; m->marks && i < m->rows * m->cols; i++)
		if (m->marks[i])
			svgplot_printf(p, "<rect class=\"cell-mark\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				     "height=\"%.2f\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1\"/>\n",
				  b->x + (double)(i % m->cols) * b->cell - 1.5, b->y + (double)(i / m->cols) * b->cell - 1.5,
				  b->cell + 3, b->cell + 3);
}

/* "LABEL N" for the row or column at an edge of a map. */
static void edge_label(struct svgplot *p, double x, double y, const char *attrs, const char *label,
		       unsigned long long i)
{
	svgplot_printf(p, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" %s>", x, y, attrs);
	svgplot_text(p, label, 20);
	svgplot_printf(p, " %llu</text>\n", i);
}

static void one_map(struct svgplot *p, const struct svgplot_maps *ms, const struct svgplot_map *m,
		    const struct mapbox *b, int id)
{
	char lo[40], hi[40];
	double bar = b->y + b->h + 18;

	svgplot_printf(p, "<g class=\"heatmap\" data-rows=\"%zu\" data-cols=\"%zu\" data-diverging=\"%d\"",
		       m->rows, m->cols, m->diverging);
	if (b->have)
		svgplot_printf(p, " data-lo=\"%.17g\" data-hi=\"%.17g\"", b->lo, b->hi);
	svgplot_printf(p, ">\n");
	svgplot_label(p, b->x, b->y - 8, "class=\"map-title\" font-weight=\"bold\"", m->title, 40);
	cells(p, m, b);
	svgplot_printf(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
		     "stroke=\"#888888\"/>\n", b->x, b->y, b->w, b->h);
	edge_label(p, b->x - 4, b->y + 9, "text-anchor=\"end\"", ms->rows_label, ms->row0);
	if (ms->row1 != ms->row0)
		edge_label(p, b->x - 4, b->y + b->h, "text-anchor=\"end\"", ms->rows_label, ms->row1);
	edge_label(p, b->x, b->y + b->h + 12, "", ms->cols_label, ms->col0);
	if (ms->col1 != ms->col0)
		edge_label(p, b->x + b->w, b->y + b->h + 12, "text-anchor=\"end\"", ms->cols_label, ms->col1);
	svgplot_printf(p, "<rect class=\"colorbar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"9\" "
		     "fill=\"url(#sv-%s-%d)\" stroke=\"#888888\" stroke-width=\"0.5\"/>\n",
		  b->x, bar, b->w, m->diverging ? "div" : "seq", id);
	if (b->have) {
		svgplot_label_pair(b->lo, b->hi, lo, hi, sizeof(lo));
		svgplot_label(p, b->x, bar + 21, "class=\"lo\" font-size=\"10\"", lo, 0);
		svgplot_label(p, b->x + b->w, bar + 21, "class=\"hi\" font-size=\"10\" text-anchor=\"end\"", hi, 0);
		if (m->diverging)
			svgplot_label(p, b->x + b->w / 2, bar + 21, "font-size=\"10\" text-anchor=\"middle\"", "0", 0);
	}
	svgplot_printf(p, "</g>\n");
}

/* Each map's place and scale: the sequential ones share theirs. */
static double layout(const struct svgplot_maps *ms, struct mapbox *b, double top)
{
	double slot = (SVGPLOT_WIDTH - 40.0) / ms->nmaps, hmax = 0, lo = 0, hi = 0;
	int have = 0;

	for (unsigned int i = 0; i < ms->nmaps; i++) {
		double a, z;

		if (ms->maps[i].diverging ||
		    !svgplot_range(ms->maps[i].v, NULL, NULL, ms->maps[i].rows * ms->maps[i].cols, &a, &z))
			continue;
		lo = have && lo < a ? lo : a;
		hi = have && hi > z ? hi : z;
		have = 1;
	}
	for (unsigned int i = 0; i < ms->nmaps; i++) {
		const struct svgplot_map *m = &ms->maps[i];
		double w = slot - ROW_LABELS - 16;

		b[i].cell = fmin(w / (double)m->cols, MAP_H / (double)m->rows);
		b[i].w = b[i].cell * (double)m->cols;
		b[i].h = b[i].cell * (double)m->rows;
		b[i].x = 20 + slot * i + ROW_LABELS;
		b[i].y = top + MAPS_T;
		b[i].lo = lo, b[i].hi = hi, b[i].have = have;
		if (m->diverging && svgplot_range(m->v, NULL, NULL, m->rows * m->cols, &b[i].lo, &b[i].hi)) {
			double a = fmax(fabs(b[i].lo), fabs(b[i].hi));

			b[i].lo = -a, b[i].hi = a, b[i].have = 1;
		}
		hmax = fmax(hmax, b[i].h);
	}
	return hmax;
}

int svgplot_heatmaps(struct svgplot *p, const struct svgplot_maps *ms)
{
	struct mapbox b[3];
	double top, hmax;
	char text[160];
	int id = ++p->ids;   /* the gradients' ids, unique in the document */

	if (!ms->nmaps || ms->nmaps > 3)
		return -EINVAL;
	for (unsigned int i = 0; i < ms->nmaps; i++)
		if (!ms->maps[i].rows || !ms->maps[i].cols || !ms->maps[i].v)
			return -EINVAL;
	top = p->height;
	hmax = layout(ms, b, top);
	svgplot_place(p, MAPS_T + hmax + 64 + (ms->note ? 18 : 0));
	svgplot_printf(p, "<g class=\"heatmaps\">\n<title>");
	svgplot_text(p, ms->title, 0);
	svgplot_printf(p, "</title>\n<defs>");
	snprintf(text, sizeof(text), "sv-seq-%d", id);
	gradient(p, text, 0);
	snprintf(text, sizeof(text), "sv-div-%d", id);
	gradient(p, text, 1);
	svgplot_printf(p, "</defs>\n");
	svgplot_label(p, 20, top + 20, "class=\"title\" font-size=\"14\" font-weight=\"bold\"", ms->title, SVGPLOT_TITLE_MAX);
	svgplot_label(p, 20, top + 38, "class=\"subtitle\" fill=\"#333333\"", ms->subtitle, 150);
	for (unsigned int i = 0; i < ms->nmaps; i++)
		one_map(p, ms, &ms->maps[i], &b[i], id);
	if (ms->note)
		svgplot_label(p, 20, top + MAPS_T + hmax + 66, "class=\"note\" fill=\"#555555\"", ms->note, 150);
	svgplot_printf(p, "</g>\n");
	return p->err;
}

int svgplot_write(const struct svgplot *p, const char *path)
{
	struct hcb_buf doc = HCB_BUF_INIT, tmp = HCB_BUF_INIT;
	int err = svgplot_render(p, &doc), fd = -1;
	size_t off = 0;

	if (!err)
		err = hcb_buf_printf(&tmp, "%s.XXXXXX", path);
	if (!err && (fd = mkostemp(tmp.data, O_CLOEXEC)) < 0)
		err = -errno;
	while (!err && off < doc.len) {
		ssize_t k = write(fd, doc.data + off, doc.len - off);

		if (k < 0 && errno != EINTR)
			err = -errno;
		else if (k > 0)
			off += (size_t)k;
	}
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	/* mkostemp made it 0600, as a recording is */
	if (!err && rename(tmp.data, path) < 0)
		err = -errno;
	if (err && fd >= 0)
		unlink(tmp.data);
	hcb_buf_free(&doc);
	hcb_buf_free(&tmp);
	return err;
}
