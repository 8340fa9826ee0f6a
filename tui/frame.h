/* SPDX-License-Identifier: MIT */
/*
 * frame.h - what one frame shows, worked out from the model, a snapshot
 * and the view state, without any terminal: the filtered stream and tap
 * lists, the cursors resolved to rows, the rows shown (read back from a
 * recording browsed in place, tui/model_read.c), the sparkline's values, the
 * detail pane (text and plot) and the layout.  screen.c only draws it.
 */
#ifndef HCB_TUI_FRAME_H
#define HCB_TUI_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "detailpane.h"
#include "layout.h"
#include "model.h"
#include "plot.h"
#include "state.h"

struct tui_frame {
	/* the stream list (filtered): keys, last tap, index in the snapshot */
	uint64_t *skeys, *slast;
	unsigned int *sidx;
	size_t ns, scap;
	/* the tap list: every tap of a range (unfiltered), or those listed in
	 * tkeys; a recording's filtered list grows with its index */
	struct tui_keys taps;
	uint64_t *tkeys;
	size_t nt, tcap;
	struct tui_filter tfilter;      /* what tkeys was built for, up to tbuilt */
	uint64_t tbuilt;
	int tvalid;
	/* rows: first shown and selected, per list */
	size_t stop, ssel, ttop, tsel;
	/* the rows shown: taps (index UINT64_MAX: none), and the shown
	 * streams' last taps */
	struct tui_row *rows, *srows;
	size_t rcap, srcap;
	int nrows, nsrows;
	/* the sparkline: the selected stream's consumer on each device
	 * (snapshot indices), and their values, oldest first */
	int spark_cons;                 /* -1: no stream */
	int spark_stat;                 /* enum hcb_stat (< TUI_STATS) */
	unsigned int spark[TUI_SPARK_MAX];
	int nspark;
	double spark_vals[TUI_SPARK_MAX][TUI_HIST];
	unsigned int spark_len[TUI_SPARK_MAX];
	/* set by the caller: the time a frame may spend reading sparkline
	 * values back (0: no limit), and how the terminal draws plots */
	uint64_t budget_ns;
	struct tui_plot_style style;
	int pending;                    /* values left to read: build again soon */
	struct tui_detail_pane detail;
	struct tui_layout lay;
	struct tui_view view;           /* the lists, for tui_state_key */
	/* ] and [ in a recording: taps they may still read back until the
	 * next frame (TUI_NONFINITE_READS each), since when (CLOCK_MONOTONIC;
	 * 0: none read yet), and the model they read */
	uint64_t nf_reads_left, nf_since_ns;
	struct tui_model *nf_model;
};

/* What a ] or [ reads back at most before it stops and says so, so that a
 * key never freezes the screen for long: taps, and time (large taps) */
#define TUI_NONFINITE_READS 100000u
#define TUI_NONFINITE_NS 1000000000ull

/* Build the frame for a rows x cols screen; moves st's cursors as they
 * resolve (following, a selection that left the ring).  -ENOMEM. */
int tui_frame_build(struct tui_frame *f, struct tui_model *m, const struct tui_snapshot *snap,
		    struct tui_state *st, int rows, int cols);
void tui_frame_free(struct tui_frame *f);

#endif
