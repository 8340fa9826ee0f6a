/* SPDX-License-Identifier: MIT */
/*
 * test_tui_procs.c - the viewer's model of several processes (a job's
 * recordings browsed as one, issue 36): a consumer is its process's, so two
 * processes that both say cuda:0 and number their consumers alike have two
 * streams; the lists order them by process; `f @TAG` keeps one process; the
 * detail says who the process is, each process's devices named by its own
 * platform; one process is keyed as before.
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

static void scalar_tap(struct tui_model *m, const struct hcb_consumer *c, uint32_t device,
		       uint64_t seq, float v)
{
	struct hcb_record r = { .kind = HCB_REC_TAP };

	r.tap.device = device;
	r.tap.seq = seq;
	r.tap.wall_ns = 1000000000ull * (seq + 1);
	r.tap.consumer = c;
	r.tap.payload = (const unsigned char *)&v;
	assert_int_equal(tui_model_add(m, &r), 0);
}

/* Process 1 of 2 (jax) on node07, and a process of no job (pid 4243). */
static void two_processes(struct tui_model *m)
{
	struct hcb_session_info a = { .pid = 4242, .process = { 1, 2, "jax" } };
	struct hcb_session_info b = { .pid = 4243 };

	snprintf(a.host, sizeof(a.host), "node07");
	snprintf(a.platform, sizeof(a.platform), "cuda");
	snprintf(b.command, sizeof(b.command), "python train.py");
	assert_int_equal(tui_model_process(m, 0, &a, "a.jsonl"), 0);
	assert_int_equal(tui_model_process(m, 1, &b, "b.jsonl"), 0);
	assert_int_equal(m->nprocs, 2);
	assert_string_equal(m->procs[0].tag, "p1");
	assert_string_equal(m->procs[0].who, "process 1 of 2 (jax), host node07, pid 4242");
	assert_string_equal(m->procs[1].tag, "4243");
	assert_string_equal(m->procs[1].who, "pid 4243: python train.py");
}

static void test_same_device_and_consumer_two_streams(void **state)
{
	/* both processes' loss is consumer 7 on device 0 */
	struct hcb_consumer *loss = test_leaf_consumer("loss", 7, "loss", HCB_DT_FLOAT32, 0, 0, 0);
	struct tui_snapshot snap = { 0 };
	struct tui_model m;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	two_processes(&m);
	/* the second process first, and on two devices: the order is by
	 * process all the same */
	for (uint64_t s = 0; s < 6; s++) {
		tui_model_process(&m, 1, NULL, NULL);
		scalar_tap(&m, loss, (uint32_t)(s % 2), s, (float)s);
		if (s < 3) {
			tui_model_process(&m, 0, NULL, NULL);
			scalar_tap(&m, loss, 0, s, (float)s);
		}
	}
	assert_int_equal(m.ncons, 2);
	assert_int_equal(m.nstreams, 3);
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	/* process 0's cuda:0, then process 1's cuda:0 and cuda:1 */
	assert_int_equal(m.cons[snap.streams[0].cons].proc, 0);
	assert_int_equal(snap.streams[0].count, 3);
	assert_int_equal(m.cons[snap.streams[1].cons].proc, 1);
	assert_int_equal(snap.streams[1].device, 0);
	assert_int_equal(snap.streams[1].count, 3);
	assert_int_equal(snap.streams[2].device, 1);
	assert_int_equal(snap.streams[2].count, 3);
	for (unsigned int i = 0; i < 3; i++) {
		const struct tui_stream *s = &snap.streams[i];

		assert_int_equal(tui_key_cons(tui_stream_key(s), 1), s->cons);
		if (i)
			assert_true(tui_stream_key(&snap.streams[i - 1]) < tui_stream_key(s));
	}
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	hcb_consumer_free(loss);
}

static void test_filter_by_process_and_detail(void **state)
{
	struct hcb_consumer *loss = test_leaf_consumer("loss", 7, "loss", HCB_DT_FLOAT32, 0, 0, 0);
	struct hcb_buf b = HCB_BUF_INIT;
	struct tui_filter f;
	struct tui_model m;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	two_processes(&m);
	tui_model_process(&m, 0, NULL, NULL);
	scalar_tap(&m, loss, 0, 0, 1.5f);
	tui_model_process(&m, 1, NULL, NULL);
	scalar_tap(&m, loss, 0, 0, 2.5f);
	assert_int_equal(tui_filter_parse(&f, " @p1 "), 0);
	assert_string_equal(f.proc, "p1");
	assert_true(tui_filter_match(&f, &m.cons[0], 0));
	assert_false(tui_filter_match(&f, &m.cons[1], 0));
	assert_int_equal(tui_filter_parse(&f, "@4243"), 0);
	assert_false(tui_filter_match(&f, &m.cons[0], 0));
	assert_true(tui_filter_match(&f, &m.cons[1], 0));
	assert_int_equal(tui_filter_parse(&f, "@"), -EINVAL);
	/* a consumer name still: one that starts otherwise */
	assert_int_equal(tui_filter_parse(&f, "los"), 0);
	assert_true(tui_filter_match(&f, &m.cons[1], 0));
	/* the detail's first line says whose the tap is */
	assert_int_equal(tui_detail_text(&b, &m.cons[1], m.platform, tui_model_tap(&m, 1)), 0);
	assert_non_null(strstr(hcb_buf_str(&b), "process: pid 4243: python train.py\ntap #1  seq 0  "));
	/* each process's devices named by its own platform (none: the model's) */
	assert_string_equal(tui_model_platform(&m, 0), "cuda");
	assert_string_equal(tui_model_platform(&m, 1), "cpu");
	hcb_buf_free(&b);
	tui_model_free(&m);
	hcb_consumer_free(loss);
}

/* One process (registered or not): no who, keys as before, the same id
 * one consumer. */
static void test_one_process_as_before(void **state)
{
	struct hcb_consumer *loss = test_leaf_consumer("loss", 7, "loss", HCB_DT_FLOAT32, 0, 0, 0);
	struct hcb_session_info a = { .pid = 4242 };
	struct tui_snapshot snap = { 0 };
	struct hcb_buf b = HCB_BUF_INIT;
	struct tui_filter f;
	struct tui_model m;

	(void)state;
	assert_int_equal(tui_model_init(&m, 0, 0), 0);
	assert_int_equal(tui_model_process(&m, 0, &a, NULL), 0);
	scalar_tap(&m, loss, 3, 0, 1.0f);
	scalar_tap(&m, loss, 3, 1, 2.0f);
	assert_int_equal(m.ncons, 1);
	assert_null(m.cons[0].who);
	assert_int_equal(tui_snapshot_take(&snap, &m), 0);
	assert_int_equal(tui_stream_key(&snap.streams[0]), (3ull << 32) | 0);
	assert_int_equal(tui_detail_text(&b, &m.cons[0], m.platform, tui_model_tap(&m, 0)), 0);
	assert_null(strstr(hcb_buf_str(&b), "process:"));
	/* no column to name a process by */
	assert_int_equal(tui_filter_parse(&f, "@4242"), 0);
	assert_false(tui_filter_match(&f, &m.cons[0], 3));
	assert_int_equal(tui_model_process(&m, TUI_PROCESSES, &a, NULL), -E2BIG);
	hcb_buf_free(&b);
	tui_snapshot_free(&snap);
	tui_model_free(&m);
	hcb_consumer_free(loss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_device_and_consumer_two_streams),
		cmocka_unit_test(test_filter_by_process_and_detail),
		cmocka_unit_test(test_one_process_as_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
