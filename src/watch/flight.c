/* SPDX-License-Identifier: MIT */
/* flight.c - the flight recorder's ring (flight.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "flight.h"

/* One record held back: a tap's payload copied after it (the producer's
 * is valid only until its next record). */
struct entry {
	struct entry *next;
	uint64_t bytes;            /* what it counts against the budget */
	uint64_t wall_ns;          /* the tap's, or a drop's: the newest tap's then */
	struct hcb_record rec;
	unsigned char payload[];
};

struct hcb_flight {
	struct hcb_flight_opts o;
	struct hcb_trigger *triggers;
	struct hcb_receiver inner;
	struct hcb_record session;
	int have_session;
	struct entry *head, *tail;  /* oldest first */
	uint64_t held, peak;
	uint64_t newest_ns;         /* the latest tap time seen (keep_ns; wall clock) */
	int oversize;               /* the one entry held is a tap over the budget */
	int fired, done;
	int closed;                 /* re-armed: the inner receiver is closed */
	uint64_t after_left;
	uint64_t firings;           /* begun */
	uint64_t taps, drops;       /* what reached the inner receiver (this file) */
	char condition[256];        /* the latest firing's (record --fleet-dir tells it) */
};

static int pass(struct hcb_flight *f, const struct hcb_record *rec)
{
	int err = f->inner.ops->record(f->inner.ctx, rec);

	if (err)
		return err;
	if (rec->kind == HCB_REC_TAP)
		f->taps++;
	else if (rec->kind == HCB_REC_DROP)
		f->drops += rec->drop.count;
	return 0;
}

static void drop_oldest(struct hcb_flight *f)
{
	struct entry *e = f->head;

	f->head = e->next;
	if (!f->head)
		f->tail = NULL;
	f->held -= e->bytes;
	free(e);
	f->oversize = 0;
}

/* Must the oldest go to make room for bytes more, or has it grown older
 * than the duration kept? */
static int must_go(const struct hcb_flight *f, uint64_t bytes)
{
	if (f->held + bytes > f->o.keep_bytes)
		return 1;
	return f->o.keep_ns && f->newest_ns - f->head->wall_ns > f->o.keep_ns;
}

/* Keep rec, evicting the oldest first so that what is held stays within
 * the budget: only a record larger than the budget itself goes over it,
 * held alone. */
static int keep(struct hcb_flight *f, const struct hcb_record *rec)
{
	size_t n = rec->kind == HCB_REC_TAP ? rec->tap.consumer->total_bytes : 0;
	/* a print's text after the payload */
	size_t tn = rec->kind == HCB_REC_TAP && rec->tap.text ? rec->tap.text_len : 0;
	uint64_t bytes = sizeof(struct entry) + n + tn;
	struct entry *e;

	/* taps of several devices come nearly in time order: the newest is
	 * the clock the window is measured on */
	if (rec->kind == HCB_REC_TAP && rec->tap.wall_ns > f->newest_ns)
		f->newest_ns = rec->tap.wall_ns;
	while (f->head && must_go(f, bytes))
		drop_oldest(f);
	e = malloc(sizeof(*e) + n + tn);
	if (!e)
		return -ENOMEM;
	e->next = NULL;
	e->bytes = bytes;
	e->wall_ns = rec->kind == HCB_REC_TAP ? rec->tap.wall_ns : f->newest_ns;
	e->rec = *rec;
	if (rec->kind == HCB_REC_TAP) {
		if (n)
			memcpy(e->payload, rec->tap.payload, n);
		e->rec.tap.payload = e->payload;
		if (rec->tap.text) {
			memcpy(e->payload + n, rec->tap.text, tn);
			e->rec.tap.text = (const char *)e->payload + n;
		}
	}
	if (f->tail)
		f->tail->next = e;
	else
		f->head = e;
	f->tail = e;
	f->held += bytes;
	if (f->held > f->peak)
		f->peak = f->held;
	f->oversize = bytes > f->o.keep_bytes;
	return 0;
}

static void trigger_info(const struct hcb_flight *f, const struct hcb_trigger *t,
			 const struct hcb_tap *p, const struct hcb_trigger_hit *hit,
			 struct hcb_trigger_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->device = p->device;
	ti->seq = p->seq;
	snprintf(ti->consumer, sizeof(ti->consumer), "%s", p->consumer->name);
	ti->leaf = hit->leaf;
	ti->element = hit->element;
	ti->value = hit->value;
	ti->wall_ns = p->wall_ns;
	ti->oversize = (uint32_t)f->oversize;
	ti->by_process = -1;
	hcb_trigger_format(t, ti->condition, sizeof(ti->condition));
}

/* A firing's `after` taps have passed: done after the last firing, else
 * its recording ends here and the recorder arms again, its ring empty. */
static int complete(struct hcb_flight *f)
{
	struct hcb_record end = { .kind = HCB_REC_END };
	int err;

	if (f->firings >= f->o.firings) {
		f->done = 1;
		return 0;
	}
	end.end.taps = f->taps;
	end.end.drops = f->drops;
	end.end.end_ns = hcb_clock_ns(CLOCK_REALTIME);
	err = pass(f, &end);
	f->closed = 1;
	f->fired = 0;
	f->taps = f->drops = 0;
	return f->o.files.close(f->o.files.ctx) ?: err;
}

/* Write what was held back: the session, the kept records oldest first,
 * then the trigger record (re-armed: in the next recording). */
static int write_out(struct hcb_flight *f, const struct hcb_trigger_info *ti)
{
	struct hcb_record rec = { .kind = HCB_REC_TRIGGER, .trigger = *ti };
	int err = 0;

	if (f->closed) {
		err = f->o.files.open(f->o.files.ctx, f->firings, &f->inner);
		if (err)
			return err;
		f->closed = 0;
	}
	f->fired = 1;
	f->firings++;
	memcpy(f->condition, ti->condition, sizeof(f->condition));
	f->after_left = f->o.after;
	if (f->o.keep_bytes) {
		err = pass(f, &f->session);
		while (!err && f->head) {
			err = pass(f, &f->head->rec);
			drop_oldest(f);
		}
	}
	if (!err)
		err = pass(f, &rec);
	if (!err && f->after_left == 0)
		err = complete(f);
	return err;
}

/* The first trigger a tap fires: its index, or -1. */
static int fires(const struct hcb_flight *f, const struct hcb_tap *p,
		 struct hcb_trigger_hit *hit)
{
	for (unsigned int i = 0; i < f->o.n_triggers; i++)
		if (hcb_trigger_fires(&f->triggers[i], p->consumer, p->device, p->payload, hit))
			return (int)i;
	return -1;
}

static int on_tap(struct hcb_flight *f, const struct hcb_record *rec)
{
	struct hcb_trigger_info ti;
	struct hcb_trigger_hit hit;
	int i, err;

	if (f->fired) {
		err = pass(f, rec);
		if (!err && --f->after_left == 0)
			err = complete(f);
		return err;
	}
	err = f->o.keep_bytes ? keep(f, rec) : pass(f, rec);
	if (err)
		return err;
	i = fires(f, &rec->tap, &hit);
	if (i < 0)
		return 0;
	trigger_info(f, &f->triggers[i], &rec->tap, &hit, &ti);
	return write_out(f, &ti);
}

static int flight_record(void *ctx, const struct hcb_record *rec)
{
	struct hcb_flight *f = ctx;
	int held = f->o.keep_bytes && !f->fired;
	struct hcb_record end;

	switch (rec->kind) {
	case HCB_REC_SESSION:
		/* again as devices come (engine/whois.h): the last is written
		 * first when the ring is; none once the window is whole */
		f->session = *rec;
		f->have_session = 1;
		return held || f->done ? 0 : pass(f, rec);
	case HCB_REC_TAP:
		return f->done ? 0 : on_tap(f, rec);
	case HCB_REC_DROP:
		if (f->done)
			return 0;
		return held ? keep(f, rec) : pass(f, rec);
	case HCB_REC_END:
		if (held)
			return 0;
		/* the counts of what the recording holds, not of what came */
		end = *rec;
		end.end.taps = f->taps;
		end.end.drops = f->drops;
		return pass(f, &end);
	case HCB_REC_BARRIER:
	case HCB_REC_TRIGGER:
		/* a barrier's tap count means nothing in a ring's window */
		return held || f->done ? 0 : pass(f, rec);
	}
	return -EINVAL;
}

/* Between re-armed firings there is no inner receiver to ask. */
static int flight_sync(void *ctx)
{
	struct hcb_flight *f = ctx;

	return !f->closed && f->inner.ops->sync ? f->inner.ops->sync(f->inner.ctx) : 0;
}

static int flight_flush(void *ctx)
{
	struct hcb_flight *f = ctx;

	return !f->closed && f->inner.ops->flush ? f->inner.ops->flush(f->inner.ctx) : 0;
}

static const struct hcb_receiver_ops flight_ops = {
	.record = flight_record,
	.sync = flight_sync,
	.flush = flight_flush,
};

int hcb_flight_new(struct hcb_flight **out, const struct hcb_flight_opts *o,
		   struct hcb_receiver inner)
{
	struct hcb_flight *f;

	if ((o->keep_ns && !o->keep_bytes) ||
	    (o->firings > 1 && (!o->keep_bytes || !o->files.open || !o->files.close)))
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->o = *o;
	f->inner = inner;
	if (o->n_triggers) {
		f->triggers = malloc(o->n_triggers * sizeof(*f->triggers));
		if (!f->triggers) {
			free(f);
			return -ENOMEM;
		}
		memcpy(f->triggers, o->triggers, o->n_triggers * sizeof(*f->triggers));
	}
	f->o.triggers = f->triggers;
	if (!f->o.firings)
		f->o.firings = 1;
	*out = f;
	return 0;
}

struct hcb_receiver hcb_flight_receiver(struct hcb_flight *f)
{
	return (struct hcb_receiver){ &flight_ops, f };
}

int hcb_flight_fire_as(struct hcb_flight *f, const struct hcb_trigger_info *why)
{
	struct hcb_trigger_info ti = *why;

	if (f->fired)
		return 1;
	if (!f->have_session)
		return -EAGAIN;
	/* no tap fired it: none is named */
	ti.device = 0;
	ti.seq = HCB_TRIGGER_NO_TAP;
	ti.consumer[0] = '\0';
	ti.leaf = ti.element = -1;
	ti.value = NAN;
	ti.oversize = (uint32_t)f->oversize;
	return write_out(f, &ti);
}

int hcb_flight_fire(struct hcb_flight *f, const char *why, uint64_t wall_ns)
{
	struct hcb_trigger_info ti = { .wall_ns = wall_ns, .by_process = -1 };

	snprintf(ti.condition, sizeof(ti.condition), "%s", why);
	return hcb_flight_fire_as(f, &ti);
}

const struct hcb_session_info *hcb_flight_session(const struct hcb_flight *f)
{
	return f->have_session ? &f->session.session : NULL;
}

const char *hcb_flight_condition(const struct hcb_flight *f)
{
	return f->condition;
}

int hcb_flight_fired(const struct hcb_flight *f)
{
	return f->fired;
}

uint64_t hcb_flight_firings(const struct hcb_flight *f)
{
	return f->firings;
}

int hcb_flight_done(const struct hcb_flight *f)
{
	return f->done;
}

uint64_t hcb_flight_held(const struct hcb_flight *f)
{
	return f->held;
}

uint64_t hcb_flight_peak(const struct hcb_flight *f)
{
	return f->peak;
}

void hcb_flight_free(struct hcb_flight *f)
{
	if (!f)
		return;
	while (f->head)
		drop_oldest(f);
	free(f->triggers);
	free(f);
}
