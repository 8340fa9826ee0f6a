/* SPDX-License-Identifier: MIT */
/*
 * test_acct.c - the delivery accounting and barrier points (src/engine/acct.h),
 * every rule, with no BPF and no root: gaps, bonus packets, tail losses,
 * losses split by cause, barrier points and their order of reading, the
 * losses of a detach, and sequence numbers that wrap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/acct.h"

/* A device's counters, as the probe and the decoder would keep them. */
static struct hcb_loss_seen counters[HCB_MAX_DEVICES];
static unsigned int seen_calls;

static void seen(void *ctx, uint32_t d, struct hcb_loss_seen *out)
{
	(void)ctx;
	seen_calls++;
	*out = counters[d];
}

static const struct hcb_loss_source src = { seen, NULL };

static int setup(void **state)
{
	(void)state;
	memset(counters, 0, sizeof(counters));
	seen_calls = 0;
	return 0;
}

static void assert_loss(const struct hcb_loss *l, enum hcb_loss_cause cause, uint64_t count)
{
	assert_int_equal(l->cause, cause);
	assert_int_equal(l->count, count);
}

/* In order from the base: nothing lost, and the counters are not even read. */
static void test_in_order(void **state)
{
	static struct hcb_acct a;
	uint64_t base[HCB_MAX_DEVICES] = { [0] = 100, [3] = 7 };
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	hcb_acct_init(&a, base, 0);
	assert_int_equal(hcb_acct_next(&a, 0), 100);
	assert_int_equal(hcb_acct_next(&a, 3), 7);
	for (uint64_t s = 100; s < 110; s++)
		assert_int_equal(hcb_acct_packet(&a, 0, s, &src, out), 0);
	assert_int_equal(hcb_acct_next(&a, 0), 110);
	assert_int_equal(a.dev[0].delivered, 10);
	assert_int_equal(a.dev[0].dropped, 0);
	assert_int_equal(seen_calls, 0);
}

/* A jump in seq is a loss where it happened, split by what the counters
 * have not yet accounted for, the rest "not delivered". */
static void test_gap_by_cause(void **state)
{
	static struct hcb_acct a;
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	hcb_acct_init(&a, NULL, 0);
	assert_int_equal(hcb_acct_packet(&a, 1, 0, &src, out), 0);
	counters[1].n[HCB_LOSS_RING] = 2;
	counters[1].n[HCB_LOSS_UNREADABLE] = 1;
	counters[1].n[HCB_LOSS_MALFORMED] = 1;
	counters[1].n[HCB_LOSS_LAG] = 3;
	/* seqs 1..9 lost: 2 ring, 1 unreadable, 1 malformed, 3 lag, 2 unknown */
	assert_int_equal(hcb_acct_packet(&a, 1, 10, &src, out), 5);
	assert_loss(&out[0], HCB_LOSS_RING, 2);
	assert_loss(&out[1], HCB_LOSS_UNREADABLE, 1);
	assert_loss(&out[2], HCB_LOSS_MALFORMED, 1);
	assert_loss(&out[3], HCB_LOSS_LAG, 3);
	assert_loss(&out[4], HCB_LOSS_UNDELIVERED, 2);
	assert_int_equal(a.dev[1].dropped, 9);
	/* the counters' losses are told once: the next gap of 1 is unexplained */
	assert_int_equal(hcb_acct_packet(&a, 1, 12, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 1);
	/* a gap smaller than the counters' news takes only what it needs */
	counters[1].n[HCB_LOSS_RING] = 10;
	assert_int_equal(hcb_acct_packet(&a, 1, 15, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_RING, 2);
	assert_int_equal(a.dev[1].told[HCB_LOSS_RING], 4);
	assert_int_equal(a.dev[1].dropped, 12);
	assert_string_equal(hcb_loss_reason(HCB_LOSS_RING), "ring buffer full");
	assert_string_equal(hcb_loss_reason(HCB_LOSS_LAG), "output too far behind");
	assert_string_equal(hcb_loss_reason(HCB_LOSS_UNDELIVERED), "not delivered");
}

/* A packet below the next expected came while the attach was finishing:
 * a bonus, never a loss, and it does not move the accounting back. */
static void test_bonus(void **state)
{
	static struct hcb_acct a;
	uint64_t base[HCB_MAX_DEVICES] = { [2] = 50 };
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	hcb_acct_init(&a, base, 0);
	assert_int_equal(hcb_acct_packet(&a, 2, 48, &src, out), 0);
	assert_int_equal(hcb_acct_packet(&a, 2, 49, &src, out), 0);
	assert_int_equal(hcb_acct_packet(&a, 2, 50, &src, out), 0);
	assert_int_equal(hcb_acct_packet(&a, 2, 51, &src, out), 0);
	assert_int_equal(a.dev[2].delivered, 4);
	assert_int_equal(a.dev[2].dropped, 0);
	/* a late one after the stream started moves nothing either */
	assert_int_equal(hcb_acct_packet(&a, 2, 30, &src, out), 0);
	assert_int_equal(hcb_acct_next(&a, 2), 52);
}

/* The tail: what passed the probe and never came, at a barrier or the
 * end; only once, and never below what was delivered. */
static void test_tail(void **state)
{
	static struct hcb_acct a;
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	hcb_acct_init(&a, NULL, 0);
	hcb_acct_packet(&a, 0, 0, &src, out);
	hcb_acct_packet(&a, 0, 1, &src, out);
	counters[0].n[HCB_LOSS_RING] = 1;
	assert_int_equal(hcb_acct_upto(&a, 0, 5, &src, out), 2);
	assert_loss(&out[0], HCB_LOSS_RING, 1);
	assert_loss(&out[1], HCB_LOSS_UNDELIVERED, 2);
	assert_int_equal(hcb_acct_next(&a, 0), 5);
	assert_int_equal(hcb_acct_upto(&a, 0, 5, &src, out), 0);
	assert_int_equal(hcb_acct_upto(&a, 0, 3, &src, out), 0);
	assert_int_equal(a.dev[0].dropped, 3);
	/* a device that never sent anything: everything from its base */
	assert_int_equal(hcb_acct_upto(&a, 5, 4, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 4);
	assert_true(a.dev[5].started);
}

/* Packets issued while the detach was under way: they passed the probe
 * (handled) and never arrived, and are recorded as lost, unexplained. */
static void test_detach_losses(void **state)
{
	static struct hcb_acct a;
	struct hcb_loss out[HCB_LOSS_CAUSES];
	uint64_t base[HCB_MAX_DEVICES] = { [0] = 10 };

	(void)state;
	hcb_acct_init(&a, base, 0);
	for (uint64_t s = 10; s < 20; s++)
		hcb_acct_packet(&a, 0, s, &src, out);
	assert_int_equal(hcb_acct_upto(&a, 0, 23, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 3);
	/* taps + drops = issued from the attach to the detach */
	assert_int_equal(a.dev[0].delivered + a.dev[0].dropped, 23 - 10);
}

/* seqs compare modulo 2^64: accounting goes on across the wrap. */
static void test_wrap(void **state)
{
	static struct hcb_acct a;
	uint64_t base[HCB_MAX_DEVICES] = { [0] = UINT64_MAX - 2 };
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	hcb_acct_init(&a, base, 0);
	assert_int_equal(hcb_acct_packet(&a, 0, UINT64_MAX - 2, &src, out), 0);
	assert_int_equal(hcb_acct_packet(&a, 0, UINT64_MAX - 1, &src, out), 0);
	assert_int_equal(hcb_acct_packet(&a, 0, UINT64_MAX, &src, out), 0);
	assert_int_equal(hcb_acct_next(&a, 0), 0);
	/* seq 0 and 1 lost across the wrap */
	assert_int_equal(hcb_acct_packet(&a, 0, 2, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 2);
	/* a late one from before the wrap is a bonus */
	assert_int_equal(hcb_acct_packet(&a, 0, UINT64_MAX - 5, &src, out), 0);
	assert_int_equal(hcb_acct_next(&a, 0), 3);
	assert_int_equal(hcb_acct_upto(&a, 0, 5, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 2);
	assert_int_equal(a.dev[0].dropped, 4);
}

/* The probe's count of packets fired on each device, for the cap. */
static uint64_t fired_count[HCB_MAX_DEVICES];

static uint64_t fired(void *ctx, uint32_t d)
{
	(void)ctx;
	return fired_count[d];
}

/* A seq that jumps 2^60 ahead loses no more than the probe counted firing
 * and the session has not accounted for (the packet that shows the jump
 * may not be counted yet: its record comes before the probe's count): the
 * rest is a lie, counted once per packet that tells it, and the accounting
 * goes on from there. */
static void test_seq_lies(void **state)
{
	static struct hcb_acct a;
	static const struct hcb_loss_source capped = { seen, NULL, fired };
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	memset(fired_count, 0, sizeof(fired_count));
	hcb_acct_init(&a, NULL, 0);
	fired_count[0] = 3;
	for (uint64_t s = 0; s < 3; s++)
		assert_int_equal(hcb_acct_packet(&a, 0, s, &capped, out), 0);
	/* seq 2^60, its own firing not counted yet: nothing could be lost */
	assert_int_equal(hcb_acct_packet(&a, 0, UINT64_C(1) << 60, &capped, out), 0);
	assert_int_equal(a.dev[0].dropped, 0);
	assert_int_equal(a.dev[0].lies, 1);
	assert_int_equal(a.dev[0].lied, (UINT64_C(1) << 60) - 3);
	assert_int_equal(hcb_acct_next(&a, 0), (UINT64_C(1) << 60) + 1);
	/* counted now, two more fired and lost, then another jump: those two
	 * lost (the jump's own packet uncounted), the rest a lie */
	fired_count[0] = 6;
	assert_int_equal(hcb_acct_packet(&a, 0, UINT64_C(1) << 61, &capped, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 2);
	assert_int_equal(a.dev[0].dropped, 2);
	assert_int_equal(a.dev[0].lies, 2);
	/* an honest gap within the count is a loss, no lie */
	fired_count[0] = 8;
	assert_int_equal(hcb_acct_packet(&a, 0, (UINT64_C(1) << 61) + 2, &capped, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 1);
	assert_int_equal(a.dev[0].lies, 2);
	/* the tail (upto from a handled count the target set): capped too */
	fired_count[0] = 10;
	assert_int_equal(hcb_acct_upto(&a, 0, UINT64_C(1) << 62, &capped, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 1);
	assert_int_equal(a.dev[0].lies, 3);
	/* taps + drops never pass what the probe fired */
	assert_int_equal(a.dev[0].delivered + a.dev[0].dropped, 10);
	/* with no count to go by (no fired), a jump is all lost, as before */
	assert_int_equal(hcb_acct_packet(&a, 1, 5, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 5);
}

/* ---- barrier points ---- */

struct view_state {
	uint64_t handled[HCB_MAX_DEVICES];
	uint64_t written, read;
	char order[16];   /* h: handled looked at, w: written read, r: read read */
	size_t n;
};

static void note(struct view_state *v, char c)
{
	if (v->n + 1 < sizeof(v->order))
		v->order[v->n++] = c;
}

static uint64_t v_handled(void *ctx, uint32_t d)
{
	struct view_state *v = ctx;

	if (!v->n || v->order[v->n - 1] != 'h')
		note(v, 'h');
	return v->handled[d];
}

static uint64_t v_written(void *ctx)
{
	note(ctx, 'w');
	return ((struct view_state *)ctx)->written;
}

static uint64_t v_read(void *ctx)
{
	note(ctx, 'r');
	return ((struct view_state *)ctx)->read;
}

/* Stage 1 waits for the packets to pass the probe; only then is the ring's
 * written position taken as the mark; stage 2 waits for the reader. */
static void test_barrier_stages(void **state)
{
	static struct hcb_acct a;
	static struct hcb_barrier_point b;
	static struct view_state vs;
	struct hcb_barrier_view v = { v_handled, v_written, v_read, &vs };
	uint64_t issued[HCB_MAX_DEVICES] = { [0] = 5, [1] = 3 };
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&vs, 0, sizeof(vs));
	hcb_acct_init(&a, NULL, 0);
	assert_int_equal(hcb_barrier_advance(&b, &a, &v), 0);   /* no request */
	hcb_barrier_begin(&b, 7, issued);
	vs.handled[0] = 5;
	vs.handled[1] = 2;
	assert_int_equal(hcb_barrier_advance(&b, &a, &v), 0);
	assert_int_equal(b.stage, 1);
	assert_null(strchr(vs.order, 'w'));   /* no mark before the probe is passed */
	vs.handled[1] = 3;
	vs.written = 4096;
	vs.read = 1000;
	vs.n = 0;
	memset(vs.order, 0, sizeof(vs.order));
	assert_int_equal(hcb_barrier_advance(&b, &a, &v), 0);
	assert_string_equal(vs.order, "hwr");
	assert_int_equal(b.stage, 2);
	assert_int_equal(b.ring_mark, 4096);
	/* the mark stays where it was, however far the ring is written since */
	vs.written = 9000;
	vs.read = 4096;
	assert_int_equal(hcb_barrier_advance(&b, &a, &v), 1);
	assert_int_equal(b.ring_mark, 4096);
	hcb_barrier_answered(&b);
	assert_int_equal(b.req, 0);
	assert_int_equal(b.done, 7);
	/* devices this session already delivered through need no look at all */
	hcb_acct_upto(&a, 0, 5, &src, out);
	hcb_acct_upto(&a, 1, 3, &src, out);
	hcb_barrier_begin(&b, 8, issued);
	memset(vs.handled, 0, sizeof(vs.handled));
	vs.n = 0;
	memset(vs.order, 0, sizeof(vs.order));
	vs.read = vs.written;
	assert_int_equal(hcb_barrier_advance(&b, &a, &v), 1);
	assert_string_equal(vs.order, "wr");
}

/* At the end, ring drained: a barrier is answered if nothing it waits for
 * is missing (delivered or recorded lost), else it never will be. */
static void test_barrier_reachable(void **state)
{
	static struct hcb_acct a;
	static struct hcb_barrier_point b;
	uint64_t issued[HCB_MAX_DEVICES] = { [0] = 4 };
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	memset(&b, 0, sizeof(b));
	hcb_acct_init(&a, NULL, 0);
	hcb_barrier_begin(&b, 1, issued);
	hcb_acct_packet(&a, 0, 0, &src, out);
	assert_int_equal(hcb_barrier_reachable(&b, &a), 0);
	hcb_acct_upto(&a, 0, 4, &src, out);
	assert_int_equal(hcb_barrier_reachable(&b, &a), 1);
	/* across a wrap too */
	issued[0] = 2;
	hcb_acct_init(&a, (uint64_t[HCB_MAX_DEVICES]){ [0] = UINT64_MAX - 1 }, 0);
	hcb_barrier_begin(&b, 2, issued);
	assert_int_equal(hcb_barrier_reachable(&b, &a), 0);
	hcb_acct_upto(&a, 0, 2, &src, out);
	assert_int_equal(hcb_barrier_reachable(&b, &a), 1);
}

/* Out of order (a device's calls on several threads): no jump is a loss;
 * at the end, what went through the probe and is not accounted for is. */
static void test_unordered(void **state)
{
	static struct hcb_acct a;
	struct hcb_loss out[HCB_LOSS_CAUSES];
	static const uint64_t order[] = { 1, 0, 3, 5, 4 };

	(void)state;
	hcb_acct_init(&a, NULL, 1);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		assert_int_equal(hcb_acct_packet(&a, 0, order[i], &src, out), 0);
	assert_int_equal(a.dev[0].delivered, 5);
	assert_int_equal(hcb_acct_next(&a, 0), 6);
	/* seq 2 never came, and 6 and 7 passed the probe: 3 lost, one of them
	 * ring full as the counters say */
	counters[0].n[HCB_LOSS_RING] = 1;
	assert_int_equal(hcb_acct_upto(&a, 0, 8, &src, out), 2);
	assert_loss(&out[0], HCB_LOSS_RING, 1);
	assert_loss(&out[1], HCB_LOSS_UNDELIVERED, 2);
	assert_int_equal(a.dev[0].dropped, 3);
	/* once accounted, not again; and a late one is no loss either */
	assert_int_equal(hcb_acct_upto(&a, 0, 8, &src, out), 0);
	assert_int_equal(hcb_acct_packet(&a, 0, 2, &src, out), 0);
	assert_int_equal(hcb_acct_upto(&a, 0, 8, &src, out), 0);
	assert_int_equal(hcb_acct_next(&a, 0), 8);
	/* a device that never sent: everything that passed its probe */
	assert_int_equal(hcb_acct_upto(&a, 1, 2, &src, out), 1);
	assert_loss(&out[0], HCB_LOSS_UNDELIVERED, 2);
}

/* A device number past the table (the target's word, should a decoder
 * let one through): refused and counted, no figure of any device touched,
 * no counters asked. */
static void test_device_out_of_range(void **state)
{
	static const uint32_t bad[] = { HCB_MAX_DEVICES, 300, 1000, 4000000, 0xffffffffu };
	struct hcb_acct a, clean;
	struct hcb_loss out[HCB_LOSS_CAUSES];

	(void)state;
	hcb_acct_init(&a, NULL, 0);
	hcb_acct_init(&clean, NULL, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(hcb_acct_packet(&a, bad[i], 1000, &src, out), 0);
		assert_int_equal(hcb_acct_upto(&a, bad[i], 5000, &src, out), 0);
		hcb_acct_written(&a, bad[i]);
		assert_int_equal(hcb_acct_next(&a, bad[i]), 0);
	}
	assert_int_equal(a.stray, 5);
	assert_int_equal(seen_calls, 0);
	assert_memory_equal(a.dev, clean.dev, sizeof(a.dev));
	/* 255 is a device */
	assert_int_equal(hcb_acct_packet(&a, HCB_MAX_DEVICES - 1, 0, &src, out), 0);
	assert_int_equal(a.dev[HCB_MAX_DEVICES - 1].delivered, 1);
	assert_int_equal(a.stray, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_in_order, setup),
		cmocka_unit_test_setup(test_gap_by_cause, setup),
		cmocka_unit_test_setup(test_bonus, setup),
		cmocka_unit_test_setup(test_tail, setup),
		cmocka_unit_test_setup(test_detach_losses, setup),
		cmocka_unit_test_setup(test_wrap, setup),
		cmocka_unit_test_setup(test_seq_lies, setup),
		cmocka_unit_test_setup(test_barrier_stages, setup),
		cmocka_unit_test_setup(test_barrier_reachable, setup),
		cmocka_unit_test_setup(test_unordered, setup),
		cmocka_unit_test_setup(test_device_out_of_range, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
