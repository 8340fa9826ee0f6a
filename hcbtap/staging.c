/* SPDX-License-Identifier: MIT */
/*
 * staging.c - the CUDA tap handler's staging ring (see staging.h).  Pure
 * host code: the host functions CUDA runs on its own thread call
 * hcb_staging_put(), and may not call CUDA.
 */
#include <stdlib.h>

#include "staging.h"

struct hcb_staging *hcb_staging_new(void *base, uint64_t size, uint32_t nslots)
{
	struct hcb_staging *s;

	if (!base || !size || !nslots)
		return NULL;
	s = calloc(1, sizeof(*s) + (size_t)nslots * sizeof(s->slots[0]));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->base = base;
	s->size = size;
	s->nslots = nslots;
	return s;
}

struct hcb_stage *hcb_staging_get(struct hcb_staging *s, uint64_t bytes)
{
	struct hcb_stage *st = NULL;
	uint64_t pos, off;

	bytes = (bytes + HCB_STAGE_ALIGN - 1) / HCB_STAGE_ALIGN * HCB_STAGE_ALIGN;
	if (!bytes)
		bytes = HCB_STAGE_ALIGN;
	pthread_mutex_lock(&s->lock);
	pos = s->head;
	off = pos % s->size;
	/* one piece: what does not fit before the end starts over at 0 */
	if (off + bytes > s->size) {
		pos += s->size - off;
		off = 0;
	}
	if (s->count == s->nslots || bytes > s->size || pos + bytes - s->tail > s->size) {
		s->refused++;
		goto out;
	}
	st = &s->slots[(s->first + s->count) % s->nslots];
	s->count++;
	st->pool = s;
	st->buf = s->base + off;
	st->start = s->head;
	st->end = pos + bytes;
	st->done = 0;
	s->head = st->end;
out:
	pthread_mutex_unlock(&s->lock);
	return st;
}

void hcb_staging_put(struct hcb_stage *st)
{
	struct hcb_staging *s = st->pool;

	pthread_mutex_lock(&s->lock);
	st->done = 1;
	while (s->count && s->slots[s->first].done) {
		s->tail = s->slots[s->first].end;
		s->first = (s->first + 1) % s->nslots;
		s->count--;
	}
	pthread_mutex_unlock(&s->lock);
}

uint64_t hcb_staging_used(struct hcb_staging *s)
{
	uint64_t n;

	pthread_mutex_lock(&s->lock);
	n = s->head - s->tail;
	pthread_mutex_unlock(&s->lock);
	return n;
}
