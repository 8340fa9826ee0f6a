/* SPDX-License-Identifier: MIT */
/*
 * test_nanwatch.c - --nonfinite's watch (src/watch/nanwatch.h) against a fake
 * inner receiver that logs what reaches it: only the taps holding NaN or
 * inf pass, every other record passes as it is (the end counting the taps
 * passed), and the tally per call site and device keeps the first such
 * tap and the count; sites past the bound are counted apart.
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
#include "watch/nanwatch.h"
#include "testcons.h"

#define LOG_MAX 64
struct log {
	unsigned int n;
	enum hcb_record_kind kind[LOG_MAX];
	uint64_t seq[LOG_MAX];
	struct hcb_end_info end;
};

static int log_record(void *ctx, const struct hcb_record *rec)
{
	struct log *l = ctx;

	assert_true(l->n < LOG_MAX);
	l->kind[l->n] = rec->kind;
	if (rec->kind == HCB_REC_TAP)
		l->seq[l->n] = rec->tap.seq;
	else if (rec->kind == HCB_REC_END)
		l->end = rec->end;
	l->n++;
	return 0;
}

static const struct hcb_receiver_ops log_ops = { .record = log_record };

static void send(struct hcb_receiver rx, const struct hcb_record *rec)
{
	assert_int_equal(rx.ops->record(rx.ctx, rec), 0);
}

static void send_tap(struct hcb_receiver rx, const struct hcb_consumer *c, uint32_t device,
		     uint64_t seq, const void *payload)
{
	struct hcb_record r = { .kind = HCB_REC_TAP };

	r.tap.device = device;
	r.tap.seq = seq;
	r.tap.wall_ns = 1000 + seq;
	r.tap.consumer = c;
	r.tap.payload = payload;
	send(rx, &r);
}

static void only_nonfinite_taps_pass(void **state)
{
	struct hcb_consumer *loss = test_leaf_consumer("loss", 1, "x", HCB_DT_FLOAT32, 1, 4, 0);
	struct hcb_consumer *w16 = test_leaf_consumer("w", 2, "x", HCB_DT_BFLOAT16, 1, 8, 0);
	struct hcb_record s = { .kind = HCB_REC_SESSION }, d = { .kind = HCB_REC_DROP },
			  e = { .kind = HCB_REC_END };
	float fine[4] = { 1, 2, 3, 4 }, nan[4] = { 1, 2, NAN, 4 }, inf[4] = { -INFINITY, 0, 0, 0 };
	uint16_t bf[8] = { 0x3f80, 0x3f80, 0x3f80, 0x3f80, 0x3f80, 0x7f80, 0, 0 };  /* [5]: inf */
	const struct hcb_nanwatch_site *st;
	struct log log = { 0 };
	struct hcb_nanwatch *w;
	struct hcb_receiver rx;

	(void)state;
	assert_int_equal(hcb_nanwatch_new(&w, (struct hcb_receiver){ &log_ops, &log }), 0);
	rx = hcb_nanwatch_receiver(w);
	snprintf(s.session.platform, sizeof(s.session.platform), "cpu");
	s.session.start_ns = 900;
	send(rx, &s);
	send_tap(rx, loss, 0, 0, fine);
	send_tap(rx, loss, 1, 0, fine);
	send_tap(rx, loss, 1, 1, nan);
	d.drop.device = 1;
	d.drop.count = 5;
	send(rx, &d);
	send_tap(rx, w16, 0, 1, bf);
	send_tap(rx, loss, 1, 7, inf);
	send_tap(rx, loss, 0, 2, fine);
	e.end.taps = 6;
	e.end.drops = 5;
	send(rx, &e);

	/* session, nan tap, drop, bf16 tap, inf tap, end */
	assert_int_equal(log.n, 6);
	assert_int_equal(log.kind[0], HCB_REC_SESSION);
	assert_int_equal(log.kind[1], HCB_REC_TAP);
	assert_int_equal(log.seq[1], 1);
	assert_int_equal(log.kind[2], HCB_REC_DROP);
	assert_int_equal(log.kind[3], HCB_REC_TAP);
	assert_int_equal(log.kind[4], HCB_REC_TAP);
	assert_int_equal(log.seq[4], 7);
	assert_int_equal(log.kind[5], HCB_REC_END);
	assert_int_equal(log.end.taps, 3);
	assert_int_equal(log.end.drops, 5);

	assert_int_equal(hcb_nanwatch_seen(w), 6);
	assert_int_equal(hcb_nanwatch_found(w), 3);
	assert_int_equal(hcb_nanwatch_untallied(w), 0);
	assert_string_equal(hcb_nanwatch_platform(w), "cpu");
	assert_int_equal(hcb_nanwatch_start_ns(w), 900);
	assert_int_equal(hcb_nanwatch_sites(w), 2);
	/* in the order of their first: loss on device 1, then w on device 0 */
	st = hcb_nanwatch_site(w, 0);
	assert_string_equal(st->consumer, "loss");
	assert_int_equal(st->device, 1);
	assert_int_equal(st->seq, 1);
	assert_int_equal(st->wall_ns, 1001);
	assert_int_equal(st->at.leaf, 0);
	assert_int_equal(st->at.index, 2);
	assert_true(isnan(st->at.value));
	assert_int_equal(st->taps, 2);     /* the NaN and the -inf */
	st = hcb_nanwatch_site(w, 1);
	assert_string_equal(st->consumer, "w");
	assert_int_equal(st->device, 0);
	assert_int_equal(st->at.index, 5);
	assert_true(isinf(st->at.value) && st->at.value > 0);
	assert_int_equal(st->taps, 1);
	assert_null(hcb_nanwatch_site(w, 2));
	hcb_nanwatch_free(w);
	hcb_consumer_free(loss);
	hcb_consumer_free(w16);
}

/* A program tapping NaN from more sites and devices than the bound: the
 * taps still pass, the tally stops growing and counts the rest apart. */
static void sites_are_bounded(void **state)
{
	struct hcb_consumer *c = test_leaf_consumer("x", 3, "x", HCB_DT_FLOAT64, 0, 0, 0);
	double nan = NAN;
	struct log log = { 0 };
	struct hcb_nanwatch *w;
	struct hcb_receiver rx;
	unsigned int extra = 10;

	(void)state;
	assert_int_equal(hcb_nanwatch_new(&w, (struct hcb_receiver){ &log_ops, &log }), 0);
	rx = hcb_nanwatch_receiver(w);
	for (uint32_t i = 0; i < HCB_NANWATCH_MAX_SITES + extra; i++) {
		/* devices as the tally keys them; the log only needs room for a few */
		log.n = 0;
		send_tap(rx, c, i, i, &nan);
	}
	assert_int_equal(hcb_nanwatch_sites(w), HCB_NANWATCH_MAX_SITES);
	assert_int_equal(hcb_nanwatch_found(w), HCB_NANWATCH_MAX_SITES + extra);
	assert_int_equal(hcb_nanwatch_untallied(w), extra);
	/* a site already tallied still counts */
	send_tap(rx, c, 0, 99, &nan);
	assert_int_equal(hcb_nanwatch_site(w, 0)->taps, 2);
	assert_int_equal(hcb_nanwatch_untallied(w), extra);
	hcb_nanwatch_free(w);
	hcb_consumer_free(c);
}

/* A failing inner receiver: its error comes back, the tap is not counted. */
static int fail_record(void *ctx, const struct hcb_record *rec)
{
	(void)ctx;
	(void)rec;
	return -EIO;
}

static void inner_errors_pass_back(void **state)
{
	static const struct hcb_receiver_ops fail_ops = { .record = fail_record };
	struct hcb_consumer *c = test_leaf_consumer("x", 3, "x", HCB_DT_FLOAT32, 0, 0, 0);
	float nan = NAN;
	struct hcb_record r = { .kind = HCB_REC_TAP };
	struct hcb_nanwatch *w;
	struct hcb_receiver rx;

	(void)state;
	assert_int_equal(hcb_nanwatch_new(&w, (struct hcb_receiver){ &fail_ops, NULL }), 0);
	rx = hcb_nanwatch_receiver(w);
	r.tap.consumer = c;
	r.tap.payload = (const unsigned char *)&nan;
	assert_int_equal(rx.ops->record(rx.ctx, &r), -EIO);
	assert_int_equal(hcb_nanwatch_found(w), 0);
	assert_int_equal(hcb_nanwatch_sites(w), 0);
	hcb_nanwatch_free(w);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(only_nonfinite_taps_pass),
		cmocka_unit_test(sites_are_bounded),
		cmocka_unit_test(inner_errors_pass_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
