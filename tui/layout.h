/* SPDX-License-Identifier: MIT */
/*
 * layout.h - where each pane goes on a rows x cols screen, a pure function
 * of the size and what there is to show.  Every pane starts with a title
 * row; panes are stacked top to bottom, full width:
 *
 *	header                         1 row
 *	streams (title + list)         about a third, fewer when there are few
 *	sparkline (title + 1/device)   when the detail pane is closed and there is room
 *	taps (title + list)            the rest, or a third when the detail is open
 *	detail (title + text)          when open: the rest
 *	footer (the keys)              1 row
 */
#ifndef HCB_TUI_LAYOUT_H
#define HCB_TUI_LAYOUT_H

#define TUI_MIN_ROWS 10
#define TUI_MIN_COLS 40
#define TUI_SPARK_MAX 8        /* device rows in the sparkline pane at most */

struct tui_rect {
	int y, x, h, w;         /* h == 0: not shown */
};

struct tui_layout {
	int ok;                 /* 0: too small; only the header says so */
	struct tui_rect header, streams, spark, taps, detail, footer;
};

/* nstreams: rows the stream list would like; nspark: sparkline rows
 * (devices of the selected consumer); detail: the detail pane is open. */
void tui_layout_compute(struct tui_layout *l, int rows, int cols, int nstreams, int nspark,
			int detail);

#endif
