/* SPDX-License-Identifier: MIT */
/*
 * test_tui_index.c - a recording browsed in place (tui/model.h indexed,
 * tui/model_read.c, tui/frame.c) and the cache it reads through on its own
 * (tui/cache.h), over a fake source whose taps are read back by
 * offset: taps counted per stream as they are indexed, 8 bytes each; rows
 * read back only for what a frame shows, then from the cache; the cache's
 * entries and payload bytes bounded; G, search and a filter that grows
 * with the index; a tap that cannot be read back, or is not the one
 * indexed there; the sparkline's values read back; rates from timestamps,
 * none from stamps that say nothing of time; and the detail pane's text
 * and plot laid out for its room (tui/detailpane.h); NaN and inf marked
 * once per tap and jumped to with ] and [.
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

#include "../../tui/cache.h"
#include "../../tui/detailpane.h"
#include "../../tui/frame.h"
#include "../../tui/model.h"
#include "../../tui/state.h"
#include "core/consumer.h"
#include "testcons.h"

static struct hcb_consumer *consumer(const char *name, uint32_t id, unsigned int dtype,
				     unsigned int ndim, uint64_t d0, uint64_t d1)
{
	return test_leaf_consumer(name, id, name, dtype, ndim, d0, d1);
}

/* ---- a fake recording: tap k at offset 1000 + 100 k ---- */

#define NTAPS 20000

struct fake {
	struct hcb_consumer *loss, *field;
	float v[NTAPS][8];
	uint64_t reads;
	int bad_at, wrong_at;           /* taps that cannot be read, that are another */
};

static const struct hcb_consumer *fake_cons(struct fake *fk, int k)
{
	return k % 2 ? fk->field : fk->loss;
}

static int fake_read(void *ctx, uint64_t off, struct hcb_record *rec, char *err, size_t cap)
{
	struct fake *fk = ctx;
	int k = (int)((off - 1000) / 100);

	fk->reads++;
	if (k == fk->bad_at) {
		snprintf(err, cap, "rec.jsonl:offset %llu: damaged", (unsigned long long)off);
		return -EBADMSG;
	}
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_TAP;
	rec->tap.device = (uint32_t)(k / 2 % 4) + (k == fk->wrong_at);
	rec->tap.seq = (uint64_t)k;
	rec->tap.wall_ns = 1700000000000000000ull + (uint64_t)k * 1000000;
	rec->tap.consumer = fake_cons(fk, k);
	rec->tap.payload = (const unsigned char *)fk->v[k];
	/* every third with its device copy: 1.5 us, ending 0.5 us before it */
	if (k % 3 == 1) {
		rec->tap.copy_start_ns = rec->tap.wall_ns - 2000;
		rec->tap.copy_end_ns = rec->tap.wall_ns - 500;
	}
	return 0;
}

static const struct tui_fetch_ops fake_ops = { .read = fake_read };

static void index_taps(struct tui_model *m, struct fake *fk, int from, int to)
{
	for (int k = from; k < to; k++) {
		struct hcb_record rec = { .kind = HCB_REC_TAP };

		rec.tap = (struct hcb_tap){ .device = (uint32_t)(k / 2 % 4), .seq = (uint64_t)k,
					       .wall_ns = 1700000000000000000ull + (uint64_t)k * 1000000,
					       .consumer = fake_cons(fk, k) };
		assert_int_equal(tui_model_index(m, &rec, 1000 + 100 * (uint64_t)k), 0);
	}
}

static void fake_init(struct fake *fk)
{
	memset(fk, 0, sizeof(*fk));
	fk->loss = consumer("loss", 1, HCB_DT_FLOAT32, 0, 0, 0);
	fk->field = consumer("field", 2, HCB_DT_FLOAT32, 1, 8, 0);
	fk->bad_at = fk->wrong_at = -1;
	for (int k = 0; k < NTAPS; k++)
		for (int i = 0; i < 8; i++)
			fk->v[k][i] = (float)(k + i);
}

static void fake_free(struct fake *fk)
{
	hcb_consumer_free(fk->loss);
	hcb_consumer_free(fk->field);
}

static void frame(struct tui_frame *f, struct tui_model *m, struct tui_snapshot *snap,
		  struct tui_state *st)
{
	assert_int_equal(tui_snapshot_take(snap, m), 0);
	assert_int_equal(tui_frame_build(f, m, snap, st, 24, 80), 0);
}

/* ---- tests ---- */

static void test_index_counts_and_reads_what_is_shown(void **state)
{
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	struct tui_model m;
	struct fake fk;
	uint64_t reads;

	(void)state;
	fake_init(&fk);
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, &fk), 0);
	m.indexing = 1;
	index_taps(&m, &fk, 0, NTAPS);
	/* counted per stream, 8 bytes a tap, nothing read yet */
	assert_int_equal(m.received, NTAPS);
	assert_int_equal(m.nstreams, 8);
	assert_int_equal(m.streams[0].count, NTAPS / 8);
	assert_int_equal(m.index[5] >> 16, 1500);
	assert_int_equal(fk.reads, 0);
	assert_null(tui_model_tap(&m, 0));
	tui_model_rates_from_ts(&m);
	/* a stream's taps 8 ms apart */
	assert_true(fabs(m.streams[0].rate - 125) < 1e-6);

	/* a recording starts at its first tap */
	tui_state_init(&st);
	st.taps.follow = 0;
	frame(&f, &m, &snap, &st);
	assert_null(f.taps.v);
	assert_int_equal(f.taps.n, NTAPS);
	assert_int_equal(f.ttop, 0);
	assert_int_equal(f.rows[0].index, 0);
	assert_int_equal(f.rows[1].index, 1);
	assert_string_equal(f.rows[1].value, "float32[8] mean=4.5");
	assert_int_equal(f.rows[1].wall_ns, 1700000000001000000ull);
	/* what the frame shows was read: rows, streams' last taps, sparklines */
	assert_true(fk.reads > 0 && fk.reads < 1100);
	reads = fk.reads;
	frame(&f, &m, &snap, &st);
	assert_int_equal(fk.reads, reads);
	/* the sparkline: each device's last loss values, oldest first */
	assert_int_equal(f.nspark, 4);
	assert_int_equal(f.spark_len[0], TUI_HIST);
	assert_true(f.spark_vals[0][TUI_HIST - 1] == (double)(NTAPS - 8));
	assert_false(f.pending);
	/* G: the last tap, read then */
	tui_state_key(&st, 'G', &f.view);
	frame(&f, &m, &snap, &st);
	assert_int_equal(tui_key_at(&f.taps, f.tsel), NTAPS - 1);
	assert_int_equal(f.rows[f.nrows - 1].index, NTAPS - 1);
	assert_int_equal(f.rows[f.nrows - 1].seq, NTAPS - 1);
	/* the detail: the tap whole, its plot */
	tui_state_key(&st, '\r', &f.view);
	frame(&f, &m, &snap, &st);
	assert_non_null(strstr(hcb_buf_str(&f.detail.text), "tap #19999  seq 19999"));
	assert_int_equal(f.detail.kind, TUI_PLOT_LINE);
	assert_true(f.detail.mode == TUI_DETAIL_BOTH);
	/* search goes anywhere: g, then /field, n */
	tui_state_key(&st, 'g', &f.view);
	for (const char *p = "/field\r"; *p; p++)
		tui_state_key(&st, *p, &f.view);
	frame(&f, &m, &snap, &st);
	assert_int_equal(tui_key_at(&f.taps, f.tsel), 1);
	snap.indexing = 0;
	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	fake_free(&fk);
}

static void test_filter_grows_with_the_index(void **state)
{
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	struct tui_model m;
	struct fake fk;

	(void)state;
	fake_init(&fk);
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, &fk), 0);
	index_taps(&m, &fk, 0, 100);
	tui_state_init(&st);
	for (const char *p = "f2\r"; *p; p++)
		tui_state_key(&st, *p, &f.view);
	frame(&f, &m, &snap, &st);
	/* device 2: taps 4, 5, 12, 13, ... */
	assert_non_null(f.taps.v);
	assert_int_equal(f.taps.n, 24);
	assert_int_equal(f.taps.v[0], 4);
	index_taps(&m, &fk, 100, 200);
	frame(&f, &m, &snap, &st);
	assert_int_equal(f.taps.n, 50);
	assert_int_equal(f.tbuilt, 200);
	for (size_t i = 0; i < f.taps.n; i++)
		assert_int_equal(f.taps.v[i] / 2 % 4, 2);
	/* another filter: built again */
	tui_state_key(&st, 'f', &f.view);
	tui_state_key(&st, 127, &f.view);
	for (const char *p = "field\r"; *p; p++)
		tui_state_key(&st, *p, &f.view);
	frame(&f, &m, &snap, &st);
	assert_int_equal(f.taps.n, 100);
	assert_int_equal(f.taps.v[0], 1);
	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	fake_free(&fk);
}

static void test_unreadable_taps(void **state)
{
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	struct tui_model m;
	struct tui_row r;
	struct fake fk;

	(void)state;
	fake_init(&fk);
	fk.bad_at = 3;
	fk.wrong_at = 5;
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, &fk), 0);
	index_taps(&m, &fk, 0, 20);
	assert_int_equal(tui_model_row(&m, 3, &r), 0);
	assert_true(r.bad);
	assert_null(tui_model_get(&m, 3));
	assert_non_null(strstr(m.fetch_error, "offset 1300: damaged"));
	assert_int_equal(tui_model_row(&m, 5, &r), 0);
	assert_true(r.bad);
	assert_non_null(strstr(m.fetch_error, "not the tap indexed there"));
	assert_int_equal(tui_model_row(&m, 4, &r), 0);
	assert_false(r.bad);
	assert_int_equal(tui_model_row(&m, 20, &r), -ENOENT);
	/* the detail of a tap that cannot be read says why */
	tui_state_init(&st);
	st.taps.follow = 0;
	st.taps.has_sel = 1;
	st.taps.sel = 3;
	st.detail = 1;
	frame(&f, &m, &snap, &st);
	assert_non_null(strstr(hcb_buf_str(&f.detail.text), "tap #3 cannot be read back"));
	assert_non_null(strstr(hcb_buf_str(&f.detail.text), "offset 1300: damaged"));
	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	fake_free(&fk);
}

/* NaN and inf in a recording browsed in place: each tap looked at once,
 * when it is read back (a row, or ] passing over it), never again however
 * often asked, even once its row left the cache; ] and [ over a frame's
 * list land on the marked taps. */
static void test_nonfinite_marks_and_jumps(void **state)
{
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	struct tui_model m;
	struct tui_row r;
	struct fake fk;
	uint64_t reads;

	(void)state;
	fake_init(&fk);
	fk.v[7][5] = NAN;                 /* a field tap */
	fk.v[150][0] = -INFINITY;         /* a loss tap: its scalar */
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, &fk), 0);
	assert_int_equal(tui_model_cache_bounds(&m, 16, 64), 0);
	index_taps(&m, &fk, 0, 200);
	assert_int_equal(tui_model_row(&m, 7, &r), 0);
	assert_true(r.nonfinite);
	assert_int_equal(tui_model_row(&m, 8, &r), 0);
	assert_false(r.nonfinite);
	/* not read back yet: told only if it may be */
	assert_int_equal(tui_model_nonfinite(&m, 150, 0), -EAGAIN);
	assert_int_equal(tui_model_nonfinite(&m, 7, 0), 1);
	assert_int_equal(tui_model_nonfinite(&m, 8, 0), 0);
	for (uint64_t k = 0; k < 200; k++)
		assert_int_equal(tui_model_nonfinite(&m, k, 1), k == 7 || k == 150);
	reads = m.reads;
	assert_int_equal(reads, 200);     /* 7 and 8 were read for their rows */
	assert_int_equal(tui_model_row_cached(&m, 7, &r), -ENOENT);
	for (uint64_t k = 0; k < 200; k++)
		assert_int_equal(tui_model_nonfinite(&m, k, 0), k == 7 || k == 150);
	assert_int_equal(m.reads, reads);
	assert_int_equal(tui_model_nonfinite(&m, 200, 1), -ENOENT);

	/* the list follows the last tap: ] goes round to the first marked */
	tui_state_init(&st);
	frame(&f, &m, &snap, &st);
	tui_state_key(&st, ']', &f.view);
	assert_false(st.taps.follow);
	assert_int_equal(st.taps.sel, 7);
	assert_non_null(strstr(st.message, "NaN or inf: row 8 of 200"));
	frame(&f, &m, &snap, &st);
	assert_true(f.rows[f.tsel - f.ttop].nonfinite);
	tui_state_key(&st, ']', &f.view);
	assert_int_equal(st.taps.sel, 150);
	frame(&f, &m, &snap, &st);
	tui_state_key(&st, ']', &f.view);
	assert_int_equal(st.taps.sel, 7);
	assert_non_null(strstr(st.message, "wrapped round"));
	frame(&f, &m, &snap, &st);
	tui_state_key(&st, '[', &f.view);
	assert_int_equal(st.taps.sel, 150);
	/* the stream list focused: ] still jumps, in the tap list */
	st.focus = TUI_PANE_STREAMS;
	frame(&f, &m, &snap, &st);
	tui_state_key(&st, ']', &f.view);
	assert_int_equal(st.focus, TUI_PANE_TAPS);
	assert_int_equal(st.taps.sel, 7);
	/* a filter with none of them: the cursor stays, and says so */
	assert_int_equal(tui_filter_parse(&st.filter, "2"), 0);
	frame(&f, &m, &snap, &st);
	/* the frame reads the rows it shows back; ] reads none, all marked */
	reads = m.reads;
	tui_state_key(&st, ']', &f.view);
	assert_string_equal(st.message, "no tap of the filter's holds a NaN or inf");
	assert_int_equal(m.reads, reads);
	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	fake_free(&fk);
}

/* ] in a large recording reads back a bounded number of taps a key: when
 * they are spent it stops and says so, and the next ] goes on from there
 * (what it read stays marked). */
static void test_nonfinite_jump_is_bounded(void **state)
{
	struct tui_snapshot snap = { 0 };
	struct tui_frame f = { 0 };
	struct tui_state st;
	struct tui_model m;
	struct fake fk;
	uint64_t reads, unread = 0, total = 0;
	int presses = 0;

	(void)state;
	fake_init(&fk);
	fk.v[3001][2] = INFINITY;
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, &fk), 0);
	index_taps(&m, &fk, 0, 6000);
	tui_state_init(&st);
	st.taps.follow = 0;
	frame(&f, &m, &snap, &st);
	/* what the frame read (rows shown, sparkline values) is marked */
	for (uint64_t k = 1; k <= 3001; k++)
		unread += tui_model_nonfinite(&m, k, 0) == -EAGAIN;
	assert_true(unread > 1200);
	do {
		frame(&f, &m, &snap, &st);
		reads = m.reads;
		f.nf_reads_left = 600;
		tui_state_key(&st, ']', &f.view);
		total += m.reads - reads;
		presses++;
		if (st.taps.sel == 3001)
			break;
		/* spent: it stops, says so, the cursor where it was */
		assert_int_equal(m.reads - reads, 600);
		assert_string_equal(st.message, "none found in the taps read so far: ] again reads on");
		assert_int_equal(st.taps.sel, 0);
	} while (presses < 20);
	assert_int_equal(st.taps.sel, 3001);
	/* each tap on the way read once, over as many keys as that takes */
	assert_int_equal(total, unread);
	assert_int_equal(presses, (int)((unread + 599) / 600));
	tui_frame_free(&f);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	fake_free(&fk);
}

/* The cache alone: items by key in sets of four, the least recently used
 * going; bytes within their bound, the least recently used going first. */
static void test_cache_alone(void **state)
{
	struct tui_cache *c = tui_cache_new(4, 10, sizeof(uint64_t));
	uint64_t *it[5];

	(void)state;
	assert_non_null(c);
	for (uint64_t k = 0; k < 4; k++) {
		it[k] = tui_cache_put(c, k);
		assert_int_equal(*it[k], 0);
		*it[k] = 100 + k;
	}
	assert_ptr_equal(tui_cache_put(c, 2), it[2]);          /* its own, as it is */
	assert_int_equal(*(uint64_t *)tui_cache_find(c, 2), 102);
	assert_non_null(tui_cache_find(c, 0));                 /* 1 is the least recently used */
	it[4] = tui_cache_put(c, 9);
	assert_null(tui_cache_find(c, 1));
	assert_int_equal(*it[4], 0);
	/* bytes: 6 + 4 fit, 3 more push out the oldest; 11 never fit */
	assert_non_null(tui_cache_keep(c, tui_cache_find(c, 0), "abcdef", 6));
	assert_non_null(tui_cache_keep(c, tui_cache_find(c, 2), "ghij", 4));
	assert_memory_equal(tui_cache_keep(c, tui_cache_find(c, 3), "klm", 3), "klm", 3);
	assert_null(tui_cache_bytes(c, tui_cache_find(c, 0)));
	assert_memory_equal(tui_cache_bytes(c, tui_cache_find(c, 2)), "ghij", 4);
	assert_null(tui_cache_keep(c, tui_cache_find(c, 9), "0123456789a", 11));
	/* a note, gone with its item */
	assert_int_equal(tui_cache_set_note(c, tui_cache_find(c, 9), "why"), 0);
	assert_string_equal(tui_cache_note(c, tui_cache_find(c, 9)), "why");
	assert_null(tui_cache_note(c, tui_cache_find(c, 2)));
	tui_cache_find(c, 0);
	tui_cache_find(c, 2);
	tui_cache_find(c, 3);
	assert_int_equal(*(uint64_t *)tui_cache_put(c, 13), 0);
	assert_null(tui_cache_find(c, 9));
	tui_cache_free(c);
}

static void test_cache_bounds(void **state)
{
	struct tui_model m;
	struct tui_row r;
	struct fake fk;

	(void)state;
	fake_init(&fk);
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, &fk), 0);
	/* 16 rows, payloads of 2 field taps (32 bytes each) */
	assert_int_equal(tui_model_cache_bounds(&m, 16, 64), 0);
	index_taps(&m, &fk, 0, 200);
	for (int k = 0; k < 200; k++)
		assert_int_equal(tui_model_row(&m, (uint64_t)k, &r), 0);
	assert_int_equal(m.reads, 200);
	/* the last ones are at hand, the first ones went */
	assert_int_equal(tui_model_row_cached(&m, 199, &r), 0);
	assert_int_equal(tui_model_row_cached(&m, 0, &r), -ENOENT);
	/* payloads: the three latest asked for, two kept */
	assert_non_null(tui_model_get(&m, 1));
	assert_non_null(tui_model_get(&m, 3));
	assert_int_equal(m.reads, 202);
	assert_true(tui_model_get(&m, 5)->payload[0] == 0 && ((const float *)tui_model_get(&m, 5)->payload)[0] == 5);
	assert_int_equal(m.reads, 203);
	assert_non_null(tui_model_get(&m, 3));
	assert_int_equal(m.reads, 203);
	assert_non_null(tui_model_get(&m, 1));
	assert_int_equal(m.reads, 204);
	tui_model_free(&m);
	fake_free(&fk);
}

static void test_rates(void **state)
{
	struct hcb_consumer *c = consumer("loss", 1, HCB_DT_FLOAT32, 0, 0, 0);
	struct tui_model m;
	float v = 1;

	(void)state;
	/* two taps a second apart; one tap; stamps alike; a counter as ts_ns */
	assert_true(tui_rate_of(2, 1000000000, 2000000000) == 1);
	assert_true(fabs(tui_rate_of(101, 1700000000000000000ull, 1700000000010000000ull) - 1e4) < 1e-6);
	assert_true(isnan(tui_rate_of(1, 5, 5)));
	assert_true(isnan(tui_rate_of(10, 5, 5)));
	assert_true(isnan(tui_rate_of(10, 0, 9)));
	assert_true(isnan(tui_rate_of(10, 1700000000000000000ull, 1700000000000000000ull + 8999)));
	assert_true(tui_rate_of(10, 1700000000000000000ull, 1700000000000000000ull + 9000) == 1e6);
	/* a recording whose taps are all stamped alike: no rate */
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	for (int i = 0; i < 10; i++) {
		struct hcb_record r = { .kind = HCB_REC_TAP };

		r.tap = (struct hcb_tap){ .seq = (uint64_t)i, .wall_ns = 1700000000000000000ull,
					     .consumer = c, .payload = (const unsigned char *)&v };
		assert_int_equal(tui_model_add(&m, &r), 0);
	}
	tui_model_rates_from_ts(&m);
	assert_true(isnan(m.streams[0].rate));
	tui_model_free(&m);
	hcb_consumer_free(c);
}

/* ---- the detail pane ---- */

/* A tap read back from the recording has its copy times, as a held one. */
static void test_copy_times_read_back(void **state)
{
	static const struct tui_plot_style st = { .utf8 = 0 };
	struct fake *fk = malloc(sizeof(*fk));
	struct tui_detail_pane d = { 0 };
	const struct tui_tap *t;
	struct tui_model m;

	(void)state;
	assert_non_null(fk);
	fake_init(fk);
	assert_int_equal(tui_model_init_indexed(&m, &fake_ops, fk), 0);
	index_taps(&m, fk, 0, 12);
	for (uint64_t k = 0; k < 12; k++) {
		t = tui_model_get(&m, k);
		assert_non_null(t);
		assert_true(t->copy_end_ns == (k % 3 == 1 ? t->wall_ns - 500 : 0));
		assert_true(t->copy_start_ns == (k % 3 == 1 ? t->wall_ns - 2000 : 0));
	}
	/* from the cache too (the payload kept) */
	t = tui_model_get(&m, 7);
	assert_true(t->copy_end_ns == t->wall_ns - 500);
	/* the pane: the line after the head, in text and plot alike */
	assert_int_equal(tui_detail_pane_build(&d, &m.cons[t->cons], "cpu", t, 20, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_BOTH);
	assert_int_equal(d.lines, 6);
	assert_non_null(strstr(hcb_buf_str(&d.text),
			       ")\ndevice copy  1.500 us, starting 2.000 us before the tap\ndevice: cpu:"));
	assert_int_equal(tui_detail_pane_build(&d, &m.cons[t->cons], "cpu", t, 10, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_PLOT);
	assert_int_equal(d.lines, 3);
	assert_int_equal(d.grid_y, 3);
	assert_int_equal(d.grid.rows, 7);
	assert_non_null(strstr(hcb_buf_str(&d.text), ")\ndevice copy  1.500 us, starting 2.000 us "
			       "before the tap\n[0] float32[8]  min 7  max 14"));
	/* with no room for it and a plot of the least size: the text */
	assert_int_equal(tui_detail_pane_build(&d, &m.cons[t->cons], "cpu", t, 7, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_TEXT);
	/* a tap without: two lines above the plot, as before */
	t = tui_model_get(&m, 9);
	assert_int_equal(tui_detail_pane_build(&d, &m.cons[t->cons], "cpu", t, 10, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_PLOT);
	assert_int_equal(d.lines, 2);
	assert_null(strstr(hcb_buf_str(&d.text), "device copy"));
	tui_detail_pane_free(&d);
	tui_model_free(&m);
	fake_free(fk);
	free(fk);
}

static void test_detail_pane_modes(void **state)
{
	const struct tui_plot_style st = { .utf8 = 0 };
	struct hcb_consumer *small = consumer("field", 2, HCB_DT_FLOAT32, 1, 8, 0);
	struct hcb_consumer *big = consumer("big", 3, HCB_DT_FLOAT64, 1, 600, 0);
	struct hcb_consumer *grid = consumer("grid", 4, HCB_DT_INT32, 2, 3, 4);
	struct hcb_consumer *scalar = consumer("loss", 1, HCB_DT_FLOAT32, 0, 0, 0);
	struct tui_consumer tc = { 0 };
	struct tui_detail_pane d = { 0 };
	double b[600];
	float s[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	int32_t g[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	struct tui_tap t = { .index = 7, .payload = (unsigned char *)s };

	(void)state;
	for (int i = 0; i < 600; i++)
		b[i] = i;
	/* room for both: the text, a caption, the plot below */
	tc.c = small;
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 12, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_BOTH);
	assert_int_equal(d.lines, 5);
	assert_int_equal(d.grid_y, 6);
	assert_int_equal(d.grid.rows, 6);
	assert_int_equal(d.grid.cols, 79);
	assert_string_equal(d.caption, "plot: [0] float32[8]");
	assert_true(!strncmp(tui_grid_at(&d.grid, 0, 0)->glyph, "8", 1));
	/* no room for both: the head, the figures, the plot; v asks for the text */
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 9, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_PLOT);
	assert_int_equal(d.lines, 2);
	assert_non_null(strstr(hcb_buf_str(&d.text), "[0] float32[8]  min 1  max 8  mean 4.5"));
	assert_int_equal(d.grid.rows, 7);
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 9, 80, 1, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_TEXT);
	assert_int_equal(d.lines, 5);
	/* too little room for a plot: the text */
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 6, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_TEXT);
	/* a long array at 80x24 (a 12-row pane): its text is long, the plot first */
	tc.c = big;
	t.payload = (unsigned char *)b;
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 12, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_PLOT);
	assert_int_equal(d.kind, TUI_PLOT_LINE);
	assert_true(!strncmp(tui_grid_at(&d.grid, 0, 0)->glyph, "5", 1));
	/* a 2-D array: a heatmap */
	tc.c = grid;
	t.payload = (unsigned char *)g;
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 14, 80, 0, &st), 0);
	assert_int_equal(d.kind, TUI_PLOT_HEATMAP);
	assert_int_equal(d.mode, TUI_DETAIL_BOTH);
	assert_int_equal(tui_grid_at(&d.grid, 0, 3)->kind, TUI_CELL_HEAT);
	/* a scalar: the text alone */
	tc.c = scalar;
	t.payload = (unsigned char *)s;
	assert_int_equal(tui_detail_pane_build(&d, &tc, "cpu", &t, 12, 80, 0, &st), 0);
	assert_int_equal(d.mode, TUI_DETAIL_TEXT);
	assert_int_equal(d.kind, TUI_PLOT_NONE);
	tui_detail_pane_free(&d);
	hcb_consumer_free(small);
	hcb_consumer_free(big);
	hcb_consumer_free(grid);
	hcb_consumer_free(scalar);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_counts_and_reads_what_is_shown),
		cmocka_unit_test(test_filter_grows_with_the_index),
		cmocka_unit_test(test_unreadable_taps),
		cmocka_unit_test(test_cache_alone),
		cmocka_unit_test(test_cache_bounds),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_detail_pane_modes),
		cmocka_unit_test(test_copy_times_read_back),
		cmocka_unit_test(test_nonfinite_marks_and_jumps),
		cmocka_unit_test(test_nonfinite_jump_is_bounded),
	};

	return cmocka_run_group_tests_name("tui_index", tests, NULL, NULL);
}
