/* SPDX-License-Identifier: MIT */
/*
 * svgplot.c - the SVG document of svgplot.h: escaping, scales and labels,
 * the document around the panels, and line charts.  Heatmaps and writing
 * the file are svgplot_map.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svgplot_impl.h"

/* matplotlib's first colours: blue, orange; purple for differences */
const char *const svgplot_colors[SVGPLOT_COLORS] = { "#1f77b4", "#ff7f0e", "#7b3294" };
const char *const svgplot_color_names[SVGPLOT_COLORS] = { "ref", "new", "diff" };

#define MARK_COLOR "#d62728"
#define DOC_TOP 66.0             /* under the document's title lines */

/* ---- text ---- */

/* The code point of the UTF-8 sequence at s (*len its bytes), or -1 for
 * an invalid one (then *len is 1): overlong forms and surrogates too. */
static long utf8_decode(const unsigned char *s, size_t *len)
{
	static const long min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
			 (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	long cp;

	*len = 1;
	if (!n)
		return -1;
	cp = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (unsigned int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = n;
	return cp;
}

/* A character XML 1.0 allows in a document (its Char production). */
static int xml_char(long cp)
{
	return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

int svgplot_escape(struct hcb_buf *out, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t count = 0;
	int err = 0;

	while (*s && !err) {
		size_t n;
		long cp = utf8_decode(s, &n);

		if (max && count++ == max) {
			err = hcb_buf_puts(out, "\xe2\x80\xa6");   /* U+2026, the cut */
			break;
		}
		if (cp == '\t' || cp == '\n' || cp == '\r')
			err = hcb_buf_putc(out, ' ');
		else if (cp < 0 || !xml_char(cp) || cp < 0x20 || cp == 0x7f)
			err = hcb_buf_puts(out, "\xef\xbf\xbd");   /* U+FFFD */
		else if (cp == '&')
			err = hcb_buf_puts(out, "&amp;");
		else if (cp == '<')
			err = hcb_buf_puts(out, "&lt;");
		else if (cp == '>')
			err = hcb_buf_puts(out, "&gt;");
		else if (cp == '"')
			err = hcb_buf_puts(out, "&quot;");
		else if (cp == '\'')
			err = hcb_buf_puts(out, "&#39;");
		else
			err = hcb_buf_add(out, s, n);
		s += n;
	}
	return err;
}

void svgplot_printf(struct svgplot *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err)
		return;
	va_start(ap, fmt);
	p->err = hcb_buf_vprintf(&p->body, fmt, ap);
	va_end(ap);
}

void svgplot_text(struct svgplot *p, const char *s, size_t max)
{
	if (!p->err)
		p->err = svgplot_escape(&p->body, s, max);
}

void svgplot_label(struct svgplot *p, double x, double y, const char *attrs, const char *s, size_t max)
{
	svgplot_printf(p, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs && *attrs ? " " : "",
		       attrs ? attrs : "");
	svgplot_text(p, s, max);
	svgplot_printf(p, "</text>\n");
}

/* ---- numbers ---- */

double svgplot_scale(double v, double lo, double hi, double p0, double p1)
{
	if (!(hi > lo))
		return (p0 + p1) / 2;
	return p0 + (v - lo) / (hi - lo) * (p1 - p0);
}

int svgplot_range(const double *v, const double *a, const double *b, size_t n, double *lo, double *hi)
{
	const double *arr[3] = { v, a, b };
	int found = 0;

	for (int k = 0; k < 3; k++)
		for (size_t i = 0; arr[k] && i < n; i++) {
			double x = arr[k][i];

			if (!isfinite(x))
				continue;
			if (!found || x < *lo)
				*lo = x;
			if (!found || x > *hi)
				*hi = x;
			found = 1;
		}
	return found;
}

static void number(double v, int digits, char *out, size_t size)
{
	if (isnan(v))
		snprintf(out, size, "nan");
	else if (isinf(v))
		snprintf(out, size, v > 0 ? "inf" : "-inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(out, size, "%.0f", v == 0 ? 0.0 : v);   /* indices whole; no "-0" */
	else
		snprintf(out, size, "%.*g", digits, v);
}

void svgplot_label_pair(double lo, double hi, char *a, char *b, size_t size)
{
	for (int digits = 6; digits <= 17; digits++) {
		number(lo, digits, a, size);
		number(hi, digits, b, size);
		if (lo == hi || strcmp(a, b))
			return;
	}
}

/* ---- the document ---- */

int svgplot_new(struct svgplot **out, const char *title, const char *subtitle)
{
	struct svgplot *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->title = strdup(title ? title : "");
	p->subtitle = strdup(subtitle ? subtitle : "");
	if (!p->title || !p->subtitle) {
		svgplot_free(p);
		return -ENOMEM;
	}
	/* each line of the subtitle under the title */
	p->height = DOC_TOP;
	for (const char *c = p->subtitle; *c; c++)
		p->height += *c == '\n' ? 18 : 0;
	*out = p;
	return 0;
}

void svgplot_free(struct svgplot *p)
{
	if (!p)
		return;
	hcb_buf_free(&p->body);
	free(p->title);
	free(p->subtitle);
	free(p);
}

double svgplot_place(struct svgplot *p, double h)
{
	double top = p->height;

	p->height += h;
	return top;
}

int svgplot_note(struct svgplot *p, const char *text)
{
	double top = svgplot_place(p, 24);

	svgplot_label(p, 20, top + 16, "class=\"note\" fill=\"#333333\"", text, 0);
	return p->err;
}

/* The document's subtitle, a <text> per line. */
static int subtitle_lines(struct hcb_buf *out, const char *s)
{
	struct hcb_buf line = HCB_BUF_INIT;
	int err = 0;

	for (int y = 52; *s && !err; y += 18) {
		size_t n = strcspn(s, "\n");

		hcb_buf_reset(&line);
		err = hcb_buf_add(&line, s, n);
		err = err ? err : hcb_buf_printf(out, "<text class=\"doc-subtitle\" x=\"20\" y=\"%d\" "
						 "fill=\"#333333\">", y);
		err = err ? err : svgplot_escape(out, hcb_buf_str(&line), 150);
		err = err ? err : hcb_buf_puts(out, "</text>\n");
		s += n + (s[n] == '\n');
	}
	hcb_buf_free(&line);
	return err;
}

int svgplot_render(const struct svgplot *p, struct hcb_buf *out)
{
	double h = ceil(p->height + 16);
	int err;

	if (p->err)
		return p->err;
	err = hcb_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
			     "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" "
			     "font-size=\"12\">\n<title>", SVGPLOT_WIDTH, h, SVGPLOT_WIDTH, h);
	err = err ? err : svgplot_escape(out, p->title, 0);
	err = err ? err : hcb_buf_printf(out, "</title>\n<rect width=\"100%%\" height=\"100%%\" "
					 "fill=\"#ffffff\"/>\n<text class=\"doc-title\" x=\"20\" "
					 "y=\"30\" font-size=\"18\" font-weight=\"bold\">");
	err = err ? err : svgplot_escape(out, p->title, 84);
	err = err ? err : hcb_buf_puts(out, "</text>\n");
	err = err ? err : subtitle_lines(out, p->subtitle);
	err = err ? err : hcb_buf_add(out, p->body.data ? p->body.data : "", p->body.len);
	return err ? err : hcb_buf_puts(out, "</svg>\n");
}

/* ---- line charts ---- */

#define PLOT_T 50.0              /* the plot area, from the panel's top */
#define PLOT_B 230.0
#define PAD_X 12.0               /* between the frame and the extreme points */
#define PAD_Y 14.0

struct frame {                   /* a chart's coordinates */
	double top, l, r, t, b;      /* the panel's top; the plot area */
	double xmin, xmax, ylo, yhi;
	int have_y;
};

static double px(const struct frame *f, double x)
{
	return svgplot_scale(x, f->xmin, f->xmax, f->l + PAD_X, f->r - PAD_X);
}

static double py(const struct frame *f, double y)
{
	return svgplot_scale(y, f->ylo, f->yhi, f->b - PAD_Y, f->t + PAD_Y);
}

/* Title, plot area, y labels at the data's min and max, x range. */
static void chart_frame(struct svgplot *p, const struct svgplot_chart *c, const struct frame *f)
{
	char a[40], b[40];
	const char *pre = c->xprefix ? c->xprefix : "";

	svgplot_label(p, 20, f->top + 20, "class=\"title\" font-size=\"14\" font-weight=\"bold\"", c->title,
		      SVGPLOT_TITLE_MAX);
	svgplot_label(p, 20, f->top + 38, "class=\"subtitle\" fill=\"#333333\"", c->subtitle, 150);
	svgplot_printf(p, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		     "fill=\"#fafafa\" stroke=\"#888888\" data-xmin=\"%.17g\" data-xmax=\"%.17g\"",
		  f->l, f->t, f->r - f->l, f->b - f->t, f->xmin, f->xmax);
	if (f->have_y)
		svgplot_printf(p, " data-ymin=\"%.17g\" data-ymax=\"%.17g\"", f->ylo, f->yhi);
	svgplot_printf(p, "/>\n");
	if (f->have_y) {
		svgplot_label_pair(f->ylo, f->yhi, a, b, sizeof(a));
		for (int k = 0; k < (f->ylo == f->yhi ? 1 : 2); k++) {
			double y = py(f, k ? f->yhi : f->ylo);

			svgplot_printf(p, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				     "stroke=\"#cccccc\" stroke-dasharray=\"2 3\"/>\n", f->l, f->r, y, y);
			svgplot_label(p, f->l - 6, y + 4, k ? "class=\"ymax\" text-anchor=\"end\"" :
				      "class=\"ymin\" text-anchor=\"end\"", k ? b : a, 0);
		}
	}
	svgplot_label_pair(f->xmin, f->xmax, a, b, sizeof(a));
	svgplot_printf(p, "<text class=\"xmin\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px(f, f->xmin),
		       f->b + 16);
	svgplot_text(p, pre, 8);
	svgplot_printf(p, "%s</text>\n", a);
	if (f->xmax != f->xmin) {
		svgplot_printf(p, "<text class=\"xmax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			       px(f, f->xmax), f->b + 16);
		svgplot_text(p, pre, 8);
		svgplot_printf(p, "%s</text>\n", b);
	}
	svgplot_label(p, (f->l + f->r) / 2, f->b + 32, "class=\"xlabel\" text-anchor=\"middle\" fill=\"#333333\"",
		      c->xlabel, 100);
}

/* The band of s from run [i, j): hi forward, lo back. */
static void band(struct svgplot *p, const struct frame *f, const struct svgplot_series *s, size_t i, size_t j)
{
	svgplot_printf(p, "<polygon class=\"band %s\" fill=\"%s\" fill-opacity=\"0.22\" stroke=\"none\" points=\"",
		       svgplot_color_names[s->color], svgplot_colors[s->color]);
	for (size_t k = i; k < j; k++)
		svgplot_printf(p, "%s%.2f,%.2f", k > i ? " " : "", px(f, s->x[k]), py(f, s->hi[k]));
	for (size_t k = j; k-- > i;)
		svgplot_printf(p, " %.2f,%.2f", px(f, s->x[k]), py(f, s->lo[k]));
	svgplot_printf(p, "\"/>\n");
}

/* One run [i, j) of finite points of s as a polyline, with its data. */
static void line(struct svgplot *p, const struct frame *f, const struct svgplot_series *s, size_t i, size_t j)
{
	svgplot_printf(p, "<polyline class=\"line %s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
		     "stroke-linejoin=\"round\" data-label=\"", svgplot_color_names[s->color], svgplot_colors[s->color]);
	svgplot_text(p, s->label, 0);
	svgplot_printf(p, "\" points=\"");
	for (size_t k = i; k < j; k++)
		svgplot_printf(p, "%s%.2f,%.2f", k > i ? " " : "", px(f, s->x[k]), py(f, s->y[k]));
	svgplot_printf(p, "\" data-x=\"");
	for (size_t k = i; k < j; k++)
		svgplot_printf(p, "%s%.17g", k > i ? " " : "", s->x[k]);
	svgplot_printf(p, "\" data-y=\"");
	for (size_t k = i; k < j; k++)
		svgplot_printf(p, "%s%.17g", k > i ? " " : "", s->y[k]);
	svgplot_printf(p, "\"/>\n");
	for (size_t k = i; s->n <= SVGPLOT_MARKERS_MAX && k < j; k++)
		svgplot_printf(p, "<circle class=\"dot %s\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.6\" fill=\"%s\"/>\n",
			       svgplot_color_names[s->color], px(f, s->x[k]), py(f, s->y[k]), svgplot_colors[s->color]);
}

/* A point of the line (or of the band) that can be drawn. */
static int finite_at(const struct svgplot_series *s, size_t k, int bands)
{
	return isfinite(s->x[k]) && (bands ? isfinite(s->lo[k]) && isfinite(s->hi[k]) : isfinite(s->y[k]));
}

/* The bands of s, or its lines: one shape per run of points that can be drawn. */
static void series(struct svgplot *p, const struct frame *f, const struct svgplot_series *s, int bands)
{
	size_t i = 0;

	if (bands && !s->lo)
		return;
	while (i < s->n) {
		size_t j = i;

		while (j < s->n && finite_at(s, j, bands))
			j++;
		if (j > i && bands)
			band(p, f, s, i, j);
		else if (j > i)
			line(p, f, s, i, j);
		i = j > i ? j : i + 1;
	}
}

static void mark_and_flags(struct svgplot *p, const struct svgplot_chart *c, const struct frame *f)
{
	for (size_t i = 0; i < c->nflags; i++)
		if (isfinite(c->flags[i]))
			svgplot_printf(p, "<rect class=\"flag\" x=\"%.2f\" y=\"%.1f\" width=\"2\" height=\"7\" "
				     "fill=\"%s\" data-x=\"%.17g\"/>\n", px(f, c->flags[i]) - 1, f->b - 7,
				  MARK_COLOR, c->flags[i]);
	if (isfinite(c->mark)) {
		double x = px(f, c->mark);
		int right = x > f->r - 220;

		svgplot_printf(p, "<line class=\"mark\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			     "stroke-width=\"1.2\" stroke-dasharray=\"5 3\" data-x=\"%.17g\"/>\n",
			  x, x, f->t, f->b, MARK_COLOR, c->mark);
		svgplot_label(p, right ? x - 4 : x + 4, f->t + 12, right ?
			      "class=\"mark-label\" text-anchor=\"end\" fill=\"#d62728\"" :
			      "class=\"mark-label\" fill=\"#d62728\"", c->mark_label, 60);
	}
}

/* One entry of the legend at x: a swatch (a line, dashed or not, or a tick) and its text. */
static double legend_entry(struct svgplot *p, double x, double y, const char *color, int kind, const char *text)
{
	svgplot_printf(p, "<g class=\"entry\">");
	if (kind == 2)
		svgplot_printf(p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"2\" height=\"9\" fill=\"%s\"/>", x + 9, y - 8, color);
	else
		svgplot_printf(p, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>",
			       x, x + 20, y - 4, y - 4, color, kind ? " stroke-dasharray=\"5 3\"" : "");
	svgplot_label(p, x + 26, y, NULL, text, 60);
	svgplot_printf(p, "</g>\n");
	/* about 6.6 px a character at 12 px, no font metrics at hand */
	return x + 26 + 6.6 * (double)(strlen(text) < 60 ? strlen(text) : 60) + 22;
}

static void legend(struct svgplot *p, const struct svgplot_chart *c, const struct frame *f)
{
	double x = f->l, y = f->b + 52;

	svgplot_printf(p, "<g class=\"legend\">\n");
	for (unsigned int i = 0; i < c->nseries; i++)
		x = legend_entry(p, x, y, svgplot_colors[c->series[i].color], 0, c->series[i].label);
	if (isfinite(c->mark) && c->mark_label)
		x = legend_entry(p, x, y, MARK_COLOR, 1, c->mark_label);
	if (c->nflags && c->flags_label)
		legend_entry(p, x, y, MARK_COLOR, 2, c->flags_label);
	svgplot_printf(p, "</g>\n");
	if (c->note)
		svgplot_label(p, f->l, y + 18, "class=\"note\" fill=\"#555555\"", c->note, 150);
}

int svgplot_chart(struct svgplot *p, const struct svgplot_chart *c)
{
	struct frame f = { .l = SVGPLOT_MARGIN_L, .r = SVGPLOT_WIDTH - SVGPLOT_MARGIN_R, .xmin = c->xmin, .xmax = c->xmax };

	for (unsigned int i = 0; i < c->nseries; i++)
		if (c->series[i].n && (!c->series[i].x || !c->series[i].y || !c->series[i].lo != !c->series[i].hi))
			return -EINVAL;
	if ((c->nflags && !c->flags) || !(c->xmin <= c->xmax))
		return -EINVAL;
	for (unsigned int i = 0; i < c->nseries; i++) {
		const struct svgplot_series *s = &c->series[i];
		double lo, hi;

		if (!svgplot_range(s->y, s->lo, s->hi, s->n, &lo, &hi))
			continue;
		f.ylo = f.have_y && f.ylo < lo ? f.ylo : lo;
		f.yhi = f.have_y && f.yhi > hi ? f.yhi : hi;
		f.have_y = 1;
	}
	f.top = svgplot_place(p, c->note ? 316 : 298);
	f.t = f.top + PLOT_T;
	f.b = f.top + PLOT_B;
	svgplot_printf(p, "<g class=\"chart\">\n<title>");
	svgplot_text(p, c->title, 0);
	svgplot_printf(p, "</title>\n");
	chart_frame(p, c, &f);
	for (unsigned int i = 0; i < c->nseries; i++)
		series(p, &f, &c->series[i], 1);
	for (unsigned int i = 0; i < c->nseries; i++)
		series(p, &f, &c->series[i], 0);
	mark_and_flags(p, c, &f);
	legend(p, c, &f);
	svgplot_printf(p, "</g>\n");
	return p->err;
}
