/* SPDX-License-Identifier: MIT */
/*
 * format_rw - how fast the recording formats write and read, through the
 * same writer and reader interface (formats/recfile.h) record and replay
 * use, without process start-up or other work in the way.
 *
 *   format_rw DIR [--json] [--mb N]
 *
 * Writes N MB (default 200) of float32 taps (1 MiB each, random values, as
 * a program's would be) to DIR/rw.hcbcap, reads it back, then a fifth of
 * that to DIR/rw.jsonl and reads it back; MB/s of float32 payload each,
 * best of three.  Files are left to the page cache (no fsync), as convert
 * leaves them; `cat` of the same file is the baseline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/consumer.h"
#include "core/dtype.h"
#include "recfile.h"

#define TAP_FLOATS (256u * 1024u)   /* 1 MiB a tap */

static struct hcb_consumer *make_consumer(void)
{
	static const struct hcb_leaf_spec leaf = { HCB_DT_FLOAT32, 1, { TAP_FLOATS } };
	static const char *const kwargs[] = { "what", "field", NULL };
	struct hcb_consumer_spec spec = { .name = "field", .kwargs = kwargs, .nleaves = 1,
					  .leaves = &leaf };
	struct hcb_consumer *c = NULL;
	void *blob;
	size_t len;

	if (hcb_reg_build(&spec, 1234, &blob, &len) == 0)
		hcb_consumer_from_reg(blob, len, &c);
	free(blob);
	return c;
}

/* Writes ntaps taps of payload to path; seconds, or < 0. */
static double write_file(const char *path, const struct hcb_consumer *c, const float *payload,
			 unsigned int ntaps)
{
	struct hcb_record rec = { .kind = HCB_REC_SESSION };
	struct hcb_writer *w;
	uint64_t t0 = hcb_clock_ns(CLOCK_MONOTONIC);
	int err = hcb_writer_open(&w, path, HCB_FMT_UNKNOWN);

	if (err)
		return -1;
	rec.session.version = 1;
	snprintf(rec.session.provider, sizeof(rec.session.provider), "hcbtap");
	snprintf(rec.session.platform, sizeof(rec.session.platform), "cpu");
	err = hcb_writer_write(w, &rec);
	for (unsigned int i = 0; !err && i < ntaps; i++) {
		rec = (struct hcb_record){ .kind = HCB_REC_TAP };
		rec.tap.device = i % 4;
		rec.tap.seq = i / 4;
		rec.tap.wall_ns = 1000 + i;
		rec.tap.consumer = c;
		/* a different window of the values each tap */
		rec.tap.payload = (const unsigned char *)(payload + (i * 7919u) % TAP_FLOATS);
		err = hcb_writer_write(w, &rec);
	}
	if (hcb_writer_close(w) || err)
		return -1;
	return (double)(hcb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
}

/* Reads path to its end; seconds, or < 0 (the taps counted into *taps). */
static double read_file(const char *path, unsigned int *taps)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	uint64_t t0 = hcb_clock_ns(CLOCK_MONOTONIC);
	int n;

	*taps = 0;
	if (hcb_reader_open(&r, path))
		return -1;
	while ((n = hcb_reader_next(r, &rec)) == 1)
		*taps += rec.kind == HCB_REC_TAP;
	hcb_reader_close(r);
	return n == 0 ? (double)(hcb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9 : -1;
}

/* cat's time for path, through a 1 MiB buffer: the baseline. */
static double cat_file(const char *path)
{
	static char buf[1 << 20];
	uint64_t t0 = hcb_clock_ns(CLOCK_MONOTONIC);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n == 0 ? (double)(hcb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9 : -1;
}

struct result {
	double write_s, read_s, cat_s;
};

/* Best of three of each, for ntaps taps in path. */
static int measure(const char *path, const struct hcb_consumer *c, const float *payload,
		   unsigned int ntaps, struct result *best)
{
	*best = (struct result){ 1e9, 1e9, 1e9 };
	for (int round = 0; round < 3; round++) {
		unsigned int got;
		double w = write_file(path, c, payload, ntaps);
		double r = read_file(path, &got);
		double k = cat_file(path);

		if (w < 0 || r < 0 || k < 0 || got != ntaps)
			return -EIO;
		best->write_s = w < best->write_s ? w : best->write_s;
		best->read_s = r < best->read_s ? r : best->read_s;
		best->cat_s = k < best->cat_s ? k : best->cat_s;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int mb = 200, json = 0;
	struct hcb_consumer *c = make_consumer();
	float *payload = malloc(2 * TAP_FLOATS * sizeof(float));
	struct result cap, jl;
	char capp[4096], jlp[4096];
	uint64_t x = 88172645463325252ull;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--mb") && i + 1 < argc)
			mb = (unsigned int)atoi(argv[++i]);
	}
	if (argc < 2 || !c || !payload || mb < 5) {
		fprintf(stderr, "usage: format_rw DIR [--json] [--mb N (at least 5)]\n");
		return 2;
	}
	/* values as a computation's: all bits of the mantissa used */
	for (size_t i = 0; i < 2 * TAP_FLOATS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		payload[i] = (float)((double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
	}
	snprintf(capp, sizeof(capp), "%s/rw.hcbcap", argv[1]);
	snprintf(jlp, sizeof(jlp), "%s/rw.jsonl", argv[1]);
	if (measure(capp, c, payload, mb, &cap) || measure(jlp, c, payload, mb / 5, &jl)) {
		fprintf(stderr, "format_rw: writing or reading %s failed\n", argv[1]);
		return 1;
	}
	unlink(capp);
	unlink(jlp);
	if (json)
		printf("{\"hcbcap_write_MB_per_s\":%.1f,\"hcbcap_read_MB_per_s\":%.1f,"
		       "\"jsonl_write_payload_MB_per_s\":%.1f,\"jsonl_read_payload_MB_per_s\":%.1f,"
		       "\"hcbcap_cat_MB_per_s\":%.1f}\n",
		       mb * 1.048576 / cap.write_s, mb * 1.048576 / cap.read_s,
		       mb / 5 * 1.048576 / jl.write_s, mb / 5 * 1.048576 / jl.read_s,
		       mb * 1.048576 / cap.cat_s);
	else
		printf("recording formats, float32 payload through recfile.h (best of 3, page cache):\n"
		       "  .hcbcap write %8.1f MB/s   read %8.1f MB/s   (cat of the file %8.1f MB/s)\n"
		       "  JSONL   write %8.1f MB/s   read %8.1f MB/s\n",
		       mb * 1.048576 / cap.write_s, mb * 1.048576 / cap.read_s, mb * 1.048576 / cap.cat_s,
		       mb / 5 * 1.048576 / jl.write_s, mb / 5 * 1.048576 / jl.read_s);
	hcb_consumer_free(c);
	free(payload);
	return 0;
}
