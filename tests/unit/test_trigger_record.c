/* SPDX-License-Identifier: MIT */
/*
 * test_trigger_record.c - the flight recorder's trigger record through
 * every format that keeps it: JSONL and .hcbcap written and read back
 * field for field (a tap's, a signal's, NaN, inf and finite values, the
 * longest names), the JSONL line as documented, replay's one text line,
 * and damaged trigger lines refused with a message; a job's trigger
 * (by_pid, by_process) and an abnormal end's (exit_status, exit_signal)
 * alike.
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

#include "jsonl.h"
#include "recfile.h"

static char tmpdir[] = "/tmp/test_trigger_record.XXXXXX";
#include "testtmp.h"

static struct hcb_record trig(uint64_t seq, int64_t leaf, int64_t elem, double v, const char *cond)
{
	struct hcb_record r = { .kind = HCB_REC_TRIGGER };

	r.trigger.device = 3;
	r.trigger.seq = seq;
	if (seq != HCB_TRIGGER_NO_TAP)
		snprintf(r.trigger.consumer, sizeof(r.trigger.consumer), "loss");
	r.trigger.leaf = leaf;
	r.trigger.element = elem;
	r.trigger.value = v;
	r.trigger.wall_ns = 1795318845000000000ull;
	snprintf(r.trigger.condition, sizeof(r.trigger.condition), "%s", cond);
	return r;
}

static void same(const struct hcb_trigger_info *a, const struct hcb_trigger_info *b, int tap)
{
	assert_string_equal(a->condition, b->condition);
	assert_string_equal(a->consumer, b->consumer);
	assert_true(a->seq == b->seq);
	assert_int_equal(a->leaf, b->leaf);
	assert_int_equal(a->element, b->element);
	assert_int_equal(a->wall_ns, b->wall_ns);
	assert_int_equal(a->oversize, b->oversize);
	assert_int_equal(a->by_pid, b->by_pid);
	if (a->by_pid)
		assert_int_equal(a->by_process, b->by_process);
	else if (a->by_process != -1)
		fail_msg("%s: by_process %lld", a->condition, (long long)a->by_process);
	assert_string_equal(a->by_host, b->by_host);
	assert_int_equal(a->exited, b->exited);
	if (b->exited) {
		assert_int_equal(a->exit_signal, b->exit_signal);
		assert_int_equal(a->exit_status, b->exit_status);
	}
	if (tap) {
		assert_int_equal(a->device, b->device);
		assert_true((isnan(a->value) && isnan(b->value)) || a->value == b->value);
	}
}

static void round_trip(const char *name)
{
	struct hcb_record in[10], s = { .kind = HCB_REC_SESSION }, out;
	struct hcb_writer *w;
	struct hcb_reader *r;
	const char *path = tmp_path(name);

	in[0] = trig(10, 0, 7, NAN, "nonfinite");
	in[1] = trig(11, 2, -1, -INFINITY, "loss@3: mean < -1e300");
	in[2] = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "signal");
	in[3] = trig(UINT64_MAX - 1, 0, INT64_MAX, 0.1, "abs max > 1e4");
	in[4] = trig(0, 0, 0, 1.5, "");
	memset(in[3].trigger.consumer, 'c', sizeof(in[3].trigger.consumer) - 1);
	memset(in[3].trigger.condition, 'x', sizeof(in[3].trigger.condition) - 1);
	in[3].trigger.oversize = 1;
	/* a job's (index known, and not), an abnormal end's */
	in[5] = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "job");
	in[5].trigger.by_pid = 4242;
	in[5].trigger.by_process = 1;
	in[6] = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "exit");
	in[6].trigger.exited = 1;
	in[6].trigger.exit_status = 3;
	in[7] = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "job");
	in[7].trigger.by_pid = UINT32_MAX;
	in[7].trigger.by_process = -1;
	/* a fleet's (record --fleet-dir): another host's, its name at the bound */
	in[8] = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "fleet");
	snprintf(in[8].trigger.by_host, sizeof(in[8].trigger.by_host), "node-07.cluster");
	in[8].trigger.by_pid = 77;
	in[8].trigger.by_process = 5;
	in[9] = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "fleet");
	memset(in[9].trigger.by_host, 'h', HCB_HOST_MAX);
	in[9].trigger.by_pid = 1;
	in[9].trigger.by_process = -1;
	s.session.version = 1;
	assert_int_equal(hcb_writer_open(&w, path, hcb_file_format_of(path)), 0);
	assert_int_equal(hcb_writer_write(w, &s), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(hcb_writer_write(w, &in[i]), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	assert_int_equal(hcb_reader_next(r, &out), 1);
	assert_int_equal(out.kind, HCB_REC_SESSION);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(hcb_reader_next(r, &out), 1);
		assert_int_equal(out.kind, HCB_REC_TRIGGER);
		same(&out.trigger, &in[i].trigger, in[i].trigger.seq != HCB_TRIGGER_NO_TAP);
	}
	assert_int_equal(hcb_reader_next(r, &out), 0);
	hcb_reader_close(r);
}

static void test_round_trip(void **state)
{
	(void)state;
	round_trip("t.jsonl");
	round_trip("t.hcbcap");
}

/* The line as formats/JSONL.md shows it. */
static void test_jsonl_line(void **state)
{
	struct hcb_record r = trig(10, 1, 3, NAN, "nonfinite");
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	assert_int_equal(hcb_jsonl_record(&b, &r), 0);
	assert_string_equal(hcb_buf_str(&b),
			    "{\"type\":\"trigger\",\"condition\":\"nonfinite\",\"device\":3,\"seq\":10,"
			    "\"consumer\":\"loss\",\"leaf\":1,\"element\":3,\"value\":\"nan\","
			    "\"ts_ns\":1795318845000000000}\n");
	hcb_buf_reset(&b);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "signal");
	assert_int_equal(hcb_jsonl_record(&b, &r), 0);
	assert_string_equal(hcb_buf_str(&b), "{\"type\":\"trigger\",\"condition\":\"signal\","
			    "\"ts_ns\":1795318845000000000}\n");
	hcb_buf_reset(&b);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "job");
	r.trigger.by_pid = 4242;
	r.trigger.by_process = 1;
	assert_int_equal(hcb_jsonl_record(&b, &r), 0);
	assert_string_equal(hcb_buf_str(&b), "{\"type\":\"trigger\",\"condition\":\"job\","
			    "\"ts_ns\":1795318845000000000,\"by_pid\":4242,\"by_process\":1}\n");
	hcb_buf_reset(&b);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "exit");
	r.trigger.exited = 1;
	r.trigger.exit_signal = 9;
	assert_int_equal(hcb_jsonl_record(&b, &r), 0);
	assert_string_equal(hcb_buf_str(&b), "{\"type\":\"trigger\",\"condition\":\"exit\","
			    "\"ts_ns\":1795318845000000000,\"exit_signal\":9}\n");
	hcb_buf_free(&b);
}

static int read_line(const char *line)
{
	const char *path = tmp_path("bad.jsonl");
	FILE *f = fopen(path, "w");
	struct hcb_reader *r;
	struct hcb_record rec;
	int n;

	assert_non_null(f);
	fputs(line, f);
	fclose(f);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	n = hcb_reader_next(r, &rec);
	if (n < 0)
		assert_non_null(strstr(hcb_reader_error(r), "1:"));
	hcb_reader_close(r);
	return n;
}

static void test_jsonl_damage(void **state)
{
	(void)state;
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"x\"}\n"), 1);
	assert_int_equal(read_line("{\"type\":\"trigger\"}\n"), -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":3}\n"), -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"x\",\"seq\":-1}\n"), -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"x\",\"value\":\"big\"}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"x\",\"oversize\":1}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"x\",\"device\":4294967296}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"job\",\"by_pid\":-1}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"exit\",\"exit_status\":256}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"exit\",\"exit_signal\":\"9\"}\n"),
			 -EBADMSG);
	/* a fleet's host: a string of 1 to 64 bytes */
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"fleet\",\"by_host\":\"a\","
				   "\"by_pid\":7}\n"), 1);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"fleet\",\"by_host\":7}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"fleet\",\"by_host\":\"\"}\n"),
			 -EBADMSG);
	assert_int_equal(read_line("{\"type\":\"trigger\",\"condition\":\"fleet\",\"by_host\":"
				   "\"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh\"}\n"),
			 -EBADMSG);
}

/* replay's text: one line naming the tap and the value. */
static void test_text_line(void **state)
{
	const char *path = tmp_path("t.txt");
	struct hcb_record s = { .kind = HCB_REC_SESSION }, r = trig(10, 1, 3, NAN, "nonfinite");
	struct hcb_writer *w;
	char buf[256] = "";
	FILE *f;

	(void)state;
	snprintf(s.session.platform, sizeof(s.session.platform), "cpu");
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_TEXT), 0);
	assert_int_equal(hcb_writer_write(w, &s), 0);
	assert_int_equal(hcb_writer_write(w, &r), 0);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "signal");
	assert_int_equal(hcb_writer_write(w, &r), 0);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "job");
	r.trigger.by_pid = 4242;
	r.trigger.by_process = 1;
	assert_int_equal(hcb_writer_write(w, &r), 0);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "exit");
	r.trigger.exited = 1;
	r.trigger.exit_status = 3;
	assert_int_equal(hcb_writer_write(w, &r), 0);
	r = trig(HCB_TRIGGER_NO_TAP, -1, -1, NAN, "fleet");
	snprintf(r.trigger.by_host, sizeof(r.trigger.by_host), "node07");
	r.trigger.by_pid = 77;
	r.trigger.by_process = 5;
	assert_int_equal(hcb_writer_write(w, &r), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f) > 0, 1);
	fclose(f);
	assert_string_equal(buf, "trigger nonfinite: loss on cpu:3 seq 10, leaf 1 element 3: nan\n"
			    "trigger signal\n"
			    "trigger job: fired by pid 4242 (process 1)\n"
			    "trigger exit: exit status 3\n"
			    "trigger fleet: fired by host node07 pid 77 (process 5)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_jsonl_line),
		cmocka_unit_test(test_jsonl_damage),
		cmocka_unit_test(test_text_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
