/* SPDX-License-Identifier: MIT */
/*
 * test_lag.c - the backlog limit behind --max-lag (src/lag.h): none until
 * enough was read with a backlog, then the reader's rate times max_lag;
 * passes that caught up do not count; the rate follows a reader that
 * slows down or speeds up, weighed by bytes, not by passes; a floor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "lag.h"

#define MiB (1u << 20)
#define MS 1000000ull

static void test_off_and_unmeasured(void **state)
{
	struct hcb_lag l;

	(void)state;
	hcb_lag_init(&l, 0);
	assert_true(hcb_lag_pass(&l, MiB, MS, true) == UINT64_MAX);
	hcb_lag_init(&l, 50 * MS);
	/* under HCB_LAG_MEASURED_BYTES read while busy: no limit yet */
	assert_true(hcb_lag_pass(&l, MiB, MS, true) == UINT64_MAX);
	assert_true(hcb_lag_pass(&l, MiB, MS, true) == UINT64_MAX);   /* 1 + 15/16 MiB */
	/* a pass that caught up says nothing of the rate */
	for (int i = 0; i < 100; i++)
		assert_true(hcb_lag_pass(&l, MiB, 100 * MS, false) == UINT64_MAX);
	assert_true(hcb_lag_pass(&l, MiB, MS, true) != UINT64_MAX);
}

/* 1 MiB each 10 ms: 50 ms of it is 5 MiB */
static void test_rate_times_lag(void **state)
{
	struct hcb_lag l;
	uint64_t limit = 0;

	(void)state;
	hcb_lag_init(&l, 50 * MS);
	for (int i = 0; i < 64; i++)
		limit = hcb_lag_pass(&l, MiB, 10 * MS, true);
	assert_true(limit > 5 * MiB - 4096 && limit < 5 * MiB + 4096);
	/* idle passes leave it */
	assert_true(hcb_lag_pass(&l, 100, 10 * MS, false) == limit);
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
		limit = hcb_lag_pass(&l, MiB, i % 4 == 3 ? 39 * MS : MS / 3, true);
	/* 4 MiB in 40 ms: 10 MiB in 100 ms, give or take the last passes' weight */
	assert_true(limit > 8 * MiB && limit < 12 * MiB);
}

static void test_follows_and_floors(void **state)
{
	struct hcb_lag l;
	uint64_t fast = 0, slow = 0;

	(void)state;
	hcb_lag_init(&l, 50 * MS);
	for (int i = 0; i < 100; i++)
		fast = hcb_lag_pass(&l, MiB, MS, true);
	for (int i = 0; i < 100; i++)
		slow = hcb_lag_pass(&l, MiB, 10 * MS, true);
	assert_true(fast > 45 * MiB && fast < 55 * MiB);
	assert_true(slow > 4 * MiB && slow < 6 * MiB);
	/* a crawl: the floor */
	for (int i = 0; i < 200; i++)
		slow = hcb_lag_pass(&l, MiB, 10000 * MS, true);
	assert_int_equal(slow, HCB_LAG_FLOOR_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_and_unmeasured),
		cmocka_unit_test(test_rate_times_lag),
		cmocka_unit_test(test_weighed_by_bytes),
		cmocka_unit_test(test_follows_and_floors),
	};

	return cmocka_run_group_tests_name("lag", tests, NULL, NULL);
}
