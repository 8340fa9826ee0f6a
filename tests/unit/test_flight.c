/* SPDX-License-Identifier: MIT */
/*
 * test_flight.c - the flight recorder's ring (src/watch/flight.h) against a fake
 * inner receiver that logs what reaches it: the order written, the memory
 * bound over a long stream, a tap larger than the ring, drops kept in
 * place, the taps after the trigger, and nothing written unfired.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/dtype.h"
#include "watch/flight.h"
#include "testcons.h"

/* What the inner receiver saw: kinds, and each tap's seq (drops: count). */
#define LOG_MAX 4096
struct log {
	unsigned int n;
	enum hcb_record_kind kind[LOG_MAX];
	uint64_t what[LOG_MAX];
	struct hcb_trigger_info trigger;
	struct hcb_end_info end;
	float first_value[LOG_MAX];
};

static int log_record(void *ctx, const struct hcb_record *rec)
{
	struct log *l = ctx;

	assert_true(l->n < LOG_MAX);
	l->kind[l->n] = rec->kind;
	if (rec->kind == HCB_REC_TAP) {
		l->what[l->n] = rec->tap.seq;
		memcpy(&l->first_value[l->n], rec->tap.payload, sizeof(float));
	} else if (rec->kind == HCB_REC_DROP) {
		l->what[l->n] = rec->drop.count;
	} else if (rec->kind == HCB_REC_TRIGGER) {
		l->trigger = rec->trigger;
	} else if (rec->kind == HCB_REC_END) {
		l->end = rec->end;
	}
	l->n++;
	return 0;
}

static const struct hcb_receiver_ops log_ops = { .record = log_record };

struct fixture {
	struct log log;
	struct hcb_consumer *c, *big;
	struct hcb_flight *f;
	struct hcb_receiver rx;
	uint64_t now;            /* the next tap's time */
	float data[4096];
};

static struct fixture *setup_ns(uint64_t keep, uint64_t keep_ns, uint64_t after, const char *cond)
{
	struct fixture *x = calloc(1, sizeof(*x));
	struct hcb_trigger t;
	struct hcb_flight_opts o = { .keep_bytes = keep, .keep_ns = keep_ns, .after = after,
				     .triggers = &t, .n_triggers = cond ? 1 : 0 };
	struct hcb_record s = { .kind = HCB_REC_SESSION };
	size_t col;
	const char *why;

	assert_non_null(x);
	if (cond)
		assert_int_equal(hcb_trigger_parse(cond, &t, &col, &why), 0);
	x->c = test_leaf_consumer("loss", 1, "x", HCB_DT_FLOAT32, 1, 4, 0);
	x->big = test_leaf_consumer("params", 2, "x", HCB_DT_FLOAT32, 1, 4096, 0);
	assert_int_equal(hcb_flight_new(&x->f, &o, (struct hcb_receiver){ &log_ops, &x->log }), 0);
	x->rx = hcb_flight_receiver(x->f);
	s.session.pid = 42;
	assert_int_equal(x->rx.ops->record(x->rx.ctx, &s), 0);
	return x;
}

static struct fixture *setup(uint64_t keep, uint64_t after, const char *cond)
{
	return setup_ns(keep, 0, after, cond);
}

static void teardown(struct fixture *x)
{
	hcb_flight_free(x->f);
	hcb_consumer_free(x->c);
	hcb_consumer_free(x->big);
	free(x);
}

/* A tap of c with seq, its first element v. */
static int tap(struct fixture *x, const struct hcb_consumer *c, uint64_t seq, float v)
{
	struct hcb_record r = { .kind = HCB_REC_TAP };

	x->data[0] = v;
	r.tap.device = 0;
	r.tap.seq = seq;
	r.tap.wall_ns = x->now;
	r.tap.consumer = c;
	r.tap.payload = (const unsigned char *)x->data;
	return x->rx.ops->record(x->rx.ctx, &r);
}

static int drop(struct fixture *x, uint64_t count)
{
	struct hcb_record r = { .kind = HCB_REC_DROP };

	r.drop.count = count;
	snprintf(r.drop.reason, sizeof(r.drop.reason), "ring buffer full");
	return x->rx.ops->record(x->rx.ctx, &r);
}

static int end(struct fixture *x)
{
	struct hcb_record r = { .kind = HCB_REC_END };

	r.end.taps = 12345;
	return x->rx.ops->record(x->rx.ctx, &r);
}

/* Session, the last taps before the NaN and the NaN's, oldest first, the
 * trigger naming it, the end counting what the file holds. */
static void test_ring_order(void **state)
{
	struct fixture *x;
	uint64_t per_tap;

	(void)state;
	x = setup(1 << 20, 0, "nonfinite");
	assert_int_equal(tap(x, x->c, 0, 0), 0);
	per_tap = hcb_flight_held(x->f);
	teardown(x);

	x = setup(3 * per_tap, 0, "loss: nonfinite");
	for (uint64_t i = 0; i < 10; i++)
		assert_int_equal(tap(x, x->c, i, (float)i), 0);
	assert_int_equal(x->log.n, 0);
	assert_false(hcb_flight_fired(x->f));
	assert_int_equal(tap(x, x->c, 10, NAN), 0);
	assert_true(hcb_flight_done(x->f));
	assert_int_equal(x->log.n, 5);
	assert_int_equal(x->log.kind[0], HCB_REC_SESSION);
	for (unsigned int i = 1; i < 4; i++) {
		assert_int_equal(x->log.kind[i], HCB_REC_TAP);
		assert_int_equal(x->log.what[i], 7 + i);
	}
	/* the payloads are the ring's copies, not the producer's last */
	assert_true(x->log.first_value[1] == 8.0f);
	assert_true(isnan(x->log.first_value[3]));
	assert_int_equal(x->log.kind[4], HCB_REC_TRIGGER);
	assert_int_equal(x->log.trigger.seq, 10);
	assert_string_equal(x->log.trigger.consumer, "loss");
	assert_int_equal(x->log.trigger.leaf, 0);
	assert_int_equal(x->log.trigger.element, 0);
	assert_true(isnan(x->log.trigger.value));
	assert_string_equal(x->log.trigger.condition, "loss: nonfinite");
	/* done: more taps are passed over, the end counts the file's */
	assert_int_equal(tap(x, x->c, 11, 1), 0);
	assert_int_equal(end(x), 0);
	assert_int_equal(x->log.n, 6);
	assert_int_equal(x->log.kind[5], HCB_REC_END);
	assert_int_equal(x->log.end.taps, 3);
	teardown(x);
}

/* A long stream of mixed sizes: never more than the budget plus one tap. */
static void test_memory_bound(void **state)
{
	const uint64_t budget = 64 * 1024;
	uint64_t big = 4096 * sizeof(float);
	struct fixture *x = setup(budget, 0, "nonfinite");

	(void)state;
	for (uint64_t i = 0; i < 20000; i++) {
		const struct hcb_consumer *c = (i * 7919) % 5 == 0 ? x->big : x->c;

		assert_int_equal(tap(x, c, i, 1.0f), 0);
		if (i % 97 == 0)
			assert_int_equal(drop(x, 2), 0);
		assert_true(hcb_flight_held(x->f) <= budget + big + 256);
		assert_true(hcb_flight_held(x->f) <= budget);
	}
	assert_int_equal(x->log.n, 0);
	teardown(x);
}

/* A tap larger than the ring is kept alone, and the trigger says so. */
static void test_oversize(void **state)
{
	struct fixture *x = setup(1024, 0, "nonfinite");

	(void)state;
	for (uint64_t i = 0; i < 5; i++)
		assert_int_equal(tap(x, x->c, i, 1.0f), 0);
	assert_int_equal(tap(x, x->big, 5, NAN), 0);
	assert_true(hcb_flight_held(x->f) == 0);
	assert_int_equal(x->log.n, 3);
	assert_int_equal(x->log.kind[1], HCB_REC_TAP);
	assert_int_equal(x->log.what[1], 5);
	assert_int_equal(x->log.kind[2], HCB_REC_TRIGGER);
	assert_int_equal(x->log.trigger.oversize, 1);
	assert_string_equal(x->log.trigger.consumer, "params");
	teardown(x);
}

/* Drops stay where they came among the taps kept. */
static void test_drops_in_place(void **state)
{
	struct fixture *x = setup(1 << 20, 0, "max > 100");

	(void)state;
	assert_int_equal(tap(x, x->c, 0, 1), 0);
	assert_int_equal(drop(x, 3), 0);
	assert_int_equal(tap(x, x->c, 4, 1), 0);
	assert_int_equal(drop(x, 1), 0);
	assert_int_equal(tap(x, x->c, 6, 500), 0);
	assert_int_equal(x->log.n, 7);
	static const enum hcb_record_kind want[] = { HCB_REC_SESSION, HCB_REC_TAP, HCB_REC_DROP,
		HCB_REC_TAP, HCB_REC_DROP, HCB_REC_TAP, HCB_REC_TRIGGER };
	static const uint64_t what[] = { 0, 0, 3, 4, 1, 6, 0 };
	for (unsigned int i = 0; i < 7; i++) {
		assert_int_equal(x->log.kind[i], want[i]);
		assert_int_equal(x->log.what[i], what[i]);
	}
	assert_true(x->log.trigger.value == 500.0);
	assert_int_equal(end(x), 0);
	assert_int_equal(x->log.end.drops, 4);
	teardown(x);
}

/* --after N: the next N taps pass, and drops between them; then done. */
static void test_after(void **state)
{
	struct fixture *x = setup(1 << 20, 2, "nonfinite");

	(void)state;
	assert_int_equal(tap(x, x->c, 0, NAN), 0);
	assert_true(hcb_flight_fired(x->f));
	assert_false(hcb_flight_done(x->f));
	assert_int_equal(drop(x, 1), 0);
	assert_int_equal(tap(x, x->c, 2, 1), 0);
	assert_false(hcb_flight_done(x->f));
	assert_int_equal(tap(x, x->c, 3, NAN), 0);
	assert_true(hcb_flight_done(x->f));
	assert_int_equal(tap(x, x->c, 4, 1), 0);
	assert_int_equal(drop(x, 1), 0);
	assert_int_equal(end(x), 0);
	/* session, tap 0, trigger, drop, 2, 3, end: one trigger only */
	assert_int_equal(x->log.n, 7);
	assert_int_equal(x->log.kind[2], HCB_REC_TRIGGER);
	assert_int_equal(x->log.kind[3], HCB_REC_DROP);
	assert_int_equal(x->log.what[5], 3);
	assert_int_equal(x->log.end.taps, 3);
	teardown(x);
}

/* Unfired, a session writes nothing at all, end included. */
static void test_nothing_unfired(void **state)
{
	struct fixture *x = setup(4096, 0, "nonfinite");

	(void)state;
	for (uint64_t i = 0; i < 100; i++) {
		assert_int_equal(tap(x, x->c, i, 1), 0);
		assert_int_equal(drop(x, 1), 0);
	}
	assert_int_equal(end(x), 0);
	assert_int_equal(x->log.n, 0);
	teardown(x);
}

/* A signal writes the ring as it stands, naming no tap. */
static void test_signal(void **state)
{
	struct fixture *x = setup(1 << 20, 0, NULL);

	(void)state;
	assert_int_equal(tap(x, x->c, 0, NAN), 0);
	assert_int_equal(tap(x, x->c, 1, 1), 0);
	assert_int_equal(x->log.n, 0);
	assert_int_equal(hcb_flight_fire(x->f, "signal", 99), 0);
	assert_int_equal(hcb_flight_fire(x->f, "signal", 99), 1);
	assert_true(hcb_flight_done(x->f));
	assert_int_equal(x->log.n, 4);
	assert_int_equal(x->log.kind[3], HCB_REC_TRIGGER);
	assert_true(x->log.trigger.seq == HCB_TRIGGER_NO_TAP);
	assert_int_equal(x->log.trigger.leaf, -1);
	assert_string_equal(x->log.trigger.condition, "signal");
	teardown(x);
}

/* A job's firing: the words given whole, the tap's members the
 * recorder's (none), the session the last one come. */
static void test_fire_as(void **state)
{
	struct fixture *x = setup(1 << 20, 0, "nonfinite");
	struct hcb_trigger_info why = { .seq = 7, .leaf = 3, .wall_ns = 99, .by_pid = 4242,
					.by_process = 1 };

	(void)state;
	assert_int_equal(hcb_flight_session(x->f)->pid, 42);
	assert_int_equal(tap(x, x->c, 0, 1), 0);
	snprintf(why.condition, sizeof(why.condition), "job");
	snprintf(why.consumer, sizeof(why.consumer), "not mine");
	assert_int_equal(hcb_flight_fire_as(x->f, &why), 0);
	assert_int_equal(hcb_flight_fire_as(x->f, &why), 1);
	assert_true(hcb_flight_done(x->f));
	assert_int_equal(x->log.n, 3);
	assert_string_equal(x->log.trigger.condition, "job");
	assert_true(x->log.trigger.seq == HCB_TRIGGER_NO_TAP);
	assert_int_equal(x->log.trigger.leaf, -1);
	assert_string_equal(x->log.trigger.consumer, "");
	assert_int_equal(x->log.trigger.by_pid, 4242);
	assert_int_equal(x->log.trigger.by_process, 1);
	assert_int_equal(x->log.trigger.wall_ns, 99);
	teardown(x);
}

/* No budget: everything passes at once, the trigger after its tap. */
static void test_pass_through(void **state)
{
	struct fixture *x = setup(0, 1, "loss: max >= 3");

	(void)state;
	assert_int_equal(x->log.n, 1);
	assert_int_equal(tap(x, x->c, 0, 1), 0);
	assert_int_equal(drop(x, 1), 0);
	assert_int_equal(x->log.n, 3);
	assert_int_equal(tap(x, x->c, 2, 3), 0);
	assert_int_equal(x->log.kind[3], HCB_REC_TAP);
	assert_int_equal(x->log.kind[4], HCB_REC_TRIGGER);
	assert_int_equal(tap(x, x->c, 3, 1), 0);
	assert_true(hcb_flight_done(x->f));
	assert_int_equal(end(x), 0);
	assert_int_equal(x->log.n, 7);
	assert_int_equal(x->log.end.taps, 3);
	teardown(x);
}

#define MS 1000000ull

/* Re-armed firings' files: each open starts a new log section. */
struct files {
	struct log *log;
	unsigned int opens, closes;
	uint64_t last_open;
	unsigned int open_at[8];     /* log->n when each opened */
};

static int files_open(void *ctx, uint64_t n, struct hcb_receiver *inner)
{
	struct files *fl = ctx;

	assert_int_equal(fl->opens + 1, fl->closes);   /* the first is the given one */
	fl->open_at[++fl->opens] = fl->log->n;
	fl->last_open = n;
	*inner = (struct hcb_receiver){ &log_ops, fl->log };
	return 0;
}

static int files_close(void *ctx)
{
	struct files *fl = ctx;

	fl->closes++;
	assert_int_equal(fl->log->kind[fl->log->n - 1], HCB_REC_END);
	return 0;
}

/* --rearm: each firing a whole recording (session, its own lead-up only,
 * trigger, the after taps, an end counting them), opened only when it
 * fires; after the last one, done. */
static void test_rearm(void **state)
{
	struct log l = { 0 };
	struct files fl = { .log = &l };
	struct hcb_trigger t;
	struct hcb_flight_opts o = { .keep_bytes = 1 << 20, .after = 1, .triggers = &t,
				     .n_triggers = 1, .firings = 3,
				     .files = { files_open, files_close, &fl } };
	struct fixture *x = setup(1 << 20, 0, NULL);
	struct hcb_record s = { .kind = HCB_REC_SESSION };
	size_t col;
	const char *why;
	uint64_t seq = 0;

	(void)state;
	assert_int_equal(hcb_trigger_parse("nonfinite", &t, &col, &why), 0);
	hcb_flight_free(x->f);
	assert_int_equal(hcb_flight_new(&x->f, &o, (struct hcb_receiver){ &log_ops, &l }), 0);
	x->rx = hcb_flight_receiver(x->f);
	assert_int_equal(x->rx.ops->record(x->rx.ctx, &s), 0);
	for (unsigned int firing = 0; firing < 3; firing++) {
		/* after the first, the drop that came while armed leads */
		unsigned int at = l.n, d = firing > 0;

		for (unsigned int i = 0; i < 4 + firing; i++)
			assert_int_equal(tap(x, x->c, seq++, 1), 0);
		assert_int_equal(l.n, at);
		assert_int_equal(tap(x, x->c, seq++, NAN), 0);
		assert_int_equal(tap(x, x->c, seq++, 2), 0);
		assert_int_equal(hcb_flight_firings(x->f), firing + 1);
		/* session, 4 + firing taps and the NaN's, trigger, one after */
		assert_int_equal(l.kind[at], HCB_REC_SESSION);
		if (d)
			assert_int_equal(l.kind[at + 1], HCB_REC_DROP);
		assert_int_equal(l.what[at + 1 + d], seq - 6 - firing);
		assert_int_equal(l.kind[at + 6 + firing + d], HCB_REC_TRIGGER);
		assert_int_equal(l.what[at + 7 + firing + d], seq - 1);
		if (firing < 2) {
			assert_int_equal(l.kind[at + 8 + firing + d], HCB_REC_END);
			assert_int_equal(l.end.taps, 6 + firing);
			assert_int_equal(l.end.drops, d);
			assert_int_equal(fl.closes, firing + 1);
			assert_false(hcb_flight_done(x->f));
			/* armed: nothing reaches the closed file; the drop is
			 * the next ring's */
			assert_int_equal(drop(x, 1), 0);
			assert_int_equal(l.n, at + 9 + firing + d);
		}
	}
	assert_true(hcb_flight_done(x->f));
	assert_int_equal(fl.opens, 2);
	assert_int_equal(fl.last_open, 2);
	/* the last recording's end is the session's, counting its own */
	assert_int_equal(end(x), 0);
	assert_int_equal(l.kind[l.n - 1], HCB_REC_END);
	assert_int_equal(l.end.taps, 8);
	assert_int_equal(l.end.drops, 1);
	teardown(x);
}

/* Re-armed and ended between firings: the last file stays as it was. */
static void test_rearm_unfired_end(void **state)
{
	struct log l = { 0 };
	struct files fl = { .log = &l };
	struct hcb_flight_opts o = { .keep_bytes = 1 << 20, .firings = HCB_FLIGHT_NO_LIMIT,
				     .files = { files_open, files_close, &fl } };
	struct hcb_flight *f;
	struct hcb_receiver rx;
	struct hcb_record s = { .kind = HCB_REC_SESSION }, e = { .kind = HCB_REC_END };

	(void)state;
	assert_int_equal(hcb_flight_new(&f, &o, (struct hcb_receiver){ &log_ops, &l }), 0);
	rx = hcb_flight_receiver(f);
	assert_int_equal(rx.ops->record(rx.ctx, &s), 0);
	assert_int_equal(hcb_flight_fire(f, "signal", 1), 0);
	assert_int_equal(fl.closes, 1);
	assert_int_equal(hcb_flight_fire(f, "signal", 2), 0);
	assert_int_equal(fl.opens, 1);
	assert_int_equal(fl.closes, 2);
	assert_int_equal(l.n, 6);
	assert_int_equal(rx.ops->record(rx.ctx, &e), 0);
	assert_int_equal(l.n, 6);
	assert_false(hcb_flight_done(f));
	hcb_flight_free(f);
	/* and re-arming needs a ring and files */
	o.keep_bytes = 0;
	assert_int_equal(hcb_flight_new(&f, &o, (struct hcb_receiver){ &log_ops, &l }), -EINVAL);
	o.keep_bytes = 1024;
	o.files.open = NULL;
	assert_int_equal(hcb_flight_new(&f, &o, (struct hcb_receiver){ &log_ops, &l }), -EINVAL);
}

/* --keep-last 1s: the taps of the second before the newest, by their
 * time, a drop going with the taps of its time. */
static void test_duration_window(void **state)
{
	struct fixture *x = setup_ns(1 << 20, 1000 * MS, 0, "nonfinite");

	(void)state;
	for (uint64_t i = 0; i < 50; i++) {
		x->now = i * 100 * MS;
		assert_int_equal(tap(x, x->c, i, 1), 0);
		if (i == 5 || i == 45)
			assert_int_equal(drop(x, 1), 0);
	}
	x->now = 50 * 100 * MS;
	assert_int_equal(tap(x, x->c, 50, NAN), 0);
	/* session, taps 40..50 (4.0 s to 5.0 s) with the drop after 45, trigger */
	assert_int_equal(x->log.n, 1 + 11 + 1 + 1);
	assert_int_equal(x->log.kind[1], HCB_REC_TAP);
	assert_int_equal(x->log.what[1], 40);
	assert_int_equal(x->log.kind[7], HCB_REC_DROP);
	assert_int_equal(x->log.what[8], 46);
	assert_int_equal(x->log.what[12], 50);
	assert_int_equal(x->log.kind[13], HCB_REC_TRIGGER);
	teardown(x);
}

/* A duration and a size: the tighter bound wins, either way round. */
static void test_duration_or_bytes(void **state)
{
	struct fixture *x = setup(1 << 20, 0, "nonfinite");
	uint64_t per_tap;

	(void)state;
	assert_int_equal(tap(x, x->c, 0, 0), 0);
	per_tap = hcb_flight_held(x->f);
	teardown(x);

	/* an hour of taps 1 ms apart, 3 taps of bytes: 3 taps */
	x = setup_ns(3 * per_tap, 3600000 * MS, 0, "nonfinite");
	for (uint64_t i = 0; i < 100; i++) {
		x->now = i * MS;
		assert_int_equal(tap(x, x->c, i, i == 99 ? NAN : 1), 0);
	}
	assert_int_equal(x->log.n, 1 + 3 + 1);
	assert_int_equal(x->log.what[1], 97);
	teardown(x);

	/* 10 ms of taps 1 ms apart, room for 1000: 11 taps */
	x = setup_ns(1000 * per_tap, 10 * MS, 0, "nonfinite");
	for (uint64_t i = 0; i < 100; i++) {
		x->now = i * MS;
		assert_int_equal(tap(x, x->c, i, i == 99 ? NAN : 1), 0);
	}
	assert_int_equal(x->log.n, 1 + 11 + 1);
	assert_int_equal(x->log.what[1], 89);
	teardown(x);
}

/* A duration with no byte bound is refused: the CLI always gives one. */
static void test_duration_needs_bytes(void **state)
{
	struct hcb_flight_opts o = { .keep_ns = MS };
	struct hcb_flight *f = NULL;
	struct log l = { 0 };

	(void)state;
	assert_int_equal(hcb_flight_new(&f, &o, (struct hcb_receiver){ &log_ops, &l }), -EINVAL);
	assert_null(f);
}

/* A flood of taps all within the duration: the bytes still bound it, to
 * the budget plus one tap at most, all the way (and the peak says so). */
static void test_duration_memory_bound(void **state)
{
	const uint64_t budget = 64 * 1024;
	uint64_t big = sizeof(struct hcb_record) + 4096 * sizeof(float) + 256;
	struct fixture *x = setup_ns(budget, 3600000 * MS, 0, "nonfinite");

	(void)state;
	for (uint64_t i = 0; i < 50000; i++) {
		const struct hcb_consumer *c = i % 3 == 0 ? x->big : x->c;

		x->now = i * 1000;
		assert_int_equal(tap(x, c, i, 1.0f), 0);
		assert_true(hcb_flight_held(x->f) <= budget + big);
	}
	assert_true(hcb_flight_peak(x->f) <= budget + big);
	assert_true(hcb_flight_peak(x->f) > budget / 2);
	assert_int_equal(x->log.n, 0);
	teardown(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_order),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_drops_in_place),
		cmocka_unit_test(test_after),
		cmocka_unit_test(test_nothing_unfired),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_fire_as),
		cmocka_unit_test(test_pass_through),
		cmocka_unit_test(test_duration_window),
		cmocka_unit_test(test_duration_or_bytes),
		cmocka_unit_test(test_duration_needs_bytes),
		cmocka_unit_test(test_duration_memory_bound),
		cmocka_unit_test(test_rearm),
		cmocka_unit_test(test_rearm_unfired_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
