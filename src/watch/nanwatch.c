/* SPDX-License-Identifier: MIT */
/* nanwatch.c - only the taps holding NaN or inf, and their tally (nanwatch.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanwatch.h"

struct hcb_nanwatch {
	struct hcb_receiver inner;
	struct hcb_nanwatch_site *sites;
	unsigned int nsites, cap;
	uint64_t seen, found, untallied;
	char platform[16];
	uint64_t start_ns;
};

/* The site of c on device, or a new one (NULL: past the bound, or no
 * memory: the tap is then only counted). */
static struct hcb_nanwatch_site *site_of(struct hcb_nanwatch *w, const struct hcb_tap *p)
{
	const char *name = p->consumer->name ? p->consumer->name : "";
	struct hcb_nanwatch_site *s;

	for (unsigned int i = 0; i < w->nsites; i++) {
		s = &w->sites[i];
		/* ids may repeat across providers: the name tells them apart */
		if (s->device == p->device && s->consumer_id == p->consumer->id &&
		    !strncmp(s->consumer, name, sizeof(s->consumer) - 1))
			return s;
	}
	if (w->nsites == HCB_NANWATCH_MAX_SITES)
		return NULL;
	if (w->nsites == w->cap) {
		unsigned int cap = w->cap ? 2 * w->cap : 16;

		s = realloc(w->sites, cap * sizeof(*s));
		if (!s)
			return NULL;
		w->sites = s;
		w->cap = cap;
	}
	s = &w->sites[w->nsites++];
	memset(s, 0, sizeof(*s));
	snprintf(s->consumer, sizeof(s->consumer), "%s", name);
	s->consumer_id = p->consumer->id;
	s->device = p->device;
	s->seq = p->seq;
	s->wall_ns = p->wall_ns;
	return s;
}

/* A tap: passed on if it holds a non-finite value, tallied; else dropped
 * here, seen. */
static int watch_tap(struct hcb_nanwatch *w, const struct hcb_record *rec)
{
	struct hcb_nanwatch_site *s;
	struct hcb_nonfinite_at at;
	int err;

	w->seen++;
	if (!rec->tap.consumer || !hcb_tap_nonfinite(rec->tap.consumer, rec->tap.payload, &at))
		return 0;
	err = w->inner.ops->record(w->inner.ctx, rec);
	if (err)
		return err;
	w->found++;
	s = site_of(w, &rec->tap);
	if (!s) {
		w->untallied++;
		return 0;
	}
	if (!s->taps++)
		s->at = at;
	return 0;
}

static int watch_record(void *ctx, const struct hcb_record *rec)
{
	struct hcb_nanwatch *w = ctx;
	struct hcb_record end;

	switch (rec->kind) {
	case HCB_REC_TAP:
		return watch_tap(w, rec);
	case HCB_REC_SESSION:
		snprintf(w->platform, sizeof(w->platform), "%s", rec->session.platform);
		w->start_ns = rec->session.start_ns;
		break;
	case HCB_REC_END:
		/* the end counts the taps the output holds; drops stay */
		end = *rec;
		end.end.taps = w->found;
		return w->inner.ops->record(w->inner.ctx, &end);
	default:
		break;
	}
	return w->inner.ops->record(w->inner.ctx, rec);
}

static int watch_sync(void *ctx)
{
	struct hcb_nanwatch *w = ctx;

	return w->inner.ops->sync ? w->inner.ops->sync(w->inner.ctx) : 0;
}

static int watch_flush(void *ctx)
{
	struct hcb_nanwatch *w = ctx;

	return w->inner.ops->flush ? w->inner.ops->flush(w->inner.ctx) : 0;
}

static const struct hcb_receiver_ops watch_ops = {
	.record = watch_record,
	.sync = watch_sync,
	.flush = watch_flush,
};

int hcb_nanwatch_new(struct hcb_nanwatch **out, struct hcb_receiver inner)
{
	struct hcb_nanwatch *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->inner = inner;
	*out = w;
	return 0;
}

struct hcb_receiver hcb_nanwatch_receiver(struct hcb_nanwatch *w)
{
	return (struct hcb_receiver){ &watch_ops, w };
}

unsigned int hcb_nanwatch_sites(const struct hcb_nanwatch *w)
{
	return w->nsites;
}

const struct hcb_nanwatch_site *hcb_nanwatch_site(const struct hcb_nanwatch *w, unsigned int i)
{
	return i < w->nsites ? &w->sites[i] : NULL;
}

uint64_t hcb_nanwatch_seen(const struct hcb_nanwatch *w)
{
	return w->seen;
}

uint64_t hcb_nanwatch_found(const struct hcb_nanwatch *w)
{
	return w->found;
}

uint64_t hcb_nanwatch_untallied(const struct hcb_nanwatch *w)
{
	return w->untallied;
}

const char *hcb_nanwatch_platform(const struct hcb_nanwatch *w)
{
	return w->platform;
}

uint64_t hcb_nanwatch_start_ns(const struct hcb_nanwatch *w)
{
	return w->start_ns;
}

void hcb_nanwatch_free(struct hcb_nanwatch *w)
{
	if (!w)
		return;
	free(w->sites);
	free(w);
}
