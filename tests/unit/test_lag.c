/* SPDX-License-Identifier: MIT */
/*
 * test_lag.c - the backlog limit behind --max-lag (src/bpf/lag.h): none until
 * enough was read with a backlog, then the reader's rate times max_lag;
 * passes that caught up do not count; the rate follows a reader that
 * slows down or speeds up, weighed by bytes, not by passes; a floor; only
 * while packets are being turned away, starting from the backlog there
 * is and coming down at half the reading rate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "bpf/lag.h"

#define MiB (1u << 20)
#define MS 1000000ull
#define NEVER UINT64_MAX

/* A pass with no backlog left, just after a packet was turned away:
 * the limit as the rate gives it. */
static uint64_t pass(struct hcb_lag *l, uint64_t bytes, uint64_t ns, bool busy)
{
	return hcb_lag_pass(l, &(struct hcb_lag_pass){ .bytes = bytes, .ns = ns, .busy = busy });
}

static void test_off_and_unmeasured(void **state)
{
	struct hcb_lag l;

	(void)state;
	hcb_lag_init(&l, 0);
	assert_true(pass(&l, MiB, MS, true) == UINT64_MAX);
	hcb_lag_init(&l, 50 * MS);
	/* under HCB_LAG_MEASURED_BYTES read while busy: no limit yet */
	assert_true(pass(&l, MiB, MS, true) == UINT64_MAX);
	assert_true(pass(&l, MiB, MS, true) == UINT64_MAX);   /* 1 + 15/16 MiB */
	/* a pass that caught up says nothing of the rate */
	for (int i = 0; i < 100; i++)
		assert_true(pass(&l, MiB, 100 * MS, false) == UINT64_MAX);
	assert_true(pass(&l, MiB, MS, true) != UINT64_MAX);
}

/* 1 MiB each 10 ms: 50 ms of it is 5 MiB */
static void test_rate_times_lag(void **state)
{
	struct hcb_lag l;
	uint64_t limit = 0;

	(void)state;
	hcb_lag_init(&l, 50 * MS);
	for (int i = 0; i < 64; i++)
		limit = pass(&l, MiB, 10 * MS, true);
	assert_true(limit > 5 * MiB - 4096 && limit < 5 * MiB + 4096);
	/* idle passes leave it */
	assert_true(pass(&l, 0, 10 * MS, false) == limit);
}

/* A JSONL reader: three cheap passes copying chunks, then one that formats
 * the tap.  The rate is bytes over time, not the mean of the four rates. */
static void test_weighed_by_bytes(void **state)
{
	struct hcb_lag l;
	uint64_t limit = 0;

	(void)state;
	hcb_lag_init(&l, 100 * MS);
	for (int i = 0; i < 400; i++)
		limit = pass(&l, MiB, i % 4 == 3 ? 39 * MS : MS / 3, true);
	/* 4 MiB in 40 ms: 10 MiB in 100 ms, give or take the last passes' weight
	 * and the slower fall (a limit comes down at half the reading rate) */
	assert_true(limit > 8 * MiB && limit < 12 * MiB);
}

static void test_follows_and_floors(void **state)
{
	struct hcb_lag l;
	uint64_t fast = 0, slow = 0;

	(void)state;
	hcb_lag_init(&l, 50 * MS);
	for (int i = 0; i < 100; i++)
		fast = pass(&l, MiB, MS, true);
	for (int i = 0; i < 100; i++)
		slow = pass(&l, MiB, 10 * MS, true);
	assert_true(fast > 45 * MiB && fast < 55 * MiB);
	assert_true(slow > 4 * MiB && slow < 6 * MiB);
	/* a crawl: the floor */
	for (int i = 0; i < 200; i++)
		slow = pass(&l, MiB, 10000 * MS, true);
	assert_int_equal(slow, HCB_LAG_FLOOR_BYTES);
}

/* Only within HCB_LAG_HOLD_NS of a packet turned away; the rate measured
 * before that is in force at once, and a later refusal turns it back on. */
static void test_only_after_a_refusal(void **state)
{
	struct hcb_lag_pass p = { .bytes = MiB, .ns = 10 * MS, .busy = true };
	struct hcb_lag l;
	uint64_t limit;

	(void)state;
	hcb_lag_init(&l, 50 * MS);
	/* a burst the ring holds: read with a backlog, nothing turned away */
	p.since_refusal_ns = NEVER;
	for (int i = 0; i < 64; i++)
		assert_true(hcb_lag_pass(&l, &p) == UINT64_MAX);
	/* the ring overflowed just now: the limit that rate gives */
	p.since_refusal_ns = 0;
	limit = hcb_lag_pass(&l, &p);
	assert_true(limit > 5 * MiB - 4096 && limit < 5 * MiB + 4096);
	p.since_refusal_ns = HCB_LAG_HOLD_NS;
	assert_true(hcb_lag_pass(&l, &p) != UINT64_MAX);
	/* a second without a loss: off, and on again with the next loss */
	p.since_refusal_ns = HCB_LAG_HOLD_NS + 1;
	assert_true(hcb_lag_pass(&l, &p) == UINT64_MAX);
	p = (struct hcb_lag_pass){ .ns = 10 * MS, .since_refusal_ns = 3 * MS };
	assert_true(hcb_lag_pass(&l, &p) != UINT64_MAX);
}

/* Coming on with a full ring: the limit starts at the backlog and comes
 * down by half of each pass's reading, to the rate's limit and no lower;
 * off and on again, it starts from the backlog again. */
static void test_comes_down_from_the_backlog(void **state)
{
	struct hcb_lag_pass p = { .bytes = MiB, .ns = 10 * MS, .busy = true,
				  .since_refusal_ns = NEVER };
	struct hcb_lag l;
	uint64_t limit;

	(void)state;
	hcb_lag_init(&l, 50 * MS);
	for (int i = 0; i < 64; i++)
		hcb_lag_pass(&l, &p);
	p.since_refusal_ns = 0;
	p.backlog = 60 * MiB;
	assert_int_equal(hcb_lag_pass(&l, &p), 60 * MiB);
	p.backlog = 59 * MiB;
	assert_int_equal(hcb_lag_pass(&l, &p), 60 * MiB - MiB / 2);
	assert_int_equal(hcb_lag_pass(&l, &p), 59 * MiB);
	for (int i = 0; i < 200; i++)
		limit = hcb_lag_pass(&l, &p);
	assert_true(limit > 5 * MiB - 4096 && limit < 5 * MiB + 4096);
	/* a faster reader raises it, as fast as the rate follows */
	p.ns = 5 * MS;
	for (int i = 0; i < 100; i++)
		limit = hcb_lag_pass(&l, &p);
	assert_true(limit > 9 * MiB && limit < 10 * MiB + 4096);
	p.since_refusal_ns = NEVER;
	assert_true(hcb_lag_pass(&l, &p) == UINT64_MAX);
	p.since_refusal_ns = 0;
	p.backlog = 30 * MiB;
	assert_int_equal(hcb_lag_pass(&l, &p), 30 * MiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_and_unmeasured),
		cmocka_unit_test(test_rate_times_lag),
		cmocka_unit_test(test_weighed_by_bytes),
		cmocka_unit_test(test_follows_and_floors),
		cmocka_unit_test(test_only_after_a_refusal),
		cmocka_unit_test(test_comes_down_from_the_backlog),
	};

	return cmocka_run_group_tests_name("lag", tests, NULL, NULL);
}
