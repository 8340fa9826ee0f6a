/* SPDX-License-Identifier: MIT */
/* jobmerge.c - a job's recordings as one stream in time order (jobmerge.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmerge.h"
#include "recfile.h"

#define NONE SIZE_MAX

struct merge_src {
	struct hcb_reader *r;
	struct hcb_record pending;      /* its next record, read, not yet given */
	uint64_t key;                   /* its time in the merge's order */
	uint64_t last;                  /* the key of the record before it */
	struct hcb_session_info session;   /* the last session record read */
	int have_session;
	int unsent;                     /* that record is not given yet */
};

struct hcb_jobmerge {
	size_t n;
	struct merge_src *src;
	size_t *heap;                   /* files with a pending record, earliest first */
	size_t nheap;
	size_t primed;                  /* files whose first record was read */
	size_t refill;                  /* the file whose record was given last: read on */
	size_t deferred;                /* a file whose record waits behind its session */
	size_t current;                 /* the file of the last record given */
	uint64_t whole;                 /* bytes of each file read whole, the rest skimmed */
	char error[1024];
};

static int earlier(const struct hcb_jobmerge *m, size_t a, size_t b)
{
	return m->src[a].key != m->src[b].key ? m->src[a].key < m->src[b].key : a < b;
}

static void heap_push(struct hcb_jobmerge *m, size_t i)
{
	size_t at = m->nheap++;

	while (at && earlier(m, i, m->heap[(at - 1) / 2])) {
		m->heap[at] = m->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	m->heap[at] = i;
}

static size_t heap_pop(struct hcb_jobmerge *m)
{
	size_t top = m->heap[0], last = m->heap[--m->nheap], at = 0;

	for (;;) {
		size_t c = 2 * at + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && earlier(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!earlier(m, m->heap[c], last))
			break;
		m->heap[at] = m->heap[c];
		at = c;
	}
	if (m->nheap)
		m->heap[at] = last;
	return top;
}

/* A record's time in the merge: its own, or its file's record's before. */
static uint64_t key_of(const struct hcb_record *rec, uint64_t last)
{
	switch (rec->kind) {
	case HCB_REC_TAP: return rec->tap.wall_ns;
	case HCB_REC_BARRIER: return rec->barrier.wall_ns;
	case HCB_REC_TRIGGER: return rec->trigger.wall_ns;
	case HCB_REC_END: return rec->end.end_ns ? rec->end.end_ns : last;
	default: return last;
	}
}

/* File i's next record into the heap; 0 at its end, or its error. */
static int advance(struct hcb_jobmerge *m, size_t i)
{
	struct merge_src *s = &m->src[i];
	int n = hcb_reader_tell(s->r) < m->whole ? hcb_reader_next(s->r, &s->pending) :
		hcb_reader_skim(s->r, &s->pending);

	if (n < 0)
		snprintf(m->error, sizeof(m->error), "%s", hcb_reader_error(s->r));
	if (n != 1)
		return n < 0 ? n : 0;
	s->key = key_of(&s->pending, s->last);
	s->last = s->key;
	heap_push(m, i);
	return 0;
}

int hcb_jobmerge_open(struct hcb_jobmerge **out, const struct hcb_jobset *set)
{
	struct hcb_jobmerge *m = calloc(1, sizeof(*m));
	int err = 0;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	snprintf(m->error, sizeof(m->error), "out of memory");
	m->n = set->n;
	m->refill = m->deferred = m->current = NONE;
	m->whole = UINT64_MAX;
	m->src = calloc(set->n ? set->n : 1, sizeof(*m->src));
	m->heap = calloc(set->n ? set->n : 1, sizeof(*m->heap));
	if (!m->src || !m->heap)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < set->n; i++) {
		err = hcb_reader_open(&m->src[i].r, set->m[i].path);
		if (err)
			snprintf(m->error, sizeof(m->error), "cannot open '%s': %s", set->m[i].path,
				 strerror(-err));
	}
	*out = m;
	return err;
}

/* The record given. */
static int give(struct hcb_jobmerge *m, size_t i, struct hcb_record *rec, size_t *member)
{
	*rec = m->src[i].pending;
	*member = i;
	m->current = i;
	m->refill = i;
	return 1;
}

/* File i's who, given again before its next record. */
static int give_session(struct hcb_jobmerge *m, size_t i, struct hcb_record *rec, size_t *member)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_SESSION;
	rec->session = m->src[i].session;
	m->src[i].unsent = 0;
	*member = i;
	m->current = i;
	m->deferred = i;
	return 1;
}

/* The earliest pending record, its session first where it is needed. */
static int give_next(struct hcb_jobmerge *m, struct hcb_record *rec, size_t *member)
{
	struct merge_src *s;
	size_t i;
	int err;

	for (;;) {
		if (!m->nheap)
			return 0;
		i = heap_pop(m);
		s = &m->src[i];
		if (m->n == 1 || s->pending.kind != HCB_REC_SESSION)
			break;
		/* kept, and given just before the file's next record */
		s->session = s->pending.session;
		s->have_session = s->unsent = 1;
		if ((err = advance(m, i)))
			return err;
	}
	if (s->have_session && s->pending.kind != HCB_REC_END && (i != m->current || s->unsent))
		return give_session(m, i, rec, member);
	return give(m, i, rec, member);
}

int hcb_jobmerge_next(struct hcb_jobmerge *m, struct hcb_record *rec, size_t *member)
{
	size_t i;
	int err;

	if (m->deferred != NONE) {
		i = m->deferred;
		m->deferred = NONE;
		return give(m, i, rec, member);
	}
	if (m->refill != NONE) {
		i = m->refill;
		m->refill = NONE;
		if ((err = advance(m, i)))
			return err;
	}
	while (m->primed < m->n)
		if ((err = advance(m, m->primed++)))
			return err;
	return give_next(m, rec, member);
}

const char *hcb_jobmerge_error(const struct hcb_jobmerge *m)
{
	return m->error;
}

const struct hcb_registry *hcb_jobmerge_consumers(const struct hcb_jobmerge *m, size_t i)
{
	return i < m->n && m->src[i].r ? hcb_reader_consumers(m->src[i].r) : NULL;
}

void hcb_jobmerge_skim_after(struct hcb_jobmerge *m, uint64_t bytes)
{
	m->whole = bytes;
}

uint64_t hcb_jobmerge_offset(const struct hcb_jobmerge *m, size_t i)
{
	return i < m->n && m->src[i].r ? hcb_reader_offset(m->src[i].r) : 0;
}

uint64_t hcb_jobmerge_member_size(const struct hcb_jobmerge *m, size_t i)
{
	return i < m->n && m->src[i].r ? hcb_reader_size(m->src[i].r) : 0;
}

uint64_t hcb_jobmerge_tell(const struct hcb_jobmerge *m)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < m->n; i++)
		sum += m->src[i].r ? hcb_reader_tell(m->src[i].r) : 0;
	return sum;
}

uint64_t hcb_jobmerge_size(const struct hcb_jobmerge *m)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < m->n; i++) {
		uint64_t size = m->src[i].r ? hcb_reader_size(m->src[i].r) : 0;

		if (!size)
			return 0;
		sum += size;
	}
	return sum;
}

void hcb_jobmerge_close(struct hcb_jobmerge *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->src && i < m->n; i++)
		hcb_reader_close(m->src[i].r);
	free(m->src);
	free(m->heap);
	free(m);
}
