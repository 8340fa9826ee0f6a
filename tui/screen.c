/* SPDX-License-Identifier: MIT */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/idprint.h"
#include "detail.h"
#include "keys.h"
#include "screen.h"
#include "sparkline.h"

enum { PAIR_TITLE = 1, PAIR_FOCUS, PAIR_PAUSED, PAIR_HEADER, PAIR_LINE, PAIR_NONFINITE,
       PAIR_HEAT = 8 };

/* Heatmap shades, low to high: eight of viridis where there are 256
 * colours, else five of the eight basic ones, cold to hot. */
static const short heat256[] = { 53, 60, 67, 31, 36, 71, 149, 220 };
static const short heat8[] = { COLOR_BLUE, COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW, COLOR_RED };

static void heat_colours(struct tui_screen *s)
{
	const short *pal = COLORS >= 256 ? heat256 : heat8;
	int n = COLORS >= 256 ? (int)(sizeof(heat256) / sizeof(heat256[0])) :
		(int)(sizeof(heat8) / sizeof(heat8[0]));

	if (COLOR_PAIRS <= PAIR_HEAT + n) {
		s->levels = 0;
		return;
	}
	for (int k = 0; k < n; k++)
		init_pair((short)(PAIR_HEAT + k), COLOR_BLACK, pal[k]);
	init_pair(PAIR_LINE, COLOR_CYAN, -1);
	s->levels = n;
}

static SCREEN *term;

int tui_screen_open(struct tui_screen *s)
{
	const char *cs;

	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	s->utf8 = cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
	term = newterm(NULL, stdout, stdin);
	if (!term)
		return -ENOTTY;
	set_term(term);
	cbreak();               /* Ctrl-C still interrupts */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	s->color = 0;
	if (has_colors() && !getenv("NO_COLOR")) {
		start_color();
		use_default_colors();
		init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_FOCUS, COLOR_BLACK, COLOR_GREEN);
		init_pair(PAIR_PAUSED, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_HEADER, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_NONFINITE, COLOR_RED, -1);
		s->color = 1;
		heat_colours(s);
	}
	tui_screen_size(s);
	return 0;
}

void tui_screen_close(struct tui_screen *s)
{
	(void)s;
	if (!term)
		return;
	endwin();
	delscreen(term);
	term = NULL;
}

int tui_screen_key(struct tui_screen *s, int timeout_ms)
{
	int c;

	(void)s;
	timeout(timeout_ms);
	c = getch();
	return c == ERR ? -1 : c;
}

void tui_screen_size(struct tui_screen *s)
{
	getmaxyx(stdscr, s->rows, s->cols);
}

/* ---- drawing helpers ---- */

/* Bytes of s that fill at most w columns (one per character, UTF-8 aware). */
static int fit(const char *s, int w)
{
	int cols = 0, i = 0;

	while (s[i] && cols < w) {
		i++;
		while ((s[i] & 0xc0) == 0x80)
			i++;
		cols++;
	}
	return i;
}

/* s at (y, x) cut to w columns, the rest up to w filled with blanks. */
static void put(int y, int x, int w, attr_t attr, short pair, const char *s)
{
	int n, cols = 0;

	if (w <= 0)
		return;
	n = fit(s, w);
	for (int i = 0; i < n; i++)
		cols += (s[i] & 0xc0) != 0x80;
	attron(attr);
	if (pair)
		attron(COLOR_PAIR(pair));
	mvaddnstr(y, x, s, n);
	for (; cols < w; cols++)
		addch(' ');
	if (pair)
		attroff(COLOR_PAIR(pair));
	attroff(attr);
}

__attribute__((format(printf, 7, 8)))
static void putf(int y, int x, int w, attr_t attr, short pair, char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, 512, fmt, ap);
	va_end(ap);
	put(y, x, w, attr, pair, buf);
}

static void title(const struct tui_screen *s, const struct tui_rect *r, int focused, const char *text)
{
	if (s->color)
		put(r->y, r->x, r->w, focused ? A_BOLD : 0, focused ? PAIR_FOCUS : PAIR_TITLE, text);
	else
		put(r->y, r->x, r->w, focused ? A_REVERSE | A_BOLD : A_BOLD | A_UNDERLINE, 0, text);
}

static void rate_text(char *out, size_t cap, double rate)
{
	if (isnan(rate))
		snprintf(out, cap, "-");
	else if (rate >= 1000)
		snprintf(out, cap, "%.0f/s", rate);
	else
		snprintf(out, cap, "%.1f/s", rate);
}

/* The proc column, where the model shows several processes: "" else. */
static const char *proc_col(char *out, size_t cap, const struct tui_model *m, unsigned int cons)
{
	const char *tag = m->cons[cons].ptag;

	if (m->nprocs <= 1)
		snprintf(out, cap, "%s", "");
	else
		snprintf(out, cap, "%-7.7s ", tag ? tag : "?");
	return out;
}

static const char *dev_name(char *out, size_t cap, const char *platform, uint32_t d)
{
	struct hcb_buf b = HCB_BUF_INIT;

	hcb_idprint_device(&b, platform, d);
	snprintf(out, cap, "%s", hcb_buf_str(&b));
	hcb_buf_free(&b);
	return out;
}

/* ---- panes ---- */

static void draw_header(const struct tui_screen *s, const struct tui_snapshot *snap,
			const struct tui_state *st, const struct tui_header *h)
{
	char buf[512], rate[32], extra[160] = "";
	int n = 0;

	rate_text(rate, sizeof(rate), snap->rate);
	if (snap->evicted)
		n += snprintf(extra + n, sizeof(extra) - n, "  held %llu",
			      (unsigned long long)(snap->received - snap->evicted - snap->lost));
	if (st->filter.active)
		n += snprintf(extra + n, sizeof(extra) - n, "  filter %.30s", st->filter_text);
	if (snap->indexing)
		n += snprintf(extra + n, sizeof(extra) - n, "  indexing %d%%", snap->percent);
	else if (snap->damaged)
		n += snprintf(extra + n, sizeof(extra) - n, "  %s (said on exit)",
			      snap->damaged == 2 ? "truncated" : "damaged");
	if (h->live && h->session_over)
		n += snprintf(extra + n, sizeof(extra) - n, "  ended");
	else if (!h->live && snap->ended && !snap->indexing && !snap->damaged)
		n += snprintf(extra + n, sizeof(extra) - n, "  complete");
	putf(0, 0, s->cols, A_BOLD, s->color ? PAIR_HEADER : 0, buf,
	     "hcbtrace view  %s  taps %llu%s%s  dropped %llu%s", h->source,
	     (unsigned long long)snap->received, h->live ? "  " : "", h->live ? rate : "",
	     (unsigned long long)snap->dropped, extra);
	if (!s->color)
		mvchgat(0, 0, s->cols, A_REVERSE, 0, NULL);
}

static void draw_streams(const struct tui_screen *s, const struct tui_frame *f,
			 const struct tui_model *m, const struct tui_snapshot *snap,
			 const struct tui_state *st)
{
	const struct tui_rect *r = &f->lay.streams;
	char buf[512], dev[32], rate[32], pc[32];

	snprintf(buf, sizeof(buf), " %s%-7s%-14s %9s %9s %7s  %-6s [%zu stream%s%s]",
		 m->nprocs > 1 ? "proc    " : "", "device", "consumer", "taps", "rate", "dropped",
		 "last", f->ns, f->ns == 1 ? "" : "s",
		 f->ns == snap->nstreams ? "" : ", filtered");
	title(s, r, st->focus == TUI_PANE_STREAMS, buf);
	for (int row = 1; row < r->h; row++) {
		size_t i = f->stop + (size_t)row - 1;
		const struct tui_stream *str;
		attr_t attr = 0;

		if (i >= f->ns || row - 1 >= f->nsrows) {
			put(r->y + row, 0, r->w, 0, 0, "");
			continue;
		}
		str = &snap->streams[f->sidx[i]];
		rate_text(rate, sizeof(rate), str->rate);
		if (i == f->ssel)
			attr = st->focus == TUI_PANE_STREAMS ? A_REVERSE : A_BOLD;
		putf(r->y + row, 0, r->w, attr, 0, buf, " %s%-7s%-14.14s %9llu %9s %7llu  %s",
		     proc_col(pc, sizeof(pc), m, str->cons),
		     dev_name(dev, sizeof(dev), tui_model_platform(m, str->cons), str->device),
		     m->cons[str->cons].name,
		     (unsigned long long)str->count, rate,
		     (unsigned long long)str->dropped,
		     f->srows[row - 1].value);
	}
}

/* The sparkline pane's title: the consumer, and what of it is drawn. */
static void spark_title(const struct tui_screen *s, const struct tui_frame *f,
			const struct tui_model *m)
{
	const struct hcb_consumer *c = m->cons[f->spark_cons].c;
	const char *name = m->cons[f->spark_cons].name;
	int scalar = c->nleaves && c->leaves[0].nelems == 1;
	char buf[512], what[32];

	snprintf(what, sizeof(what), "%s of [0]", hcb_stat_name((enum hcb_stat)(f->spark_stat % TUI_STATS)));
	snprintf(buf, sizeof(buf), " Sparkline: %s, %s per device (s: statistic; range right)",
		 name, scalar ? "value" : what);
	title(s, &f->lay.spark, 0, buf);
}

static void draw_spark(const struct tui_screen *s, const struct tui_frame *f,
		       const struct tui_model *m, const struct tui_snapshot *snap)
{
	const struct tui_rect *r = &f->lay.spark;
	double bins[TUI_HIST], lo, hi;
	struct hcb_buf line = HCB_BUF_INIT;
	char buf[512], dev[32], a[32], b[32];
	int width = r->w - 1 - 8 - 1 - 26;

	if (!r->h)
		return;
	if (f->spark_cons < 0) {
		title(s, r, 0, " Sparkline");
		return;
	}
	spark_title(s, f, m);
	if (width > TUI_HIST)
		width = TUI_HIST;
	for (int row = 1; row < r->h; row++) {
		const struct tui_stream *str;
		int nb;

		if (row - 1 >= f->nspark) {
			put(r->y + row, 0, r->w, 0, 0, "");
			continue;
		}
		str = &snap->streams[f->spark[row - 1]];
		nb = width > 0 ? tui_spark_bin(f->spark_vals[row - 1], (int)f->spark_len[row - 1], width, bins) : 0;
		tui_spark_range(bins, nb, &lo, &hi);
		hcb_buf_reset(&line);
		tui_spark_render(&line, bins, nb, lo, hi, s->utf8);
		putf(r->y + row, 0, 9, 0, 0, buf, " %-8s",
		     dev_name(dev, sizeof(dev), tui_model_platform(m, str->cons), str->device));
		put(r->y + row, 9, width > 0 ? width : 0, 0, 0, hcb_buf_str(&line));
		tui_format_num(a, sizeof(a), lo);
		tui_format_num(b, sizeof(b), hi);
		if (width > 0)
			putf(r->y + row, 9 + width, r->w - 9 - width, 0, 0, buf, "  %s .. %s", a, b);
	}
	hcb_buf_free(&line);
}

static void draw_taps(const struct tui_screen *s, const struct tui_frame *f,
		      const struct tui_model *m, const struct tui_state *st)
{
	const struct tui_rect *r = &f->lay.taps;
	char buf[512], dev[32], when[32], pc[32];

	snprintf(buf, sizeof(buf), " %-8s %-12s %s%-7s %-14s %s   [%zu%s]", "tap", "time",
		 m->nprocs > 1 ? "proc    " : "", "device", "consumer", "value", f->taps.n,
		 st->taps.follow ? ", following" : ", G follows");
	title(s, r, st->focus == TUI_PANE_TAPS, buf);
	for (int row = 1; row < r->h; row++) {
		const struct tui_row *t = row - 1 < f->nrows ? &f->rows[row - 1] : NULL;
		attr_t attr = 0;

		if (!t || t->index == UINT64_MAX) {
			put(r->y + row, 0, r->w, 0, 0, "");
			continue;
		}
		if (t->bad)
			snprintf(when, sizeof(when), "?");
		else
			tui_format_time(when, sizeof(when), t->wall_ns);
		if (f->ttop + (size_t)row - 1 == f->tsel)
			attr = st->focus == TUI_PANE_TAPS ? A_REVERSE : A_BOLD;
		/* a NaN or inf in it: '!' first, which shows without colour, and red */
		putf(r->y + row, 0, r->w, attr, t->nonfinite && s->color ? PAIR_NONFINITE : 0, buf,
		     "%c%-8llu %-12s %s%-7s %-14.14s %s", t->nonfinite ? '!' : ' ',
		     (unsigned long long)t->index, when, proc_col(pc, sizeof(pc), m, t->cons),
		     dev_name(dev, sizeof(dev), tui_model_platform(m, t->cons), t->device),
		     m->cons[t->cons].name, t->value);
	}
}

/* The plot's cells from (y, x), clipped to h rows and w columns. */
static void draw_grid(const struct tui_screen *s, const struct tui_grid *g, int y, int x, int h, int w)
{
	for (int gy = 0; gy < g->rows && gy < h; gy++) {
		move(y + gy, x);
		for (int gx = 0; gx < g->cols && gx < w; gx++) {
			const struct tui_cell *c = tui_grid_at(g, gy, gx);
			short pair = 0;

			if (s->color && c->kind == TUI_CELL_HEAT && s->levels)
				pair = (short)(PAIR_HEAT + c->shade);
			else if (s->color && c->kind == TUI_CELL_LINE)
				pair = PAIR_LINE;
			if (pair)
				attron(COLOR_PAIR(pair));
			addstr(c->glyph);
			if (pair)
				attroff(COLOR_PAIR(pair));
		}
	}
}

static void detail_title(const struct tui_screen *s, const struct tui_frame *f,
			 const struct tui_state *st)
{
	const struct tui_detail_pane *d = &f->detail;
	const struct tui_rect *r = &f->lay.detail;
	int last = st->detail_top + r->h - 1 < d->lines ? st->detail_top + r->h - 1 : d->lines;
	char buf[512];

	if (d->mode == TUI_DETAIL_PLOT)
		snprintf(buf, sizeof(buf), " Detail   [plot of [%u]; v: the text, Enter closes]", d->leaf);
	else if (d->mode == TUI_DETAIL_BOTH)
		snprintf(buf, sizeof(buf), " Detail   [text and plot; Enter closes]");
	else
		snprintf(buf, sizeof(buf), " Detail   [lines %d-%d of %d; Tab here to scroll, %sEnter closes]",
			 d->lines ? st->detail_top + 1 : 0, last, d->lines,
			 d->kind != TUI_PLOT_NONE ? "v: plot, " : "");
	title(s, r, st->focus == TUI_PANE_DETAIL, buf);
}

static void draw_detail(const struct tui_screen *s, const struct tui_frame *f,
			const struct tui_state *st)
{
	const struct tui_detail_pane *d = &f->detail;
	const struct tui_rect *r = &f->lay.detail;
	const char *p = hcb_buf_str(&d->text);
	int line = 0, top = d->mode == TUI_DETAIL_TEXT ? st->detail_top : 0;
	char buf[512];

	if (!r->h)
		return;
	detail_title(s, f, st);
	for (int row = 1; row < r->h; row++) {
		const char *nl;
		int len;

		while (*p && line < top) {
			nl = strchr(p, '\n');
			p = nl ? nl + 1 : p + strlen(p);
			line++;
		}
		if (!*p) {
			put(r->y + row, 0, r->w, 0, 0, d->lines || row > 1 ? "" : " (no tap selected)");
			continue;
		}
		nl = strchr(p, '\n');
		len = nl ? (int)(nl - p) : (int)strlen(p);
		snprintf(buf, sizeof(buf), " %.*s", len > 500 ? 500 : len, p);
		put(r->y + row, 0, r->w, 0, 0, buf);
		p += len + (nl ? 1 : 0);
		line++;
	}
	if (d->mode == TUI_DETAIL_TEXT)
		return;
	if (d->mode == TUI_DETAIL_BOTH)
		putf(r->y + d->grid_y, 0, r->w, A_BOLD, 0, buf, " %s", d->caption);
	draw_grid(s, &d->grid, r->y + 1 + d->grid_y, 1, r->h - 1 - d->grid_y, r->w - 1);
}

static void draw_footer(const struct tui_screen *s, const struct tui_state *st)
{
	int y = s->rows - 1, x = 0;
	char buf[512], keys[256];

	if (st->mode == TUI_MODE_SEARCH || st->mode == TUI_MODE_FILTER) {
		putf(y, 0, s->cols, 0, 0, buf, "%s%s_", st->mode == TUI_MODE_SEARCH ? "/" :
		     "filter (device number, @PROC or consumer name; empty clears): ", st->prompt);
		return;
	}
	if (st->paused) {
		put(y, 0, 8, A_BOLD | (s->color ? 0 : A_REVERSE), s->color ? PAIR_PAUSED : 0, " PAUSED ");
		x = 9;
		mvaddch(y, 8, ' ');
	}
	if (st->message[0]) {
		put(y, x, s->cols - x, A_BOLD, 0, st->message);
		return;
	}
	tui_footer_keys(keys, sizeof(keys), s->cols - x);
	put(y, x, s->cols - x, 0, 0, keys);
}

static void draw_help(const struct tui_screen *s)
{
	int n = 0, w = 0, y0, x0;
	char buf[512];

	for (const struct tui_keyhelp *k = tui_keyhelp; k->keys; k++, n++) {
		int l = 2 + 13 + (int)strlen(k->what) + 2;

		if (l > w)
			w = l;
	}
	if (w > s->cols)
		w = s->cols;
	y0 = (s->rows - n - 2) / 2;
	x0 = (s->cols - w) / 2;
	if (y0 < 0)
		y0 = 0;
	putf(y0, x0, w, A_BOLD | A_REVERSE, 0, buf, " hcbtrace view: keys (any key closes)");
	n = 0;
	for (const struct tui_keyhelp *k = tui_keyhelp; k->keys && y0 + 1 + n < s->rows - 1; k++, n++)
		putf(y0 + 1 + n, x0, w, A_REVERSE, 0, buf, "  %-13s%s", k->keys, k->what);
	if (y0 + 1 + n < s->rows - 1)
		put(y0 + 1 + n, x0, w, A_REVERSE, 0, "");
}

void tui_screen_draw(struct tui_screen *s, const struct tui_frame *f, const struct tui_model *m,
		     const struct tui_snapshot *snap, struct tui_state *st,
		     const struct tui_header *h)
{
	tui_screen_size(s);
	if (st->redraw) {
		clearok(curscr, TRUE);
		st->redraw = 0;
	}
	werase(stdscr);
	draw_header(s, snap, st, h);
	if (!f->lay.ok) {
		char buf[512];

		putf(s->rows > 1 ? 1 : 0, 0, s->cols, 0, 0, buf, "terminal too small (%dx%d): at least %dx%d",
		     s->cols, s->rows, TUI_MIN_COLS, TUI_MIN_ROWS);
		wnoutrefresh(stdscr);
		return;
	}
	draw_streams(s, f, m, snap, st);
	draw_spark(s, f, m, snap);
	draw_taps(s, f, m, st);
	draw_detail(s, f, st);
	draw_footer(s, st);
	if (st->mode == TUI_MODE_HELP)
		draw_help(s);
	wnoutrefresh(stdscr);
}

void tui_screen_show(struct tui_screen *s)
{
	(void)s;
	doupdate();
}

struct tui_plot_style tui_screen_plot_style(const struct tui_screen *s)
{
	return (struct tui_plot_style){ .utf8 = s->utf8, .color = s->color && s->levels,
					.levels = s->levels };
}
