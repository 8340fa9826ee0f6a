/* SPDX-License-Identifier: MIT */
/*
 * frame.h - what one frame shows, worked out from the model, a snapshot
 * and the view state, without any terminal: the filtered stream and tap
 * lists, the cursors resolved to rows, the sparkline's streams, the
 * detail text and the layout.  screen.c only draws it.
 */
#ifndef HCB_TUI_FRAME_H
#define HCB_TUI_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "layout.h"
#include "model.h"
#include "state.h"

struct tui_frame {
	/* the stream list (filtered): keys, last tap, index in the snapshot */
	uint64_t *skeys, *slast;
	unsigned int *sidx;
	size_t ns, scap;
	/* the tap list (filtered): tap indices and consumers */
	uint64_t *tkeys;
	unsigned int *tcons;
	size_t nt, tcap;
	/* rows: first shown and selected, per list */
	size_t stop, ssel, ttop, tsel;
	/* the sparkline: the selected stream's consumer on each device (snapshot indices) */
	int spark_cons;                 /* -1: no stream */
	int spark_stat;                 /* enum tui_stat */
	unsigned int spark[TUI_SPARK_MAX];
	int nspark;
	/* the detail pane's text (the selected tap), and its line count */
	struct hcb_buf detail;
	int detail_lines;
	struct tui_layout lay;
	struct tui_view view;           /* the lists, for tui_state_key */
};

/* Build the frame for a rows x cols screen; moves st's cursors as they
 * resolve (following, a selection that left the ring).  -ENOMEM. */
int tui_frame_build(struct tui_frame *f, const struct tui_model *m, const struct tui_snapshot *snap,
		    struct tui_state *st, int rows, int cols);
void tui_frame_free(struct tui_frame *f);

#endif
