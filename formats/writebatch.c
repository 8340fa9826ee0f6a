/* SPDX-License-Identifier: MIT */
/*
 * writebatch.c - a file writer's records, gathered to go out in few
 * write(2) calls.  A live recording of small taps spent most of its time
 * in the kernel's write path, one call a record; gathered up to
 * BATCH_BYTES and handed to the file when that fills, at every poll of a
 * live session (hcb_writer_flush) and at the end, the file still only ever
 * grows by whole records: the batch knows where each one ends, and a write
 * the disk cuts short is cut back to the last whole record it took.
 *
 * A durable file (a live recording, which a barrier fsyncs) has the
 * kernel start writing each WRITEBACK_BYTES out as soon as they are in,
 * without waiting for it: a barrier's fsync then finds little still to
 * write, where it found everything since the last one (a JSONL recording
 * of a busy program fsynced 350 ms at its first barrier, 15 to 27 ms at
 * later ones).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/grow.h"
#include "recfile_impl.h"

#define BATCH_BYTES (1u << 20)
#define WRITEBACK_BYTES (4u << 20)

struct hcb_write_batch {
	unsigned char *buf;
	size_t len;
	uint64_t *ends;       /* file offsets where the records in buf end */
	uint64_t *ends_taps;  /* and the writer's taps up to there */
	size_t nends, ends_cap, taps_cap;
	uint64_t done;        /* where the last whole record in the file ends */
	uint64_t done_taps;   /* the taps up to there */
	uint64_t queued;      /* the file up to here was handed to writeback */
	int no_writeback;     /* sync_file_range refused (not a regular file) */
};

int hcb_batch_new(struct hcb_writer *w)
{
	struct hcb_write_batch *b = calloc(1, sizeof(*b));

	if (b)
		b->buf = malloc(BATCH_BYTES);
	if (!b || !b->buf) {
		free(b);
		return -ENOMEM;
	}
	b->done = b->queued = w->bytes;
	b->done_taps = w->taps;
	w->batch = b;
	return 0;
}

/* A durable file: start writing out what it holds past the last start,
 * once that is WRITEBACK_BYTES, and go on without waiting. */
static void start_writeback(struct hcb_writer *w)
{
	struct hcb_write_batch *b = w->batch;

	if (!w->durable || b->no_writeback || w->written - b->queued < WRITEBACK_BYTES)
		return;
	if (sync_file_range(w->fd, (off64_t)b->queued, (off64_t)(w->written - b->queued),
			    SYNC_FILE_RANGE_WRITE) < 0)
		b->no_writeback = 1;   /* a pipe or a terminal: nothing to start */
	b->queued = w->written;
}

void hcb_batch_free(struct hcb_writer *w)
{
	if (!w->batch)
		return;
	free(w->batch->buf);
	free(w->batch->ends);
	free(w->batch->ends_taps);
	free(w->batch);
	w->batch = NULL;
}

/* n bytes out to the file, EINTR and short writes retried; *out: how
 * many went, also on failure.  -errno on failure. */
static int write_out(int fd, const void *p, size_t n, size_t *out)
{
	const char *c = p;

	*out = 0;
	while (*out < n) {
		ssize_t k = write(fd, c + *out, n - *out);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		*out += (size_t)k;
	}
	return 0;
}

/* The disk took the file up to offset at: keep only whole records. */
static void cut_back(struct hcb_writer *w, uint64_t at)
{
	struct hcb_write_batch *b = w->batch;
	uint64_t keep = b->done, taps = b->done_taps;

	for (size_t i = 0; i < b->nends && b->ends[i] <= at; i++) {
		keep = b->ends[i];
		taps = b->ends_taps[i];
	}
	if (keep != at && ftruncate(w->fd, (off_t)keep) == 0)
		lseek(w->fd, (off_t)keep, SEEK_SET);
	b->done = keep;
	b->done_taps = taps;
	b->len = 0;
	b->nends = 0;
	w->written = w->bytes = keep;
	/* what the file no longer holds was never written */
	w->taps = taps;
}

/* What the batch holds, out to the file. */
static int flush_batch(struct hcb_writer *w)
{
	struct hcb_write_batch *b = w->batch;
	size_t went;
	int err;

	if (!b->len)
		return 0;
	err = write_out(w->fd, b->buf, b->len, &went);
	if (err) {
		cut_back(w, w->written + went);
		return err;
	}
	w->written += b->len;
	if (b->nends) {
		b->done = b->ends[b->nends - 1];
		b->done_taps = b->ends_taps[b->nends - 1];
	}
	b->len = 0;
	b->nends = 0;
	start_writeback(w);
	return 0;
}

int hcb_batch_write(struct hcb_writer *w, const void *p, size_t n)
{
	struct hcb_write_batch *b = w->batch;
	size_t went;
	int err;

	if (b->len + n > BATCH_BYTES) {
		err = flush_batch(w);
		if (err)
			return err;
	}
	if (n <= BATCH_BYTES) {
		memcpy(b->buf + b->len, p, n);
		b->len += n;
		w->bytes += n;
		return 0;
	}
	/* larger than a batch: straight out, after what came before */
	err = write_out(w->fd, p, n, &went);
	if (err) {
		cut_back(w, w->written + went);
		return err;
	}
	w->written += n;
	w->bytes += n;
	start_writeback(w);
	return 0;
}

int hcb_batch_record_end(struct hcb_writer *w)
{
	struct hcb_write_batch *b = w->batch;

	if (!b->len) {
		/* the record went out whole, straight */
		b->done = w->bytes;
		b->done_taps = w->taps;
		return 0;
	}
	if (hcb_grow(&b->ends, &b->ends_cap, b->nends + 1, sizeof(*b->ends)) ||
	    hcb_grow(&b->ends_taps, &b->taps_cap, b->nends + 1, sizeof(*b->ends_taps))) {
		/* no room to note where it ends: out with it all, then */
		int err = flush_batch(w);

		if (!err) {
			b->done = w->bytes;
			b->done_taps = w->taps;
		}
		return err;
	}
	b->ends_taps[b->nends] = w->taps;
	b->ends[b->nends++] = w->bytes;
	return 0;
}

int hcb_writer_flush(struct hcb_writer *w)
{
	return w->batch ? flush_batch(w) : 0;
}
