/* SPDX-License-Identifier: MIT */
/*
 * test_decode_bounds.c - the hcbtap decoder against a hostile target
 * (src/providers/bounds.h): device numbers at and past every bound, floods
 * of registrations that never finish, unfinished packets past their
 * budget, time passing; and the race where a packet comes while another
 * thread's copy of its registration is still arriving (held, then
 * delivered in its device's order).  Records are built by hand in the
 * layout of src/providers/hcbtap/events.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/consumer.h"
#include "providers/bounds.h"
#include "providers/hcbtap/decode.h"
#include "providers/hcbtap/events.h"

#define MAX_GOT 64

struct ctx {
	struct hcb_hcbtap *d;
	unsigned int npackets;
	uint32_t got_dev[MAX_GOT];
	uint64_t got_seq[MAX_GOT];
	unsigned int warns[HCB_DECODE_PROBLEMS];
	int read_err;                /* read_target's answer: the target is gone */
	unsigned int reads;
};

static int on_packet(void *vctx, const struct hcb_packet *p)
{
	struct ctx *c = vctx;

	assert_non_null(p->consumer);
	assert_true(p->device < HCB_MAX_DEVICES);
	if (c->npackets < MAX_GOT) {
		c->got_dev[c->npackets] = p->device;
		c->got_seq[c->npackets] = p->seq;
	}
	c->npackets++;
	return 0;
}

static void on_warn(void *vctx, enum hcb_decode_problem what, uint32_t device, uint32_t cid,
		    const char *detail)
{
	struct ctx *c = vctx;

	(void)device;
	(void)cid;
	assert_true(what < HCB_DECODE_PROBLEMS);
	assert_true(strlen(detail) < 256);
	c->warns[what]++;
}

static int on_read(void *vctx, uint64_t addr, void *buf, size_t len)
{
	struct ctx *c = vctx;

	(void)addr;
	(void)buf;
	(void)len;
	c->reads++;
	return c->read_err ? c->read_err : -ESRCH;
}

static const struct hcb_decoder_ops ops = { .packet = on_packet, .warn = on_warn,
					    .read_target = on_read };

static struct ctx *ctx_new(void)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	assert_int_equal(hcb_hcbtap_new(&c->d, &ops, c), 0);
	return c;
}

static void ctx_free(struct ctx *c)
{
	hcb_hcbtap_free(c->d);
	free(c);
}

static int feed_chunk(struct ctx *c, uint32_t type, uint32_t cid, uint32_t dev, uint64_t seq,
		      uint64_t off, uint64_t total, const void *data, uint32_t len)
{
	struct hcb_ev_chunk h = { .type = type, .consumer_id = cid, .device = dev, .len = len,
				  .seq = seq, .offset = off, .total = total };
	unsigned char *rec = malloc(sizeof(h) + len);
	int err;

	assert_non_null(rec);
	memcpy(rec, &h, sizeof(h));
	if (len)
		memcpy(rec + sizeof(h), data, len);
	err = hcb_hcbtap_feed(c->d, rec, sizeof(h) + len);
	free(rec);
	return err;
}

static int feed_pkt(struct ctx *c, uint32_t cid, uint32_t dev, uint64_t seq, uint64_t total,
		    uint32_t nleaves, uint32_t tid)
{
	struct hcb_ev_pkt e = { .type = HCB_EV_PKT, .consumer_id = cid, .device = dev,
				.nleaves = nleaves, .seq = seq, .total_bytes = total,
				.reg_addr = 0x1000, .reg_len = 64, .tid = tid,
				.magic = HCB_OUTFEED_MAGIC };

	return hcb_hcbtap_feed(c->d, &e, sizeof(e));
}

static int feed_wire(struct ctx *c, uint32_t cid, uint32_t dev, uint64_t seq, const void *payload,
		     uint64_t total, uint32_t nleaves, uint32_t tid)
{
	unsigned char rec[sizeof(struct hcb_ev_pkt_wire) + 64] = { 0 };
	struct hcb_ev_pkt_wire w = {
		.type = HCB_EV_PKT_WIRE, .tid = tid,
		.pkt = { .magic = HCB_OUTFEED_MAGIC, .consumer_id = cid, .device = dev,
			 .nleaves = nleaves, .seq = seq, .total_bytes = total },
	};

	assert_true(total <= 64);
	memcpy(rec, &w, sizeof(w));
	memcpy(rec + sizeof(w), payload, total);
	return hcb_hcbtap_feed(c->d, rec, sizeof(w) + total);
}

/* "x": u8[4], one leaf */
static const struct hcb_leaf_spec x_leaves[] = { { HCB_DT_UINT8, 1, { 4 } } };
static const struct hcb_consumer_spec x_spec = { .name = "x", .nleaves = 1, .leaves = x_leaves };

static void *blob_of(uint32_t id, size_t *len)
{
	void *p;

	assert_int_equal(hcb_reg_build(&x_spec, id, &p, len), 0);
	return p;
}

/* A whole registration of consumer id, as one chunk of the copy (dev, seq). */
static void register_x(struct ctx *c, uint32_t id, uint32_t dev, uint64_t seq)
{
	size_t len;
	void *b = blob_of(id, &len);

	assert_int_equal(feed_chunk(c, HCB_EV_REG, id, dev, seq, 0, len, b, (uint32_t)len), 0);
	free(b);
}

static const struct hcb_stream_stats *stray(struct ctx *c)
{
	return hcb_hcbtap_stray(c->d);
}

/* Every device number at and past the bounds: 255 is a device, the rest
 * are refused and counted apart, whatever path the packet takes. */
static void test_devices_past_the_bound(void **state)
{
	static const uint32_t bad[] = { 256, 300, 1000, 4000000, 0xffffffffu };
	unsigned char four[4] = { 1, 2, 3, 4 };
	struct ctx *c = ctx_new();

	(void)state;
	register_x(c, 7, 0, 0);
	assert_int_equal(feed_wire(c, 7, 255, 0, four, 4, 1, 1), 0);
	assert_int_equal(feed_pkt(c, 7, 255, 1, 4, 1, 1), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 7, 255, 1, 0, 4, four, 4), 0);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(hcb_hcbtap_stats(c->d, 255)->packets, 2);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(feed_wire(c, 7, bad[i], i, four, 4, 1, 2), 0);
		assert_int_equal(feed_pkt(c, 7, bad[i], i, 4, 1, 2), 0);
		assert_int_equal(feed_chunk(c, HCB_EV_DATA, 7, bad[i], i, 0, 4, four, 4), 0);
		assert_int_equal(feed_chunk(c, HCB_EV_REG, 99, bad[i], i, 0, 4, four, 4), 0);
	}
	assert_int_equal(c->npackets, 2);
	assert_int_equal(stray(c)->problems[HCB_BAD_DEVICE], 10);
	assert_int_equal(c->warns[HCB_BAD_DEVICE], 10);
	assert_int_equal(stray(c)->packets, 0);
	assert_int_equal(hcb_hcbtap_stats(c->d, 255)->problems[HCB_BAD_DEVICE], 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(hcb_hcbtap_finish(c->d), 0);
	ctx_free(c);
}

/* Registrations of 1 MiB whose copy ends short every time (the target's
 * last page unmapped): each is given up when its packet says its copy is
 * over, so what is held never grows with their number. */
static void test_registration_flood(void **state)
{
	static unsigned char junk[65536];
	struct ctx *c = ctx_new();
	const struct hcb_bounds *b = hcb_hcbtap_bounds(c->d);

	(void)state;
	for (uint32_t i = 0; i < 400; i++) {
		uint32_t cid = 1000 + i;

		for (uint64_t off = 0; off < HCB_MAX_REG_BYTES - 65536; off += 65536)
			assert_int_equal(feed_chunk(c, HCB_EV_REG, cid, 0, i, off, HCB_MAX_REG_BYTES,
						    junk, 65536), 0);
		assert_true(b->regs.bytes > HCB_MAX_REG_BYTES);
		assert_int_equal(feed_pkt(c, cid, 0, i, 4, 1, 1), 0);
		assert_int_equal(b->regs.bytes, 0);
	}
	assert_int_equal(c->npackets, 0);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->problems[HCB_UNKNOWN_CONSUMER], 400);
	assert_int_equal(c->reads, 400);
	assert_true(b->regs.peak < 2 * HCB_MAX_REG_BYTES);
	assert_true(b->packets.peak == 0);
	ctx_free(c);
}

/* Registrations that never end at all (no packet after them): the pool
 * stays in its budget, the oldest given up, counted. */
static void test_registration_pool_bound(void **state)
{
	static unsigned char junk[65536];
	struct ctx *c = ctx_new();
	const struct hcb_bounds *b = hcb_hcbtap_bounds(c->d);
	size_t len;
	void *blob;

	(void)state;
	for (uint32_t i = 0; i < 100; i++) {
		assert_int_equal(feed_chunk(c, HCB_EV_REG, 5000 + i, 0, i, 0, HCB_MAX_REG_BYTES, junk,
					    65536), 0);
		assert_true(b->regs.bytes <= HCB_BOUNDS_REG_BYTES);
		assert_true(b->regs.n <= HCB_BOUNDS_REGS);
	}
	assert_true(b->passed[HCB_BOUND_REG_MEM] >= 100 - HCB_BOUNDS_REG_BYTES / HCB_MAX_REG_BYTES);
	assert_int_equal(c->warns[HCB_OVER_BOUND], b->passed[HCB_BOUND_REG_MEM]);
	/* a registration given up for room is no packet lost */
	assert_null(hcb_hcbtap_stats(c->d, 0));
	/* an honest one still gets through */
	blob = blob_of(77, &len);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 77, 0, 0, 0, len, blob, (uint32_t)len), 0);
	assert_non_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 77));
	free(blob);
	assert_int_equal(hcb_hcbtap_finish(c->d), 0);
	assert_int_equal(b->regs.bytes, 0);
	ctx_free(c);
}

/* Unfinished packets, one per thread, claiming 1 MiB each and never
 * sending a byte: the pool stays in its budget, the oldest are lost to it
 * (a problem of their device each, so the accounting calls them lost). */
static void test_packet_pool_bound(void **state)
{
	struct ctx *c = ctx_new();
	const struct hcb_bounds *b = hcb_hcbtap_bounds(c->d);
	struct hcb_consumer_spec mib = x_spec;
	struct hcb_leaf_spec leaf = { HCB_DT_UINT8, 1, { 1u << 20 } };
	size_t len;
	void *blob;
	uint64_t lost;

	(void)state;
	mib.leaves = &leaf;
	assert_int_equal(hcb_reg_build(&mib, 9, &blob, &len), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 9, 0, 0, 0, len, blob, (uint32_t)len), 0);
	free(blob);
	for (uint32_t i = 0; i < 200; i++) {
		assert_int_equal(feed_pkt(c, 9, 0, i, 1u << 20, 1, 100 + i), 0);
		assert_true(b->packets.bytes <= HCB_BOUNDS_PACKET_BYTES);
	}
	lost = hcb_hcbtap_stats(c->d, 0)->problems[HCB_OVER_BOUND];
	assert_true(lost >= 200 - HCB_BOUNDS_PACKET_BYTES / (1u << 20));
	assert_int_equal(lost + hcb_hcbtap_pending(c->d), 200);
	/* a claim past the whole budget gives nothing else up */
	assert_int_equal(feed_pkt(c, 9, 1, 0, UINT64_C(1) << 40, 1, 999), 0);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->problems[HCB_OVER_BOUND], lost);
	assert_int_equal(hcb_hcbtap_finish(c->d), 0);
	assert_int_equal(b->packets.bytes, 0);
	ctx_free(c);
}

/* As many unfinished packets as may be held, found by their chunks in any
 * order (the index by device and seq), and a thread's next packet cuts
 * short its own unfinished one only (the index by thread). */
static void test_pending_index(void **state)
{
	struct ctx *c = ctx_new();
	const unsigned int n = HCB_BOUNDS_PACKETS;
	static const unsigned char four[4] = { 1, 2, 3, 4 };

	(void)state;
	register_x(c, 7, 0, 0);
	/* seqs that differ only far up, and the same seq on several devices */
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(feed_pkt(c, 7, i % 4, (uint64_t)(i / 4) << 40 | 5, 4, 1, 1000 + i),
				 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), n);
	/* a chunk of (device, seq) for another consumer is no chunk of these */
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 8, 0, 5, 0, 4, four, 4), 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), n);
	for (unsigned int i = n; i-- > 1;)
		assert_int_equal(feed_chunk(c, HCB_EV_DATA, 7, i % 4, (uint64_t)(i / 4) << 40 | 5, 0,
					    4, four, 4), 0);
	assert_int_equal(c->npackets, n - 1);
	assert_int_equal(hcb_hcbtap_pending(c->d), 1);
	/* thread 1000 goes on to its next packet: its first is cut short */
	assert_int_equal(feed_pkt(c, 7, 0, 1, 4, 1, 2000), 0);
	assert_int_equal(c->warns[HCB_INCOMPLETE], 0);
	assert_int_equal(feed_pkt(c, 7, 0, 2, 4, 1, 1000), 0);
	assert_int_equal(c->warns[HCB_INCOMPLETE], 1);
	assert_int_equal(hcb_hcbtap_pending(c->d), 2);
	assert_int_equal(c->warns[HCB_BAD_CHUNK], 0);
	assert_int_equal(hcb_hcbtap_finish(c->d), 0);
	assert_int_equal(c->warns[HCB_INCOMPLETE], 3);
	ctx_free(c);
}

/* Time: a packet and a registration that stopped coming are given up at
 * a tick past the expiry, not before. */
static void test_expiry(void **state)
{
	static unsigned char junk[64];
	struct ctx *c = ctx_new();
	const struct hcb_bounds *b = hcb_hcbtap_bounds(c->d);

	(void)state;
	register_x(c, 7, 0, 0);
	assert_int_equal(hcb_hcbtap_tick(c->d, 1000), 0);
	assert_int_equal(feed_pkt(c, 7, 0, 0, 4, 1, 1), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 8, 0, 5, 0, 128, junk, 64), 0);
	assert_int_equal(hcb_hcbtap_tick(c->d, 1000 + HCB_BOUNDS_EXPIRY_NS), 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 1);
	assert_int_equal(b->regs.n, 1);
	assert_int_equal(hcb_hcbtap_tick(c->d, 2000 + HCB_BOUNDS_EXPIRY_NS), 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(b->regs.n, 0);
	assert_int_equal(b->passed[HCB_BOUND_EXPIRED], 2);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->problems[HCB_OVER_BOUND], 1);
	ctx_free(c);
}

/*
 * The race of a short program: threads A (device 0, seq 0) and B (device
 * 1, seq 0) both send consumer 5's registration; B's copy ends short (the
 * ring was full for a chunk), and B's packet comes while A's copy is still
 * arriving, the target already gone.  B's packet waits for A's copy, and
 * device 1's next packet (another consumer's) waits behind it: all
 * delivered, in device 1's order, none "unknown consumer".
 */
static void test_packet_waits_for_other_copy(void **state)
{
	unsigned char four[4] = { 1, 2, 3, 4 };
	struct ctx *c = ctx_new();
	size_t len;
	void *blob = blob_of(5, &len);
	uint32_t half = (uint32_t)len / 2;

	(void)state;
	register_x(c, 6, 1, 99);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 5, 0, 0, 0, len, blob, half), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 5, 1, 0, 0, len, blob, half), 0);
	assert_int_equal(feed_pkt(c, 5, 1, 0, 4, 1, 2), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 1, 0, 0, 4, four, 4), 0);
	assert_int_equal(feed_wire(c, 6, 1, 1, four, 4, 1, 3), 0);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 2);
	/* A's copy ends: the registration is whole, then A's own packet */
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 5, 0, 0, half, len, (char *)blob + half,
				    (uint32_t)len - half), 0);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(feed_pkt(c, 5, 0, 0, 4, 1, 1), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 0, 4, four, 4), 0);
	assert_int_equal(c->npackets, 3);
	assert_int_equal(c->got_dev[0], 1);
	assert_int_equal(c->got_seq[0], 0);
	assert_int_equal(c->got_dev[1], 1);
	assert_int_equal(c->got_seq[1], 1);
	assert_int_equal(c->warns[HCB_UNKNOWN_CONSUMER], 0);
	assert_int_equal(c->reads, 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	free(blob);
	ctx_free(c);
}

/* The same race where A's copy ends short too: the packets that waited
 * are lost as unknown consumer (after one read of the target), and what
 * waited behind them goes on. */
static void test_waiting_copy_fails(void **state)
{
	unsigned char four[4] = { 1, 2, 3, 4 };
	struct ctx *c = ctx_new();
	size_t len;
	void *blob = blob_of(5, &len);

	(void)state;
	register_x(c, 6, 1, 99);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 5, 0, 0, 0, len, blob, 8), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 5, 1, 0, 0, len, blob, 8), 0);
	assert_int_equal(feed_pkt(c, 5, 1, 0, 4, 1, 2), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 1, 0, 0, 4, four, 4), 0);
	assert_int_equal(feed_wire(c, 6, 1, 1, four, 4, 1, 3), 0);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(feed_pkt(c, 5, 0, 0, 4, 1, 1), 0);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(c->got_seq[0], 1);
	assert_int_equal(hcb_hcbtap_stats(c->d, 1)->problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	free(blob);
	ctx_free(c);
}

/* A waiting packet at the end of input: given up (unknown consumer) and
 * what waited behind it delivered. */
static void test_finish_resolves(void **state)
{
	unsigned char four[4] = { 1, 2, 3, 4 };
	struct ctx *c = ctx_new();
	size_t len;
	void *blob = blob_of(5, &len);

	(void)state;
	register_x(c, 6, 1, 99);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 5, 0, 0, 0, len, blob, 8), 0);
	assert_int_equal(feed_wire(c, 5, 1, 0, four, 4, 1, 2), 0);
	assert_int_equal(feed_wire(c, 6, 1, 1, four, 4, 1, 3), 0);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(hcb_hcbtap_finish(c->d), 0);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(c->warns[HCB_UNKNOWN_CONSUMER], 1);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	free(blob);
	ctx_free(c);
}

/* Consumers kept: past the count, a registration is refused (noted), and
 * its packets are unknown consumers, counted. */
static void test_consumer_bound(void **state)
{
	unsigned char four[4] = { 1, 2, 3, 4 };
	struct ctx *c = ctx_new();
	const struct hcb_bounds *b = hcb_hcbtap_bounds(c->d);

	(void)state;
	for (uint32_t id = 1; id <= HCB_BOUNDS_CONSUMERS + 2; id++)
		register_x(c, id, 0, id);
	assert_int_equal(hcb_registry_count(hcb_hcbtap_registry(c->d)), HCB_BOUNDS_CONSUMERS);
	assert_int_equal(b->passed[HCB_BOUND_CONSUMERS], 2);
	assert_int_equal(feed_wire(c, HCB_BOUNDS_CONSUMERS + 1, 0, 0, four, 4, 1, 1), 0);
	assert_int_equal(feed_wire(c, HCB_BOUNDS_CONSUMERS, 0, 1, four, 4, 1, 1), 0);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->problems[HCB_UNKNOWN_CONSUMER], 1);
	ctx_free(c);
}

static void test_pool_arithmetic(void **state)
{
	struct hcb_bounds_pool p = { .limit = 100, .max_n = 2 };

	(void)state;
	assert_int_equal(hcb_bounds_take(&p, 60), 0);
	assert_int_equal(hcb_bounds_take(&p, 41), -ENOBUFS);
	assert_int_equal(hcb_bounds_take(&p, 40), 0);
	assert_int_equal(hcb_bounds_take(&p, 0), -ENOBUFS);   /* the count */
	assert_int_equal(hcb_bounds_take(&p, UINT64_MAX), -ENOBUFS);
	hcb_bounds_give(&p, 60);
	hcb_bounds_give(&p, 40);
	hcb_bounds_give(&p, 40);   /* more than held: nothing wraps */
	assert_int_equal(p.bytes, 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.peak, 100);
	assert_string_equal(hcb_bound_name(HCB_BOUND_DEVICE), "device out of range");
	assert_string_equal(hcb_bound_name(HCB_BOUNDS), "?");
	assert_string_equal(hcb_decode_problem_name(HCB_OVER_BOUND), "over a bound");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_past_the_bound),
		cmocka_unit_test(test_registration_flood),
		cmocka_unit_test(test_registration_pool_bound),
		cmocka_unit_test(test_packet_pool_bound),
		cmocka_unit_test(test_pending_index),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_packet_waits_for_other_copy),
		cmocka_unit_test(test_waiting_copy_fails),
		cmocka_unit_test(test_finish_resolves),
		cmocka_unit_test(test_consumer_bound),
		cmocka_unit_test(test_pool_arithmetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
