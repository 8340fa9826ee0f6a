/* SPDX-License-Identifier: MIT */
/*
 * test_tui_model.c - the viewer's model (tui/model.h) and frames
 * (tui/frame.h): streams per device and consumer, the bounded ring of taps
 * (by count and by bytes, evicted taps counted), drop records, the view
 * filter and search, snapshots that stay frozen while taps keep coming,
 * the detail text (id_print plus min/max/mean, and a tap's device copy
 * where it has one), and taps holding NaN or inf marked as they come.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tui/detail.h"
#include "../../tui/frame.h"
#include "../../tui/model.h"
#include "../../tui/state.h"
#include "core/consumer.h"
#include "testcons.h"

/* ---- consumers and taps ---- */

static struct hcb_consumer *consumer(const char *name, uint32_t id, const char *what,
				     unsigned int dtype, uint64_t n)
{
	return test_leaf_consumer(name, id, what, dtype, n ? 1 : 0, n, 0);
}

static void tap(struct tui_model *m, const struct hcb_consumer *c, uint32_t device, uint64_t seq,
		const void *payload)
{
	struct hcb_record r = { .kind = HCB_REC_TAP };

	r.tap.device = device;
	r.tap.seq = seq;
	r.tap.wall_ns = 1000000000ull * (seq + 1);
	r.tap.consumer = c;
	r.tap.payload = payload;
	assert_int_equal(tui_model_add(m, &r), 0);
}

static void scalar_tap(struct tui_model *m, const struct hcb_consumer *c, uint32_t device,
		       uint64_t seq, float v)
{
	tap(m, c, device, seq, &v);
}

/* ---- tests ---- */

static void test_streams_per_device_and_consumer(void **state)
{
	struct hcb_consumer *loss = consumer("loss", 1, "loss", HCB_DT_FLOAT32, 0);
	struct hcb_consumer *field = consumer("field", 2, "field", HCB_DT_FLOAT32, 4);
	float f[4] = { 1, 2, 3, 6 };
	struct tui_snapshot snap = { 0 };
	struct tui_model m;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	for (uint32_t d = 0; d < 4; d++) {
		for (uint64_t s = 0; s < 3; s++) {
			scalar_tap(&m, loss, 3 - d, 2 * s, (float)s);
			tap(&m, field, 3 - d, 2 * s + 1, f);
		}
	}
	assert_int_equal(m.received, 24);
	assert_int_equal(m.nstreams, 8);
	assert_int_equal(m.ncons, 2);
	/* the model's own copies: the originals can go */
	hcb_consumer_free(loss);
	hcb_consumer_free(field);
	assert_string_equal(m.cons[0].c->name, "loss");
	assert_string_equal(m.cons[0].label, "loss what: loss");
	/* the snapshot sorts by device, then consumer in first-seen order */
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	assert_int_equal(snap.nstreams, 8);
	for (unsigned int i = 0; i < 8; i++) {
		assert_int_equal(snap.streams[i].device, i / 2);
		assert_int_equal(snap.streams[i].cons, i % 2);
		assert_int_equal(snap.streams[i].count, 3);
	}
	/* a stream's sparkline values: scalars as they are, arrays their mean */
	{
		double h[TUI_HIST];

		assert_int_equal(tui_stream_history(&snap.streams[0], HCB_STAT_MEAN, h), 3);
		assert_true(h[0] == 0 && h[1] == 1 && h[2] == 2);
		assert_int_equal(tui_stream_history(&snap.streams[1], HCB_STAT_MEAN, h), 3);
		assert_true(h[2] == 3);
	}
	tui_model_rates_from_ts(&m);
	/* 3 taps 4 seconds apart: 2 intervals over 4 s */
	assert_true(fabs(m.streams[0].rate - 0.5) < 1e-9);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
}

static void test_ring_evicts_by_count_and_bytes(void **state)
{
	struct hcb_consumer *big = consumer("big", 7, "big", HCB_DT_FLOAT64, 128);   /* 1 KiB */
	double data[128] = { 0 };
	struct tui_model m;

	(void)state;
	assert_int_equal(tui_model_init(&m, 10, 0), 0);
	for (uint64_t s = 0; s < 25; s++) {
		data[0] = (double)s;
		tap(&m, big, 0, s, data);
	}
	assert_int_equal(m.received, 25);
	assert_int_equal(m.first, 15);
	assert_int_equal(m.evicted, 15);
	assert_null(tui_model_tap(&m, 14));
	assert_non_null(tui_model_tap(&m, 15));
	assert_int_equal(tui_model_tap(&m, 24)->seq, 24);
	assert_null(tui_model_tap(&m, 25));
	/* the stream keeps counting what the ring let go */
	assert_int_equal(m.streams[0].count, 25);
	tui_model_free(&m);

	/* 3.5 KiB of room: three taps of 1 KiB */
	assert_int_equal(tui_model_init(&m, 100, 3584), 0);
	for (uint64_t s = 0; s < 8; s++)
		tap(&m, big, 1, s, data);
	assert_int_equal(m.received - m.first, 3);
	assert_int_equal(m.ring_bytes, 3072);
	assert_int_equal(m.evicted, 5);
	tui_model_free(&m);

	/* a tap larger than the whole room is still held, alone */
	assert_int_equal(tui_model_init(&m, 100, 100), 0);
	tap(&m, big, 0, 0, data);
	tap(&m, big, 0, 1, data);
	assert_int_equal(m.received - m.first, 1);
	assert_non_null(tui_model_tap(&m, 1));
	tui_model_free(&m);
	hcb_consumer_free(big);
}

/* A live tap holding NaN or inf is marked as it comes: its row says so,
 * every frame, without looking again; an evicted one is no answer. */
static void test_nonfinite_marked_as_it_comes(void **state)
{
	struct hcb_consumer *v = consumer("v", 3, "v", HCB_DT_BFLOAT16, 4);
	struct hcb_consumer *loss = consumer("loss", 1, "loss", HCB_DT_FLOAT64, 0);
	uint16_t fine[4] = { 0x3f80, 0x4000, 0, 0x8000 }, bad[4] = { 0x3f80, 0, 0xff80, 0 };
	struct tui_model m;
	struct tui_row r;
	double d;

	(void)state;
	assert_int_equal(tui_model_init(&m, 4, 0), 0);
	tap(&m, v, 0, 0, fine);
	tap(&m, v, 0, 1, bad);              /* -inf at element 2 */
	d = NAN;
	tap(&m, loss, 1, 0, &d);
	d = 1e308;
	tap(&m, loss, 1, 1, &d);
	assert_int_equal(tui_model_nonfinite(&m, 0, 0), 0);
	assert_int_equal(tui_model_nonfinite(&m, 1, 0), 1);
	assert_int_equal(tui_model_nonfinite(&m, 2, 0), 1);
	assert_int_equal(tui_model_nonfinite(&m, 3, 0), 0);
	assert_int_equal(tui_model_row(&m, 1, &r), 0);
	assert_true(r.nonfinite);
	assert_int_equal(tui_model_row(&m, 3, &r), 0);
	assert_false(r.nonfinite);
	tap(&m, v, 0, 2, fine);             /* tap 0 leaves the ring of 4 */
	assert_int_equal(tui_model_nonfinite(&m, 0, 0), -ENOENT);
	assert_int_equal(tui_model_nonfinite(&m, 5, 0), -ENOENT);
	tui_model_free(&m);
	hcb_consumer_free(v);
	hcb_consumer_free(loss);
}

static void test_drops_and_end(void **state)
{
	struct hcb_record r = { .kind = HCB_REC_DROP };
	struct tui_snapshot snap = { 0 };
	struct tui_model m;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	r.drop.device = 2;
	r.drop.count = 5;
	assert_int_equal(tui_model_add(&m, &r), 0);
	r.drop.device = 2;
	r.drop.count = 1;
	assert_int_equal(tui_model_add(&m, &r), 0);
	r = (struct hcb_record){ .kind = HCB_REC_SESSION };
	r.session.pid = 42;
	snprintf(r.session.platform, sizeof(r.session.platform), "gpu");
	assert_int_equal(tui_model_add(&m, &r), 0);
	r = (struct hcb_record){ .kind = HCB_REC_END };
	assert_int_equal(tui_model_add(&m, &r), 0);
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	assert_int_equal(tui_model_drops(&m, 2), 6);
	assert_int_equal(tui_model_drops(&m, 3), 0);
	assert_int_equal(snap.dropped, 6);
	assert_true(snap.ended);
	assert_string_equal(m.platform, "gpu");
	assert_int_equal(m.pid, 42);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
}

/* Drop records of any device id, ten thousand and more distinct: counted per
 * device up to TUI_DROP_DEVICES of them, past that in the total alone. */
static void test_drops_of_many_devices(void **state)
{
	struct hcb_record r = { .kind = HCB_REC_DROP };
	struct tui_model m;
	const uint32_t n = TUI_DROP_DEVICES + 5000;
	uint64_t total = 10;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	for (uint32_t i = 0; i < n; i++) {
		r.drop.device = 0xffffffffu - i * 7919u;
		r.drop.count = 1 + i % 3;
		total += r.drop.count;
		assert_int_equal(tui_model_add(&m, &r), 0);
	}
	r.drop.device = 0xffffffffu;
	r.drop.count = 10;
	assert_int_equal(tui_model_add(&m, &r), 0);
	assert_int_equal(tui_model_drops(&m, 0xffffffffu), 11);
	assert_int_equal(tui_model_drops(&m, 0xffffffffu - 7919u), 2);
	assert_int_equal(m.ndevdrops, TUI_DROP_DEVICES);
	assert_true(m.devdrops_cap <= 2 * TUI_DROP_DEVICES);
	assert_int_equal(tui_model_drops(&m, 0xffffffffu - (n - 1) * 7919u), 0);
	/* the total has them all */
	assert_int_equal(m.dropped, total);
	tui_model_free(&m);
}

static void test_filter_and_search_match(void **state)
{
	struct hcb_consumer *c = consumer("power3", 9, "x,x^2", HCB_DT_FLOAT32, 0);
	struct tui_filter f;
	struct tui_model m;
	float v = 1;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	tap(&m, c, 3, 0, &v);
	assert_int_equal(tui_filter_parse(&f, ""), 0);
	assert_false(f.active);
	assert_true(tui_filter_match(&f, &m.cons[0], 1));
	assert_int_equal(tui_filter_parse(&f, " 3 "), 0);
	assert_true(f.active);
	assert_int_equal(f.device, 3);
	assert_true(tui_filter_match(&f, &m.cons[0], 3));
	assert_false(tui_filter_match(&f, &m.cons[0], 2));
	/* any u32 is a device: jax's 2048 on, a hostile 2^32 - 1 */
	assert_int_equal(tui_filter_parse(&f, "4294967295"), 0);
	assert_true(tui_filter_match(&f, &m.cons[0], 0xffffffffu));
	assert_false(tui_filter_match(&f, &m.cons[0], 3));
	assert_int_equal(tui_filter_parse(&f, "4294967296"), -EINVAL);
	assert_int_equal(tui_filter_parse(&f, "99999999999999999999"), -EINVAL);
	assert_int_equal(tui_filter_parse(&f, "power"), 0);
	assert_int_equal(f.device, -1);
	assert_true(tui_filter_match(&f, &m.cons[0], 0));
	assert_int_equal(tui_filter_parse(&f, "loss"), 0);
	assert_false(tui_filter_match(&f, &m.cons[0], 0));
	/* search: names and kwargs, case ignored */
	assert_true(tui_search_match(&m.cons[0], "POWER"));
	assert_true(tui_search_match(&m.cons[0], "x^2"));
	assert_true(tui_search_match(&m.cons[0], "what"));
	assert_false(tui_search_match(&m.cons[0], "loss"));
	assert_false(tui_search_match(&m.cons[0], ""));
	tui_model_free(&m);
	hcb_consumer_free(c);
}

/* A paused screen keeps its snapshot: new taps are counted, not shown. */
static void test_frame_follow_pause_filter(void **state)
{
	struct hcb_consumer *loss = consumer("loss", 1, "loss", HCB_DT_FLOAT32, 0);
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	struct tui_model m;
	uint64_t seq = 0;

	(void)state;
	assert_int_equal(tui_model_init(&m, 50, 0), 0);
	tui_state_init(&st);
	for (int i = 0; i < 40; i++)
		scalar_tap(&m, loss, (uint32_t)(i % 4), seq++, (float)i);
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_true(f.lay.ok);
	assert_int_equal(f.ns, 4);
	assert_int_equal(f.taps.n, 40);
	/* following: the newest tap selected, at the bottom */
	assert_int_equal(tui_key_at(&f.taps, f.tsel), 39);
	assert_int_equal(f.tsel - f.ttop + 1, f.lay.taps.h - 1);
	/* the sparkline: the selected stream's consumer on its 4 devices */
	assert_int_equal(f.nspark, 4);

	/* scroll up: stops following, and stays put while taps come */
	assert_int_equal(tui_state_key(&st, 'k', &f.view), 1);
	assert_false(st.taps.follow);
	for (int i = 0; i < 5; i++)
		scalar_tap(&m, loss, 0, seq++, 1.0f);
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_int_equal(f.taps.n, 45);
	assert_int_equal(tui_key_at(&f.taps, f.tsel), 38);
	/* G follows again */
	assert_int_equal(tui_state_key(&st, 'G', &f.view), 1);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_int_equal(tui_key_at(&f.taps, f.tsel), 44);

	/* pause: taps keep being received, the frame (built from the old snapshot) does not change */
	assert_int_equal(tui_state_key(&st, ' ', &f.view), 1);
	assert_true(st.paused);
	for (int i = 0; i < 30; i++)
		scalar_tap(&m, loss, 1, seq++, 2.0f);
	assert_int_equal(m.received, 75);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_int_equal(snap.received, 45);
	assert_int_equal(tui_key_at(&f.taps, f.taps.n - 1), 44);
	/* 75 taps in a ring of 50: the oldest 25 left, counted */
	assert_int_equal(f.taps.n, 20);
	assert_int_equal(m.evicted, 25);
	assert_int_equal(tui_state_key(&st, ' ', &f.view), 1);
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_int_equal(snap.received, 75);
	assert_int_equal(tui_key_at(&f.taps, f.tsel), 74);

	/* f 1 Enter: device 1 only, in both lists */
	tui_state_key(&st, 'f', &f.view);
	tui_state_key(&st, '1', &f.view);
	tui_state_key(&st, '\r', &f.view);
	assert_int_equal(st.filter.device, 1);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_int_equal(f.ns, 1);
	for (size_t i = 0; i < f.taps.n; i++)
		assert_int_equal(tui_model_tap(&m, tui_key_at(&f.taps, i))->device, 1);
	/* an empty filter clears it */
	tui_state_key(&st, 'f', &f.view);
	tui_state_key(&st, 127, &f.view);
	tui_state_key(&st, '\r', &f.view);
	assert_false(st.filter.active);
	assert_int_equal(tui_frame_build(&f, &m, &snap, &st, 24, 80), 0);
	assert_int_equal(f.ns, 4);

	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	hcb_consumer_free(loss);
}

static void test_detail_text(void **state)
{
	struct hcb_consumer *c = consumer("field", 5, "field", HCB_DT_FLOAT32, 5);
	float v[5] = { 1, -2, NAN, INFINITY, 3 };
	struct hcb_buf b = HCB_BUF_INIT;
	struct tui_model m;
	const char *s;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	tap(&m, c, 1, 7, v);
	assert_int_equal(tui_detail_text(&b, &m.cons[0], m.platform, tui_model_tap(&m, 0)), 0);
	s = hcb_buf_str(&b);
	/* id_print's two lines, then the array's figures */
	assert_non_null(strstr(s, "tap #0  seq 7  "));
	assert_non_null(strstr(s, "\ndevice: cpu:1 what: field\n[ 1. -2. nan inf  3.]\n"));
	assert_non_null(strstr(s, "[0] float32[5]  min -2  max inf  mean inf  nan 1  inf 1\n"));
	hcb_buf_reset(&b);
	assert_int_equal(tui_tap_summary(&b, m.cons[0].c, (const unsigned char *)v), 0);
	assert_string_equal(hcb_buf_str(&b), "float32[5] mean=inf");
	hcb_buf_reset(&b);
	assert_int_equal(tui_tap_summary(&b, m.cons[0].c, NULL), 0);
	assert_string_equal(hcb_buf_str(&b), "float32[5]");
	hcb_buf_free(&b);
	tui_model_free(&m);
	hcb_consumer_free(c);
}

/* A jax.debug.print's tap with its text (issue 29): the header line, then
 * the text as the program wrote it, kept with the tap; the figures of its
 * operands after, as for any tap. */
static void test_detail_print_text(void **state)
{
	struct hcb_consumer *c = consumer("debug_print.1", 5, "p", HCB_DT_FLOAT32, 2);
	static const char line[] = "x=[1. 2.]\n  and \xce\xb1";
	float v[2] = { 1, 2 };
	struct hcb_record r = { .kind = HCB_REC_TAP };
	struct hcb_buf b = HCB_BUF_INIT;
	struct tui_model m;
	char copy[sizeof(line)];
	const char *s;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	memcpy(copy, line, sizeof(line));
	r.tap = (struct hcb_tap){ .device = 2, .seq = 3, .consumer = c,
				     .payload = (const unsigned char *)v, .text = copy,
				     .text_len = (uint32_t)strlen(line) };
	assert_int_equal(tui_model_add(&m, &r), 0);
	memset(copy, 'z', sizeof(copy));    /* the model holds its own */
	assert_int_equal(tui_detail_text(&b, &m.cons[0], m.platform, tui_model_tap(&m, 0)), 0);
	s = hcb_buf_str(&b);
	assert_non_null(strstr(s, "\ndevice: cpu:2 what: p\nx=[1. 2.]\n  and \xce\xb1\n"));
	assert_null(strstr(s, "[1. 2.]\n\n"));
	assert_non_null(strstr(s, "[0] float32[2]  min 1  max 2"));
	hcb_buf_free(&b);
	tui_model_free(&m);
	hcb_consumer_free(c);
}

/* A tap with device copy times: one line after the head says how long the
 * copy took and where it started from the tap's time; the rest is as it
 * is without them. */
static void test_detail_copy_line(void **state)
{
	static const struct {
		uint64_t ts, start, end;
		const char *line;
	} cases[] = {
		{ 5000000000, 4999998000, 4999999500, "device copy  1.500 us, starting 2.000 us before the tap\n" },
		{ 5000000000, 5000012345, 5012345678, "device copy  12333.333 us, starting 12.345 us after the tap\n" },
		{ 5000000000, 5000000000, 5000000000, "device copy  0.000 us, starting 0.000 us after the tap\n" },
		{ 0, 7, 1007, "device copy  1.000 us\n" },
		{ 5000000000, 0, UINT64_MAX, "device copy  18446744073709551.615 us, starting 5000000.000 us before the tap\n" },
	};
	struct hcb_consumer *c = consumer("field", 5, "field", HCB_DT_FLOAT32, 5);
	float v[5] = { 1, -2, NAN, INFINITY, 3 };
	struct hcb_buf plain = HCB_BUF_INIT, b = HCB_BUF_INIT, want = HCB_BUF_INIT;
	struct hcb_record r = { .kind = HCB_REC_TAP };
	const struct tui_tap *t;
	struct tui_model m;
	char when[32];

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	r.tap = (struct hcb_tap){ .device = 1, .seq = 7, .consumer = c,
				     .payload = (const unsigned char *)v };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r.tap.wall_ns = cases[i].ts;
		r.tap.copy_start_ns = cases[i].start;
		r.tap.copy_end_ns = cases[i].end;
		assert_int_equal(tui_model_add(&m, &r), 0);
		t = tui_model_tap(&m, m.received - 1);
		assert_true(t->copy_start_ns == cases[i].start && t->copy_end_ns == cases[i].end);
		hcb_buf_reset(&b);
		assert_int_equal(tui_detail_copy(&b, t), 0);
		assert_string_equal(hcb_buf_str(&b), cases[i].line);
		/* in the pane's text, right after the head line */
		hcb_buf_reset(&b);
		assert_int_equal(tui_detail_text(&b, &m.cons[0], m.platform, t), 0);
		tui_format_time(when, sizeof(when), cases[i].ts);
		hcb_buf_reset(&want);
		assert_int_equal(hcb_buf_printf(&want, "tap #%zu  seq 7  %s  consumer field (5)\n%s"
						"device: cpu:1 what: field\n", i, when, cases[i].line), 0);
		assert_memory_equal(hcb_buf_str(&b), hcb_buf_str(&want), want.len);
	}
	/* without them: no such line, and the text is the rest of the one with */
	r.tap.copy_start_ns = r.tap.copy_end_ns = 0;
	assert_int_equal(tui_model_add(&m, &r), 0);
	t = tui_model_tap(&m, m.received - 1);
	hcb_buf_reset(&b);
	assert_int_equal(tui_detail_copy(&b, t), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(tui_detail_text(&plain, &m.cons[0], m.platform, t), 0);
	assert_null(strstr(hcb_buf_str(&plain), "device copy"));
	hcb_buf_reset(&b);
	assert_int_equal(tui_detail_text(&b, &m.cons[0], m.platform, tui_model_tap(&m, 4)), 0);
	{
		const char *with = hcb_buf_str(&b), *line = strstr(with, cases[4].line);
		size_t head = (size_t)(line - with), n = strlen(cases[4].line);

		assert_non_null(line);
		/* the same head (same tap number aside) and the same lines below */
		assert_string_equal(with + head + n, hcb_buf_str(&plain) + head);
	}
	hcb_buf_free(&plain);
	hcb_buf_free(&b);
	hcb_buf_free(&want);
	tui_model_free(&m);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streams_per_device_and_consumer),
		cmocka_unit_test(test_ring_evicts_by_count_and_bytes),
		cmocka_unit_test(test_nonfinite_marked_as_it_comes),
		cmocka_unit_test(test_drops_and_end),
		cmocka_unit_test(test_drops_of_many_devices),
		cmocka_unit_test(test_filter_and_search_match),
		cmocka_unit_test(test_frame_follow_pause_filter),
		cmocka_unit_test(test_detail_text),
		cmocka_unit_test(test_detail_print_text),
		cmocka_unit_test(test_detail_copy_line),
	};

	return cmocka_run_group_tests_name("tui_model", tests, NULL, NULL);
}
