/* SPDX-License-Identifier: MIT */
/*
 * test_devids.c - devices by id, not by a dense array (issue 36): any u32
 * a runtime gives a device (jax's process_index * 2048 + local, a hostile
 * 2^31 - 1 or 2^32 - 1, ten thousand distinct ids) through the filter,
 * the device's name, every recording format written and read back (JSONL,
 * .hcbcap), the write-only ones (.npz, the timeline: each device a pid
 * within 32 bits, no tid a pid), and a trigger on such a device.  Nothing
 * here keeps a table of 256 devices.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/dtype.h"
#include "core/filter.h"
#include "core/record.h"
#include "text/idprint.h"
#include "recfile.h"

static char tmpdir[] = "/tmp/test_devids.XXXXXX";
#include "testcons.h"
#include "testtmp.h"

/* Distinct devices of the recording: the odd ones first, then many. */
#define NDEV 10004u

static uint32_t device_of(uint32_t i)
{
	static const uint32_t odd[4] = { 0xffffffffu, 0x7fffffffu, 2048, 2049 };

	/* i * an odd number is distinct modulo 2^32 for distinct i */
	return i < 4 ? odd[i] : (i - 4) * 2654435761u + 5;
}

static void test_filter_takes_any_id(void **state)
{
	struct hcb_filter f = { 0 };

	(void)state;
	assert_true(hcb_filter_device(&f, 0xffffffffu));   /* no filter: every device */
	assert_int_equal(hcb_filter_add_device(&f, 0xffffffffu), 0);
	assert_int_equal(hcb_filter_add_device(&f, 2048), 0);
	assert_int_equal(hcb_filter_add_device(&f, 2048), 0);   /* once */
	assert_int_equal(hcb_filter_add_device(&f, 1ull << 32), -EINVAL);
	assert_true(hcb_filter_device(&f, 0xffffffffu));
	assert_true(hcb_filter_device(&f, 2048));
	assert_false(hcb_filter_device(&f, 0));
	assert_false(hcb_filter_device(&f, 0x7fffffffu));
	assert_int_equal(f.devices.n, 2);
	/* a bounded list: one clear refusal past it */
	for (uint32_t d = 0; f.devices.n < HCB_DEVSET_MAX; d++)
		assert_int_equal(hcb_filter_add_device(&f, 100000 + d), 0);
	assert_int_equal(hcb_filter_add_device(&f, 7), -E2BIG);
	assert_false(hcb_filter_device(&f, 7));
	assert_true(hcb_filter_device(&f, 100000));
}

static void test_device_names(void **state)
{
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	assert_int_equal(hcb_idprint_device(&b, "cpu", 0xffffffffu), 0);
	assert_string_equal(hcb_buf_str(&b), "cpu:4294967295");
	hcb_buf_reset(&b);
	assert_int_equal(hcb_idprint_device(&b, "TFRT_CPU_%u", 2048), 0);
	assert_string_equal(hcb_buf_str(&b), "TFRT_CPU_2048");
	hcb_buf_free(&b);
}

/* The recording: per device one tap, then one drop; a trigger on the
 * last of the odd ones; the end. */
static void write_recording(const char *path, const struct hcb_consumer *c)
{
	struct hcb_record r = { .kind = HCB_REC_SESSION };
	struct hcb_writer *w;
	float v;

	assert_int_equal(hcb_writer_open(&w, path, hcb_file_format_of(path)), 0);
	r.session.version = 1;
	snprintf(r.session.platform, sizeof(r.session.platform), "cpu");
	assert_int_equal(hcb_writer_write(w, &r), 0);
	for (uint32_t i = 0; i < NDEV; i++) {
		v = (float)i;
		r = (struct hcb_record){ .kind = HCB_REC_TAP };
		r.tap = (struct hcb_tap){ .device = device_of(i), .seq = i, .wall_ns = 1000 + i,
					  .consumer = c, .payload = (const unsigned char *)&v };
		assert_int_equal(hcb_writer_write(w, &r), 0);
		r = (struct hcb_record){ .kind = HCB_REC_DROP };
		r.drop = (struct hcb_drop_info){ .device = device_of(i), .count = 2 };
		snprintf(r.drop.reason, sizeof(r.drop.reason), "too many devices");
		assert_int_equal(hcb_writer_write(w, &r), 0);
	}
	r = (struct hcb_record){ .kind = HCB_REC_TRIGGER };
	r.trigger = (struct hcb_trigger_info){ .device = 0xffffffffu, .seq = 0, .leaf = -1,
					       .element = -1, .wall_ns = 2000 };
	snprintf(r.trigger.condition, sizeof(r.trigger.condition), "signal");
	assert_int_equal(hcb_writer_write(w, &r), 0);
	r = (struct hcb_record){ .kind = HCB_REC_END };
	r.end = (struct hcb_end_info){ .taps = NDEV, .drops = 2 * NDEV, .end_ns = 3000 };
	assert_int_equal(hcb_writer_write(w, &r), 0);
	assert_int_equal(hcb_writer_close(w), 0);
}

/* Read back: every tap, drop and the trigger on its own device. */
static void read_back(const char *path)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	uint32_t taps = 0, drops = 0, triggers = 0;
	int n;

	assert_int_equal(hcb_reader_open(&r, path), 0);
	while ((n = hcb_reader_next(r, &rec)) == 1) {
		if (rec.kind == HCB_REC_TAP) {
			assert_int_equal(rec.tap.device, device_of(taps));
			assert_true(*(const float *)rec.tap.payload == (float)taps);
			taps++;
		} else if (rec.kind == HCB_REC_DROP) {
			assert_int_equal(rec.drop.device, device_of(drops));
			assert_string_equal(rec.drop.reason, "too many devices");
			drops++;
		} else if (rec.kind == HCB_REC_TRIGGER) {
			assert_int_equal(rec.trigger.device, 0xffffffffu);
			triggers++;
		}
	}
	assert_int_equal(n, 0);
	assert_string_equal(hcb_reader_error(r), "");
	assert_int_equal(taps, NDEV);
	assert_int_equal(drops, NDEV);
	assert_int_equal(triggers, 1);
	hcb_reader_close(r);
}

static void test_recordings_round_trip(void **state)
{
	struct hcb_consumer *c = test_leaf_consumer("x", 7, "x", HCB_DT_FLOAT32, 0, 0, 0);
	const char *names[] = { "r.jsonl", "r.hcbcap" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		write_recording(tmp_path(names[i]), c);
		read_back(tmp_path(names[i]));
	}
	/* the write-only formats take them too */
	write_recording(tmp_path("r.npz"), c);
	hcb_consumer_free(c);
}

/* The timeline: one pid a device, each named for its id and sorted by it,
 * within 32 bits and never 0; no tid a pid; a tap's and a drop's pid its
 * device's. */
static void test_timeline(void **state)
{
	struct hcb_consumer *c = test_leaf_consumer("x", 7, "x", HCB_DT_FLOAT32, 0, 0, 0);
	json_t *root, *ev, *e;
	json_error_t err;
	uint32_t *dev_of_pid = calloc(4 * NDEV + 8, sizeof(*dev_of_pid));
	unsigned char *is_tid = calloc(4 * NDEV + 8, 1);
	size_t i, npids = 0;
	uint32_t taps = 0;

	(void)state;
	assert_non_null(dev_of_pid);
	assert_non_null(is_tid);
	write_recording(tmp_path("r.json"), c);
	root = json_load_file(tmp_path("r.json"), 0, &err);
	assert_non_null(root);
	ev = json_object_get(root, "traceEvents");
	json_array_foreach(ev, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		json_int_t pid = json_integer_value(json_object_get(e, "pid"));
		json_int_t tid = json_integer_value(json_object_get(e, "tid"));

		assert_true(pid >= 1 && pid < (json_int_t)(4 * NDEV + 8));
		assert_true(tid >= 1 && tid < (json_int_t)(4 * NDEV + 8));
		if (!strcmp(name, "process_sort_index")) {
			dev_of_pid[pid] = (uint32_t)json_integer_value(
				json_object_get(json_object_get(e, "args"), "sort_index"));
			npids++;
		} else if (!strcmp(name, "thread_name")) {
			is_tid[tid] = 1;
		} else if (!strcmp(name, "x") &&
			   !strcmp(json_string_value(json_object_get(e, "ph")), "i")) {
			/* its device's pid, on a consumer's thread */
			assert_int_equal(dev_of_pid[pid], device_of(taps));
			assert_true(is_tid[tid] && !is_tid[pid]);
			taps++;
		}
	}
	assert_int_equal(npids, NDEV);
	assert_int_equal(taps, NDEV);
	json_decref(root);
	free(dev_of_pid);
	free(is_tid);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_takes_any_id),
		cmocka_unit_test(test_device_names),
		cmocka_unit_test(test_recordings_round_trip),
		cmocka_unit_test(test_timeline),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
