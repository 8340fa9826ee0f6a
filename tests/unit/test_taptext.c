/* SPDX-License-Identifier: MIT */
/*
 * test_taptext.c - a jax.debug.print's text in the recordings (issue 29):
 * written with its tap and read back byte for byte in JSONL ("text") and
 * .hcbcap (a text frame before the tap), multi-line and non-ASCII
 * included, beside taps without one; the text and replay writer prints
 * the header line then the text; damage around a text frame is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "core/record.h"
#include "le.h"
#include "recfile.h"
#include "text/idprint.h"

static const char *const kwargs[] = { "callback", "debug_print.1", "module", "jit_f", NULL };
static const char text1[] = "x=[[1. 2.]\n [3. 4.]] \xce\xb1=\xe2\x82\xac \xf0\x9f\x98\x80";

static struct hcb_consumer *consumer(void)
{
	const struct hcb_leaf_spec leaf = { HCB_DT_FLOAT32, 1, { 2 } };
	struct hcb_consumer_spec spec = { .name = "debug_print.1", .kwargs = kwargs,
					  .nleaves = 1, .leaves = &leaf };
	struct hcb_consumer *c = NULL;
	void *blob;
	size_t len;

	assert_int_equal(hcb_reg_build(&spec, 77, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

static void write_file(const char *path, enum hcb_file_format f, const struct hcb_consumer *c)
{
	static const float v[2] = { 1, 2 };
	struct hcb_writer *w;
	struct hcb_record rec = { .kind = HCB_REC_SESSION };

	snprintf(rec.session.provider, sizeof(rec.session.provider), "jax-callback");
	snprintf(rec.session.platform, sizeof(rec.session.platform), "cpu");
	assert_int_equal(hcb_writer_open(&w, path, f), 0);
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	rec = (struct hcb_record){ .kind = HCB_REC_TAP };
	rec.tap = (struct hcb_tap){ .device = 1, .seq = 5, .wall_ns = 9, .consumer = c,
				       .payload = (const unsigned char *)v, .text = text1,
				       .text_len = (uint32_t)strlen(text1) };
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	/* one without, then an empty text (a print of "") with copy times */
	rec.tap.text = NULL;
	rec.tap.seq = 6;
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	rec.tap.text = "";
	rec.tap.text_len = 0;
	rec.tap.seq = 7;
	rec.tap.copy_start_ns = 3;
	rec.tap.copy_end_ns = 4;
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	assert_int_equal(hcb_writer_close(w), 0);
}

static void read_file(const char *path)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	int taps = 0, got;

	assert_int_equal(hcb_reader_open(&r, path), 0);
	while ((got = hcb_reader_next(r, &rec)) == 1) {
		if (rec.kind != HCB_REC_TAP)
			continue;
		taps++;
		if (rec.tap.seq == 5) {
			assert_non_null(rec.tap.text);
			assert_int_equal(rec.tap.text_len, strlen(text1));
			assert_memory_equal(rec.tap.text, text1, strlen(text1));
		} else if (rec.tap.seq == 6) {
			assert_null(rec.tap.text);
		} else {
			assert_non_null(rec.tap.text);
			assert_int_equal(rec.tap.text_len, 0);
			assert_int_equal(rec.tap.copy_end_ns, 4);
		}
	}
	if (got)
		fail_msg("%s: %s", path, hcb_reader_error(r));
	assert_int_equal(taps, 3);
	hcb_reader_close(r);
}

static void test_round_trip(void **state)
{
	struct hcb_consumer *c = consumer();
	char dir[] = "/tmp/h29taptextXXXXXX", path[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.jsonl", dir);
	write_file(path, HCB_FMT_JSONL, c);
	read_file(path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/r.hcbcap", dir);
	write_file(path, HCB_FMT_HCBCAP, c);
	read_file(path);
	unlink(path);
	rmdir(dir);
	hcb_consumer_free(c);
}

/* The text writer (attach, replay): the header, then the text as it is. */
static void test_printed(void **state)
{
	struct hcb_consumer *c = consumer();
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	assert_int_equal(hcb_idprint_text(&b, c, "cpu", 1, text1, (uint32_t)strlen(text1)), 0);
	assert_string_equal(hcb_buf_str(&b), "callback: debug_print.1 device: cpu:1 module: jit_f\n"
			    "x=[[1. 2.]\n [3. 4.]] \xce\xb1=\xe2\x82\xac \xf0\x9f\x98\x80\n");
	hcb_buf_free(&b);
	hcb_consumer_free(c);
}

/* A text frame followed by what is not its tap: damage, at its offset. */
static void test_damage(void **state)
{
	struct hcb_consumer *c = consumer();
	char dir[] = "/tmp/h29taptextXXXXXX", path[64];
	struct hcb_reader *r;
	struct hcb_record rec;
	unsigned char *buf;
	long n, text_at = -1;
	FILE *f;
	int got;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.hcbcap", dir);
	write_file(path, HCB_FMT_HCBCAP, c);
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	buf = malloc((size_t)n);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)n, f), n);
	/* the first text frame, then a second text frame in place of the
	 * consumer frame's follower: cut the file right after the text */
	for (long i = 16; i + 16 <= n; ) {
		uint32_t type = hcb_get_le32(buf + i);
		uint64_t len = hcb_get_le64(buf + i + 4);

		if (type == 0x80000003u) {
			text_at = i;
			assert_int_equal(ftruncate(fileno(f), i + 16 + (long)len + 4), 0);
			break;
		}
		i += 16 + (long)len + 4;
	}
	fclose(f);
	free(buf);
	assert_true(text_at > 0);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	while ((got = hcb_reader_next(r, &rec)) == 1)
		assert_true(rec.kind != HCB_REC_TAP);
	assert_true(got < 0);
	assert_non_null(strstr(hcb_reader_error(r), "truncated"));
	hcb_reader_close(r);
	unlink(path);
	rmdir(dir);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_printed),
		cmocka_unit_test(test_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
