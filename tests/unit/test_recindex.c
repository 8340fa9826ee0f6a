/* SPDX-License-Identifier: MIT */
/*
 * test_recindex.c - random access to recordings (formats/recfile.h:
 * hcb_reader_skim, _offset, _seek, _define, _tell, _size), for JSONL and
 * .hcbcap, on real files in a temporary directory:
 *
 *  - a skim yields every record a sequential read does, at the same
 *    offsets, with the same tap headers (copy times included) and no
 *    payload;
 *  - every record read back by its offset, in any order, by another reader
 *    given the skim's consumers, equals the sequential read, byte for byte;
 *  - JSONL lines in another member order, and taps of a consumer met for
 *    the first time, are parsed whole by the skim and come out the same;
 *  - tell runs to the file's size; size is 0 and seek -ESPIPE on a pipe;
 *  - damage: a truncated file ends the skim with -ENODATA after the records
 *    before it; a damaged header fails the skim with -EBADMSG; damaged data,
 *    which a skim does not read, fails the read back with -EBADMSG naming
 *    the offset, and the next seek reads other records again; an .hcbcap
 *    tap read back without its consumer fails cleanly.
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
#include <unistd.h>

#include <cmocka.h>

#include "core/consumer.h"
#include "core/dtype.h"
#include "recfile.h"
#include "testcons.h"

static char tmpdir[] = "/tmp/test_recindex.XXXXXX";
#include "testtmp.h"

static struct hcb_consumer *consumer(const char *name, uint32_t id, unsigned int dtype,
				     unsigned int ndim, uint64_t d0, uint64_t d1)
{
	return test_leaf_consumer(name, id, name, dtype, ndim, d0, d1);
}

/* ---- what a reader returned, kept ---- */

struct got {
	enum hcb_record_kind kind;
	uint64_t off;
	uint32_t device, id;
	uint64_t seq, ts, count, copy[2];
	unsigned char *payload;
	size_t len;
};

static void keep(struct got *g, const struct hcb_record *rec, uint64_t off)
{
	memset(g, 0, sizeof(*g));
	g->kind = rec->kind;
	g->off = off;
	if (rec->kind == HCB_REC_DROP)
		g->count = rec->drop.count;
	if (rec->kind != HCB_REC_TAP)
		return;
	g->device = rec->tap.device;
	g->id = rec->tap.consumer->id;
	g->seq = rec->tap.seq;
	g->ts = rec->tap.wall_ns;
	g->copy[0] = rec->tap.copy_start_ns;
	g->copy[1] = rec->tap.copy_end_ns;
	g->len = rec->tap.consumer->total_bytes;
	if (rec->tap.payload) {
		g->payload = malloc(g->len ? g->len : 1);
		assert_non_null(g->payload);
		memcpy(g->payload, rec->tap.payload, g->len);
	}
}

static void same(const struct got *a, const struct got *b, int payloads)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->off, b->off);
	assert_int_equal(a->device, b->device);
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->ts, b->ts);
	assert_int_equal(a->copy[0], b->copy[0]);
	assert_int_equal(a->copy[1], b->copy[1]);
	assert_int_equal(a->count, b->count);
	if (payloads && a->kind == HCB_REC_TAP)
		assert_memory_equal(a->payload, b->payload, a->len);
}

static void free_got(struct got *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].payload);
}

/* ---- a recording ---- */

#define NREC 64

/* session, then taps of three consumers on four devices (a float32
 * scalar, a float32[5] with a NaN and infinities, an int32[2,3]; every
 * fifth with device copy times), a drop, a barrier, the end. */
static void write_recording(const char *path)
{
	struct hcb_consumer *c[3] = {
		consumer("loss", 1, HCB_DT_FLOAT32, 0, 0, 0),
		consumer("field", 2, HCB_DT_FLOAT32, 1, 5, 0),
		consumer("grid", 3, HCB_DT_INT32, 2, 2, 3),
	};
	struct hcb_writer *w;
	struct hcb_record rec = { .kind = HCB_REC_SESSION };
	unsigned char payload[64];

	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_UNKNOWN), 0);
	rec.session = (struct hcb_session_info){ .version = 1, .pid = 42, .provider = "hcbtap",
						 .platform = "cpu", .start_ns = 5 };
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	for (int i = 0; i < NREC - 4; i++) {
		struct hcb_consumer *k = c[i % 3];
		float f[5] = { (float)i, NAN, INFINITY, -INFINITY, -0.5f * (float)i };
		int32_t g[6] = { i, -i, 7, 8, 9, INT32_MIN };

		if (i % 3 == 0)
			memcpy(payload, f, 4);
		else if (i % 3 == 1)
			memcpy(payload, f, sizeof(f));
		else
			memcpy(payload, g, sizeof(g));
		memset(&rec, 0, sizeof(rec));
		rec.kind = HCB_REC_TAP;
		rec.tap = (struct hcb_tap){ .device = (uint32_t)(i % 4), .seq = (uint64_t)i / 4,
					       .wall_ns = 1700000000000000000ull + (uint64_t)i * 1000,
					       .consumer = k, .payload = payload };
		if (i == 7)
			rec.tap.seq = UINT64_MAX;
		if (i % 5 == 2) {
			rec.tap.copy_start_ns = rec.tap.wall_ns - 3000;
			rec.tap.copy_end_ns = rec.tap.wall_ns - 1000 + (uint64_t)i;
		}
		assert_int_equal(hcb_writer_write(w, &rec), 0);
		if (i == 30) {
			rec = (struct hcb_record){ .kind = HCB_REC_DROP };
			rec.drop = (struct hcb_drop_info){ .device = 1, .count = 3, .reason = "ring full" };
			assert_int_equal(hcb_writer_write(w, &rec), 0);
			rec = (struct hcb_record){ .kind = HCB_REC_BARRIER };
			rec.barrier = (struct hcb_barrier_info){ .wall_ns = 9, .taps = 31 };
			assert_int_equal(hcb_writer_write(w, &rec), 0);
		}
	}
	rec = (struct hcb_record){ .kind = HCB_REC_END };
	rec.end = (struct hcb_end_info){ .taps = NREC - 4, .drops = 3, .end_ns = 11 };
	assert_int_equal(hcb_writer_write(w, &rec), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	for (int i = 0; i < 3; i++)
		hcb_consumer_free(c[i]);
}

/* Read all of path sequentially (skim: without payloads) into g; returns
 * the count, the last return in *end.  *rp keeps the reader if asked. */
static size_t read_all(const char *path, int skim, struct got *g, size_t cap, int *end,
		       struct hcb_reader **rp)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	size_t n = 0;
	int k;

	assert_int_equal(hcb_reader_open(&r, path), 0);
	while ((k = skim ? hcb_reader_skim(r, &rec) : hcb_reader_next(r, &rec)) == 1) {
		assert_true(n < cap);
		if (skim && rec.kind == HCB_REC_TAP)
			assert_null(rec.tap.payload);
		keep(&g[n++], &rec, hcb_reader_offset(r));
	}
	*end = k;
	if (rp)
		*rp = r;
	else
		hcb_reader_close(r);
	return n;
}

static void check_format(const char *name)
{
	const char *path = tmp_path(name);
	struct got seq[NREC + 8], sk[NREC + 8];
	struct hcb_reader *ix, *r;
	struct hcb_record rec;
	size_t n, m;
	int end;

	write_recording(path);
	n = read_all(path, 0, seq, NREC + 8, &end, NULL);
	assert_int_equal(end, 0);
	assert_int_equal(n, NREC - 4 + 4);
	m = read_all(path, 1, sk, NREC + 8, &end, &ix);
	assert_int_equal(end, 0);
	assert_int_equal(m, n);
	for (size_t i = 0; i < n; i++)
		same(&seq[i], &sk[i], 0);
	/* offsets ascend; the last record ends the file */
	for (size_t i = 1; i < n; i++)
		assert_true(seq[i].off > seq[i - 1].off);
	assert_int_equal(hcb_reader_tell(ix), hcb_reader_size(ix));
	assert_true(hcb_reader_size(ix) > 0);

	/* every record by its offset, backwards, with the skim's consumers */
	assert_int_equal(hcb_reader_open(&r, path), 0);
	for (unsigned int i = 0; i < hcb_registry_count(hcb_reader_consumers(ix)); i++)
		assert_int_equal(hcb_reader_define(r, hcb_registry_at(hcb_reader_consumers(ix), i)), 0);
	for (size_t i = n; i-- > 0;) {
		struct got g;

		assert_int_equal(hcb_reader_seek(r, seq[i].off), 0);
		assert_int_equal(hcb_reader_next(r, &rec), 1);
		assert_int_equal(hcb_reader_offset(r), seq[i].off);
		keep(&g, &rec, seq[i].off);
		same(&seq[i], &g, 1);
		free_got(&g, 1);
	}
	/* a consumer defined as another is refused */
	{
		struct hcb_consumer *other = consumer("other", 2, HCB_DT_INT8, 0, 0, 0);

		assert_int_equal(hcb_reader_define(r, other), -EBADMSG);
		hcb_consumer_free(other);
	}
	hcb_reader_close(r);
	hcb_reader_close(ix);
	free_got(seq, n);
	free_got(sk, m);
}

static void test_jsonl_index_and_seek(void **state)
{
	(void)state;
	check_format("rec.jsonl");
}

static void test_hcbcap_index_and_seek(void **state)
{
	struct got seq[NREC + 8];
	struct hcb_reader *r;
	struct hcb_record rec;
	size_t n;
	int end;

	(void)state;
	check_format("rec.hcbcap");
	/* a tap read back without its consumer frame: cleanly refused */
	n = read_all(tmp_path("rec.hcbcap"), 0, seq, NREC + 8, &end, NULL);
	assert_int_equal(hcb_reader_open(&r, tmp_path("rec.hcbcap")), 0);
	assert_int_equal(seq[n - 2].kind, HCB_REC_TAP);
	assert_int_equal(hcb_reader_seek(r, seq[n - 2].off), 0);
	assert_int_equal(hcb_reader_next(r, &rec), -EBADMSG);
	assert_non_null(strstr(hcb_reader_error(r), "which no earlier frame defines"));
	hcb_reader_close(r);
	free_got(seq, n);
}

/* ---- JSONL the skim parses whole ---- */

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

#define SESSION "{\"type\":\"session\",\"version\":1,\"pid\":1,\"provider\":\"hcbtap\",\"platform\":\"cpu\",\"start_ns\":1}\n"
#define TAP(dev, seq, ts, data) "{\"type\":\"tap\",\"device\":" #dev ",\"seq\":" #seq ",\"consumer\":4," \
	"\"name\":\"v\",\"kwargs\":{\"what\":\"v, \\\"quoted\\\" {x}\"},\"tree\":\"*\",\"ts_ns\":" #ts "," \
	"\"arrays\":[{\"dtype\":\"float64\",\"shape\":[2],\"data\":" data "}]}\n"

static void test_jsonl_other_orders(void **state)
{
	const char *path = tmp_path("order.jsonl");
	struct got seq[8], sk[8];
	size_t n, m;
	int end;

	(void)state;
	write_text(path, SESSION
		   TAP(0, 0, 100, "[1.5,2.5]")
		   "\n"
		   /* a script's order: the data first, the header after */
		   "{\"arrays\":[{\"data\":[3.0,4.0],\"shape\":[2],\"dtype\":\"float64\"}],\"type\":\"tap\","
		   "\"ts_ns\":200,\"tree\":\"*\",\"kwargs\":{\"what\":\"v, \\\"quoted\\\" {x}\"},\"name\":\"v\","
		   "\"consumer\":4,\"seq\":null,\"device\":1}\n"
		   TAP(2, 7, 300, "[5.0,6.0]")
		   /* blanks between members */
		   "{ \"type\" : \"tap\" , \"device\" : 3 , \"seq\" : 1 , \"consumer\" : 4 , \"name\":\"v\","
		   "\"kwargs\":{\"what\":\"v, \\\"quoted\\\" {x}\"},\"tree\":\"*\" , \"ts_ns\" : 400 , "
		   "\"arrays\" : [{\"dtype\":\"float64\",\"shape\":[2],\"data\":[7.0,8.0]}]}\n");
	n = read_all(path, 0, seq, 8, &end, NULL);
	assert_int_equal(end, 0);
	m = read_all(path, 1, sk, 8, &end, NULL);
	assert_int_equal(end, 0);
	assert_int_equal(n, 5);
	assert_int_equal(m, n);
	for (size_t i = 0; i < n; i++)
		same(&seq[i], &sk[i], 0);
	assert_int_equal(sk[2].seq, UINT64_MAX);
	assert_int_equal(sk[2].device, 1);
	assert_int_equal(sk[4].ts, 400);
	free_got(seq, n);
	free_got(sk, m);
}

/* ---- damage ---- */

static size_t file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return (size_t)n;
}

static void copy_cut(const char *from, const char *to, size_t len, long flip_at)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	unsigned char *buf = malloc(len + 1);

	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(fread(buf, 1, len, in), len);
	if (flip_at >= 0)
		buf[flip_at] ^= 0x5a;
	assert_int_equal(fwrite(buf, 1, len, out), len);
	fclose(in);
	fclose(out);
	free(buf);
}

static void test_truncated(void **state)
{
	static const char *const names[2] = { "rec.jsonl", "rec.hcbcap" };
	struct got seq[NREC + 8], sk[NREC + 8];

	(void)state;
	for (int f = 0; f < 2; f++) {
		const char *path = tmp_path(names[f]);
		const char *cut = tmp_path(f ? "cut.hcbcap" : "cut.jsonl");
		size_t n, m;
		int end;

		write_recording(path);
		n = read_all(path, 0, seq, NREC + 8, &end, NULL);
		/* cut in the middle of the 11th record (a tap) */
		copy_cut(path, cut, (size_t)(seq[10].off + seq[11].off) / 2, -1);
		m = read_all(cut, 1, sk, NREC + 8, &end, NULL);
		assert_int_equal(end, -ENODATA);
		assert_int_equal(m, 10);
		for (size_t i = 0; i < m; i++)
			same(&seq[i], &sk[i], 0);
		free_got(seq, n);
		free_got(sk, m);
	}
}

static void test_damaged_header_and_data(void **state)
{
	char jpath[256], cpath[256], bad[256], cbad[256];
	struct got seq[NREC + 8], sk[NREC + 8];
	struct hcb_reader *r;
	struct hcb_record rec;
	char *text, *p;
	size_t n, m, len;
	int end;
	FILE *f;

	(void)state;
	snprintf(jpath, sizeof(jpath), "%s", tmp_path("rec.jsonl"));
	snprintf(cpath, sizeof(cpath), "%s", tmp_path("rec.hcbcap"));
	snprintf(bad, sizeof(bad), "%s", tmp_path("bad.jsonl"));
	snprintf(cbad, sizeof(cbad), "%s", tmp_path("bad.hcbcap"));
	write_recording(jpath);
	n = read_all(jpath, 0, seq, NREC + 8, &end, NULL);
	len = file_size(jpath);
	text = malloc(len + 1);
	f = fopen(jpath, "rb");
	assert_int_equal(fread(text, 1, len, f), len);
	fclose(f);
	text[len] = '\0';

	/* a header the skim reads: "device":x in the 20th record */
	p = strstr(text + seq[20].off, "\"device\":");
	assert_non_null(p);
	p[9] = 'x';
	write_text(bad, text);
	m = read_all(bad, 1, sk, NREC + 8, &end, &r);
	assert_int_equal(end, -EBADMSG);
	assert_int_equal(m, 20);
	assert_non_null(strstr(hcb_reader_error(r), "bad.jsonl:21: "));
	hcb_reader_close(r);
	free_got(sk, m);

	/* data the skim does not read: a string in the 21st record's data */
	p[9] = (char)('0' + seq[20].device);
	p = strstr(text + seq[21].off, "\"data\":[");
	p[8] = '"';
	write_text(bad, text);
	m = read_all(bad, 1, sk, NREC + 8, &end, NULL);
	assert_int_equal(end, 0);
	assert_int_equal(m, n);
	assert_int_equal(hcb_reader_open(&r, bad), 0);
	assert_int_equal(hcb_reader_seek(r, seq[21].off), 0);
	assert_int_equal(hcb_reader_next(r, &rec), -EBADMSG);
	{
		char want[64];

		snprintf(want, sizeof(want), "bad.jsonl:offset %llu: ", (unsigned long long)seq[21].off);
		assert_non_null(strstr(hcb_reader_error(r), want));
	}
	/* the error stays until a seek; the next seek reads on */
	assert_int_equal(hcb_reader_next(r, &rec), -EBADMSG);
	assert_int_equal(hcb_reader_seek(r, seq[22].off), 0);
	assert_int_equal(hcb_reader_next(r, &rec), 1);
	assert_int_equal(rec.tap.seq, seq[22].seq);
	hcb_reader_close(r);
	free_got(sk, m);
	free_got(seq, n);
	free(text);

	/* .hcbcap: a payload byte flipped; the skim seeks over it, the read back fails */
	write_recording(cpath);
	n = read_all(cpath, 0, seq, NREC + 8, &end, NULL);
	copy_cut(cpath, cbad, file_size(cpath), (long)seq[21].off + 16 + 32 + 1);
	m = read_all(cbad, 1, sk, NREC + 8, &end, &r);
	assert_int_equal(end, 0);
	assert_int_equal(m, n);
	{
		struct hcb_reader *back;

		assert_int_equal(hcb_reader_open(&back, cbad), 0);
		for (unsigned int i = 0; i < hcb_registry_count(hcb_reader_consumers(r)); i++)
			hcb_reader_define(back, hcb_registry_at(hcb_reader_consumers(r), i));
		assert_int_equal(hcb_reader_seek(back, seq[21].off), 0);
		assert_int_equal(hcb_reader_next(back, &rec), -EBADMSG);
		assert_non_null(strstr(hcb_reader_error(back), "checksum mismatch"));
		assert_int_equal(hcb_reader_seek(back, seq[20].off), 0);
		assert_int_equal(hcb_reader_next(back, &rec), 1);
		hcb_reader_close(back);
	}
	/* a frame header flipped: the skim fails there */
	copy_cut(cpath, cbad, file_size(cpath), (long)seq[21].off + 5);
	hcb_reader_close(r);
	free_got(sk, m);
	m = read_all(cbad, 1, sk, NREC + 8, &end, NULL);
	assert_int_equal(end, -EBADMSG);
	assert_int_equal(m, 21);
	free_got(sk, m);
	free_got(seq, n);
}

static void test_pipe(void **state)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	int fd[2];

	(void)state;
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(write(fd[1], SESSION, strlen(SESSION)), (ssize_t)strlen(SESSION));
	close(fd[1]);
	assert_int_equal(hcb_reader_open_stream(&r, fdopen(fd[0], "rb"), "<pipe>", HCB_FMT_JSONL), 0);
	assert_int_equal(hcb_reader_size(r), 0);
	assert_int_equal(hcb_reader_skim(r, &rec), 1);
	assert_int_equal(hcb_reader_tell(r), strlen(SESSION));
	assert_int_equal(hcb_reader_seek(r, 0), -ESPIPE);
	hcb_reader_close(r);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsonl_index_and_seek),
		cmocka_unit_test(test_hcbcap_index_and_seek),
		cmocka_unit_test(test_jsonl_other_orders),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_damaged_header_and_data),
		cmocka_unit_test(test_pipe),
	};

	return cmocka_run_group_tests_name("recindex", tests, setup, teardown);
}
