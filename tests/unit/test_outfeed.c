/* SPDX-License-Identifier: MIT */
/*
 * test_outfeed.c - the legacy XLA outfeed path: ShapeProto decoding and
 * packets put back together from leaf records, including what must be
 * refused (malformed shapes, leaves out of order or lost) without a crash.
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

#include "providers/outfeed/events.h"
#include "providers/outfeed/decode.h"
#include "providers/outfeed/shapeproto.h"

/* u32[2] {271828, id} and f32[2], as jaxlib serializes their shapes */
static const unsigned char U32x2[] = { 0x10, 0x08, 0x1a, 0x01, 0x02, 0x2a, 0x03, 0x0a, 0x01, 0x00 };
static const unsigned char F32x2[] = { 0x10, 0x0b, 0x1a, 0x01, 0x02 };

struct seen {
	int packets;
	uint32_t consumer_kwarg;
	float values[2];
	uint32_t device;
	int problems[HCB_DECODE_PROBLEMS];
	char last[256];
};

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	struct seen *s = ctx;

	s->packets++;
	s->device = p->device;
	s->consumer_kwarg = (uint32_t)strtoul(hcb_consumer_kwarg(p->consumer, "consumer"), NULL, 10);
	if (p->consumer->total_bytes == 8)
		memcpy(s->values, p->payload, 8);
	return 0;
}

static void on_warn(void *ctx, enum hcb_decode_problem what, uint32_t device, uint32_t consumer,
		    const char *detail)
{
	struct seen *s = ctx;

	(void)device;
	(void)consumer;
	s->problems[what]++;
	snprintf(s->last, sizeof(s->last), "%s", detail);
}

static const struct hcb_decoder_ops ops = { .packet = on_packet, .warn = on_warn };

/* A leaf of device dev at the probe's time ts_ns. */
static void leaf_at(struct hcb_outfeed *x, uint32_t dev, uint64_t seq, uint64_t ts_ns,
		    const unsigned char *shape, size_t shape_len, const void *data, uint32_t len)
{
	struct hcb_ev_xleaf e = { .type = HCB_EV_XLEAF, .device = dev, .seq = seq, .len = len,
				  .shape_len = (uint32_t)shape_len, .ts_ns = ts_ns };
	unsigned char buf[sizeof(struct hcb_ev_chunk) + 64];
	struct hcb_ev_chunk c = { .type = HCB_EV_XDATA, .device = dev, .seq = seq, .len = len,
				  .total = len };

	memcpy(e.shape, shape, shape_len);
	assert_int_equal(hcb_outfeed_feed(x, &e, sizeof(e)), 0);
	if (!len)
		return;
	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), data, len);
	assert_int_equal(hcb_outfeed_feed(x, buf, sizeof(c) + len), 0);
}

static void leaf(struct hcb_outfeed *x, uint32_t dev, uint64_t seq, const unsigned char *shape,
		 size_t shape_len, const void *data, uint32_t len)
{
	leaf_at(x, dev, seq, 1000 + seq, shape, shape_len, data, len);
}

static void header(struct hcb_outfeed *x, uint32_t dev, uint64_t seq, uint32_t consumer)
{
	uint32_t h[2] = { HCB_OUTFEED_MAGIC, consumer };

	leaf(x, dev, seq, U32x2, sizeof(U32x2), h, 8);
}

static void test_packet_reassembled(void **state)
{
	struct seen s = { 0 };
	struct hcb_outfeed *x;
	float v[2] = { 3, 9 };

	(void)state;
	assert_int_equal(hcb_outfeed_new(&x, &ops, &s), 0);
	header(x, 1, 0, 1234);
	leaf(x, 1, 1, F32x2, sizeof(F32x2), v, 8);
	assert_int_equal(s.packets, 0);          /* more leaves may come */
	header(x, 1, 2, 1234);                   /* the next header completes it */
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.device, 1);
	assert_int_equal(s.consumer_kwarg, 1234);
	assert_true(s.values[0] == 3 && s.values[1] == 9);
	leaf(x, 1, 3, F32x2, sizeof(F32x2), v, 8);
	assert_int_equal(hcb_outfeed_flush_idle(x, 1000 + 3 + 5, 10), 0);
	assert_int_equal(s.packets, 1);          /* not quiet long enough */
	assert_int_equal(hcb_outfeed_flush_idle(x, 1000 + 3 + 10, 10), 0);
	assert_int_equal(s.packets, 2);
	header(x, 1, 4, 0);                      /* the receiver's shutdown: no tap */
	assert_int_equal(hcb_outfeed_finish(x), 0);
	assert_int_equal(s.packets, 2);
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		assert_int_equal(s.problems[i], 0);
	hcb_outfeed_free(x);
}

/*
 * A machine slow enough to leave more than the quiet time between a
 * header and its leaf (a guest under software emulation): a packet with
 * no data leaf yet is waited for ten times as long, and once a packet's
 * leaves came 60 apart, four times that: no empty packet, no leaf outside
 * one.
 */
static void test_slow_machine_waited_for(void **state)
{
	uint32_t h[2] = { HCB_OUTFEED_MAGIC, 7 };
	struct seen s = { 0 };
	struct hcb_outfeed *x;
	float v[2] = { 2, 4 };

	(void)state;
	assert_int_equal(hcb_outfeed_new(&x, &ops, &s), 0);
	leaf_at(x, 0, 0, 1000, U32x2, sizeof(U32x2), h, 8);
	assert_int_equal(hcb_outfeed_flush_idle(x, 1000 + 15, 10), 0);
	assert_int_equal(s.packets, 0);          /* quiet 15 > 10, but no leaf yet */
	leaf_at(x, 0, 1, 1060, F32x2, sizeof(F32x2), v, 8);
	assert_int_equal(hcb_outfeed_flush_idle(x, 1060 + 200, 10), 0);
	assert_int_equal(s.packets, 0);          /* leaves came 60 apart: 240 */
	assert_int_equal(hcb_outfeed_flush_idle(x, 1060 + 240, 10), 0);
	assert_int_equal(s.packets, 1);
	assert_true(s.values[0] == 2 && s.values[1] == 4);
	assert_int_equal(hcb_outfeed_finish(x), 0);
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		assert_int_equal(s.problems[i], 0);
	hcb_outfeed_free(x);
}

static void test_malformed_shape_reported(void **state)
{
	static const unsigned char truncated[] = { 0x10 };
	static const unsigned char column_major[] = { 0x10, 0x0b, 0x1a, 0x02, 0x02, 0x03,
						      0x2a, 0x04, 0x0a, 0x02, 0x00, 0x01 };
	struct seen s = { 0 };
	struct hcb_outfeed *x;
	float v[6] = { 0 };

	(void)state;
	assert_int_equal(hcb_outfeed_new(&x, &ops, &s), 0);
	header(x, 0, 0, 7);
	leaf(x, 0, 1, truncated, sizeof(truncated), v, 8);
	assert_int_equal(s.problems[HCB_BAD_REGISTRATION], 1);
	assert_non_null(strstr(s.last, "malformed or unsupported ShapeProto"));
	header(x, 0, 2, 7);
	leaf(x, 0, 3, column_major, sizeof(column_major), v, 24);
	assert_int_equal(s.problems[HCB_BAD_REGISTRATION], 2);
	assert_non_null(strstr(s.last, "row-major"));
	assert_int_equal(hcb_outfeed_finish(x), 0);
	assert_int_equal(s.packets, 0);          /* broken packets are not delivered */
	hcb_outfeed_free(x);
}

static void test_out_of_order_and_lost_leaves(void **state)
{
	struct seen s = { 0 };
	struct hcb_outfeed *x;
	float v[2] = { 1, 2 };

	(void)state;
	assert_int_equal(hcb_outfeed_new(&x, &ops, &s), 0);
	/* a data leaf before any header */
	leaf(x, 2, 0, F32x2, sizeof(F32x2), v, 8);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 1);
	assert_non_null(strstr(s.last, "outside a packet"));
	/* a leaf lost between header and data: the packet is broken */
	header(x, 2, 1, 9);
	leaf(x, 2, 3, F32x2, sizeof(F32x2), v, 8);
	assert_int_equal(s.problems[HCB_INCOMPLETE], 1);
	/* a chunk out of order */
	header(x, 2, 4, 9);
	{
		struct hcb_ev_xleaf e = { .type = HCB_EV_XLEAF, .device = 2, .seq = 5, .len = 8,
					  .shape_len = sizeof(F32x2) };
		unsigned char buf[sizeof(struct hcb_ev_chunk) + 8];
		struct hcb_ev_chunk c = { .type = HCB_EV_XDATA, .device = 2, .seq = 5, .len = 4,
					  .offset = 4, .total = 8 };

		memcpy(e.shape, F32x2, sizeof(F32x2));
		assert_int_equal(hcb_outfeed_feed(x, &e, sizeof(e)), 0);
		memcpy(buf, &c, sizeof(c));
		assert_int_equal(hcb_outfeed_feed(x, buf, sizeof(c) + 4), 0);
		assert_int_equal(s.problems[HCB_BAD_CHUNK], 2);
	}
	/* short and unknown records */
	assert_int_equal(hcb_outfeed_feed(x, "ab", 2), 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 1);   /* reported, no device to count it on */
	assert_null(hcb_outfeed_stats(x, 0));
	/* a leaf of a device out of range: refused and counted apart (providers/bounds.h) */
	{
		float v[2] = { 1, 2 };

		leaf(x, HCB_MAX_DEVICES, 0, F32x2, sizeof(F32x2), v, 8);
		leaf(x, UINT32_MAX, 0, F32x2, sizeof(F32x2), v, 8);
	}
	assert_int_equal(s.problems[HCB_BAD_DEVICE], 2);
	assert_non_null(hcb_outfeed_stats(x, HCB_MAX_DEVICES));
	assert_int_equal(hcb_outfeed_stats(x, HCB_MAX_DEVICES)->problems[HCB_BAD_DEVICE], 2);
	assert_int_equal(hcb_outfeed_stats(x, HCB_MAX_DEVICES)->problems[HCB_BAD_RECORD], 1);
	assert_int_equal(hcb_outfeed_finish(x), 0);
	assert_int_equal(s.packets, 0);
	hcb_outfeed_free(x);
}

static void test_shapeproto(void **state)
{
	static const unsigned char tuple[] = { 0x10, 0x0d, 0x22, 0x02, 0x10, 0x0b };
	static const unsigned char nine[] = { 0x10, 0x0b, 0x1a, 0x09, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const unsigned char scalar_f64[] = { 0x10, 0x0c };
	static const unsigned char token[] = { 0x10, 0x11 };
	static const unsigned char bad_wire[] = { 0x13 };
	struct hcb_xshape s;
	char msg[128];

	(void)state;
	assert_int_equal(hcb_shapeproto_decode(scalar_f64, sizeof(scalar_f64), &s, msg, sizeof(msg)), 0);
	assert_int_equal(s.dtype, HCB_DT_FLOAT64);
	assert_int_equal(s.ndim, 0);
	assert_int_equal(s.nbytes, 8);
	assert_int_equal(hcb_shapeproto_decode(U32x2, sizeof(U32x2), &s, msg, sizeof(msg)), 0);
	assert_int_equal(s.nbytes, 8);
	assert_int_equal(hcb_shapeproto_decode(tuple, sizeof(tuple), &s, msg, sizeof(msg)), -ENOTSUP);
	assert_int_equal(hcb_shapeproto_decode(nine, sizeof(nine), &s, msg, sizeof(msg)), -ENOTSUP);
	assert_int_equal(hcb_shapeproto_decode(token, sizeof(token), &s, msg, sizeof(msg)), -ENOTSUP);
	assert_int_equal(hcb_shapeproto_decode(bad_wire, sizeof(bad_wire), &s, msg, sizeof(msg)), -EBADMSG);
	assert_int_equal(hcb_shapeproto_decode(F32x2, 3, &s, msg, sizeof(msg)), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet_reassembled),
		cmocka_unit_test(test_slow_machine_waited_for),
		cmocka_unit_test(test_malformed_shape_reported),
		cmocka_unit_test(test_out_of_order_and_lost_leaves),
		cmocka_unit_test(test_shapeproto),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
