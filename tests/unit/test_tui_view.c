/* SPDX-License-Identifier: MIT */
/*
 * test_tui_view.c - the viewer's logic that has no model in it: list
 * cursors (follow, scroll, keep in view), search with wrap-around, ] and [
 * to the taps holding NaN or inf, keys and prompts (tui/state.h,
 * tui/keys.h), the layout at 80x24 and other sizes (tui/layout.h),
 * sparkline binning and glyphs (tui/sparkline.h), and the per array
 * statistics (tui/stats.h).
 */
#include <curses.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tui/keys.h"
#include "../../tui/layout.h"
#include "../../tui/sparkline.h"
#include "../../tui/state.h"
#include "core/wire.h"

/* ---- cursors ---- */

/* keys[0..n) as a list's keys */
#define K(keys, n) (&(struct tui_keys){ (keys), 0, (n) })

static void test_cursor_follow_and_scroll(void **state)
{
	uint64_t keys[100];
	struct tui_cursor c = { .follow = 1 };
	size_t top, sel;

	(void)state;
	for (int i = 0; i < 100; i++)
		keys[i] = 1000 + 2 * (uint64_t)i;
	tui_cursor_place(&c, K(keys, 10), 5, &top, &sel);
	assert_int_equal(sel, 9);
	assert_int_equal(top, 5);
	/* more rows: still the last, at the bottom */
	tui_cursor_place(&c, K(keys, 50), 5, &top, &sel);
	assert_int_equal(sel, 49);
	assert_int_equal(top, 45);
	/* up: stops following; the rows do not move as rows are added */
	tui_cursor_move(&c, K(keys, 50), -1);
	assert_false(c.follow);
	tui_cursor_place(&c, K(keys, 100), 5, &top, &sel);
	assert_int_equal(sel, 48);
	assert_int_equal(top, 45);
	/* a page up keeps the selection in view */
	tui_cursor_move(&c, K(keys, 100), -5);
	tui_cursor_place(&c, K(keys, 100), 5, &top, &sel);
	assert_int_equal(sel, 43);
	assert_int_equal(top, 43);
	/* the selected row leaves (the ring let it go): the next one */
	tui_cursor_place(&c, K(keys + 60, 40), 5, &top, &sel);
	assert_int_equal(sel, 0);
	assert_int_equal(keys[60 + sel], c.sel);
	/* clamped at both ends */
	tui_cursor_move(&c, K(keys, 100), -1000);
	tui_cursor_place(&c, K(keys, 100), 5, &top, &sel);
	assert_int_equal(sel, 0);
	tui_cursor_move(&c, K(keys, 100), 1000);
	tui_cursor_place(&c, K(keys, 100), 5, &top, &sel);
	assert_int_equal(sel, 99);
	assert_false(c.follow);     /* only End follows again */
	tui_cursor_home(&c, K(keys, 100));
	tui_cursor_end(&c, K(keys, 100), 1);
	assert_true(c.follow);
	/* empty list */
	tui_cursor_place(&c, K(keys, 0), 5, &top, &sel);
	assert_int_equal(sel, 0);
}

/* A list of every key from 1000 on, none stored: the same moves. */
static void test_cursor_over_a_range(void **state)
{
	struct tui_keys all = { NULL, 1000, 100000 };
	struct tui_cursor c = { 0 };
	size_t top, sel;

	(void)state;
	tui_cursor_place(&c, &all, 10, &top, &sel);
	assert_int_equal(sel, 0);
	assert_int_equal(c.sel, 1000);
	tui_cursor_move(&c, &all, 25);
	tui_cursor_place(&c, &all, 10, &top, &sel);
	assert_int_equal(sel, 25);
	assert_int_equal(top, 16);
	assert_int_equal(c.sel, 1025);
	tui_cursor_end(&c, &all, 0);
	tui_cursor_place(&c, &all, 10, &top, &sel);
	assert_int_equal(sel, 99999);
	assert_int_equal(c.sel, 100999);
	assert_false(c.follow);
	/* the range starts later (a ring let the first go): the next key */
	c.sel = 1500;
	c.top = 1490;
	all.first = 2000;
	tui_cursor_place(&c, &all, 10, &top, &sel);
	assert_int_equal(sel, 0);
	assert_int_equal(c.sel, 2000);
	tui_cursor_home(&c, &all);
	assert_int_equal(c.sel, 2000);
}

static int is_odd(void *ctx, size_t i)
{
	(void)ctx;
	return i % 2 == 1;
}

static int none(void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
	return 0;
}

static void test_find_wraps(void **state)
{
	(void)state;
	assert_int_equal(tui_find(10, 3, 1, is_odd, NULL), 5);
	assert_int_equal(tui_find(10, 9, 1, is_odd, NULL), 1);
	assert_int_equal(tui_find(10, 1, -1, is_odd, NULL), 9);
	assert_int_equal(tui_find(10, 4, -1, is_odd, NULL), 3);
	assert_int_equal(tui_find(2, 1, 1, is_odd, NULL), 1);   /* the only match */
	assert_int_equal(tui_find(10, 0, 1, none, NULL), -1);
	assert_int_equal(tui_find(0, 0, 1, is_odd, NULL), -1);
}

/* ---- keys and state ---- */

static struct hcb_consumer cons_c[2] = {
	{ .id = 1, .name = "loss" },
	{ .id = 2, .name = "field" },
};
static struct tui_consumer cons[2] = {
	{ .c = &cons_c[0], .label = "loss what: loss", .kwtext = "what: loss" },
	{ .c = &cons_c[1], .label = "field what: field", .kwtext = "what: field" },
};

/* taps 10, 12, 14 are loss's, 11, 13, 15 field's */
static unsigned int tap_cons(const void *ctx, uint64_t i)
{
	(void)ctx;
	return (unsigned int)(i % 2);
}

static void keys_to(struct tui_state *st, const char *s, const struct tui_view *v)
{
	for (; *s; s++)
		tui_state_key(st, *s == '\n' ? '\r' : *s, v);
}

static void test_keys_search_pause_help(void **state)
{
	uint64_t skeys[2] = { 0, 1 }, slast[2] = { 14, 15 };
	/* taps 10 to 15, every one of them: no keys stored */
	struct tui_view v = { .streams = { skeys, 0, 2 }, .slast = slast, .taps = { NULL, 10, 6 },
			      .tap_cons = tap_cons, .cons = cons, .ncons = 2, .streams_h = 4,
			      .taps_h = 4, .detail_h = 4, .detail_lines = 10 };
	struct tui_state st;
	size_t top, sel;

	(void)state;
	assert_int_equal(tui_key_action('q'), TUI_QUIT);
	assert_int_equal(tui_key_action(KEY_END), TUI_END);
	assert_int_equal(tui_key_action(KEY_RESIZE), TUI_RESIZE);
	assert_int_equal(tui_key_action('Z'), TUI_NONE);

	tui_state_init(&st);
	assert_int_equal(st.focus, TUI_PANE_TAPS);
	assert_true(st.taps.follow);
	/* / from a following list: the latest match, and following stops */
	keys_to(&st, "/FIELD\n", &v);
	assert_int_equal(st.mode, TUI_MODE_NORMAL);
	assert_string_equal(st.search, "FIELD");
	assert_false(st.taps.follow);
	assert_int_equal(st.taps.sel, 13);
	keys_to(&st, "n", &v);
	assert_int_equal(st.taps.sel, 15);
	keys_to(&st, "n", &v);
	assert_int_equal(st.taps.sel, 11);     /* wrapped */
	keys_to(&st, "N", &v);
	assert_int_equal(st.taps.sel, 15);
	keys_to(&st, "/nothing\n", &v);
	assert_int_equal(st.taps.sel, 15);
	assert_non_null(strstr(st.message, "not found"));
	/* Esc leaves a prompt without searching */
	keys_to(&st, "/loss", &v);
	tui_state_key(&st, 27, &v);
	assert_int_equal(st.mode, TUI_MODE_NORMAL);
	assert_string_equal(st.search, "nothing");

	/* space pauses and resumes */
	keys_to(&st, " ", &v);
	assert_true(st.paused);
	keys_to(&st, " ", &v);
	assert_false(st.paused);
	/* ? opens the help, any key closes it (q too, without quitting) */
	keys_to(&st, "?", &v);
	assert_int_equal(st.mode, TUI_MODE_HELP);
	keys_to(&st, "q", &v);
	assert_int_equal(st.mode, TUI_MODE_NORMAL);
	assert_false(st.quit);

	/* Tab: streams (the detail pane is closed), then taps */
	keys_to(&st, "\t", &v);
	assert_int_equal(st.focus, TUI_PANE_STREAMS);
	keys_to(&st, "j", &v);
	tui_cursor_place(&st.streams, K(skeys, 2), 4, &top, &sel);
	assert_int_equal(sel, 1);
	/* Enter on a stream: its latest tap in the detail pane */
	keys_to(&st, "\n", &v);
	assert_true(st.detail);
	assert_int_equal(st.focus, TUI_PANE_TAPS);
	assert_int_equal(st.taps.sel, 15);
	/* Tab reaches the detail pane now; j scrolls it, within its text */
	keys_to(&st, "\t", &v);
	assert_int_equal(st.focus, TUI_PANE_DETAIL);
	tui_state_key(&st, KEY_NPAGE, &v);
	tui_state_key(&st, KEY_NPAGE, &v);
	assert_int_equal(st.detail_top, 6);
	keys_to(&st, "k", &v);
	assert_int_equal(st.detail_top, 5);
	tui_state_key(&st, 27, &v);
	assert_false(st.detail);
	assert_int_equal(st.focus, TUI_PANE_TAPS);
	/* a bad filter is refused, the old one kept: a device is any u32
	 * (jax's 2048 on), past it is none */
	keys_to(&st, "f2\n", &v);
	assert_int_equal(st.filter.device, 2);
	keys_to(&st, "f", &v);
	assert_string_equal(st.prompt, "2");
	tui_state_key(&st, 127, &v);
	keys_to(&st, "4294967296\n", &v);
	assert_int_equal(st.filter.device, 2);
	assert_non_null(strstr(st.message, "no device 4294967296"));
	keys_to(&st, "f", &v);
	tui_state_key(&st, 127, &v);
	keys_to(&st, "2048\n", &v);
	assert_int_equal(st.filter.device, 2048);
	/* v: the text or the plot where both do not fit */
	assert_false(st.text_only);
	keys_to(&st, "v", &v);
	assert_true(st.text_only);
	assert_non_null(strstr(st.message, "the text"));
	keys_to(&st, "v", &v);
	assert_false(st.text_only);
	keys_to(&st, "q", &v);
	assert_true(st.quit);
}

/* taps 10 .. 15, 12 and 15 holding a NaN or inf; counting the questions */
static int nf_asked;
static int tap_nonfinite(void *ctx, uint64_t i)
{
	(void)ctx;
	nf_asked++;
	return i == 12 || i == 15;
}

static void test_keys_jump_to_nonfinite(void **state)
{
	uint64_t skeys[2] = { 0, 1 }, slast[2] = { 14, 15 }, tkeys[3] = { 10, 12, 14 };
	struct tui_view v = { .streams = { skeys, 0, 2 }, .slast = slast, .taps = { NULL, 10, 6 },
			      .tap_cons = tap_cons, .tap_nonfinite = tap_nonfinite, .cons = cons,
			      .ncons = 2, .streams_h = 4, .taps_h = 4, .detail_h = 4 };
	struct tui_state st;

	(void)state;
	assert_int_equal(tui_key_action(']'), TUI_NEXT_NONFINITE);
	assert_int_equal(tui_key_action('['), TUI_PREV_NONFINITE);
	tui_state_init(&st);
	/* from a following list: round to the first; then on */
	keys_to(&st, "]", &v);
	assert_false(st.taps.follow);
	assert_int_equal(st.taps.sel, 12);
	assert_string_equal(st.message, "NaN or inf: row 3 of 6 (wrapped round)");
	keys_to(&st, "]", &v);
	assert_int_equal(st.taps.sel, 15);
	assert_string_equal(st.message, "NaN or inf: row 6 of 6");
	keys_to(&st, "[", &v);
	assert_int_equal(st.taps.sel, 12);
	keys_to(&st, "[", &v);
	assert_int_equal(st.taps.sel, 15);
	/* nothing selected yet: the first row counts */
	tui_state_init(&st);
	st.taps.follow = 0;
	keys_to(&st, "]", &v);
	assert_int_equal(st.taps.sel, 12);
	assert_string_equal(st.message, "NaN or inf: row 3 of 6");
	/* a list of one such tap: it, from anywhere, asking each row once */
	v.taps = (struct tui_keys){ tkeys, 0, 3 };
	st.taps.sel = 14;
	nf_asked = 0;
	keys_to(&st, "]", &v);
	assert_int_equal(st.taps.sel, 12);
	assert_true(nf_asked <= 3);
	/* none: the cursor stays where it was */
	v.taps = (struct tui_keys){ tkeys, 0, 1 };
	st.taps.sel = 10;
	keys_to(&st, "[", &v);
	assert_int_equal(st.taps.sel, 10);
	assert_string_equal(st.message, "no tap holds a NaN or inf");
	/* a view that cannot tell: none either */
	v.tap_nonfinite = NULL;
	keys_to(&st, "]", &v);
	assert_string_equal(st.message, "no tap holds a NaN or inf");
}

static void test_footer_fits(void **state)
{
	char buf[256];

	(void)state;
	tui_footer_keys(buf, sizeof(buf), 80);
	assert_true(strlen(buf) <= 80);
	assert_non_null(strstr(buf, "q quit"));
	assert_non_null(strstr(buf, "? help"));
	tui_footer_keys(buf, sizeof(buf), 20);
	assert_true(strlen(buf) <= 20);
	assert_string_equal(buf, "q quit ? help");
	tui_footer_keys(buf, 8, 200);
	assert_true(strlen(buf) < 8);
}

/* ---- layout ---- */

static void check_stack(const struct tui_layout *l, int rows, int cols)
{
	const struct tui_rect *r[] = { &l->header, &l->streams, &l->spark, &l->taps, &l->detail, &l->footer };
	int y = 0;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if (!r[i]->h)
			continue;
		assert_int_equal(r[i]->y, y);
		assert_int_equal(r[i]->w, cols);
		y += r[i]->h;
	}
	assert_int_equal(y, rows);
}

static void test_layout(void **state)
{
	struct tui_layout l;

	(void)state;
	/* 80x24, 20 streams, 4 devices */
	tui_layout_compute(&l, 24, 80, 20, 4, 0);
	assert_true(l.ok);
	check_stack(&l, 24, 80);
	assert_int_equal(l.streams.h, 7);
	assert_int_equal(l.spark.h, 5);
	assert_int_equal(l.taps.h, 10);
	assert_int_equal(l.detail.h, 0);
	/* the detail open: no sparkline, most of the room for the detail */
	tui_layout_compute(&l, 24, 80, 20, 4, 1);
	check_stack(&l, 24, 80);
	assert_int_equal(l.spark.h, 0);
	assert_true(l.detail.h >= 10);
	assert_true(l.taps.h >= 2 && l.streams.h >= 2);
	/* few streams take few rows */
	tui_layout_compute(&l, 50, 120, 2, 1, 0);
	check_stack(&l, 50, 120);
	assert_int_equal(l.streams.h, 3);
	assert_int_equal(l.spark.h, 2);
	/* many devices: the sparkline stops at TUI_SPARK_MAX rows */
	tui_layout_compute(&l, 60, 100, 1000, 64, 0);
	check_stack(&l, 60, 100);
	assert_int_equal(l.spark.h, TUI_SPARK_MAX + 1);
	/* small: the sparkline gives way to the taps */
	tui_layout_compute(&l, 12, 40, 20, 4, 0);
	check_stack(&l, 12, 40);
	assert_true(l.taps.h >= 4);
	/* too small: only the header */
	tui_layout_compute(&l, 9, 80, 20, 4, 0);
	assert_false(l.ok);
	assert_int_equal(l.header.h, 1);
	assert_int_equal(l.taps.h, 0);
	tui_layout_compute(&l, 24, 39, 20, 4, 0);
	assert_false(l.ok);
}

/* ---- sparkline ---- */

static void test_sparkline(void **state)
{
	double v[16], bins[16], lo, hi;
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	for (int i = 0; i < 8; i++)
		v[i] = i;
	tui_spark_range(v, 8, &lo, &hi);
	assert_true(lo == 0 && hi == 7);
	assert_int_equal(tui_spark_render(&b, v, 8, lo, hi, 0), 0);
	assert_string_equal(hcb_buf_str(&b), "_.-:=+*#");
	hcb_buf_reset(&b);
	assert_int_equal(tui_spark_render(&b, v, 8, lo, hi, 1), 0);
	assert_string_equal(hcb_buf_str(&b), "▁▂▃▄▅▆▇█");
	/* NaN is a blank; a flat series sits in the middle */
	hcb_buf_reset(&b);
	v[0] = NAN;
	v[1] = v[2] = 5;
	assert_int_equal(tui_spark_render(&b, v, 3, 5, 5, 0), 0);
	assert_string_equal(hcb_buf_str(&b), " ::");
	/* binning: 16 values into 4 columns of 4, NaNs left out */
	for (int i = 0; i < 16; i++)
		v[i] = i;
	v[0] = NAN;
	assert_int_equal(tui_spark_bin(v, 16, 4, bins), 4);
	assert_true(bins[0] == 2 && bins[1] == 5.5 && bins[2] == 9.5 && bins[3] == 13.5);
	/* uneven: every value in exactly one column, the newest in the last */
	assert_int_equal(tui_spark_bin(v, 10, 3, bins), 3);
	assert_true(bins[2] == 7.5);  /* values 6..9 */
	/* fewer values than columns: as they are */
	assert_int_equal(tui_spark_bin(v + 1, 3, 10, bins), 3);
	assert_true(bins[0] == 1 && bins[2] == 3);
	assert_int_equal(tui_spark_bin(v, 0, 10, bins), 0);
	tui_spark_range(v, 1, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
	hcb_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_follow_and_scroll),
		cmocka_unit_test(test_cursor_over_a_range),
		cmocka_unit_test(test_find_wraps),
		cmocka_unit_test(test_keys_search_pause_help),
		cmocka_unit_test(test_keys_jump_to_nonfinite),
		cmocka_unit_test(test_footer_fits),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_sparkline),
	};

	return cmocka_run_group_tests_name("tui_view", tests, NULL, NULL);
}
