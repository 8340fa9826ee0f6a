/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_textoff.c - the text probe on str concatenation taken off
 * when the program's callbacks come round with no print among them
 * (src/providers/jaxcb/textproof.c, hcb_jx_text_callback): a second or
 * more after the first callback, one met again, no print site seen; a
 * print met later shows the line hcbtrace makes.  Never before a second,
 * never once a print was seen (its own proof decides), never under
 * --text-probe.
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
#include "providers/jaxcb/names.h"
#include "providers/jaxcb/pysite.h"
#include "text/pyformat.h"
#include "testjaxffi.h"

#define SEC 1000000000ull

/* 0x1000: a print "x={}"; any other callable: a callback of its own */
static int namer(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	static const struct hcb_print_opts o = { 1000, 8, 75, 3, 0, -1 };

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (callable == 0x1000) {
		out->kind = HCB_PYSITE_PRINT;
		snprintf(out->fmt, sizeof(out->fmt), "x={}");
		out->opts = o;
		out->opts_ok = 1;
		return 0;
	}
	out->kind = HCB_PYSITE_CALLBACK;
	snprintf(out->qualname, sizeof(out->qualname), "cb_%llx", (unsigned long long)callable);
	return 0;
}

static void count_off(void *ctx)
{
	(*(int *)ctx)++;
}

static struct hcb_jaxffi *decoder(struct seen *s, enum hcb_jaxffi_text_mode mode, int *offs)
{
	struct hcb_jaxffi *x;

	hcb_jaxffi_use_formatter(hcb_pyformat);
	assert_int_equal(hcb_jaxffi_new(&x, &ops, s), 0);
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_set_namer(x, namer, NULL, NULL);
	hcb_jaxffi_text_mode(x, mode, count_off, offs);
	return x;
}

/* A call of callable (its op op) on thread tid at ts_ns, to its entry. */
static void call_start(struct hcb_jaxffi *x, uint64_t seq, uint32_t tid, const char *op,
		       uint64_t callable, uint64_t ts_ns)
{
	static const uint64_t d3[] = { 3 };
	float v[3] = { 1, 2, 3 };
	struct hcb_ev_jcall e = jcall(0, seq, tid, op, 1, 12);

	e.ts_ns = ts_ns;
	feed_call(x, &e);
	feed_arg(x, 0, seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, seq, 0, 0, 12, v, 12);
	py_entry(x, tid, callable, 3, 0);
}

/* A call of callable (its op op) at ts_ns, its text (NULL: none came). */
static void call_at(struct hcb_jaxffi *x, struct seen *s, uint64_t seq, const char *op,
		    uint64_t callable, uint64_t ts_ns, const char *text)
{
	int before = s->packets;

	call_start(x, seq, 11, op, callable, ts_ns);
	if (text) {
		struct { struct hcb_ev_jpytext h; unsigned char d[256]; } r = { 0 };

		r.h = (struct hcb_ev_jpytext){ .type = HCB_EV_JPYTEXT, .pid = 7, .tid = 11, .kind = 1,
					       .ascii = 1, .length = strlen(text),
					       .nbytes = strlen(text) };
		memcpy(r.d, text, strlen(text));
		assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r)), 0);
	}
	py_end(x, 11);
	assert_int_equal(s->packets, before + 1);
}

static void test_loop_without_print(void **state)
{
	struct seen s = { 0 };
	int offs = 0;
	struct hcb_jaxffi *x = decoder(&s, HCB_JAXFFI_TEXT_AUTO, &offs);

	(void)state;
	call_at(x, &s, 0, "debug_callback.1", 0x5000, 10 * SEC, NULL);
	call_at(x, &s, 1, "debug_callback.2", 0x6000, 10 * SEC + 1000, NULL);
	/* round again within a second: a pmap's threads, or a step begun */
	call_at(x, &s, 2, "debug_callback.1", 0x5000, 10 * SEC + SEC / 2, NULL);
	assert_int_equal(offs, 0);
	call_at(x, &s, 3, "debug_callback.1", 0x5000, 11 * SEC, NULL);
	assert_int_equal(offs, 1);
	call_at(x, &s, 4, "debug_callback.2", 0x6000, 12 * SEC, NULL);
	assert_int_equal(offs, 1);
	/* a print met after: the line hcbtrace makes */
	call_at(x, &s, 5, "debug_print.1", 0x1000, 13 * SEC, NULL);
	assert_non_null(s.last.text);
	assert_int_equal(s.last.text_len, 12);
	assert_memory_equal(s.last.text, "x=[1. 2. 3.]", 12);
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);
}

static void test_print_decides(void **state)
{
	struct seen s = { 0 };
	int offs = 0;
	struct hcb_jaxffi *x = decoder(&s, HCB_JAXFFI_TEXT_AUTO, &offs);

	(void)state;
	/* a print seen first: the callbacks coming round say nothing */
	call_at(x, &s, 0, "debug_print.1", 0x1000, 10 * SEC, "x=[1.0 2.0 3.0]");
	call_at(x, &s, 1, "debug_callback.1", 0x5000, 10 * SEC, NULL);
	call_at(x, &s, 2, "debug_callback.1", 0x5000, 20 * SEC, NULL);
	assert_int_equal(offs, 0);
	hcb_jaxffi_free(x);
	/* --text-probe: the probe stays */
	x = decoder(&s, HCB_JAXFFI_TEXT_PROBE, &offs);
	call_at(x, &s, 0, "debug_callback.1", 0x5000, 10 * SEC, NULL);
	call_at(x, &s, 1, "debug_callback.1", 0x5000, 20 * SEC, NULL);
	assert_int_equal(offs, 0);
	hcb_jaxffi_free(x);
}

/* The return probe goes with the text probe: a call goes at its entry
 * from then on; one that waited for its end as they went takes it if it
 * comes, or goes when its thread goes on; nothing counted. */
static void test_ends_go_too(void **state)
{
	struct seen s = { 0 };
	int offs = 0;
	struct hcb_jaxffi *x = decoder(&s, HCB_JAXFFI_TEXT_AUTO, &offs);

	(void)state;
	hcb_jaxffi_ends_with_text(x);
	call_at(x, &s, 0, "debug_callback.1", 0x5000, 10 * SEC, NULL);
	/* under way on threads 12 and 13 as the probes go */
	call_start(x, 1, 12, "debug_callback.2", 0x6000, 10 * SEC + 1);
	call_start(x, 2, 13, "debug_callback.2", 0x6000, 10 * SEC + 2);
	assert_int_equal(s.packets, 1);
	call_at(x, &s, 3, "debug_callback.1", 0x5000, 12 * SEC, NULL);
	assert_int_equal(offs, 1);
	/* from now on: at the entry; an end left over is nobody's */
	call_start(x, 4, 11, "debug_callback.1", 0x5000, 13 * SEC);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.last.seq, 4);
	py_end(x, 11);
	/* thread 12's end came after all; thread 13's did not, its next call
	 * lets it go */
	py_end(x, 12);
	assert_int_equal(s.packets, 4);
	assert_int_equal(s.last.seq, 1);
	call_start(x, 5, 13, "debug_callback.2", 0x6000, 14 * SEC);
	assert_int_equal(s.packets, 6);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	assert_true(no_problems(&s));
	assert_int_equal(hcb_jaxffi_bounds(x)->passed[HCB_BOUND_EXPIRED], 0);
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_without_print),
		cmocka_unit_test(test_print_decides),
		cmocka_unit_test(test_ends_go_too),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
