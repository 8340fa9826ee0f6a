/* SPDX-License-Identifier: MIT */
/*
 * test_orderq.c - the order queue (src/engine/orderq.h) on its own: records come
 * out through the callback in the order they went in, each once; a tap
 * waits at the head until its copy times come, its wait is over, or the
 * queue is over its records or bytes, and what is behind it waits with it;
 * times are matched by device and seq; a flush of all empties it; payloads
 * are the queue's own copies; the callback's error stops a flush; what is
 * freed is not delivered.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/orderq.h"

#define MS 1000000ull

struct sink {
	struct hcb_record got[64];
	unsigned char bytes[64][4];
	unsigned int n;
	int fail_at;            /* deliveries before one fails (-EIO); -1 never */
};

static int deliver(void *ctx, const struct hcb_record *rec)
{
	struct sink *s = ctx;

	assert_true(s->n < 64);
	s->got[s->n] = *rec;
	if (rec->kind == HCB_REC_TAP)
		memcpy(s->bytes[s->n], rec->tap.payload, 4);
	s->n++;
	if (s->fail_at >= 0 && s->n == (unsigned int)s->fail_at)
		return -EIO;
	return 0;
}

static struct hcb_consumer cons = { .id = 7, .total_bytes = 4 };

static struct hcb_record tap(uint32_t device, uint64_t seq, const void *payload)
{
	return (struct hcb_record){ .kind = HCB_REC_TAP,
				    .tap = { .device = device, .seq = seq, .consumer = &cons,
					     .payload = payload } };
}

static struct hcb_record drop(uint32_t device, uint64_t count)
{
	return (struct hcb_record){ .kind = HCB_REC_DROP, .drop = { .device = device, .count = count } };
}

static int put(struct hcb_orderq *q, struct hcb_record r, uint64_t now)
{
	return hcb_orderq_put(q, &r, now);
}

static const struct hcb_orderq_limits lim = { .wait_ns = 250 * MS, .max_records = 8, .max_bytes = 1024 };

static struct hcb_orderq *new_q(struct sink *s, const struct hcb_orderq_limits *l)
{
	struct hcb_orderq *q;

	memset(s, 0, sizeof(*s));
	s->fail_at = -1;
	q = hcb_orderq_new(l ? l : &lim, deliver, s);
	assert_non_null(q);
	return q;
}

/* What waits behind a waiting tap, drops too, waits with it; its times
 * let it go, and what follows up to the next waiting tap. */
static void test_order_kept_behind_a_waiting_tap(void **state)
{
	uint32_t v[3] = { 10, 11, 12 };
	struct sink s;
	struct hcb_orderq *q = new_q(&s, NULL);

	(void)state;
	assert_int_equal(put(q, (tap(0, 1, &v[0])), 0), 0);
	assert_int_equal(put(q, (drop(0, 3)), 0), 0);
	assert_int_equal(put(q, (tap(0, 5, &v[1])), 0), 0);
	assert_int_equal(put(q, (tap(0, 6, &v[2])), 0), 0);
	assert_int_equal(hcb_orderq_len(q), 4);
	assert_int_equal(hcb_orderq_flush(q, 10 * MS, 0), 0);
	assert_int_equal(s.n, 0);
	/* times for seq 5 first: nothing moves, seq 1 is still at the head */
	assert_int_equal(hcb_orderq_set_times(q, 0, 5, 100, 200), 1);
	assert_int_equal(hcb_orderq_flush(q, 10 * MS, 0), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(hcb_orderq_set_times(q, 0, 1, 50, 60), 1);
	assert_int_equal(hcb_orderq_flush(q, 10 * MS, 0), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.got[0].tap.seq, 1);
	assert_int_equal(s.got[0].tap.copy_start_ns, 50);
	assert_int_equal(s.got[0].tap.copy_end_ns, 60);
	assert_int_equal(s.got[1].kind, HCB_REC_DROP);
	assert_int_equal(s.got[1].drop.count, 3);
	assert_int_equal(s.got[2].tap.seq, 5);
	assert_int_equal(s.got[2].tap.copy_end_ns, 200);
	assert_int_equal(hcb_orderq_len(q), 1);
	/* a flush of all: the rest, without times */
	assert_int_equal(hcb_orderq_flush(q, 10 * MS, 1), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.got[3].tap.seq, 6);
	assert_int_equal(s.got[3].tap.copy_end_ns, 0);
	assert_int_equal(hcb_orderq_len(q), 0);
	hcb_orderq_free(q);
}

/* Times are the tap's of that device and seq only. */
static void test_times_by_device_and_seq(void **state)
{
	uint32_t v = 1;
	struct sink s;
	struct hcb_orderq *q = new_q(&s, NULL);

	(void)state;
	assert_int_equal(put(q, (tap(0, 5, &v)), 0), 0);
	assert_int_equal(put(q, (tap(1, 5, &v)), 0), 0);
	assert_int_equal(hcb_orderq_set_times(q, 1, 5, 1, 2), 1);
	assert_int_equal(hcb_orderq_set_times(q, 2, 5, 1, 2), 0);
	assert_int_equal(hcb_orderq_set_times(q, 0, 4, 1, 2), 0);
	assert_int_equal(hcb_orderq_set_times(q, 300, 5, 1, 2), 0);
	assert_int_equal(hcb_orderq_flush(q, 0, 0), 0);
	assert_int_equal(s.n, 0);                 /* device 0's seq 5 still waits */
	assert_int_equal(hcb_orderq_flush(q, 0, 1), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.got[0].tap.device, 0);
	assert_int_equal(s.got[0].tap.copy_end_ns, 0);
	assert_int_equal(s.got[1].tap.device, 1);
	assert_int_equal(s.got[1].tap.copy_end_ns, 2);
	/* gone: no times for it any more */
	assert_int_equal(hcb_orderq_set_times(q, 1, 5, 1, 2), 0);
	assert_int_equal(hcb_orderq_set_times(NULL, 1, 5, 1, 2), 0);
	hcb_orderq_free(q);
}

/* A tap waits no longer than wait_ns. */
static void test_wait_bounded_in_time(void **state)
{
	uint32_t v = 1;
	struct sink s;
	struct hcb_orderq *q = new_q(&s, NULL);

	(void)state;
	assert_int_equal(put(q, (tap(0, 1, &v)), 1000 * MS), 0);
	assert_int_equal(put(q, (tap(0, 2, &v)), 1100 * MS), 0);
	assert_int_equal(hcb_orderq_flush(q, 1249 * MS, 0), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(hcb_orderq_flush(q, 1250 * MS, 0), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(hcb_orderq_flush(q, 1349 * MS, 0), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(hcb_orderq_flush(q, 1350 * MS, 0), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.got[1].tap.seq, 2);
	hcb_orderq_free(q);
}

/* Over its records or its bytes, the oldest go, times or not. */
static void test_wait_bounded_in_size(void **state)
{
	const struct hcb_orderq_limits few = { .wait_ns = 250 * MS, .max_records = 3, .max_bytes = 1024 };
	const struct hcb_orderq_limits small = { .wait_ns = 250 * MS, .max_records = 100, .max_bytes = 8 };
	uint32_t v = 1;
	struct sink s;
	struct hcb_orderq *q = new_q(&s, &few);

	(void)state;
	/* records: 3 queued is the bound, the oldest goes down to 2 */
	for (uint64_t k = 1; k <= 2; k++)
		assert_int_equal(put(q, (tap(0, k, &v)), 0), 0);
	assert_int_equal(hcb_orderq_flush(q, 0, 0), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(put(q, (drop(0, 1)), 0), 0);
	assert_int_equal(hcb_orderq_flush(q, 0, 0), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.got[0].tap.seq, 1);
	assert_int_equal(hcb_orderq_len(q), 2);
	hcb_orderq_free(q);
	/* bytes: two taps of 4 bytes reach the bound of 8 */
	q = new_q(&s, &small);
	assert_int_equal(put(q, (tap(0, 1, &v)), 0), 0);
	assert_int_equal(hcb_orderq_flush(q, 0, 0), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(put(q, (tap(0, 2, &v)), 0), 0);
	assert_int_equal(hcb_orderq_flush(q, 0, 0), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.got[0].tap.seq, 1);
	assert_int_equal(hcb_orderq_len(q), 1);
	hcb_orderq_free(q);
}

/* The payload delivered is the one put, whatever its owner did since. */
static void test_payload_copied(void **state)
{
	uint32_t v = 0x01020304;
	struct sink s;
	struct hcb_orderq *q = new_q(&s, NULL);
	struct hcb_record r = tap(0, 1, &v);

	(void)state;
	assert_int_equal(hcb_orderq_put(q, &r, 0), 0);
	v = 0;
	assert_int_equal(hcb_orderq_flush(q, 0, 1), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(*(const uint32_t *)s.bytes[0], 0x01020304);
	hcb_orderq_free(q);
}

/* The callback's error stops the flush: the record it failed on is
 * delivered and gone, the rest stay, in order, for the next flush. */
static void test_error_stops_flush(void **state)
{
	uint32_t v = 1;
	struct sink s;
	struct hcb_orderq *q = new_q(&s, NULL);

	(void)state;
	for (uint64_t k = 1; k <= 4; k++)
		assert_int_equal(put(q, (tap(0, k, &v)), 0), 0);
	s.fail_at = 2;
	assert_int_equal(hcb_orderq_flush(q, 0, 1), -EIO);
	assert_int_equal(s.n, 2);
	assert_int_equal(hcb_orderq_len(q), 2);
	s.fail_at = -1;
	assert_int_equal(hcb_orderq_flush(q, 0, 1), 0);
	assert_int_equal(s.n, 4);
	for (unsigned int k = 0; k < 4; k++)
		assert_int_equal(s.got[k].tap.seq, k + 1);
	hcb_orderq_free(q);
}

/* Freed, what waits is let go, never delivered. */
static void test_free_delivers_nothing(void **state)
{
	uint32_t v = 1;
	struct sink s;
	struct hcb_orderq *q = new_q(&s, NULL);

	(void)state;
	assert_int_equal(put(q, (tap(0, 1, &v)), 0), 0);
	assert_int_equal(put(q, (drop(0, 1)), 0), 0);
	hcb_orderq_free(q);
	assert_int_equal(s.n, 0);
	hcb_orderq_free(NULL);
	assert_int_equal(hcb_orderq_flush(NULL, 0, 1), 0);
	assert_int_equal(hcb_orderq_len(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_kept_behind_a_waiting_tap),
		cmocka_unit_test(test_times_by_device_and_seq),
		cmocka_unit_test(test_wait_bounded_in_time),
		cmocka_unit_test(test_wait_bounded_in_size),
		cmocka_unit_test(test_payload_copied),
		cmocka_unit_test(test_error_stops_flush),
		cmocka_unit_test(test_free_delivers_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
