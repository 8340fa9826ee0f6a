/* SPDX-License-Identifier: MIT */
/*
 * test_cupti_join.c - the CUPTI injection library's matching of copy
 * records with tap packets (hcbtap/cupti_join.c): whatever order CUPTI's
 * records and the handler's calls come in, one result per complete tap;
 * XLA's own copies ignored; bounded tables count what they push out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cupti_join.h"

static struct hcb_join_done got[16];
static int ngot;

static void on_done(const struct hcb_join_done *d, void *ctx)
{
	(void)ctx;
	got[ngot++] = *d;
}

static struct hcb_join *fresh(void)
{
	static struct hcb_join j;

	hcb_join_init(&j, on_done, NULL);
	ngot = 0;
	return &j;
}

static void test_copies_then_seq(void **state)
{
	struct hcb_join *j = fresh();

	(void)state;
	hcb_join_begin(j, 0x1000000000001, 1, 2);
	hcb_join_corr(j, 77, 0x1000000000001);
	hcb_join_corr(j, 78, 0x1000000000001);
	hcb_join_copy(j, 5, 1, 2, 999);        /* XLA's own copy: no tap */
	hcb_join_copy(j, 78, 300, 400, 16);
	hcb_join_copy(j, 77, 100, 250, 8);
	assert_int_equal(ngot, 0);             /* no seq yet */
	hcb_join_emitted(j, 0x1000000000001, 1, 41);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].device, 1);
	assert_int_equal(got[0].seq, 41);
	assert_int_equal(got[0].start, 100);
	assert_int_equal(got[0].end, 400);
	assert_int_equal(got[0].bytes, 24);
	assert_int_equal(got[0].ncopies, 2);
	/* done once */
	hcb_join_emitted(j, 0x1000000000001, 1, 41);
	hcb_join_copy(j, 77, 100, 250, 8);
	assert_int_equal(ngot, 1);
	assert_int_equal(hcb_join_unmatched(j), 0);
}

static void test_seq_then_copies(void **state)
{
	struct hcb_join *j = fresh();

	(void)state;
	hcb_join_begin(j, 7, 0, 1);
	hcb_join_emitted(j, 7, 0, 3);
	assert_int_equal(ngot, 0);
	hcb_join_corr(j, 9, 7);
	hcb_join_copy(j, 9, 10, 20, 4);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].seq, 3);
}

static void test_abandoned_and_pushed_out(void **state)
{
	struct hcb_join *j = fresh();
	uint64_t n = 0;

	(void)state;
	hcb_join_begin(j, 11, 0, 1);
	hcb_join_abandon(j, 11);
	hcb_join_corr(j, 12, 11);
	hcb_join_copy(j, 12, 1, 2, 3);
	hcb_join_emitted(j, 11, 0, 0);
	assert_int_equal(ngot, 0);
	assert_int_equal(hcb_join_unmatched(j), 1);
	/* more taps in flight than the table holds: the older are pushed out */
	for (uint64_t id = 1; id <= 2 * HCB_JOIN_TAPS; id++)
		hcb_join_begin(j, id << 4, 0, 1);
	n = hcb_join_unmatched(j);
	assert_true(n >= 1 + HCB_JOIN_TAPS / 2);
	assert_true(n <= 1 + 2 * HCB_JOIN_TAPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies_then_seq),
		cmocka_unit_test(test_seq_then_copies),
		cmocka_unit_test(test_abandoned_and_pushed_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
