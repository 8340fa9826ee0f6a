/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_small.c - an operand of few bytes sent with its bytes in
 * one record (HCB_EV_JARG_BYTES, src/providers/jaxcb/events.h): the
 * decoder takes it as the JARG and the JDATA chunk it holds; one cut
 * short is a bad record, counted, and takes nothing of the call.  And a
 * call record sent as its head alone (HCB_JAXFFI_CALL_HEAD), and a call of
 * one small operand whole in one record (HCB_EV_JCALL_ARG), with its
 * callable's entry or without.
 */
#include <errno.h>
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
#include "testjaxffi.h"

/* An operand of device 1 and its bytes in one record (HCB_EV_JARG_BYTES)
 * into *r: its chunk's header and bytes after the JARG. */
static void arg_bytes(struct hcb_ev_jarg_bytes *r, uint64_t seq, uint32_t arg, uint32_t dtype,
		      uint64_t dim, const void *data, uint32_t n, uint64_t off, uint64_t total)
{
	memset(r, 0, sizeof(*r));
	r->a = (struct hcb_ev_jarg){ .type = HCB_EV_JARG_BYTES, .device = 1, .seq = seq,
				     .arg = arg, .dtype = dtype, .rank = 1, .nbytes = n,
				     .dims = { dim } };
	r->h = (struct hcb_ev_chunk){ .type = HCB_EV_JDATA, .consumer_id = arg, .device = 1,
				      .len = n, .seq = seq, .offset = off, .total = total };
	memcpy(r->d, data, n);
}

/* That record fed (len bytes of it told to the decoder; 0: all). */
static int feed_arg_bytes(struct hcb_jaxffi *x, uint32_t seq, uint32_t arg, uint32_t dtype,
			  uint64_t dim, const void *data, uint32_t n, uint64_t off, uint64_t total,
			  size_t len)
{
	struct hcb_ev_jarg_bytes r;

	arg_bytes(&r, seq, arg, dtype, dim, data, n, off, total);
	return hcb_jaxffi_feed(x, &r, len ? len : sizeof(r));
}

/* Small operands each in one record, as the probe sends them: the same
 * call as from JARG and JDATA records; one cut short is a bad record. */
static void test_operand_with_its_bytes(void **state)
{
	float v[3] = { 1.5f, -2, 3 };
	int32_t k[2] = { 7, -9 };
	struct hcb_ev_jcall e = jcall(1, 0, 5, "debug_callback.1", 2, 20);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	feed_call(x, &e);
	assert_int_equal(feed_arg_bytes(x, 0, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 20, 0), 0);
	assert_int_equal(s.packets, 0);
	assert_int_equal(feed_arg_bytes(x, 0, 1, JAXFFI_XLA_S32, 2, k, 8, 12, 20, 0), 0);
	assert_int_equal(s.packets, 1);
	assert_memory_equal(s.payload, v, 12);
	assert_memory_equal(s.payload + 12, k, 8);
	assert_int_equal(s.consumer->nleaves, 2);
	assert_true(no_problems(&s));
	/* its bytes told longer than the record: nothing of it is taken */
	e = jcall(1, 1, 5, "debug_callback.1", 1, 12);
	feed_call(x, &e);
	assert_int_equal(feed_arg_bytes(x, 1, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 12,
					sizeof(struct hcb_ev_jarg) + sizeof(struct hcb_ev_chunk) + 11),
			 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 1);
	assert_int_equal(feed_arg_bytes(x, 1, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 12,
					sizeof(struct hcb_ev_jarg) + 4), 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 2);
	assert_int_equal(s.packets, 1);
	/* whole, the call goes on */
	assert_int_equal(feed_arg_bytes(x, 1, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 12, 0), 0);
	assert_int_equal(s.packets, 2);
	assert_memory_equal(s.payload, v, 12);
	hcb_jaxffi_free(x);
}

/* A call record of its head alone is the whole one zero past the head:
 * the decoder reads nothing beyond the record's length, though the
 * bytes there (here a site's names) would name the call otherwise. */
static void test_call_head_alone(void **state)
{
	float v[3] = { 1.5f, -2, 3 };
	struct hcb_ev_jcall e = jcall(1, 0, 5, "debug_callback.1", 1, 12);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* whole: the site is named from its thunk's names */
	feed_call(x, &e);
	assert_int_equal(feed_arg_bytes(x, 0, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 12, 0), 0);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->name, "debug_callback.1");
	/* the same call as its head alone: its names are none */
	e.seq = 1;
	assert_int_equal(hcb_jaxffi_feed(x, &e, HCB_JAXFFI_CALL_HEAD), 0);
	assert_int_equal(feed_arg_bytes(x, 1, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 12, 0), 0);
	assert_int_equal(s.packets, 2);
	assert_string_equal(s.consumer->name, "callback-3");   /* after its index */
	hcb_jaxffi_free(x);
}

/* A small call (HCB_EV_JCALL_ARG) into *r: call e's head (of device 1),
 * then its one operand, a float32[3] v, in operand_seq's call; no entry. */
static void small_call(struct hcb_ev_jcall_arg *r, const struct hcb_ev_jcall *e,
		       uint64_t operand_seq, const float *v)
{
	struct hcb_ev_jcall h = *e;

	memset(r, 0, sizeof(*r));
	h.type = HCB_EV_JCALL_ARG;
	h.flags = HCB_JAXFFI_F_INDEX;   /* no thunk: no site */
	h.thunk_device = ~0u;
	memcpy(r->head, &h, HCB_JAXFFI_CALL_HEAD);
	arg_bytes(&r->op, operand_seq, 0, JAXFFI_XLA_F32, 3, v, 12, 0, 12);
}

/* A call and its one operand in one record, as the probe sends a small
 * call without a site (after a first call with one proved the layout):
 * the same call as from three records.  Cut short, or holding another
 * call's operand, it is a bad record and starts no call. */
static void test_call_with_its_operand(void **state)
{
	float v[3] = { 1.5f, -2, 3 }, w[3] = { 4, 5, -6 };
	struct hcb_ev_jcall e = jcall(1, 0, 5, "debug_callback.1", 1, 12);
	struct hcb_ev_jcall_arg r;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	feed_call(x, &e);
	assert_int_equal(feed_arg_bytes(x, 0, 0, JAXFFI_XLA_F32, 3, w, 12, 0, 12, 0), 0);
	assert_int_equal(s.packets, 1);
	e.seq = 1;
	small_call(&r, &e, 1, v);
	assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r)), 0);
	assert_int_equal(s.packets, 2);
	assert_memory_equal(s.payload, v, 12);
	assert_string_equal(s.consumer->name, "callback-3");   /* a head's: after its index */
	assert_int_equal(s.last.py_callable, 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 0);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 0);
	/* one byte short, its head alone, another call's operand: none */
	e.seq = 2;
	small_call(&r, &e, 2, v);
	assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r) - 1), 0);
	assert_int_equal(hcb_jaxffi_feed(x, &r, HCB_JAXFFI_CALL_HEAD), 0);
	small_call(&r, &e, 3, v);
	assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r)), 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 3);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	assert_int_equal(s.packets, 2);
	hcb_jaxffi_free(x);
}

/* Callable 0x1000 is a print site "step {i}"; no other is known. */
static int step_namer(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	(void)ctx;
	if (callable != 0x1000)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	out->kind = HCB_PYSITE_PRINT;
	snprintf(out->fmt, sizeof(out->fmt), "step {i}");
	return 0;
}

/* A small call with its callable's entry in the same record, as the
 * probe at the inner function sends it: the same as the call's records
 * then the entry's, held until the end, named by its callable.  An entry
 * of another thread, or of a type that is none, makes it a bad record
 * that starts no call. */
static void test_call_with_its_entry(void **state)
{
	float v[3] = { 1.5f, -2, 3 };
	struct hcb_ev_jcall e = jcall(1, 0, 11, "debug_print.1", 1, 12);
	struct hcb_ev_jcall_arg r;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_set_namer(x, step_namer, NULL, NULL);
	/* a first call with its thunk proves the layout */
	f32_call(x, 1, 0, 11, "debug_print.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 1);
	e.seq = 1;
	small_call(&r, &e, 1, v);
	r.entry = (struct hcb_ev_jpycall){ .type = HCB_EV_JPYCALL, .pid = 7, .tid = 11,
					   .callable = 0x1000, .index = 3, .ts_ns = 5 };
	assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r)), 0);
	assert_int_equal(s.packets, 1);   /* held for its end */
	py_end(x, 11);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.py_callable, 0x1000);
	assert_string_equal(s.consumer->name, "step {i}");
	assert_memory_equal(s.payload, v, 12);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 0);
	/* the entry of another thread than the call's, or no entry's type */
	e.seq = 2;
	small_call(&r, &e, 2, v);
	r.entry = (struct hcb_ev_jpycall){ .type = HCB_EV_JPYCALL, .pid = 7, .tid = 12 };
	assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r)), 0);
	r.entry = (struct hcb_ev_jpycall){ .type = HCB_EV_JPYEND, .pid = 7, .tid = 11 };
	assert_int_equal(hcb_jaxffi_feed(x, &r, sizeof(r)), 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 2);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	assert_int_equal(s.packets, 2);
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operand_with_its_bytes),
		cmocka_unit_test(test_call_head_alone),
		cmocka_unit_test(test_call_with_its_operand),
		cmocka_unit_test(test_call_with_its_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
