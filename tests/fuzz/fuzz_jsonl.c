/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: arbitrary bytes as a JSONL recording.  Every tap the
 * reader returns must agree with its consumer, and survive being written
 * back as JSONL and read again unchanged.  The input is also indexed
 * (hcb_reader_skim, as the viewer does) and every record read back by its
 * offset (check_index).
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jsonl.h"
#include "recfile.h"

static void reread(const struct hcb_buf *line, const struct hcb_record *orig)
{
	FILE *f = fmemopen((void *)line->data, line->len, "r");
	struct hcb_reader *r;
	struct hcb_record rec;

	assert(f);
	assert(hcb_reader_open_stream(&r, f, "again", HCB_FMT_JSONL) == 0);
	assert(hcb_reader_next(r, &rec) == 1);
	assert(rec.kind == HCB_REC_TAP);
	assert(rec.tap.device == orig->tap.device && rec.tap.seq == orig->tap.seq);
	assert(rec.tap.copy_start_ns == orig->tap.copy_start_ns);
	assert(rec.tap.copy_end_ns == orig->tap.copy_end_ns);
	assert(rec.tap.copy_start_ns <= rec.tap.copy_end_ns);
	assert(rec.tap.consumer->total_bytes == orig->tap.consumer->total_bytes);
	/* NaN payloads keep their bits only up to the quiet NaN text "nan" */
	if (!strstr(line->data, "\"nan\""))
		assert(memcmp(rec.tap.payload, orig->tap.payload, orig->tap.consumer->total_bytes) == 0);
	hcb_reader_close(r);
}

/* A record's header and payload, as a number. */
static uint64_t record_sum(const struct hcb_reader *r, const struct hcb_record *rec)
{
	uint64_t h = 1469598103934665603u;
	const unsigned char *p = rec->kind == HCB_REC_TAP ? rec->tap.payload : NULL;
	size_t n = p ? (size_t)rec->tap.consumer->total_bytes : 0;

	(void)r;
	h = (h ^ (uint64_t)rec->kind) * 1099511628211u;
	if (rec->kind == HCB_REC_TAP)
		h = (h ^ rec->tap.device ^ rec->tap.seq * 31 ^ rec->tap.wall_ns * 17 ^
		     rec->tap.copy_start_ns * 13 ^ rec->tap.copy_end_ns * 11 ^
		     rec->tap.consumer->id) * 1099511628211u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

#define FORMAT HCB_FMT_JSONL
#define RECORD_SUM record_sum

#include "fuzz_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct hcb_buf line = HCB_BUF_INIT;
	struct hcb_reader *r;
	struct hcb_record rec;
	int n;

	if (!f || size == 0) {
		if (f)
			fclose(f);
		return 0;
	}
	if (hcb_reader_open_stream(&r, f, "fuzz", HCB_FMT_JSONL))
		return 0;
	while ((n = hcb_reader_next(r, &rec)) == 1) {
		if (rec.kind != HCB_REC_TAP || rec.tap.consumer->total_bytes > 65536)
			continue;
		hcb_buf_reset(&line);
		assert(hcb_jsonl_record(&line, &rec) == 0);
		reread(&line, &rec);
	}
	assert(n <= 0 && (n == 0 || hcb_reader_error(r)[0]));
	hcb_reader_close(r);
	hcb_buf_free(&line);
	check_index(data, size);
	return 0;
}
