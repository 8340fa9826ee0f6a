/* SPDX-License-Identifier: MIT */
/*
 * cupti_join.c - matching CUPTI's copy records with tap packets (see
 * cupti_join.h).  Called from the handler's threads, CUDA's host function
 * thread and CUPTI's buffer thread: one lock, held briefly.
 */
#include <string.h>

#include "cupti_join.h"

void hcb_join_init(struct hcb_join *j, hcb_join_cb done, void *ctx)
{
	memset(j, 0, sizeof(*j));
	pthread_mutex_init(&j->lock, NULL);
	j->done = done;
	j->ctx = ctx;
}

static struct hcb_join_tap *slot(struct hcb_join *j, uint64_t tap_id)
{
	/* tap ids are (device << 48 | counter): mix before taking low bits */
	uint64_t h = tap_id * UINT64_C(0x9e3779b97f4a7c15);

	return &j->taps[(h >> 32) % HCB_JOIN_TAPS];
}

static struct hcb_join_tap *find(struct hcb_join *j, uint64_t tap_id)
{
	struct hcb_join_tap *t = slot(j, tap_id);

	return tap_id && t->tap_id == tap_id ? t : NULL;
}

/* t is complete: hand it over (after the lock is let go) and free it. */
static int complete(struct hcb_join_tap *t, struct hcb_join_done *out)
{
	if (!t || !t->have_seq || t->seen < t->ncopies)
		return 0;
	*out = (struct hcb_join_done){
		.device = t->device, .ncopies = t->ncopies, .seq = t->seq,
		.start = t->start, .end = t->end, .bytes = t->bytes,
	};
	t->tap_id = 0;
	return 1;
}

static void finish(struct hcb_join *j, int ready, const struct hcb_join_done *out)
{
	pthread_mutex_unlock(&j->lock);
	if (ready && j->done)
		j->done(out, j->ctx);
}

void hcb_join_begin(struct hcb_join *j, uint64_t tap_id, uint32_t device, uint32_t ncopies)
{
	struct hcb_join_tap *t;

	if (!tap_id)
		return;
	pthread_mutex_lock(&j->lock);
	t = slot(j, tap_id);
	if (t->tap_id)
		j->unmatched++;
	*t = (struct hcb_join_tap){ .tap_id = tap_id, .device = device, .ncopies = ncopies };
	pthread_mutex_unlock(&j->lock);
}

void hcb_join_corr(struct hcb_join *j, uint32_t correlation_id, uint64_t tap_id)
{
	pthread_mutex_lock(&j->lock);
	j->corrs[correlation_id % HCB_JOIN_CORRS] =
		(struct hcb_join_corr){ .correlation_id = correlation_id, .tap_id = tap_id };
	pthread_mutex_unlock(&j->lock);
}

void hcb_join_copy(struct hcb_join *j, uint32_t correlation_id, uint64_t start, uint64_t end,
		   uint64_t bytes)
{
	struct hcb_join_corr *c;
	struct hcb_join_tap *t = NULL;
	struct hcb_join_done out;
	int ready;

	pthread_mutex_lock(&j->lock);
	c = &j->corrs[correlation_id % HCB_JOIN_CORRS];
	/* a copy no tap made (XLA's own) has no correlation entry */
	if (c->tap_id && c->correlation_id == correlation_id) {
		t = find(j, c->tap_id);
		c->tap_id = 0;
	}
	if (t) {
		if (!t->seen || start < t->start)
			t->start = start;
		if (!t->seen || end > t->end)
			t->end = end;
		t->bytes += bytes;
		t->seen++;
	}
	ready = complete(t, &out);
	finish(j, ready, &out);
}

void hcb_join_emitted(struct hcb_join *j, uint64_t tap_id, uint32_t device, uint64_t seq)
{
	struct hcb_join_tap *t;
	struct hcb_join_done out;
	int ready;

	pthread_mutex_lock(&j->lock);
	t = find(j, tap_id);
	if (t) {
		t->device = device;
		t->seq = seq;
		t->have_seq = 1;
	}
	ready = complete(t, &out);
	finish(j, ready, &out);
}

void hcb_join_abandon(struct hcb_join *j, uint64_t tap_id)
{
	struct hcb_join_tap *t;

	pthread_mutex_lock(&j->lock);
	t = find(j, tap_id);
	if (t) {
		t->tap_id = 0;
		j->unmatched++;
	}
	pthread_mutex_unlock(&j->lock);
}

uint64_t hcb_join_unmatched(struct hcb_join *j)
{
	uint64_t n;

	pthread_mutex_lock(&j->lock);
	n = j->unmatched;
	pthread_mutex_unlock(&j->lock);
	return n;
}
