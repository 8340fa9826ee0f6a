/* SPDX-License-Identifier: MIT */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

/* The first position whose key is >= key (n if none). */
static size_t lower_bound(const struct tui_keys *k, uint64_t key)
{
	size_t lo = 0, hi = k->n;

	if (!k->v)
		return key <= k->first ? 0 : key - k->first < k->n ? (size_t)(key - k->first) : k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t cursor_pos(const struct tui_cursor *c, const struct tui_keys *k)
{
	size_t pos;

	if (!k->n)
		return 0;
	if (c->follow)
		return k->n - 1;
	if (!c->has_sel)
		return 0;
	pos = lower_bound(k, c->sel);
	return pos < k->n ? pos : k->n - 1;
}

void tui_cursor_place(struct tui_cursor *c, const struct tui_keys *k, int h, size_t *top, size_t *sel)
{
	size_t pos, tpos, n = k->n, rows = h > 0 ? (size_t)h : 1;

	*top = *sel = 0;
	if (!n)
		return;
	pos = cursor_pos(c, k);
	if (c->follow) {
		tpos = pos + 1 > rows ? pos + 1 - rows : 0;
	} else {
		tpos = c->has_sel ? lower_bound(k, c->top) : 0;
		if (tpos > pos)
			tpos = pos;
		if (pos >= tpos + rows)
			tpos = pos + 1 - rows;
		/* no blank rows at the bottom while there are rows above */
		if (tpos + rows > n)
			tpos = n > rows ? n - rows : 0;
	}
	c->sel = tui_key_at(k, pos);
	c->top = tui_key_at(k, tpos);
	c->has_sel = 1;
	*top = tpos;
	*sel = pos;
}

void tui_cursor_move(struct tui_cursor *c, const struct tui_keys *k, long delta)
{
	size_t pos = cursor_pos(c, k);
	long np = (long)pos + delta;

	if (delta < 0)
		c->follow = 0;
	if (!k->n)
		return;
	if (np < 0)
		np = 0;
	if (np >= (long)k->n)
		np = (long)k->n - 1;
	c->sel = tui_key_at(k, (size_t)np);
	c->has_sel = 1;
}

void tui_cursor_home(struct tui_cursor *c, const struct tui_keys *k)
{
	c->follow = 0;
	if (!k->n)
		return;
	c->sel = c->top = tui_key_at(k, 0);
	c->has_sel = 1;
}

void tui_cursor_end(struct tui_cursor *c, const struct tui_keys *k, int follow)
{
	c->follow = follow;
	if (!k->n)
		return;
	c->sel = tui_key_at(k, k->n - 1);
	c->has_sel = 1;
}

long tui_find(size_t n, size_t from, int dir, int (*match)(void *ctx, size_t i), void *ctx)
{
	if (!n)
		return -1;
	if (from >= n)
		from = dir > 0 ? n - 1 : 0;
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (from + k) % n : (from + n - k % n) % n;

		if (match(ctx, i))
			return (long)i;
	}
	return -1;
}

void tui_state_init(struct tui_state *st)
{
	memset(st, 0, sizeof(*st));
	st->focus = TUI_PANE_TAPS;
	st->taps.follow = 1;
	st->filter.device = -1;
}

struct search_ctx {
	const struct tui_view *v;
	const char *needle;
	int streams;
	signed char *memo;      /* per consumer: -1 not asked yet, else the answer */
};

static int search_match(void *ctx, size_t i)
{
	struct search_ctx *s = ctx;
	const struct tui_keys *k = s->streams ? &s->v->streams : &s->v->taps;
	uint64_t key = tui_key_at(k, i);
	unsigned int cons = s->streams ? tui_key_cons(key, s->v->multi) : s->v->tap_cons(s->v->ctx, key);

	/* a recording's million taps ask about a few consumers */
	if (!s->memo || cons >= s->v->ncons)
		return tui_search_match(&s->v->cons[cons], s->needle);
	if (s->memo[cons] < 0)
		s->memo[cons] = (signed char)tui_search_match(&s->v->cons[cons], s->needle);
	return s->memo[cons];
}

static void search(struct tui_state *st, const struct tui_view *v, int dir)
{
	struct search_ctx ctx = { .v = v, .needle = st->search, .streams = st->focus == TUI_PANE_STREAMS };
	struct tui_cursor *c = ctx.streams ? &st->streams : &st->taps;
	const struct tui_keys *k = ctx.streams ? &v->streams : &v->taps;
	size_t from = cursor_pos(c, k);
	long at;

	if (!st->search[0]) {
		snprintf(st->message, sizeof(st->message), "no search yet: press / to search");
		return;
	}
	/* at the start nothing is selected yet: the first row counts */
	if (!c->has_sel && !c->follow)
		from = dir > 0 ? k->n - 1 : 0;
	ctx.memo = v->ncons ? malloc(v->ncons) : NULL;
	if (ctx.memo)
		memset(ctx.memo, -1, v->ncons);
	at = tui_find(k->n, from, dir, search_match, &ctx);
	free(ctx.memo);
	if (at < 0) {
		snprintf(st->message, sizeof(st->message), "not found: %.100s", st->search);
		return;
	}
	if (!ctx.streams)
		c->follow = 0;
	c->sel = tui_key_at(k, (size_t)at);
	c->has_sel = 1;
	snprintf(st->message, sizeof(st->message), "/%.100s: %s %ld of %zu", st->search,
		 ctx.streams ? "stream" : "row", at + 1, k->n);
}

/* The position of the tap list's next (dir +1) or previous (-1) tap from
 * `from` holding a NaN or inf, round the end as tui_find goes; -1 for
 * none, -2 when the view could not tell in time (its -EAGAIN). */
static long find_nonfinite(const struct tui_view *v, size_t from, int dir)
{
	const struct tui_keys *k = &v->taps;
	size_t n = k->n;

	if (!n || !v->tap_nonfinite)
		return -1;
	if (from >= n)
		from = dir > 0 ? n - 1 : 0;
	for (size_t s = 1; s <= n; s++) {
		size_t i = dir > 0 ? (from + s) % n : (from + n - s % n) % n;
		int r = v->tap_nonfinite(v->nf_ctx, tui_key_at(k, i));

		if (r == 1)
			return (long)i;
		if (r == -EAGAIN)
			return -2;
	}
	return -1;
}

/* ] and [: the tap list's next (previous) tap holding a NaN or inf. */
static void jump_nonfinite(struct tui_state *st, const struct tui_view *v, int dir)
{
	struct tui_cursor *c = &st->taps;
	const struct tui_keys *k = &v->taps;
	size_t from = cursor_pos(c, k);
	int started = c->has_sel || c->follow;
	long at;

	/* at the start nothing is selected yet: the first row counts */
	if (!started)
		from = dir > 0 ? k->n - 1 : 0;
	at = find_nonfinite(v, from, dir);
	if (at == -2) {
		snprintf(st->message, sizeof(st->message), "none found in the taps read so far: "
			 "%s again reads on", dir > 0 ? "]" : "[");
		return;
	}
	if (at < 0) {
		snprintf(st->message, sizeof(st->message), "no tap %sholds a NaN or inf",
			 st->filter.active ? "of the filter's " : "");
		return;
	}
	st->focus = TUI_PANE_TAPS;
	c->follow = 0;
	c->sel = tui_key_at(k, (size_t)at);
	c->has_sel = 1;
	st->detail_top = 0;
	snprintf(st->message, sizeof(st->message), "NaN or inf: row %ld of %zu%s", at + 1, k->n,
		 started && (dir > 0) == ((size_t)at <= from) && k->n > 1 ? " (wrapped round)" : "");
}

static void toggle_plot(struct tui_state *st)
{
	st->text_only = !st->text_only;
	st->detail_top = 0;
	snprintf(st->message, sizeof(st->message), st->text_only ?
		 "detail: the text where plot and text do not both fit (v: the plot)" :
		 "detail: the plot where plot and text do not both fit (v: the text)");
}

static void move_cursor(struct tui_state *st, const struct tui_view *v, enum tui_action a)
{
	struct tui_cursor *c = NULL;
	const struct tui_keys *k = NULL;
	int page = 1, max;

	switch (st->focus) {
	case TUI_PANE_STREAMS:
		c = &st->streams, k = &v->streams, page = v->streams_h;
		break;
	case TUI_PANE_TAPS:
		c = &st->taps, k = &v->taps, page = v->taps_h;
		break;
	default:
		page = v->detail_h;
		break;
	}
	if (page < 1)
		page = 1;
	if (!c) {
		max = v->detail_lines - v->detail_h;
		switch (a) {
		case TUI_DOWN: st->detail_top++; break;
		case TUI_UP: st->detail_top--; break;
		case TUI_PGDN: st->detail_top += page; break;
		case TUI_PGUP: st->detail_top -= page; break;
		case TUI_HOME: st->detail_top = 0; break;
		case TUI_END: st->detail_top = max; break;
		default: break;
		}
		if (st->detail_top > max)
			st->detail_top = max;
		if (st->detail_top < 0)
			st->detail_top = 0;
		return;
	}
	switch (a) {
	case TUI_DOWN: tui_cursor_move(c, k, 1); break;
	case TUI_UP: tui_cursor_move(c, k, -1); break;
	case TUI_PGDN: tui_cursor_move(c, k, page); break;
	case TUI_PGUP: tui_cursor_move(c, k, -page); break;
	case TUI_HOME: tui_cursor_home(c, k); break;
	case TUI_END: tui_cursor_end(c, k, c == &st->taps); break;
	default: break;
	}
	if (c == &st->taps)
		st->detail_top = 0;
}

static void enter(struct tui_state *st, const struct tui_view *v)
{
	size_t pos;

	switch (st->focus) {
	case TUI_PANE_STREAMS:
		if (!v->streams.n)
			return;
		/* the stream's latest tap, in the detail */
		pos = cursor_pos(&st->streams, &v->streams);
		st->taps.follow = 0;
		st->taps.sel = v->slast[pos];
		st->taps.has_sel = 1;
		st->detail = 1;
		st->detail_top = 0;
		st->focus = TUI_PANE_TAPS;
		return;
	case TUI_PANE_TAPS:
		st->detail = !st->detail;
		st->detail_top = 0;
		return;
	default:
		st->detail = 0;
		st->focus = TUI_PANE_TAPS;
		return;
	}
}

static int prompt_key(struct tui_state *st, int key, const struct tui_view *v)
{
	enum tui_mode mode = st->mode;

	if (key == KEY_RESIZE) {
		st->redraw = 1;
		return 1;
	}
	if (key == 27) {
		st->mode = TUI_MODE_NORMAL;
		return 1;
	}
	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (st->prompt_len)
			st->prompt[--st->prompt_len] = '\0';
		return 1;
	}
	if (key == ('u' & 0x1f)) {
		st->prompt_len = 0;
		st->prompt[0] = '\0';
		return 1;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		st->mode = TUI_MODE_NORMAL;
		if (mode == TUI_MODE_SEARCH) {
			if (!st->prompt_len)
				return 1;
			snprintf(st->search, sizeof(st->search), "%s", st->prompt);
			/* a tap list following new taps: the latest match first */
			search(st, v, st->focus != TUI_PANE_STREAMS && st->taps.follow ? -1 : 1);
			return 1;
		}
		if (tui_filter_parse(&st->filter, st->prompt)) {
			tui_filter_parse(&st->filter, st->filter_text);
			snprintf(st->message, sizeof(st->message), "no device %.40s: devices are 0 to "
				 "4294967295", st->prompt);
			return 1;
		}
		snprintf(st->filter_text, sizeof(st->filter_text), "%s", st->prompt);
		snprintf(st->message, sizeof(st->message), st->filter.active ? "filter: %.100s" :
			 "filter cleared", st->filter_text);
		return 1;
	}
	if (key >= 32 && key < 127 && st->prompt_len + 1 < sizeof(st->prompt)) {
		st->prompt[st->prompt_len++] = (char)key;
		st->prompt[st->prompt_len] = '\0';
		return 1;
	}
	return 0;
}

int tui_state_key(struct tui_state *st, int key, const struct tui_view *v)
{
	enum tui_action a;

	if (st->mode == TUI_MODE_SEARCH || st->mode == TUI_MODE_FILTER)
		return prompt_key(st, key, v);
	a = tui_key_action(key);
	if (a == TUI_RESIZE || a == TUI_REDRAW) {
		st->redraw = 1;
		return 1;
	}
	if (st->mode == TUI_MODE_HELP) {
		st->mode = TUI_MODE_NORMAL;
		return 1;
	}
	st->message[0] = '\0';
	switch (a) {
	case TUI_NONE:
		return 0;
	case TUI_QUIT:
		st->quit = 1;
		return 1;
	case TUI_HELP:
		st->mode = TUI_MODE_HELP;
		return 1;
	case TUI_SEARCH:
	case TUI_FILTER:
		st->mode = a == TUI_SEARCH ? TUI_MODE_SEARCH : TUI_MODE_FILTER;
		st->prompt_len = 0;
		st->prompt[0] = '\0';
		if (a == TUI_FILTER) {
			snprintf(st->prompt, sizeof(st->prompt), "%s", st->filter_text);
			st->prompt_len = strlen(st->prompt);
		}
		return 1;
	case TUI_NEXT:
	case TUI_PREV:
		search(st, v, a == TUI_NEXT ? 1 : -1);
		return 1;
	case TUI_NEXT_NONFINITE:
	case TUI_PREV_NONFINITE:
		jump_nonfinite(st, v, a == TUI_NEXT_NONFINITE ? 1 : -1);
		return 1;
	case TUI_PAUSE:
		st->paused = !st->paused;
		return 1;
	case TUI_STAT:
		st->spark_stat = (st->spark_stat + 1) % TUI_STATS;
		return 1;
	case TUI_PLOT:
		toggle_plot(st);
		return 1;
	case TUI_DOWN:
	case TUI_UP:
	case TUI_PGDN:
	case TUI_PGUP:
	case TUI_HOME:
	case TUI_END:
		move_cursor(st, v, a);
		return 1;
	case TUI_ENTER:
		enter(st, v);
		return 1;
	case TUI_TAB:
	case TUI_BACKTAB:
		do {
			st->focus = (enum tui_pane)((st->focus + (a == TUI_TAB ? 1 : TUI_PANES - 1)) % TUI_PANES);
		} while (st->focus == TUI_PANE_DETAIL && !st->detail);
		return 1;
	case TUI_ESC:
		if (st->detail) {
			st->detail = 0;
			if (st->focus == TUI_PANE_DETAIL)
				st->focus = TUI_PANE_TAPS;
		}
		return 1;
	default:
		return 0;
	}
}
