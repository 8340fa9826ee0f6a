/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_noends.c - a decoder whose inner function's return is not
 * probed (--no-text: no text to wait for, src/providers/jaxcb/pycall.c):
 * a Python callback's call goes at its entry, with its callable; an end
 * that comes all the same is nobody's; a lost entry lets the call go at
 * the thread's next call, counted, as with ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "providers/bounds.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/events.h"
#include "testjaxffi.h"

static struct hcb_jaxffi *decoder(struct seen *s)
{
	struct hcb_jaxffi *x;

	assert_int_equal(hcb_jaxffi_new(&x, &ops, s), 0);
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_text_off(x);
	hcb_jaxffi_no_ends(x);
	return x;
}

static void test_at_entry(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s);

	(void)state;
	f32_call(x, 0, 0, 11, "debug_callback.1", v);
	assert_int_equal(s.packets, 0);
	assert_int_equal(hcb_jaxffi_pending(x), 1);
	/* another thread's entry is not its */
	py_entry(x, 12, 0x2000, 3, 0);
	assert_int_equal(s.packets, 0);
	py_entry(x, 11, 0x7f0012345670, 3, 0);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.py_callable, 0x7f0012345670);
	assert_memory_equal(s.payload, v, 12);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	/* an end all the same (a probe left from before) ends nothing */
	py_end(x, 11);
	/* a call made from inside a callback: each goes at its own entry */
	f32_call(x, 0, 1, 11, "debug_callback.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	f32_call(x, 0, 2, 11, "debug_callback.1", v);
	py_entry(x, 11, 0x3000, 3, 0);
	py_end(x, 11);
	py_end(x, 11);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.last.seq, 2);
	assert_int_equal(s.last.py_callable, 0x3000);
	/* a print: its operands, no notice of a text */
	f32_call(x, 0, 3, 11, "debug_print.1", v);
	py_entry(x, 11, 0x4000, 3, 0);
	assert_int_equal(s.packets, 4);
	assert_null(s.last.text);
	assert_true(no_problems(&s));
	assert_int_equal(hcb_jaxffi_bounds(x)->passed[HCB_BOUND_EXPIRED], 0);
	hcb_jaxffi_free(x);
}

static void test_entry_lost(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s);

	(void)state;
	f32_call(x, 0, 0, 11, "debug_callback.1", v);
	/* no entry (a ring full): the thread's next call lets it go, counted */
	f32_call(x, 0, 1, 11, "debug_callback.1", v);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.seq, 0);
	assert_int_equal(s.last.py_callable, 0);
	assert_int_equal(hcb_jaxffi_bounds(x)->passed[HCB_BOUND_EXPIRED], 1);
	py_entry(x, 11, 0x1000, 3, 0);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.py_callable, 0x1000);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_entry),
		cmocka_unit_test(test_entry_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
