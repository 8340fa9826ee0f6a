/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "jobmerge.h"
#include "recfile.h"
#include "source.h"

#define BATCH 1024                      /* records taken into the model at once */
#define BATCH_NS (20 * 1000000ull)      /* or what was read in this long */

struct batched {
	struct hcb_record rec;          /* a tap's payload NULL: its consumer is the indexer's */
	uint64_t off;
	size_t member;
};

/* A member's trouble, said when the display closes. */
struct trouble {
	int err;
	char msg[512];
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
	/* a job's recordings (jobset.h) as one: merged by time on the
	 * indexing thread; an index offset is base[k] + the offset in member
	 * k's file, base[k] the sizes of the files before it */
	struct hcb_jobmerge *jm;
	const struct hcb_jobset *set;
	struct hcb_reader **frs;        /* the frames' readers, opened as needed */
	unsigned int *fdefined;         /* model consumers looked at for each */
	uint64_t *base;                 /* nmem + 1 */
	struct trouble troubles[TUI_SOURCE_TROUBLES];
	size_t ntroubles;
	uint64_t past_size;             /* taps past their file's size when opened, not shown */
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

/* The member whose bytes off falls in: base is ascending, base[0] 0. */
static size_t member_of(const struct tui_source *s, uint64_t off)
{
	size_t lo = 0, hi = s->set->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->base[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int job_fetch_read(void *ctx, uint64_t off, struct hcb_record *rec, char *err, size_t cap)
{
	struct tui_source *s = ctx;
	struct tui_model *m = &s->sink->model;
	size_t k = member_of(s, off);
	struct hcb_reader *r;
	int n = 0;

	if (!s->frs[k])
		n = hcb_reader_open(&s->frs[k], s->set->m[k].path);
	if (n) {
		snprintf(err, cap, "cannot open '%s' again: %s", s->set->m[k].path, strerror(-n));
		return n;
	}
	r = s->frs[k];
	/* an .hcbcap tap needs its consumer: its process's, defined before it */
	for (; s->fdefined[k] < m->ncons; s->fdefined[k]++)
		if (m->cons[s->fdefined[k]].proc == k)
			hcb_reader_define(r, m->cons[s->fdefined[k]].c);
	n = hcb_reader_seek(r, off - s->base[k]);
	if (!n)
		n = hcb_reader_next(r, rec);
	if (n == 1)
		return 0;
	if (n == 0)
		n = -ENODATA;
	snprintf(err, cap, "%s", *hcb_reader_error(r) ? hcb_reader_error(r) : strerror(-n));
	return n;
}

static const struct tui_fetch_ops job_fetch_ops = { .read = job_fetch_read };

static void free_job(struct tui_source *s)
{
	for (size_t k = 0; s->frs && k < s->set->n; k++)
		hcb_reader_close(s->frs[k]);
	free(s->frs);
	free(s->fdefined);
	free(s->base);
	hcb_jobmerge_close(s->jm);
}

/* Each member a process of the model, by its session record, before any
 * tap; and where each member's offsets start. */
static int job_members(struct tui_source *s, struct tui_model *m)
{
	const struct hcb_jobset *set = s->set;
	int err = 0;

	for (size_t k = 0; k < set->n && !err; k++) {
		const char *base = strrchr(set->m[k].path, '/');

		s->base[k + 1] = s->base[k] + hcb_jobmerge_member_size(s->jm, k);
		err = tui_model_process(m, (unsigned int)k, set->m[k].has_session ? &set->m[k].who : NULL,
					base && base[1] ? base + 1 : set->m[k].path);
	}
	if (!err && s->base[set->n] >= TUI_INDEX_OFFSET_MAX)
		err = -EFBIG;
	m->cur_proc = 0;
	return err;
}

static void job_open_failed(struct tui_source *s, int err, char *why, size_t cap)
{
	if (err == -EFBIG)
		snprintf(why, cap, "the recordings are too large together for the viewer's index (256 TiB)");
	else if (err == -E2BIG)
		snprintf(why, cap, "more processes than the viewer tells apart (%u)", TUI_PROCESSES);
	else if (s->jm && err != -ENOMEM)
		snprintf(why, cap, "%s", hcb_jobmerge_error(s->jm));
	else
		snprintf(why, cap, "out of memory");
	free_job(s);
	free(s->batch);
	free(s);
}

int tui_source_open_job(struct tui_source **out, const struct hcb_jobset *set, struct tui_sink *sink,
			const struct hcb_filter *filter, char *why, size_t cap)
{
	struct tui_source *s = calloc(1, sizeof(*s));
	int err;

	if (!s) {
		snprintf(why, cap, "out of memory");
		return -ENOMEM;
	}
	s->set = set;
	s->batch = malloc(BATCH * sizeof(*s->batch));
	s->frs = calloc(set->n + 1, sizeof(*s->frs));
	s->fdefined = calloc(set->n + 1, sizeof(*s->fdefined));
	s->base = calloc(set->n + 1, sizeof(*s->base));
	err = s->batch && s->frs && s->fdefined && s->base ? hcb_jobmerge_open(&s->jm, set) : -ENOMEM;
	if (!err && !s->jm)
		err = -ENOMEM;
	if (!err && !(err = tui_sink_init_indexed(sink, &job_fetch_ops, s)) &&
	    (err = job_members(s, &sink->model)))
		tui_sink_free(sink);
	if (err) {
		job_open_failed(s, err, why, cap);
		return err;
	}
	s->sink = sink;
	hcb_jobmerge_skim_after(s->jm, TUI_SOURCE_CHECKED);
	if (filter) {
		s->filter = *filter;
		s->filtered = 1;
	}
	pthread_cond_init(&s->cond, NULL);
	sink->model.indexing = 1;
	sink->model.index_size = hcb_jobmerge_size(s->jm);
	*out = s;
	return 0;
}

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

/* -ENODATA if every member's trouble was a file cut short, else the first
 * damage's error. */
static int job_worst(const struct tui_source *s)
{
	for (size_t i = 0; i < s->ntroubles && i < TUI_SOURCE_TROUBLES; i++)
		if (s->troubles[i].err != -ENODATA)
			return s->troubles[i].err;
	return s->ntroubles ? -ENODATA : 0;
}

/* The batch into the model, under the lock; n: the last read's return. */
static void publish(struct tui_source *s, int k, int n)
{
	struct tui_model *m = &s->sink->model;
	int err = 0;

	tui_sink_lock(s->sink);
	for (int i = 0; i < k && !err; i++) {
		if (s->jm)
			m->cur_proc = (unsigned int)s->batch[i].member;
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
	m->index_pos = s->jm ? hcb_jobmerge_tell(s->jm) : hcb_reader_tell(s->r);
	tui_model_rates_from_ts(m);
	if (n != 1) {
		s->done = 1;
		s->result = n;
		m->indexing = 0;
		m->damaged = n == -ENODATA ? 2 : n < 0 && n != -EINTR;
		if (s->jm && s->ntroubles && !m->damaged)
			m->damaged = job_worst(s) == -ENODATA ? 2 : 1;
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

/* A member's trouble, kept to be said (the first TUI_SOURCE_TROUBLES). */
static void note_trouble(struct tui_source *s, int err, const char *msg)
{
	if (s->ntroubles < TUI_SOURCE_TROUBLES) {
		s->troubles[s->ntroubles].err = err;
		snprintf(s->troubles[s->ntroubles].msg, sizeof(s->troubles[0].msg), "%s", msg);
	}
	s->ntroubles++;
}

/* A job's records, merged: a member's damage ends that member alone,
 * noted (said when the display closes, as replay says it), and the
 * others go on.  The last merge's return, the count in *k. */
static int read_job_batch(struct tui_source *s, int *k)
{
	uint64_t t0 = hcb_clock_ns(CLOCK_MONOTONIC);
	size_t member;
	int n = 1;

	*k = 0;
	while (*k < BATCH && !atomic_load(&s->stop)) {
		struct batched *b = &s->batch[*k];
		uint64_t off;

		if (hcb_clock_ns(CLOCK_MONOTONIC) - t0 > BATCH_NS)
			break;
		n = hcb_jobmerge_next(s->jm, &b->rec, &member);
		if (n == 0 && s->past_size) {
			char msg[200];

			snprintf(msg, sizeof(msg), "%llu taps not shown: past the size their files had "
				 "when opened (files that grew while read, or not regular files, which "
				 "cannot be read back)", (unsigned long long)s->past_size);
			note_trouble(s, -ENODATA, msg);
			s->past_size = 0;
		}
		if (n == 0)
			return 0;
		if (n < 0) {
			note_trouble(s, n, hcb_jobmerge_error(s->jm));
			n = 1;
			continue;
		}
		b->member = member;
		b->off = 0;
		if (b->rec.kind == HCB_REC_TAP) {
			if (s->filtered && !hcb_filter_match(&s->filter, b->rec.tap.device, b->rec.tap.consumer))
				continue;
			b->rec.tap.payload = NULL;
			off = hcb_jobmerge_offset(s->jm, member);
			/* a file that grew since it was opened: its offsets
			 * past that size are the next file's */
			if (off >= s->base[member + 1] - s->base[member]) {
				s->past_size++;
				continue;
			}
			b->off = s->base[member] + off;
		}
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
		n = s->jm ? read_job_batch(s, &k) : read_batch(s, &k);
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

size_t tui_source_troubles(const struct tui_source *s, size_t i, int *err, const char **msg)
{
	if (i < s->ntroubles && i < TUI_SOURCE_TROUBLES) {
		*err = s->troubles[i].err;
		*msg = s->troubles[i].msg;
	}
	return s->ntroubles;
}

size_t tui_source_members(const struct tui_source *s)
{
	return s->jm ? s->set->n : 1;
}

const struct hcb_registry *tui_source_consumers(const struct tui_source *s, size_t i)
{
	return s->jm ? hcb_jobmerge_consumers(s->jm, i) : hcb_reader_consumers(s->r);
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
	free_job(s);
	free(s->batch);
	free(s);
}
