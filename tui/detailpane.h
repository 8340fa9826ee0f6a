/* SPDX-License-Identifier: MIT */
/*
 * detailpane.h - what the detail pane shows of the selected tap, laid out
 * for its size: the text (tui/detail.h) and, for a tap with an array of two
 * elements or more, its plot (tui/plot.h: the first such array, a line
 * chart or a heatmap).
 *
 *	BOTH   text and plot fit: all of the text, a caption, the plot below
 *	PLOT   they do not (and the user did not ask for text): the text's first
 *	       line, the plotted array's figures, the plot in the rest
 *	TEXT   nothing to plot, no room for a plot, or text asked for (v): the
 *	       text, scrolled
 */
#ifndef HCB_TUI_DETAILPANE_H
#define HCB_TUI_DETAILPANE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "model.h"
#include "plot.h"

#define TUI_PLOT_MIN_ROWS 5     /* a plot is not drawn smaller */

enum tui_detail_mode { TUI_DETAIL_TEXT, TUI_DETAIL_BOTH, TUI_DETAIL_PLOT };

struct tui_detail_pane {
	enum tui_detail_mode mode;
	struct hcb_buf text;            /* the lines shown (TEXT: scrolled) */
	int lines;
	enum tui_plot_kind kind;        /* what the tap has to plot */
	unsigned int leaf;
	char caption[160];              /* BOTH: the line above the plot */
	struct tui_grid grid;           /* the plot: BOTH and PLOT */
	int grid_y;                     /* its first row in the pane */
	/* what the grid was drawn for: it is not drawn again for the same */
	uint64_t drawn_tap;
	int drawn_rows, drawn_cols, drawn;
	struct tui_plot_style drawn_style;
	double *vals;                   /* the leaf's elements */
	size_t vcap;
};

/*
 * Lay tap t (of consumer c, on platform's device) out in rows x cols: the
 * pane without its title.  text_only: the text where both do not fit.
 * 0 or -ENOMEM.
 */
int tui_detail_pane_build(struct tui_detail_pane *d, const struct tui_consumer *c,
			  const char *platform, const struct tui_tap *t, int rows, int cols,
			  int text_only, const struct tui_plot_style *st);
/* A pane that says why the selected tap cannot be shown. */
int tui_detail_pane_error(struct tui_detail_pane *d, uint64_t index, const char *why);
void tui_detail_pane_free(struct tui_detail_pane *d);

#endif
