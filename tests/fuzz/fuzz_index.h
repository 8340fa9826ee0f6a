/* SPDX-License-Identifier: MIT */
/*
 * fuzz_index.h - the random-access check both recording fuzzers make, over
 * the format and record checksum the includer defines first: FORMAT (an
 * HCB_FMT_*) and RECORD_SUM(reader, record) (a uint64_t of the record's
 * contents).  A header, not a file of its own, because each fuzzer is one
 * translation unit built by tests/fuzz/run.
 */
#ifndef HCB_FUZZ_INDEX_H
#define HCB_FUZZ_INDEX_H

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recfile.h"

/* ---- random access: skim, then every record read back by its offset ---- */

#define INDEX_MAX 4096

struct head {
	enum hcb_record_kind kind;
	uint64_t off, device, seq, ts, id;
};

static struct head head_of(const struct hcb_reader *r, const struct hcb_record *rec)
{
	struct head h = { .kind = rec->kind, .off = hcb_reader_offset(r) };

	if (rec->kind == HCB_REC_TAP) {
		h.device = rec->tap.device;
		h.seq = rec->tap.seq;
		h.ts = rec->tap.wall_ns;
		h.id = rec->tap.consumer->id;
	}
	return h;
}

/* The memfd's bytes through a reader of its own (its own file offset). */
static struct hcb_reader *open_memfd(int fd, const char *name)
{
	struct hcb_reader *r;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = fopen(path, "rb");
	assert(f);
	assert(hcb_reader_open_stream(&r, f, name, FORMAT) == 0);
	return r;
}

/*
 * The input as a regular file: a skim yields the records a sequential read
 * yields, at the same offsets with the same headers (and it may go on
 * further: it does not read the data), and each of them read back from its
 * offset, backwards, by a reader given the skim's consumers, is the same
 * record again.
 */
static void check_index(const uint8_t *data, size_t size)
{
	static struct head heads[INDEX_MAX];
	static uint64_t sums[INDEX_MAX];
	struct hcb_reader *r, *back;
	struct hcb_record rec;
	size_t n = 0;
	int fd = memfd_create("fuzz_index", MFD_CLOEXEC), got;

	assert(fd >= 0);
	assert(write(fd, data, size) == (ssize_t)size);
	r = open_memfd(fd, "seq");
	while (n < INDEX_MAX && hcb_reader_next(r, &rec) == 1) {
		heads[n] = head_of(r, &rec);
		sums[n++] = RECORD_SUM(r, &rec);
	}
	hcb_reader_close(r);
	r = open_memfd(fd, "skim");
	for (size_t k = 0; k < n; k++) {
		struct head h;

		assert(hcb_reader_skim(r, &rec) == 1);
		assert(rec.kind != HCB_REC_TAP || !rec.tap.payload);
		h = head_of(r, &rec);
		assert(!memcmp(&h, &heads[k], sizeof(h)));
	}
	while ((got = hcb_reader_skim(r, &rec)) == 1)
		assert(rec.kind != HCB_REC_TAP || !rec.tap.payload);
	assert(got == 0 || (got < 0 && hcb_reader_error(r)[0]));
	back = open_memfd(fd, "back");
	for (unsigned int i = 0; i < hcb_registry_count(hcb_reader_consumers(r)); i++)
		hcb_reader_define(back, hcb_registry_at(hcb_reader_consumers(r), i));
	for (size_t k = n; k-- > 0;) {
		assert(hcb_reader_seek(back, heads[k].off) == 0);
		assert(hcb_reader_next(back, &rec) == 1);
		assert(hcb_reader_offset(back) == heads[k].off);
		assert(RECORD_SUM(back, &rec) == sums[k]);
	}
	hcb_reader_close(back);
	hcb_reader_close(r);
	close(fd);
}

#endif
