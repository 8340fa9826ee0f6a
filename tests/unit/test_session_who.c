/* SPDX-License-Identifier: MIT */
/*
 * test_session_who.c - who a session's process is, in the recordings
 * (issue 36): the session record's host, process, job and devices written
 * and read back field for field in JSONL and .hcbcap (the longest, the
 * least, none at all: then byte for byte what it was before), the JSONL
 * line as formats/JSONL.md shows it, the session record again as devices
 * come (the last read is the whole), the text writer's header line and a
 * device named by its own platform, and damage refused with a message.
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

#include "core/dtype.h"
#include "core/procid.h"
#include "jsonl.h"
#include "recfile.h"
#include "testcons.h"

static char tmpdir[] = "/tmp/test_session_who.XXXXXX";
#include "testtmp.h"

static const struct hcb_session_device devs[] = {
	{ .device = 2048, .global_id = 2048, .platform = "cpu" },
	{ .device = 0, .global_id = HCB_GLOBAL_NONE, .platform = "cuda" },
	{ .device = 7, .global_id = UINT64_MAX - 1, .platform = "" },
};

static struct hcb_record session(int who)
{
	struct hcb_record r = { .kind = HCB_REC_SESSION };
	struct hcb_session_info *s = &r.session;

	s->version = 1;
	s->pid = 4242;
	s->start_ns = 1795318845000000000ull;
	snprintf(s->provider, sizeof(s->provider), "jax-callback");
	snprintf(s->platform, sizeof(s->platform), "cpu");
	if (!who)
		return r;
	snprintf(s->host, sizeof(s->host), "node07");
	s->process = (struct hcb_process_id){ .index = 1, .count = 2, .source = "jax" };
	snprintf(s->job, sizeof(s->job), "81723");
	snprintf(s->command, sizeof(s->command), "python train.py --lr 3e-4");
	s->devices = devs;
	s->ndevices = 3;
	return r;
}

static void same(const struct hcb_session_info *a, const struct hcb_session_info *b)
{
	assert_int_equal(a->pid, b->pid);
	assert_string_equal(a->provider, b->provider);
	assert_string_equal(a->platform, b->platform);
	assert_true(a->start_ns == b->start_ns);
	assert_string_equal(a->host, b->host);
	assert_string_equal(a->process.source, b->process.source);
	if (a->process.source[0]) {
		assert_int_equal(a->process.index, b->process.index);
		assert_int_equal(a->process.count, b->process.count);
	}
	assert_string_equal(a->job, b->job);
	assert_string_equal(a->command, b->command);
	assert_int_equal(a->ndevices, b->ndevices);
	for (uint32_t i = 0; i < a->ndevices; i++) {
		assert_int_equal(a->devices[i].device, b->devices[i].device);
		assert_true(a->devices[i].global_id == b->devices[i].global_id);
		assert_string_equal(a->devices[i].platform, b->devices[i].platform);
	}
}

/* recs written to name, read back: each session record as written */
static void round_trip(const char *name, const struct hcb_record *recs, int n)
{
	const char *path = tmp_path(name);
	struct hcb_writer *w;
	struct hcb_reader *r;
	struct hcb_record out;

	assert_int_equal(hcb_writer_open(&w, path, hcb_file_format_of(path)), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(hcb_writer_write(w, &recs[i]), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(hcb_reader_next(r, &out), 1);
		assert_int_equal(out.kind, HCB_REC_SESSION);
		same(&out.session, &recs[i].session);
	}
	assert_int_equal(hcb_reader_next(r, &out), 0);
	hcb_reader_close(r);
}

static void test_round_trip(void **state)
{
	struct hcb_record recs[4] = { session(0), session(1), session(1), session(1) };
	static struct hcb_session_device many[HCB_SESSION_DEVICES];

	(void)state;
	/* the least: a host alone; the most: every bound, 256 devices */
	recs[2].session.devices = NULL;
	recs[2].session.ndevices = 0;
	recs[2].session.process = (struct hcb_process_id){ 0 };
	recs[2].session.job[0] = '\0';
	recs[2].session.command[0] = '\0';
	memset(recs[3].session.host, 'h', HCB_HOST_MAX);
	memset(recs[3].session.command, '~', HCB_COMMAND_MAX);
	memset(recs[3].session.job, 'j', HCB_JOB_MAX - 1);
	recs[3].session.process = (struct hcb_process_id){ .index = HCB_PROCESS_MAX - 1,
							   .count = HCB_PROCESS_MAX,
							   .source = "kubernetes12345" };
	for (uint32_t i = 0; i < HCB_SESSION_DEVICES; i++)
		many[i] = (struct hcb_session_device){ .device = UINT32_MAX - i, .global_id = i,
						       .platform = "TFRT_CPU_%u_xxx" };
	recs[3].session.devices = many;
	recs[3].session.ndevices = HCB_SESSION_DEVICES;
	round_trip("s.jsonl", recs, 4);
	round_trip("s.hcbcap", recs, 4);
	/* an index without a count */
	recs[1].session.process.count = 0;
	round_trip("k.jsonl", recs, 2);
	round_trip("k.hcbcap", recs, 2);
	/* the command line alone says who: a who frame of it */
	recs[1] = session(0);
	snprintf(recs[1].session.command, sizeof(recs[1].session.command), "a b");
	round_trip("c.jsonl", recs, 2);
	round_trip("c.hcbcap", recs, 2);
}

/* A session that says nothing of who is written as it always was: no
 * members in JSONL, no who frame in .hcbcap. */
static void test_nothing_said(void **state)
{
	struct hcb_record r = session(0);
	struct hcb_buf b = HCB_BUF_INIT;
	const char *path = tmp_path("n.hcbcap");
	struct hcb_writer *w;
	FILE *f;
	long size;

	(void)state;
	assert_int_equal(hcb_jsonl_record(&b, &r), 0);
	assert_string_equal(hcb_buf_str(&b), "{\"type\":\"session\",\"version\":1,\"pid\":4242,"
			    "\"provider\":\"jax-callback\",\"platform\":\"cpu\","
			    "\"start_ns\":1795318845000000000,\"hcbtrace\":\"" HCB_VERSION "\"}\n");
	hcb_buf_free(&b);
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_HCBCAP), 0);
	assert_int_equal(hcb_writer_write(w, &r), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	/* the file header, one session frame: head, 24 + 12 + 3 bytes, CRC */
	assert_int_equal(size, 16 + 16 + 24 + 12 + 3 + 4);
}

/* The line as formats/JSONL.md shows it. */
static void test_jsonl_line(void **state)
{
	struct hcb_record r = session(1);
	struct hcb_buf b = HCB_BUF_INIT;

	(void)state;
	assert_int_equal(hcb_jsonl_record(&b, &r), 0);
	assert_string_equal(hcb_buf_str(&b),
		"{\"type\":\"session\",\"version\":1,\"pid\":4242,\"provider\":\"jax-callback\","
		"\"platform\":\"cpu\",\"host\":\"node07\",\"process\":{\"index\":1,\"count\":2,"
		"\"source\":\"jax\"},\"job\":\"81723\",\"devices\":[{\"device\":2048,"
		"\"global_id\":2048,\"platform\":\"cpu\"},{\"device\":0,\"platform\":\"cuda\"},"
		"{\"device\":7,\"global_id\":18446744073709551614}],"
		"\"command\":\"python train.py --lr 3e-4\","
		"\"start_ns\":1795318845000000000,\"hcbtrace\":\"" HCB_VERSION "\"}\n");
	hcb_buf_free(&b);
}

/* A device named by its own platform; who the process is said first, once
 * a job has several, and again only when that changes. */
static void test_text(void **state)
{
	const char *path = tmp_path("t.txt");
	struct hcb_record s = session(1), t = { .kind = HCB_REC_TAP };
	struct hcb_consumer *c;
	struct hcb_writer *w;
	float v = 1.5f;
	char buf[1024] = "";
	FILE *f;

	(void)state;
	c = test_leaf_consumer("loss", 5, "loss", HCB_DT_FLOAT32, 0, 0, 0);
	t.tap = (struct hcb_tap){ .device = 0, .consumer = c, .payload = (unsigned char *)&v };
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_TEXT), 0);
	assert_int_equal(hcb_writer_write(w, &s), 0);
	assert_int_equal(hcb_writer_write(w, &t), 0);
	t.tap.device = 2048;
	assert_int_equal(hcb_writer_write(w, &t), 0);
	t.tap.device = 9;
	assert_int_equal(hcb_writer_write(w, &t), 0);
	/* the same again (a device more): no line; another host: one */
	assert_int_equal(hcb_writer_write(w, &s), 0);
	snprintf(s.session.host, sizeof(s.session.host), "x\033y");
	assert_int_equal(hcb_writer_write(w, &s), 0);
	/* a process alone: none */
	s.session.process.count = 1;
	snprintf(s.session.host, sizeof(s.session.host), "z");
	assert_int_equal(hcb_writer_write(w, &s), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	hcb_consumer_free(c);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	assert_string_equal(buf, "# process 1 of 2 (jax), host node07, pid 4242, job 81723\n"
			    "device: cuda:0 what: loss\n1.5\n"
			    "device: cpu:2048 what: loss\n1.5\n"
			    "device: cpu:9 what: loss\n1.5\n"
			    "# process 1 of 2 (jax), host x\\x1by, pid 4242, job 81723\n");
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

#define S "{\"type\":\"session\",\"version\":1,"

static void test_jsonl_damage(void **state)
{
	static const char *const bad[] = {
		S "\"host\":\"\"}\n",
		S "\"host\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n",
		S "\"host\":7}\n",
		S "\"process\":3}\n",
		S "\"process\":{\"count\":2,\"source\":\"x\"}}\n",
		S "\"process\":{\"index\":2,\"count\":2,\"source\":\"x\"}}\n",
		S "\"process\":{\"index\":1048576,\"source\":\"x\"}}\n",
		S "\"process\":{\"index\":0,\"count\":1}}\n",
		S "\"process\":{\"index\":0,\"source\":\"a b\"}}\n",
		S "\"process\":{\"index\":0,\"source\":\"sixteen-bytes-xx\"}}\n",
		S "\"process\":{\"index\":-1,\"source\":\"x\"}}\n",
		S "\"job\":\"\"}\n",
		S "\"devices\":{}}\n",
		S "\"devices\":[1]}\n",
		S "\"devices\":[{\"global_id\":1}]}\n",
		S "\"devices\":[{\"device\":4294967296}]}\n",
		S "\"devices\":[{\"device\":1,\"global_id\":18446744073709551615}]}\n",
		S "\"devices\":[{\"device\":1,\"platform\":\"\"}]}\n",
		S "\"devices\":[{\"device\":1},{\"device\":1}]}\n",
		S "\"command\":\"\"}\n",
		S "\"command\":\"tab\\there\"}\n",
		S "\"command\":\"caf\u00e9\"}\n",
		S "\"command\":3}\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (read_line(bad[i]) != -EBADMSG)
			fail_msg("read: %s", bad[i]);
	/* null is absent; unknown members are passed over */
	assert_int_equal(read_line(S "\"host\":null,\"process\":null,\"job\":null,\"devices\":null,"
				   "\"later\":{\"x\":1}}\n"), 1);
	assert_int_equal(read_line(S "\"process\":{\"index\":3,\"count\":null,\"source\":\"k\"},"
				   "\"devices\":[{\"device\":1,\"global_id\":null}]}\n"), 1);
}

/* rec written whole to path (.hcbcap), and its who frame refused */
static void refused_who(const char *path, const struct hcb_record *rec)
{
	struct hcb_writer *w;
	struct hcb_reader *r;
	struct hcb_record out;

	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_HCBCAP), 0);
	assert_int_equal(hcb_writer_write(w, rec), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	assert_int_equal(hcb_reader_next(r, &out), -EBADMSG);
	assert_non_null(strstr(hcb_reader_error(r), "invalid who frame"));
	hcb_reader_close(r);
}

/* .hcbcap: a who frame must be whole and right before its session. */
static void test_hcbcap_damage(void **state)
{
	struct hcb_record recs[2] = { session(1), { .kind = HCB_REC_END } };
	const char *path = tmp_path("d.hcbcap");
	unsigned char file[4096];
	struct hcb_writer *w;
	struct hcb_reader *r;
	struct hcb_record out;
	uint64_t who;
	size_t size, cut;
	FILE *f;

	(void)state;
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_HCBCAP), 0);
	assert_int_equal(hcb_writer_write(w, &recs[0]), 0);
	assert_int_equal(hcb_writer_write(w, &recs[1]), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	f = fopen(path, "rb");
	size = fread(file, 1, sizeof(file), f);
	fclose(f);
	/* the who frame first, its type skippable 4 */
	assert_int_equal(file[16], 4);
	assert_int_equal(file[19], 0x80);
	/* cut after the who frame: truncated there */
	who = file[20] | (uint64_t)file[21] << 8;
	cut = 16 + 16 + who + 4;
	f = fopen(path, "wb");
	fwrite(file, 1, cut, f);
	fclose(f);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	assert_int_equal(hcb_reader_next(r, &out), -ENODATA);
	assert_non_null(strstr(hcb_reader_error(r), "a session's who frame, before the session"));
	hcb_reader_close(r);
	/* followed by the end, not its session */
	f = fopen(path, "wb");
	fwrite(file, 1, cut, f);
	fwrite(file + size - 44, 1, 44, f);
	fclose(f);
	assert_int_equal(hcb_reader_open(&r, path), 0);
	assert_int_equal(hcb_reader_next(r, &out), -EBADMSG);
	assert_non_null(strstr(hcb_reader_error(r), "a who frame not followed by its session"));
	hcb_reader_close(r);
	/* a command line that is not printable ASCII, its CRCs right */
	recs[0].session.command[1] = '\n';
	refused_who(path, &recs[0]);
	recs[0].session.command[1] = 'y';
	/* a host's name that is no text, its CRCs right */
	recs[0].session.host[2] = (char)0xff;
	refused_who(path, &recs[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_nothing_said),
		cmocka_unit_test(test_jsonl_line),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_jsonl_damage),
		cmocka_unit_test(test_hcbcap_damage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
