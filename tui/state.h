/* SPDX-License-Identifier: MIT */
/*
 * state.h - what the user did to the view, without any terminal: focus,
 * the cursors of the stream and tap lists (and whether the tap list
 * follows new taps), the detail pane, search, filter, pause, help and
 * prompts.  tui_state_key() applies one key to it, given the lists as the
 * frame shows them (struct tui_view).
 *
 * A list's cursor holds keys, not positions: a tap's index, a stream's
 * key (tui_stream_key); so rows do not move under the cursor when taps
 * arrive or old ones leave the ring.  Lists are sorted by key.
 */
#ifndef HCB_TUI_STATE_H
#define HCB_TUI_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "keys.h"
#include "model.h"

enum tui_pane { TUI_PANE_STREAMS, TUI_PANE_TAPS, TUI_PANE_DETAIL, TUI_PANES };
enum tui_mode { TUI_MODE_NORMAL, TUI_MODE_HELP, TUI_MODE_SEARCH, TUI_MODE_FILTER };

struct tui_cursor {
	uint64_t sel, top;      /* keys of the selected and the first shown row */
	int has_sel;
	int follow;             /* the last row stays selected as rows are added */
};

/* A list's keys, ascending: v[0..n), or first, first + 1, ... when v is
 * NULL (an unfiltered tap list: every tap of a range, nothing stored). */
struct tui_keys {
	const uint64_t *v;
	uint64_t first;
	size_t n;
};

static inline uint64_t tui_key_at(const struct tui_keys *k, size_t i)
{
	return k->v ? k->v[i] : k->first + i;
}

/*
 * Resolve the cursor over keys k shown in h rows: the selected position
 * (the selected key, or the next one if it is gone; the last while
 * following; the first at the start) and the first row shown, moved just
 * enough to keep the selection in view.  Both are written back as keys.
 * An empty list: positions 0.
 */
void tui_cursor_place(struct tui_cursor *c, const struct tui_keys *k, int h, size_t *top, size_t *sel);
/* Move by delta rows, clamped; moving up stops following. */
void tui_cursor_move(struct tui_cursor *c, const struct tui_keys *k, long delta);
/* To the first row (stops following) or the last (follow: follows again). */
void tui_cursor_home(struct tui_cursor *c, const struct tui_keys *k);
void tui_cursor_end(struct tui_cursor *c, const struct tui_keys *k, int follow);

/* First position from `from` going dir (+1/-1), wrapping, not `from`
 * itself unless it is the only match, for which match(ctx, i) holds; -1 if none. */
long tui_find(size_t n, size_t from, int dir, int (*match)(void *ctx, size_t i), void *ctx);

/* The lists one frame shows (filtered), for the keys to act on. */
struct tui_view {
	struct tui_keys streams;        /* stream keys */
	const uint64_t *slast;          /* each stream's last tap index */
	struct tui_keys taps;           /* tap indices */
	/* the consumer of the tap of index i (for search) */
	unsigned int (*tap_cons)(const void *ctx, uint64_t i);
	const void *ctx;
	/* 1 if the tap of index i holds a NaN or inf (] and [), 0 if not,
	 * -EAGAIN if telling would read back more than one key may (the
	 * search stops there and says so; the next ] goes on); NULL: no tap
	 * does */
	int (*tap_nonfinite)(void *nf_ctx, uint64_t i);
	void *nf_ctx;
	const struct tui_consumer *cons;
	unsigned int ncons;
	int multi;                      /* several processes: tui_key_cons's */
	int streams_h, taps_h, detail_h;   /* rows of the lists (titles not counted) */
	int detail_lines;               /* lines of the detail text (0: nothing scrolls) */
};

struct tui_state {
	enum tui_pane focus;
	enum tui_mode mode;
	int paused;
	int detail;             /* the detail pane is open */
	int quit;
	int redraw;             /* clear the screen before the next frame */
	struct tui_cursor streams, taps;
	int detail_top;         /* first line of the detail text shown */
	char search[128];       /* the last search */
	char prompt[128];       /* being typed after / or f */
	size_t prompt_len;
	struct tui_filter filter;
	char filter_text[128];
	char message[160];      /* shown in the footer until the next key */
	int spark_stat;         /* enum hcb_stat the sparkline follows */
	int text_only;          /* the detail shows the text where plot and text do not both fit */
};

void tui_state_init(struct tui_state *st);
/* Apply one key (a getch() code).  Returns 1 if the screen should change. */
int tui_state_key(struct tui_state *st, int key, const struct tui_view *v);

#endif
