/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "layout.h"

static int min(int a, int b)
{
	return a < b ? a : b;
}

static int max(int a, int b)
{
	return a > b ? a : b;
}

static struct tui_rect rows_at(int *y, int h, int cols)
{
	struct tui_rect r = { .y = *y, .x = 0, .h = h, .w = cols };

	*y += h;
	return r;
}

void tui_layout_compute(struct tui_layout *l, int rows, int cols, int nstreams, int nspark,
			int detail)
{
	int body, streams, spark = 0, taps, y = 0;

	memset(l, 0, sizeof(*l));
	if (rows < 1 || cols < 1)
		return;
	l->header = (struct tui_rect){ 0, 0, 1, cols };
	if (rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS)
		return;
	l->ok = 1;
	y = 1;
	body = rows - 2;
	if (nstreams < 1)
		nstreams = 1;
	if (nspark > TUI_SPARK_MAX)
		nspark = TUI_SPARK_MAX;
	if (detail) {
		/* the detail gets most of it; streams and taps stay in view */
		streams = min(nstreams + 1, max(2, body / 6));
		taps = max(2, (body - streams) / 3);
		l->streams = rows_at(&y, streams, cols);
		l->taps = rows_at(&y, taps, cols);
		l->detail = rows_at(&y, body - streams - taps, cols);
	} else {
		streams = min(nstreams + 1, max(2, body / 3));
		/* a sparkline needs the taps pane to keep a few rows */
		if (nspark > 0) {
			spark = min(nspark + 1, body - streams - 4);
			if (spark < 2)
				spark = 0;
		}
		taps = body - streams - spark;
		l->streams = rows_at(&y, streams, cols);
		if (spark)
			l->spark = rows_at(&y, spark, cols);
		l->taps = rows_at(&y, taps, cols);
	}
	l->footer = (struct tui_rect){ rows - 1, 0, 1, cols };
}
