/* SPDX-License-Identifier: MIT */
/*
 * test_staging.c - the CUDA tap handler's staging ring (hcbtap/staging.c):
 * bounded bytes and slots, alignment, the wrap, and room coming back only
 * behind the oldest tap still in flight whatever order taps finish in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "staging.h"

static _Alignas(64) char mem[1024];

static void test_fits_and_refuses(void **state)
{
	struct hcb_staging *s = hcb_staging_new(mem, sizeof(mem), 8);
	struct hcb_stage *a, *b, *c;

	(void)state;
	assert_non_null(s);
	a = hcb_staging_get(s, 1);          /* rounds up to 64 */
	b = hcb_staging_get(s, 500);        /* 512 */
	assert_ptr_equal(a->buf, mem);
	assert_ptr_equal(b->buf, mem + 64);
	assert_int_equal(hcb_staging_used(s), 576);
	c = hcb_staging_get(s, 449);        /* 512: 1088 > 1024 */
	assert_null(c);
	assert_int_equal(s->refused, 1);
	assert_null(hcb_staging_get(s, 2048));   /* never fits */
	c = hcb_staging_get(s, 448);
	assert_ptr_equal(c->buf, mem + 576);
	assert_int_equal(hcb_staging_used(s), 1024);
	hcb_staging_put(a);
	hcb_staging_put(b);
	hcb_staging_put(c);
	assert_int_equal(hcb_staging_used(s), 0);
	free(s);
}

static void test_out_of_order_and_wrap(void **state)
{
	struct hcb_staging *s = hcb_staging_new(mem, sizeof(mem), 8);
	struct hcb_stage *a, *b, *c, *d;

	(void)state;
	a = hcb_staging_get(s, 256);
	b = hcb_staging_get(s, 256);
	c = hcb_staging_get(s, 256);
	/* b done first: its room waits for a's */
	hcb_staging_put(b);
	assert_int_equal(hcb_staging_used(s), 768);
	hcb_staging_put(a);
	assert_int_equal(hcb_staging_used(s), 256);
	/* 512 does not fit before the end (256 left): it starts over at 0,
	 * and the skipped end counts until it is back */
	d = hcb_staging_get(s, 512);
	assert_non_null(d);
	assert_ptr_equal(d->buf, mem);
	assert_int_equal(hcb_staging_used(s), 256 + 256 + 512);
	assert_null(hcb_staging_get(s, 64));
	hcb_staging_put(c);
	assert_int_equal(hcb_staging_used(s), 768);
	hcb_staging_put(d);
	assert_int_equal(hcb_staging_used(s), 0);
	free(s);
}

static void test_slots_bound_taps_in_flight(void **state)
{
	struct hcb_staging *s = hcb_staging_new(mem, sizeof(mem), 3);
	struct hcb_stage *st[3];

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_non_null(st[i] = hcb_staging_get(s, 1));
	assert_null(hcb_staging_get(s, 1));
	hcb_staging_put(st[1]);
	assert_null(hcb_staging_get(s, 1));     /* st[0] still holds the oldest slot */
	hcb_staging_put(st[0]);
	assert_non_null(st[0] = hcb_staging_get(s, 1));
	assert_non_null(st[1] = hcb_staging_get(s, 1));
	hcb_staging_put(st[2]);
	hcb_staging_put(st[0]);
	hcb_staging_put(st[1]);
	assert_int_equal(hcb_staging_used(s), 0);
	assert_null(hcb_staging_new(NULL, 64, 1));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_and_refuses),
		cmocka_unit_test(test_out_of_order_and_wrap),
		cmocka_unit_test(test_slots_bound_taps_in_flight),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
