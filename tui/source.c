/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "recfile.h"
#include "source.h"

#define BATCH 1024                      /* records taken into the model at once */
#define BATCH_NS (20 * 1000000ull)      /* or what was read in this long */

struct batched {
	struct hcb_record rec;          /* a tap's payload NULL: its consumer is the indexer's */
	uint64_t off;
};

struct tui_source {
	struct tui_sink *sink;
	struct hcb_reader *r;           /* the indexing thread's */
	struct hcb_reader *fr;          /* the frames' (under the sink's lock) */
	struct hcb_filter filter;
	int filtered;
	unsigned int defined;           /* model consumers given to fr */
	pthread_t th;
	int started;
	atomic_int stop;
	pthread_cond_t cond;            /* with the sink's lock: checked or done */
	int checked, done, result;
	int failed_whole;               /* the read that ended it was of the checked part */
	char msg[512];
	struct batched *batch;
};

static int fetch_read(void *ctx, uint64_t off, struct hcb_record *rec, char *err, size_t cap)
{
	struct tui_source *s = ctx;
	struct tui_model *m = &s->sink->model;
	int n;

	/* an .hcbcap tap needs its consumer, defined before it in the file */
	for (; s->defined < m->ncons; s->defined++)
		hcb_reader_define(s->fr, m->cons[s->defined].c);
	n = hcb_reader_seek(s->fr, off);
	if (!n)
		n = hcb_reader_next(s->fr, rec);
	if (n == 1)
		return 0;
	if (n == 0)
		n = -ENODATA;
	snprintf(err, cap, "%s", *hcb_reader_error(s->fr) ? hcb_reader_error(s->fr) : strerror(-n));
	return n;
}

static const struct tui_fetch_ops fetch_ops = { .read = fetch_read };

int tui_source_open(struct tui_source **out, const char *path, struct tui_sink *sink,
		    const struct hcb_filter *filter)
{
	struct tui_source *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->batch = malloc(BATCH * sizeof(*s->batch));
	err = s->batch ? hcb_reader_open(&s->r, path) : -ENOMEM;
	if (!err)
		err = hcb_reader_open(&s->fr, path);
	if (!err)
		err = tui_sink_init_indexed(sink, &fetch_ops, s);
	if (err) {
		hcb_reader_close(s->r);
		hcb_reader_close(s->fr);
		free(s->batch);
		free(s);
		return err;
	}
	s->sink = sink;
	if (filter) {
		s->filter = *filter;
		s->filtered = 1;
	}
	pthread_cond_init(&s->cond, NULL);
	sink->model.indexing = 1;
	sink->model.index_size = hcb_reader_size(s->r);
	*out = s;
	return 0;
}

/* The batch into the model, under the lock; n: the last read's return. */
static void publish(struct tui_source *s, int k, int n)
{
	struct tui_model *m = &s->sink->model;
	int err = 0;

	tui_sink_lock(s->sink);
	for (int i = 0; i < k && !err; i++) {
		if (s->batch[i].rec.kind == HCB_REC_TAP)
			err = tui_model_index(m, &s->batch[i].rec, s->batch[i].off);
		else
			tui_model_add(m, &s->batch[i].rec);
	}
	if (err) {
		/* the index cannot hold it: it stops there, as at damage */
		snprintf(s->msg, sizeof(s->msg), "%s", err == -E2BIG ?
			 "the recording has more streams (device x consumer) than the viewer's index "
			 "holds (65535): shown up to there" : "out of memory for the index: shown up to there");
		n = err;
	} else if (n < 0) {
		snprintf(s->msg, sizeof(s->msg), "%s", hcb_reader_error(s->r));
	}
	m->index_pos = hcb_reader_tell(s->r);
	tui_model_rates_from_ts(m);
	if (n != 1) {
		s->done = 1;
		s->result = n;
		m->indexing = 0;
		m->damaged = n == -ENODATA ? 2 : n < 0 && n != -EINTR;
	}
	if (m->index_pos >= TUI_SOURCE_CHECKED)
		s->checked = 1;
	pthread_cond_broadcast(&s->cond);
	tui_sink_unlock(s->sink);
}

/* Up to a batch of records (taps that pass the filter); returns the last
 * read's return, the count in *k. */
static int read_batch(struct tui_source *s, int *k)
{
	uint64_t t0 = hcb_clock_ns(CLOCK_MONOTONIC);
	int n = 1, whole;

	*k = 0;
	while (*k < BATCH && !atomic_load(&s->stop)) {
		struct batched *b = &s->batch[*k];

		/* taken in every BATCH_NS at least, kept or filtered out (a
		 * clock read costs little next to reading a record) */
		if (hcb_clock_ns(CLOCK_MONOTONIC) - t0 > BATCH_NS)
			break;
		/* the first bytes whole, values and all; the rest skimmed */
		whole = hcb_reader_tell(s->r) < TUI_SOURCE_CHECKED;
		n = whole ? hcb_reader_next(s->r, &b->rec) : hcb_reader_skim(s->r, &b->rec);
		if (n != 1) {
			/* where it failed, not when: what the display does
			 * with it must not depend on how far this thread got
			 * before the main one looked */
			s->failed_whole = whole && n < 0;
			return n;
		}
		if (b->rec.kind == HCB_REC_TAP) {
			if (s->filtered && !hcb_filter_match(&s->filter, b->rec.tap.device, b->rec.tap.consumer))
				continue;
			b->rec.tap.payload = NULL;
		}
		b->off = hcb_reader_offset(s->r);
		++*k;
	}
	return n;
}

static void *index_thread(void *arg)
{
	struct tui_source *s = arg;
	sigset_t set;
	int n = 1, k;

	/* signals are the main thread's business */
	sigfillset(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (n == 1 && !atomic_load(&s->stop)) {
		n = read_batch(s, &k);
		publish(s, k, atomic_load(&s->stop) && n == 1 ? -EINTR : n);
	}
	return NULL;
}

int tui_source_start(struct tui_source *s)
{
	if (pthread_create(&s->th, NULL, index_thread, s))
		return -EAGAIN;
	s->started = 1;
	tui_sink_lock(s->sink);
	while (!s->checked && !s->done)
		pthread_cond_wait(&s->cond, &s->sink->lock);
	tui_sink_unlock(s->sink);
	return 0;
}

static void stop(struct tui_source *s)
{
	if (!s->started)
		return;
	atomic_store(&s->stop, 1);
	pthread_join(s->th, NULL);
	s->started = 0;
}

int tui_source_checked(struct tui_source *s, const char **msg)
{
	int n;

	tui_sink_lock(s->sink);
	n = s->done && s->failed_whole ? s->result : 0;
	tui_sink_unlock(s->sink);
	*msg = s->msg;
	return n;
}

int tui_source_result(struct tui_source *s, const char **msg)
{
	stop(s);
	*msg = s->msg;
	return s->done ? s->result : -EINTR;
}

const struct hcb_registry *tui_source_consumers(const struct tui_source *s)
{
	return hcb_reader_consumers(s->r);
}

void tui_source_close(struct tui_source *s)
{
	if (!s)
		return;
	stop(s);
	tui_sink_free(s->sink);
	pthread_cond_destroy(&s->cond);
	hcb_reader_close(s->r);
	hcb_reader_close(s->fr);
	free(s->batch);
	free(s);
}
