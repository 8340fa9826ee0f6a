/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: arbitrary bytes as an .hcbcap recording (formats/HCBCAP.md).
 *
 * The input is read twice: as it is (the file header and the CRCs stop most
 * inputs early, which tests exactly that), and as the frames of a file whose
 * header and CRCs the harness fixes, so that the fuzzer reaches the frame
 * contents without having to solve CRC-32.  Every record the reader returns
 * must be consistent (a tap's consumer is the reader's own consumer of that
 * id, its payload exactly the consumer's size and readable to the end; strings
 * terminated), an error must come with a message, and the records written
 * back as .hcbcap must read again to the same records and a clean end.
 * The fixed file is also indexed (hcb_reader_skim, as the viewer does) and
 * every record read back by its offset (check_index).
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "core/consumer.h"
#include "core/dtype.h"
#include "le.h"
#include "recfile.h"
#include "recfile_impl.h"

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211u;
	return h;
}

/* A record's content: what writing it back must preserve. */
static uint64_t record_hash(const struct hcb_reader *r, const struct hcb_record *rec)
{
	uint64_t h = mix(1469598103934665603u, &rec->kind, sizeof(rec->kind));

	switch (rec->kind) {
	case HCB_REC_SESSION: {
		const struct hcb_session_info *s = &rec->session;

		assert(strnlen(s->provider, sizeof(s->provider)) < sizeof(s->provider));
		assert(strnlen(s->platform, sizeof(s->platform)) < sizeof(s->platform));
		h = mix(h, &s->version, sizeof(s->version));
		h = mix(h, &s->pid, sizeof(s->pid));
		h = mix(h, &s->start_ns, sizeof(s->start_ns));
		h = mix(h, s->provider, strlen(s->provider) + 1);
		return mix(h, s->platform, strlen(s->platform) + 1);
	}
	case HCB_REC_TAP: {
		const struct hcb_tap *t = &rec->tap;
		const struct hcb_consumer *c = t->consumer;
		uint64_t sum = 0;
		void *blob;
		size_t len;

		assert(c && c->id != HCB_CONSUMER_RESERVED);
		assert(hcb_registry_get(r->consumers, c->id) == c);
		assert(c->name && c->name[0] && c->tree);
		for (unsigned int i = 0; i < c->nleaves; i++) {
			const struct hcb_leaf_shape *l = &c->leaves[i];

			assert(hcb_dtype_size(l->dtype) && l->ndim <= HCB_MAX_DIMS);
			assert(l->nbytes == l->nelems * hcb_dtype_size(l->dtype));
			sum += l->nbytes;
		}
		assert(sum == c->total_bytes && c->total_bytes <= (1u << 30));
		assert(t->payload || c->total_bytes == 0);
		assert(hcb_consumer_to_reg(c, &blob, &len) == 0);
		h = mix(h, blob, len);
		free(blob);
		h = mix(h, &t->device, sizeof(t->device));
		h = mix(h, &t->seq, sizeof(t->seq));
		h = mix(h, &t->wall_ns, sizeof(t->wall_ns));
		assert(t->copy_start_ns <= t->copy_end_ns);
		h = mix(h, &t->copy_start_ns, sizeof(t->copy_start_ns));
		h = mix(h, &t->copy_end_ns, sizeof(t->copy_end_ns));
		h = mix(h, &t->pid, sizeof(t->pid));
		h = mix(h, &t->tid, sizeof(t->tid));
		/* every payload byte: ASan sees any read past the reader's buffer */
		return c->total_bytes ? mix(h, t->payload, (size_t)c->total_bytes) : h;
	}
	case HCB_REC_DROP:
		assert(strnlen(rec->drop.reason, sizeof(rec->drop.reason)) < sizeof(rec->drop.reason));
		h = mix(h, &rec->drop.device, sizeof(rec->drop.device));
		h = mix(h, &rec->drop.count, sizeof(rec->drop.count));
		return mix(h, rec->drop.reason, strlen(rec->drop.reason) + 1);
	case HCB_REC_BARRIER:
		h = mix(h, &rec->barrier.wall_ns, sizeof(rec->barrier.wall_ns));
		return mix(h, &rec->barrier.taps, sizeof(rec->barrier.taps));
	case HCB_REC_TRIGGER:
		assert(strnlen(rec->trigger.consumer, sizeof(rec->trigger.consumer)) <
		       sizeof(rec->trigger.consumer));
		assert(strnlen(rec->trigger.condition, sizeof(rec->trigger.condition)) <
		       sizeof(rec->trigger.condition));
		h = mix(h, &rec->trigger.seq, sizeof(rec->trigger.seq));
		h = mix(h, rec->trigger.consumer, strlen(rec->trigger.consumer) + 1);
		return mix(h, rec->trigger.condition, strlen(rec->trigger.condition) + 1);
	case HCB_REC_END:
		h = mix(h, &rec->end.taps, sizeof(rec->end.taps));
		h = mix(h, &rec->end.drops, sizeof(rec->end.drops));
		return mix(h, &rec->end.end_ns, sizeof(rec->end.end_ns));
	default:
		assert(!"unknown record kind");
		return 0;
	}
}

static void check_file(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct hcb_reader *r, *again;
	struct hcb_writer *w;
	struct hcb_record rec;
	uint64_t *hashes = NULL;
	size_t n = 0, cap = 0, k = 0;
	int fd, got;

	if (!f)
		return;
	if (hcb_reader_open_stream(&r, f, "fuzz", HCB_FMT_HCBCAP))
		return;
	fd = memfd_create("fuzz_hcbcap", MFD_CLOEXEC);
	assert(fd >= 0);
	assert(hcb_writer_open_fd(&w, fd, HCB_FMT_HCBCAP) == 0);
	while ((got = hcb_reader_next(r, &rec)) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			hashes = realloc(hashes, cap * sizeof(*hashes));
			assert(hashes);
		}
		hashes[n++] = record_hash(r, &rec);
		assert(hcb_writer_write(w, &rec) == 0);
	}
	assert(got == 0 || (got < 0 && hcb_reader_error(r)[0]));
	assert(got == 0 || got == -EBADMSG || got == -ENODATA || got == -EPROTO || got == -E2BIG);
	/* errors are sticky */
	assert(hcb_reader_next(r, &rec) == got);
	hcb_reader_close(r);
	assert(hcb_writer_close(w) == 0);

	/* what was accepted, written back, reads back the same and ends cleanly */
	assert(lseek(fd, 0, SEEK_SET) == 0);
	f = fdopen(fd, "rb");
	assert(f);
	assert(hcb_reader_open_stream(&again, f, "again", HCB_FMT_HCBCAP) == 0);
	while ((got = hcb_reader_next(again, &rec)) == 1) {
		assert(k < n);
		assert(record_hash(again, &rec) == hashes[k]);
		k++;
	}
	assert(got == 0 && k == n);
	hcb_reader_close(again);
	free(hashes);
}

#define FORMAT HCB_FMT_HCBCAP
#define RECORD_SUM record_hash

#include "fuzz_index.h"

/* The input as frames after a valid header, every CRC made right. */
static void check_fixed(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size + 16);
	size_t n = size + 16, off = 16;

	assert(p);
	memcpy(p, "HCBCAP\x1a\n\x01\0\0\0\0\0\0\0", 16);
	memcpy(p + 16, data, size);
	while (off + 16 <= n) {
		uint64_t len = hcb_get_le64(p + off + 4);

		hcb_put_le32(p + off + 12, (uint32_t)crc32(0, p + off, 12));
		if (len > n - off - 16 || n - off - 16 - len < 4)
			break;
		hcb_put_le32(p + off + 16 + len, (uint32_t)crc32(0, p + off, (uInt)(16 + len)));
		off += 20 + (size_t)len;
	}
	check_file(p, n);
	check_index(p, n);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size)   /* fmemopen of nothing fails on some libcs */
		check_file(data, size);
	check_fixed(data, size);
	return 0;
}
