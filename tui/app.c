/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <time.h>

#include "core/clock.h"
#include "app.h"
#include "frame.h"
#include "screen.h"
#include "state.h"

#define FRAME_MS 100
#define READ_BACK_MS 40         /* a frame's time for reading sparkline values back */

/* Build and draw a frame under the lock (memory only), show it after. */
static int frame(struct tui_screen *scr, const struct tui_app_opts *o, struct tui_frame *f,
		 struct tui_snapshot *snap, struct tui_state *st, int fresh)
{
	struct tui_model *m = &o->sink->model;
	struct tui_header h = { .source = o->source, .live = o->live };
	int err = 0;

	tui_screen_size(scr);
	tui_sink_lock(o->sink);
	h.session_over = o->sink->done;
	/* paused: the same snapshot, so the screen stays as it was */
	if (fresh) {
		if (o->live)
			tui_model_tick(m, hcb_clock_ns(CLOCK_REALTIME));
		err = tui_snapshot_take(snap, m);
	}
	f->style = tui_screen_plot_style(scr);
	f->budget_ns = READ_BACK_MS * 1000000ull;
	if (!err)
		err = tui_frame_build(f, m, snap, st, scr->rows, scr->cols);
	if (!err)
		tui_screen_draw(scr, f, m, snap, st, &h);
	tui_sink_unlock(o->sink);
	if (!err)
		tui_screen_show(scr);
	return err;
}

int tui_run(const struct tui_app_opts *o)
{
	struct tui_screen scr = { 0 };
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	uint64_t last = 0, now;
	long frames = 0, since;
	int err, key, dirty = 1;

	tui_state_init(&st);
	/* a recording opens at its first tap, a live session follows its latest */
	st.taps.follow = o->live;
	err = tui_screen_open(&scr);
	if (err)
		return err;
	while (!st.quit && !(o->stop && *o->stop)) {
		now = hcb_clock_ns(CLOCK_MONOTONIC);
		if (dirty || (!st.paused && now - last >= FRAME_MS * 1000000ull)) {
			/* a paused screen changes only for the keys */
			err = frame(&scr, o, &f, &snap, &st, !st.paused || !snap.limit);
			if (err)
				break;
			last = now;
			/* values still to read back: another frame soon, paused or not */
			dirty = f.pending;
			if (o->max_frames > 0 && ++frames >= o->max_frames)
				break;
		}
		since = (long)((hcb_clock_ns(CLOCK_MONOTONIC) - last) / 1000000u);
		key = tui_screen_key(&scr, st.paused ? FRAME_MS : since >= FRAME_MS ? 1 : FRAME_MS - (int)since);
		/* every key waiting, then one frame */
		while (key >= 0 && !st.quit) {
			int was_paused = st.paused;

			tui_sink_lock(o->sink);
			dirty |= tui_state_key(&st, key, &f.view);
			tui_sink_unlock(o->sink);
			/* unpausing shows what came meanwhile at once */
			if (was_paused && !st.paused)
				last = 0;
			key = tui_screen_key(&scr, 0);
		}
	}
	tui_screen_close(&scr);
	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	return err;
}
