/* SPDX-License-Identifier: MIT */
/*
 * test_tui_source.c - a real recording browsed in place (tui/source.h):
 * whether damage keeps the display closed depends on where it is in the
 * file, never on how far the indexing thread got before the main one
 * looked.  Each case lets the thread run to the damage first (the order
 * a loaded machine can produce), then asks what the display would.  And a
 * job's two recordings browsed as one (issue 36).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "source.h"

#define TAPS 4000
#define FIELD 4000      /* floats in every other tap: 32 MB in all, twice the checked part */

/* A JSONL recording as hcbtrace writes it; line bad_line (1: the first
 * tap) damaged, or none (0); garbage appended after the end when tail. */
static void write_recording(const char *path, int bad_line, int tail)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "{\"type\":\"session\",\"version\":1,\"pid\":1,\"provider\":\"hcbtap\","
		"\"platform\":\"cpu\",\"start_ns\":1}\n");
	for (int i = 0; i < TAPS; i++) {
		int field = i % 2;

		fprintf(f, "{\"type\":\"tap\",\"device\":%d,\"seq\":%d,\"consumer\":%d,\"name\":\"%s\","
			"\"kwargs\":{\"what\":\"%s\"},\"tree\":\"*\",\"ts_ns\":%llu,"
			"\"arrays\":[{\"dtype\":\"float32\",\"shape\":", i / 2 % 4, i / 8, 1 + field,
			field ? "field" : "loss", field ? "field" : "loss",
			1700000000000000000ull + (unsigned long long)i * 1000000);
		if (field) {
			fprintf(f, "[%d],\"data\":[", FIELD);
			for (int k = 0; k < FIELD; k++)
				fputs(k ? ",0.5" : "0.5", f);
		} else {
			fprintf(f, "[],\"data\":[%d.25", i);
		}
		fputs(i + 1 == bad_line ? ",0.x]}]}\n" : "]}]}\n", f);
	}
	fprintf(f, "{\"type\":\"end\",\"taps\":%d,\"drops\":0,\"end_ns\":2}\n", TAPS);
	if (tail)
		fputs("garbage{\n", f);
	assert_int_equal(fclose(f), 0);
}

/* Until the thread has stopped indexing (the end, or damage). */
static void wait_indexed(struct tui_sink *sink)
{
	for (;;) {
		int indexing;

		tui_sink_lock(sink);
		indexing = sink->model.indexing;
		tui_sink_unlock(sink);
		if (!indexing)
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
}

/* Opens path, lets the thread index all of it, then: what the display
 * would be told of the checked part (*checked) and at the end (returned,
 * its message in msg). */
static int browse(const char *path, int *checked, char *msg, size_t cap)
{
	struct tui_source *src;
	struct tui_sink sink;
	const char *m;
	int n;

	n = tui_source_open(&src, path, &sink, NULL);
	unlink(path);   /* open twice, by the thread and the frames: not needed by name */
	assert_int_equal(n, 0);
	assert_int_equal(tui_source_start(src), 0);
	wait_indexed(&sink);
	*checked = tui_source_checked(src, &m);
	n = tui_source_result(src, &m);
	snprintf(msg, cap, "%s", m);
	tui_source_close(src);
	return n;
}

static void path_for(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/hcb-test-source-%d-%s.jsonl", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid(), name);
}

static void test_damage_past_checked_part_is_said_at_the_end(void **state)
{
	char path[256];
	char msg[512];
	int checked, n;

	(void)state;
	path_for(path, sizeof(path), "late");
	/* a line after the end record, 32 MB in */
	write_recording(path, 0, 1);
	n = browse(path, &checked, msg, sizeof(msg));
	assert_int_equal(checked, 0);
	assert_true(n < 0 && n != -EINTR && n != -ENODATA);
	assert_non_null(strstr(msg, ":4003: not valid JSON"));
}

static void test_damage_in_checked_part_keeps_it_closed(void **state)
{
	char path[256];
	char msg[512];
	int checked, n;

	(void)state;
	path_for(path, sizeof(path), "early");
	write_recording(path, 11, 0);
	n = browse(path, &checked, msg, sizeof(msg));
	assert_true(checked < 0 && checked != -ENODATA);
	assert_int_equal(n, checked);
	assert_non_null(strstr(msg, ":12: not valid JSON"));
}

static void test_whole_recording_is_clean(void **state)
{
	char path[256];
	char msg[512];
	int checked;

	(void)state;
	path_for(path, sizeof(path), "clean");
	write_recording(path, 0, 0);
	assert_int_equal(browse(path, &checked, msg, sizeof(msg)), 0);
	assert_int_equal(checked, 0);
}

/* A job of two recordings (tui_source_open_job): the second another
 * process, damaged after its end.  Every tap of both indexed, each read
 * back from its own file (offsets laid end to end), as its process's; the
 * damage noted, not the end of the other file. */
static void test_job_of_two_browsed_as_one(void **state)
{
	char a[256], b[256], msg[512];
	struct tui_source *src;
	const struct tui_tap *t;
	struct hcb_jobset set;
	struct tui_sink sink;
	const char *m;
	FILE *f;
	int err;

	(void)state;
	path_for(a, sizeof(a), "job-a");
	path_for(b, sizeof(b), "job-b");
	write_recording(a, 0, 0);
	write_recording(b, 0, 1);
	/* "pid":1 -> "pid":2: another process */
	f = fopen(b, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)strlen("{\"type\":\"session\",\"version\":1,\"pid\":"), SEEK_SET), 0);
	assert_int_equal(fputc('2', f), '2');
	assert_int_equal(fclose(f), 0);
	hcb_jobset_init(&set);
	assert_int_equal(hcb_jobset_add_file(&set, b), 0);
	assert_int_equal(hcb_jobset_add_file(&set, a), 0);
	assert_int_equal(hcb_jobset_identify(&set), 0);
	assert_int_equal(tui_source_open_job(&src, &set, &sink, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(tui_source_start(src), 0);
	wait_indexed(&sink);
	assert_int_equal(tui_source_checked(src, &m), 0);
	assert_int_equal(tui_source_result(src, &m), 0);
	assert_int_equal(tui_source_troubles(src, 0, &err, &m), 1);
	assert_true(err < 0 && err != -ENODATA);
	assert_non_null(strstr(m, "job-b.jsonl:4003: not valid JSON"));
	assert_int_equal(sink.model.damaged, 1);
	assert_int_equal(sink.model.received, 2 * TAPS);
	assert_int_equal(sink.model.nprocs, 2);
	assert_string_equal(sink.model.procs[0].tag, "1");
	assert_string_equal(sink.model.procs[1].tag, "2");
	/* 8 streams a process: the same devices and consumer ids, apart */
	assert_int_equal(sink.model.nstreams, 16);
	/* stamped alike: the first process's tap first, then the second's,
	 * read back from its own file past the checked part */
	for (uint64_t i = 2 * TAPS - 4; i < 2 * TAPS; i++) {
		t = tui_model_get(&sink.model, i);
		assert_non_null(t);
		assert_int_equal(sink.model.cons[t->cons].proc, i % 2);
		assert_int_equal(t->seq, (TAPS - 2 + i / 2 % 2) / 8);
	}
	t = tui_model_get(&sink.model, 1);
	assert_non_null(t);
	assert_int_equal(sink.model.cons[t->cons].proc, 1);
	assert_float_equal(t->value, 0.25, 0);
	tui_source_close(src);
	hcb_jobset_free(&set);
	unlink(a);
	unlink(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damage_past_checked_part_is_said_at_the_end),
		cmocka_unit_test(test_damage_in_checked_part_keeps_it_closed),
		cmocka_unit_test(test_whole_recording_is_clean),
		cmocka_unit_test(test_job_of_two_browsed_as_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
