/* SPDX-License-Identifier: MIT */
/*
 * screen.h - the terminal (curses): set up and restore it, read keys,
 * draw a frame (tui/frame.h).  The only file of the viewer that calls
 * curses.  Drawing goes to curses' buffers (wnoutrefresh); tui_screen_show
 * sends the changes to the terminal (doupdate), outside any lock.
 */
#ifndef HCB_TUI_SCREEN_H
#define HCB_TUI_SCREEN_H

#include "frame.h"
#include "model.h"
#include "plot.h"
#include "state.h"

struct tui_screen {
	int rows, cols;
	int utf8;       /* the locale's charset is UTF-8: block glyphs */
	int color;      /* colours (off with NO_COLOR or a terminal without) */
	int levels;     /* heatmap colours (0: too few colour pairs: the grey ramp) */
};

/* How this terminal draws plots (tui/plot.h). */
struct tui_plot_style tui_screen_plot_style(const struct tui_screen *s);

/* Take over the terminal (stdin and stdout).  -ENOTTY if curses cannot. */
int tui_screen_open(struct tui_screen *s);
void tui_screen_close(struct tui_screen *s);
/* A key, or -1 after timeout_ms. */
int tui_screen_key(struct tui_screen *s, int timeout_ms);
/* Current size (after a resize). */
void tui_screen_size(struct tui_screen *s);

/* What the header says about the source: "pid 123 (prog)" or a file name. */
struct tui_header {
	const char *source;
	int live;
	int session_over;       /* live: the session ended (target gone) */
};

/* Draw the frame into curses' buffers; clear first when st->redraw. */
void tui_screen_draw(struct tui_screen *s, const struct tui_frame *f, const struct tui_model *m,
		     const struct tui_snapshot *snap, struct tui_state *st,
		     const struct tui_header *h);
/* Send the drawn frame to the terminal. */
void tui_screen_show(struct tui_screen *s);

#endif
