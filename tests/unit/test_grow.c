/* SPDX-License-Identifier: MIT */
/*
 * test_grow.c - the array-growth helper (src/core/grow.h): no-op while there is
 * room, doubling with a floor, exactly need when need is more than double,
 * and an overflowing size refused with the array left as it was.
 *
 *	gcc ... -Isrc tests/unit/test_grow.c -lcmocka
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/grow.h"

struct pair {
	uint64_t a, b;
};

static void test_room_is_a_noop(void **state)
{
	struct pair *v = NULL, *before;
	size_t cap = 0;

	(void)state;
	assert_int_equal(hcb_grow(&v, &cap, 0, sizeof(*v)), 0);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(hcb_grow(&v, &cap, 3, sizeof(*v)), 0);
	assert_non_null(v);
	assert_int_equal(cap, HCB_GROW_MIN);
	before = v;
	assert_int_equal(hcb_grow(&v, &cap, HCB_GROW_MIN, sizeof(*v)), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, HCB_GROW_MIN);
	free(v);
}

static void test_doubles_and_keeps(void **state)
{
	struct pair *v = NULL;
	size_t cap = 0, n = 0;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++) {
		size_t old = cap;

		assert_int_equal(hcb_grow(&v, &cap, n + 1, sizeof(*v)), 0);
		assert_true(cap >= n + 1);
		/* grows only when full, and then to twice what it was */
		if (cap != old)
			assert_int_equal(cap, old ? 2 * old : HCB_GROW_MIN);
		v[n++] = (struct pair){ i, ~i };
	}
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(v[i].a, i);
		assert_int_equal(v[i].b, ~i);
	}
	/* more than twice: exactly what is needed */
	assert_int_equal(hcb_grow(&v, &cap, 10 * cap + 3, sizeof(*v)), 0);
	assert_int_equal(cap, 10240 + 3);
	free(v);
}

static void test_overflow_refused(void **state)
{
	unsigned char *bytes = NULL;
	struct pair *v = NULL, *before;
	size_t cap = 0;

	(void)state;
	assert_int_equal(hcb_grow(&v, &cap, 4, sizeof(*v)), 0);
	before = v;
	v[0].a = 42;
	assert_int_equal(hcb_grow(&v, &cap, SIZE_MAX / sizeof(*v) + 1, sizeof(*v)), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, HCB_GROW_MIN);
	assert_int_equal(v[0].a, 42);
	free(v);
	/* doubling that would overflow falls back to need, checked the same way */
	cap = SIZE_MAX / 2 + 1;
	assert_int_equal(hcb_grow(&bytes, &cap, SIZE_MAX / 2 + 2, 2), -ENOMEM);
	assert_null(bytes);
	assert_int_equal(cap, SIZE_MAX / 2 + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_room_is_a_noop),
		cmocka_unit_test(test_doubles_and_keeps),
		cmocka_unit_test(test_overflow_refused),
	};

	return cmocka_run_group_tests_name("grow", tests, NULL, NULL);
}
