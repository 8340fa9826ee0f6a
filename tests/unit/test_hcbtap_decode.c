/* SPDX-License-Identifier: MIT */
/*
 * test_hcbtap_decode.c - the hcbtap decoder (src/providers/hcbtap/decode.h)
 * fed records built by hand in the layout of src/providers/hcbtap/events.h:
 * REG chunks of a blob from hcb_reg_build, a PKT, DATA chunks.  Good
 * streams, every problem the decoder counts, and a mutation fuzz loop
 * (fixed seed).
 *
 *	gcc ... -Isrc src/providers/hcbtap/{decode,registration,pending,consumers}.c \
 *		src/providers/bounds.c src/core/packet.c src/core/registry.c \
 *		src/core/consumer.c src/core/dtype.c src/core/tree.c \
 *		tests/unit/test_hcbtap_decode.c -lcmocka -lm
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

#include "core/consumer.h"
#include "core/registry.h"
#include "providers/hcbtap/decode.h"
#include "providers/hcbtap/events.h"

/* test_huge_payload asks for more memory than exists: under ASan that must
 * be a NULL from malloc, as without it, not an abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* ---- what a test owns, freed by the teardown even when it fails ---- */

#define MAX_OWNED 32
static void *owned[MAX_OWNED];
static void (*owned_free[MAX_OWNED])(void *);

static void *own(void *p, void (*fn)(void *))
{
	for (int i = 0; i < MAX_OWNED; i++)
		if (!owned[i]) {
			owned[i] = p;
			owned_free[i] = fn;
			return p;
		}
	fail_msg("too many allocations owned");
	return NULL;
}

static void release(void *p)
{
	for (int i = 0; i < MAX_OWNED; i++)
		if (owned[i] == p) {
			owned[i] = NULL;
			owned_free[i](p);
			return;
		}
	fail_msg("releasing %p, not owned", p);
}

static int teardown(void **state)
{
	(void)state;
	for (int i = MAX_OWNED; i--;)   /* newest first: contexts before their blobs */
		if (owned[i]) {
			owned_free[i](owned[i]);
			owned[i] = NULL;
		}
	return 0;
}

/* ---- what the callbacks saw ---- */

#define MAX_GOT 64
#define MAX_PAYLOAD 512

struct got {
	uint32_t device, consumer_id, pid, tid;
	uint64_t seq, mono_ns, nbytes;
	const char *name;
	unsigned char payload[MAX_PAYLOAD];
};

struct warning {
	enum hcb_decode_problem what;
	uint32_t device, consumer_id;
	char detail[256];
};

struct ctx {
	struct hcb_hcbtap *d;
	unsigned int npackets;
	struct got got[MAX_GOT];
	unsigned int nwarn;
	struct warning warn[MAX_GOT];
	int stop_with;               /* packet callback's return value */
	unsigned int sum;
	/* per device below HCB_MAX_DEVICES - 1 (the fuzz loop's bookkeeping) */
	uint64_t packets_by_dev[HCB_MAX_DEVICES], warns_by_dev[HCB_MAX_DEVICES];
	/* read_target */
	const void *target_blob;
	size_t target_len;
	int target_err;
	unsigned int reads;
	uint64_t read_addr, read_len;
};

static int on_packet(void *vctx, const struct hcb_packet *p)
{
	struct ctx *c = vctx;
	struct got *g;

	assert_non_null(p->consumer);
	assert_non_null(p->payload);
	/* the consumer is the registry's own */
	assert_ptr_equal(p->consumer, hcb_registry_get(hcb_hcbtap_registry(c->d), p->consumer->id));
	if (c->npackets < MAX_GOT) {
		g = &c->got[c->npackets];
		g->device = p->device;
		g->consumer_id = p->consumer->id;
		g->pid = p->pid;
		g->tid = p->tid;
		g->seq = p->seq;
		g->mono_ns = p->mono_ns;
		g->name = p->consumer->name;
		g->nbytes = p->consumer->total_bytes;
		memcpy(g->payload, p->payload, g->nbytes < MAX_PAYLOAD ? g->nbytes : MAX_PAYLOAD);
	}
	/* all of the payload is readable (ASan checks) */
	for (uint64_t i = 0; i < p->consumer->total_bytes; i++)
		c->sum += p->payload[i];
	c->npackets++;
	if (p->device < HCB_MAX_DEVICES - 1)
		c->packets_by_dev[p->device]++;
	return c->stop_with;
}

static void on_warn(void *vctx, enum hcb_decode_problem what, uint32_t device,
		    uint32_t consumer_id, const char *detail)
{
	struct ctx *c = vctx;

	assert_true(what < HCB_DECODE_PROBLEMS);
	assert_non_null(detail);
	assert_true(strlen(detail) > 0);
	if (c->nwarn < MAX_GOT) {
		c->warn[c->nwarn].what = what;
		c->warn[c->nwarn].device = device;
		c->warn[c->nwarn].consumer_id = consumer_id;
		snprintf(c->warn[c->nwarn].detail, sizeof(c->warn[0].detail), "%s", detail);
	}
	c->nwarn++;
	if (device < HCB_MAX_DEVICES - 1)
		c->warns_by_dev[device]++;
}

static int on_read(void *vctx, uint64_t addr, void *buf, size_t len)
{
	struct ctx *c = vctx;

	c->reads++;
	c->read_addr = addr;
	c->read_len = len;
	if (c->target_err)
		return c->target_err;
	if (!c->target_blob)
		return -EFAULT;
	memset(buf, 0, len);
	memcpy(buf, c->target_blob, len < c->target_len ? len : c->target_len);
	return 0;
}

static const struct hcb_decoder_ops ops_plain = { .packet = on_packet, .warn = on_warn };
static const struct hcb_decoder_ops ops_read = { .packet = on_packet, .read_target = on_read,
						 .warn = on_warn };
static const struct hcb_decoder_ops ops_nowarn = { .packet = on_packet };

static void ctx_destroy(void *p)
{
	struct ctx *c = p;

	hcb_hcbtap_free(c->d);
	free(c);
}

static struct ctx *ctx_new(const struct hcb_decoder_ops *ops)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	assert_int_equal(hcb_hcbtap_new(&c->d, ops, c), 0);
	return own(c, ctx_destroy);
}

static void ctx_free(struct ctx *c)
{
	release(c);
}

/* ---- records ---- */

/* Feed one record from a heap block of exactly its size (ASan guards it). */
static int feed(struct ctx *c, const void *rec, size_t len)
{
	void *p = malloc(len ? len : 1);
	int err;

	assert_non_null(p);
	memcpy(p, rec, len);
	err = hcb_hcbtap_feed(c->d, p, len);
	free(p);
	return err;
}

/* A chunk record: header, len data bytes, pad bytes of 0xaa after them. */
static int feed_chunk(struct ctx *c, uint32_t type, uint32_t cid, uint32_t device, uint64_t seq,
		      uint64_t offset, uint64_t total, const void *data, uint32_t len, size_t pad)
{
	struct hcb_ev_chunk h = { .type = type, .consumer_id = cid, .device = device, .len = len,
				  .seq = seq, .offset = offset, .total = total };
	size_t n = sizeof(h) + len + pad;
	unsigned char *rec = malloc(n);
	int err;

	assert_non_null(rec);
	memcpy(rec, &h, sizeof(h));
	if (len)
		memcpy(rec + sizeof(h), data, len);
	memset(rec + sizeof(h) + len, 0xaa, pad);
	err = hcb_hcbtap_feed(c->d, rec, n);
	free(rec);
	return err;
}

/* The whole blob as REG chunks of at most step bytes. */
static void feed_reg(struct ctx *c, uint32_t cid, uint32_t device, const void *blob, size_t len,
		     size_t step)
{
	for (size_t off = 0; off < len; off += step) {
		size_t n = len - off < step ? len - off : step;

		assert_int_equal(feed_chunk(c, HCB_EV_REG, cid, device, 0, off, len,
					    (const char *)blob + off, (uint32_t)n, off % 3), 0);
	}
}

struct pkt_args {
	uint32_t cid, device, nleaves, pid, tid, magic;
	uint64_t seq, total, ts_ns, reg_addr, reg_len;
};

static int feed_pkt(struct ctx *c, const struct pkt_args *a)
{
	struct hcb_ev_pkt e = {
		.type = HCB_EV_PKT, .consumer_id = a->cid, .device = a->device,
		.nleaves = a->nleaves, .seq = a->seq, .total_bytes = a->total,
		.ts_ns = a->ts_ns, .reg_addr = a->reg_addr, .reg_len = a->reg_len,
		.pid = a->pid, .tid = a->tid, .magic = a->magic ? a->magic : HCB_OUTFEED_MAGIC,
	};

	return feed(c, &e, sizeof(e));
}

/* The payload as DATA chunks of at most step bytes. */
static void feed_data(struct ctx *c, uint32_t cid, uint32_t device, uint64_t seq,
		      const void *payload, size_t total, size_t step)
{
	for (size_t off = 0; off < total; off += step) {
		size_t n = total - off < step ? total - off : step;

		assert_int_equal(feed_chunk(c, HCB_EV_DATA, cid, device, seq, off, total,
					    (const char *)payload + off, (uint32_t)n, 8 - n % 8), 0);
	}
}

/* ---- consumers ---- */

/* "loss": ( f32[2,3] i16[] ) = 26 bytes */
static const struct hcb_leaf_spec loss_leaves[] = {
	{ HCB_DT_FLOAT32, 2, { 2, 3 } }, { HCB_DT_INT16, 0, { 0 } },
};
static const char *const loss_kw[] = { "what", "loss", NULL };
static const struct hcb_consumer_spec loss_spec = {
	.name = "loss", .kwargs = loss_kw, .tree = "( * * )", .nleaves = 2, .leaves = loss_leaves,
};
#define LOSS_BYTES 26

/* "big": u8[300] */
static const struct hcb_leaf_spec big_leaves[] = { { HCB_DT_UINT8, 1, { 300 } } };
static const struct hcb_consumer_spec big_spec = {
	.name = "big", .nleaves = 1, .leaves = big_leaves,
};

/* "none": no leaves, "( )" */
static const struct hcb_consumer_spec none_spec = { .name = "none", .nleaves = 0 };

/* "empty": f32[0] */
static const struct hcb_leaf_spec empty_leaves[] = { { HCB_DT_FLOAT32, 1, { 0 } } };
static const struct hcb_consumer_spec empty_spec = {
	.name = "empty", .nleaves = 1, .leaves = empty_leaves,
};

struct blob {
	void *p;
	size_t len;
};

static struct blob make_blob(const struct hcb_consumer_spec *s, uint32_t id)
{
	struct blob b = { 0 };

	assert_int_equal(hcb_reg_build(s, id, &b.p, &b.len), 0);
	own(b.p, free);
	return b;
}

static void pattern(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static uint64_t problems(struct ctx *c, uint32_t device, enum hcb_decode_problem what)
{
	const struct hcb_stream_stats *s = hcb_hcbtap_stats(c->d, device);

	return s ? s->problems[what] : 0;
}

/* The warnings of one kind seen so far. */
static unsigned int warned(struct ctx *c, enum hcb_decode_problem what)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->nwarn && i < MAX_GOT; i++)
		n += c->warn[i].what == what;
	return n;
}

/* ---- good streams ---- */

static void test_single_packet(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 0x1234);
	unsigned char payload[LOSS_BYTES];
	const struct hcb_stream_stats *st;
	const struct hcb_consumer *k;

	(void)state;
	pattern(payload, sizeof(payload), 1);
	assert_null(hcb_hcbtap_stats(c->d, 0));
	feed_reg(c, 0x1234, 0, b.p, b.len, b.len);
	k = hcb_registry_get(hcb_hcbtap_registry(c->d), 0x1234);
	assert_non_null(k);
	assert_string_equal(k->name, "loss");
	assert_int_equal(k->total_bytes, LOSS_BYTES);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 0x1234, .device = 0, .nleaves = 2,
						       .seq = 0, .total = LOSS_BYTES, .ts_ns = 123456789,
						       .pid = 100, .tid = 101 }), 0);
	assert_int_equal(c->npackets, 0);   /* waits for its data */
	assert_int_equal(hcb_hcbtap_pending(c->d), 1);
	feed_data(c, 0x1234, 0, 0, payload, sizeof(payload), 64);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(c->got[0].device, 0);
	assert_int_equal(c->got[0].seq, 0);
	assert_int_equal(c->got[0].consumer_id, 0x1234);
	assert_string_equal(c->got[0].name, "loss");
	assert_int_equal(c->got[0].mono_ns, 123456789);
	assert_int_equal(c->got[0].pid, 100);
	assert_int_equal(c->got[0].tid, 101);
	assert_int_equal(c->got[0].nbytes, LOSS_BYTES);
	assert_memory_equal(c->got[0].payload, payload, LOSS_BYTES);
	st = hcb_hcbtap_stats(c->d, 0);
	assert_non_null(st);
	assert_int_equal(st->packets, 1);
	assert_int_equal(st->bytes, LOSS_BYTES);
	assert_int_equal(st->first_seq, 0);
	assert_int_equal(st->last_seq, 0);
	assert_int_equal(hcb_stream_gaps(st), 0);
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		assert_int_equal(st->problems[i], 0);
	assert_int_equal(c->nwarn, 0);
	assert_null(hcb_hcbtap_stats(c->d, 1));
	hcb_hcbtap_finish(c->d);
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	ctx_free(c);
}

/* A small packet of a known consumer comes in one record as libhcbtap laid
 * it out (header, time, payload, padded past it as the BPF side's size
 * classes make it): delivered at once; a record too short for the
 * registered size is refused; a packet whose chunks a thread left pending
 * is cut short by it, as by any packet. */
static int feed_inline(struct ctx *c, const struct pkt_args *a, const void *payload, size_t len,
		       size_t padded)
{
	unsigned char rec[sizeof(struct hcb_ev_pkt_wire) + 512] = { 0 };
	struct hcb_ev_pkt_wire w = {
		.type = HCB_EV_PKT_WIRE, .pid = a->pid, .tid = a->tid,
		.pkt = { .magic = a->magic ? a->magic : HCB_OUTFEED_MAGIC, .consumer_id = a->cid,
			 .device = a->device, .nleaves = a->nleaves, .seq = a->seq,
			 .total_bytes = a->total },
		.in = { .ts_ns = a->ts_ns },
	};

	memcpy(rec, &w, sizeof(w));
	memcpy(rec + sizeof(w), payload, len);
	return feed(c, rec, sizeof(w) + padded);
}

static void test_inline_packet(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 0x1234);
	unsigned char payload[LOSS_BYTES];
	struct pkt_args a = { .cid = 0x1234, .device = 2, .nleaves = 2, .seq = 7,
			      .total = LOSS_BYTES, .ts_ns = 55, .pid = 9, .tid = 10 };

	(void)state;
	pattern(payload, sizeof(payload), 3);
	feed_reg(c, 0x1234, 2, b.p, b.len, b.len);
	assert_int_equal(feed_inline(c, &a, payload, sizeof(payload), 256), 0);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(c->got[0].seq, 7);
	assert_int_equal(c->got[0].device, 2);
	assert_int_equal(c->got[0].mono_ns, 55);
	assert_memory_equal(c->got[0].payload, payload, LOSS_BYTES);
	/* too short for its consumer: refused, counted */
	a.seq = 8;
	assert_int_equal(feed_inline(c, &a, payload, LOSS_BYTES - 1, LOSS_BYTES - 1), 0);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(problems(c, 2, HCB_SHORT_PAYLOAD), 1);
	/* the same thread's chunked packet left pending is cut short by it */
	a.seq = 9;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 1);
	a.seq = 10;
	assert_int_equal(feed_inline(c, &a, payload, sizeof(payload), 64), 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(problems(c, 2, HCB_INCOMPLETE), 1);
	assert_int_equal(c->npackets, 2);
	/* an unknown consumer inline is refused like any packet */
	a.cid = 0x999;
	a.seq = 11;
	assert_int_equal(feed_inline(c, &a, payload, sizeof(payload), 64), 0);
	assert_int_equal(problems(c, 2, HCB_UNKNOWN_CONSUMER), 1);
	/* a record cut inside its header is refused, not read past */
	assert_int_equal(feed(c, &(struct hcb_ev_pkt_wire){ .type = HCB_EV_PKT_WIRE },
			      sizeof(struct hcb_ev_pkt_wire) - 1), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), 1);
	assert_int_equal(c->npackets, 2);
	release(b.p);
	ctx_free(c);
}

static void test_many_chunks(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&big_spec, 77);
	unsigned char payload[300];

	(void)state;
	feed_reg(c, 77, 2, b.p, b.len, 13);   /* the blob in 13-byte pieces */
	assert_non_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 77));
	for (unsigned int seq = 0; seq < 4; seq++) {
		pattern(payload, sizeof(payload), seq + 10);
		assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 77, .device = 2, .nleaves = 1,
							       .seq = seq, .total = 300, .tid = 5 }), 0);
		feed_data(c, 77, 2, seq, payload, sizeof(payload), seq == 3 ? 300 : 7 + seq * 20);
		assert_int_equal(c->npackets, seq + 1);
		assert_int_equal(c->got[seq].seq, seq);
		assert_int_equal(c->got[seq].device, 2);
		assert_memory_equal(c->got[seq].payload, payload, 300);
	}
	/* zero-length chunks at the right offset are harmless */
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 77, .device = 2, .nleaves = 1,
						       .seq = 4, .total = 300, .tid = 5 }), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 77, 2, 4, 0, 300, NULL, 0, 0), 0);
	feed_data(c, 77, 2, 4, payload, sizeof(payload), 150);
	assert_int_equal(c->npackets, 5);
	assert_int_equal(hcb_hcbtap_stats(c->d, 2)->bytes, 5 * 300);
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	ctx_free(c);
}

static void test_interleaved_devices(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&big_spec, 9);
	unsigned char payload[3][300];

	(void)state;
	/* each device's thread sends the registration: first complete copy wins */
	feed_reg(c, 9, 1, b.p, b.len, b.len);
	feed_reg(c, 9, 2, b.p, b.len, b.len);
	for (uint32_t dev = 0; dev < 3; dev++) {
		pattern(payload[dev], 300, dev + 40);
		assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 9, .device = dev, .nleaves = 1,
							       .seq = 10 + dev, .total = 300,
							       .tid = 1000 + dev }), 0);
	}
	/* round robin, 50 bytes each, device 2 first */
	for (size_t off = 0; off < 300; off += 50)
		for (int k = 2; k >= 0; k--)
			assert_int_equal(feed_chunk(c, HCB_EV_DATA, 9, (uint32_t)k, 10 + (uint64_t)k, off, 300,
						    payload[k] + off, 50, 0), 0);
	assert_int_equal(c->npackets, 3);
	for (unsigned int i = 0; i < 3; i++) {
		uint32_t dev = c->got[i].device;

		assert_int_equal(dev, 2 - i);
		assert_int_equal(c->got[i].seq, 10 + dev);
		assert_int_equal(c->got[i].tid, 1000 + dev);
		assert_memory_equal(c->got[i].payload, payload[dev], 300);
		assert_int_equal(hcb_hcbtap_stats(c->d, dev)->packets, 1);
		assert_int_equal(hcb_hcbtap_stats(c->d, dev)->first_seq, 10 + dev);
	}
	assert_int_equal(hcb_registry_count(hcb_hcbtap_registry(c->d)), 1);
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	ctx_free(c);
}

/* Two threads tapping one device: packets in flight at once. */
static void test_two_threads_one_device(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);
	unsigned char p1[LOSS_BYTES], p2[LOSS_BYTES];

	(void)state;
	pattern(p1, LOSS_BYTES, 1);
	pattern(p2, LOSS_BYTES, 2);
	feed_reg(c, 5, 0, b.p, b.len, 100);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .seq = 0,
						       .total = LOSS_BYTES, .tid = 1 }), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .seq = 1,
						       .total = LOSS_BYTES, .tid = 2 }), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 1, 0, LOSS_BYTES, p2, 10, 0), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 0, LOSS_BYTES, p1, 20, 0), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 20, LOSS_BYTES, p1 + 20, 6, 0), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 1, 10, LOSS_BYTES, p2 + 10, 16, 0), 0);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(c->got[0].seq, 0);
	assert_memory_equal(c->got[0].payload, p1, LOSS_BYTES);
	assert_int_equal(c->got[1].seq, 1);
	assert_memory_equal(c->got[1].payload, p2, LOSS_BYTES);
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	ctx_free(c);
}

static void test_zero_byte_consumers(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob none = make_blob(&none_spec, 3), empty = make_blob(&empty_spec, 4);

	(void)state;
	feed_reg(c, 3, 0, none.p, none.len, 16);
	feed_reg(c, 4, 0, empty.p, empty.len, 16);
	/* the PKT alone is the whole packet */
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 3, .nleaves = 0, .seq = 0, .total = 0 }), 0);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(c->got[0].consumer_id, 3);
	assert_int_equal(c->got[0].nbytes, 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 4, .nleaves = 1, .seq = 1, .total = 0 }), 0);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(c->got[1].consumer_id, 4);
	assert_string_equal(c->got[1].name, "empty");
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->packets, 2);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->bytes, 0);
	hcb_hcbtap_finish(c->d);   /* nothing pending */
	assert_int_equal(c->nwarn, 0);
	release(none.p);
	release(empty.p);
	ctx_free(c);
}

/* A REG copy for a consumer already known is ignored. */
static void test_duplicate_registration(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5), other = make_blob(&big_spec, 5);
	const struct hcb_consumer *k;

	(void)state;
	feed_reg(c, 5, 0, b.p, b.len, 40);
	k = hcb_registry_get(hcb_hcbtap_registry(c->d), 5);
	assert_non_null(k);
	feed_reg(c, 5, 0, b.p, b.len, 40);
	/* a different blob under the same id changes nothing either */
	feed_reg(c, 5, 1, other.p, other.len, 40);
	assert_ptr_equal(hcb_registry_get(hcb_hcbtap_registry(c->d), 5), k);
	assert_string_equal(k->name, "loss");
	assert_int_equal(hcb_registry_count(hcb_hcbtap_registry(c->d)), 1);
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	release(other.p);
	ctx_free(c);
}

/* A registration copy cut short, then a whole new copy. */
static void test_registration_restarts(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 8);

	(void)state;
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 8, 0, 0, 0, b.len, b.p, 40, 0), 0);
	assert_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 8));
	feed_reg(c, 8, 0, b.p, b.len, 64);
	assert_non_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 8));
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	ctx_free(c);
}

/*
 * Two threads emit the first registration of one consumer at the same time
 * (providers/hcbtap/events.h: REG chunks "on first sight", per thread), so
 * the copies' chunks interleave.  Both carry the same bytes; the
 * registration must be had, with no warning.
 */
static void test_registration_two_copies_interleaved(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 6);
	size_t step = (b.len + 2) / 3;
	unsigned char payload[LOSS_BYTES];
	void *junk;

	(void)state;
	/* a block of the blob's size full of junk, freed, so the decoder's
	 * buffer is likely that block (malloc's per-size free lists are LIFO)
	 * and unwritten bytes cannot pass for the blob */
	junk = malloc(b.len);
	assert_non_null(junk);
	memset(junk, 0xa5, b.len);
	__asm__ volatile("" : : "r"(junk) : "memory");   /* keep the stores */
	free(junk);
	for (size_t off = 0; off < b.len; off += step) {
		size_t n = b.len - off < step ? b.len - off : step;

		for (uint32_t dev = 0; dev < 2; dev++)   /* thread A, then thread B */
			assert_int_equal(feed_chunk(c, HCB_EV_REG, 6, dev, 0, off, b.len,
						    (char *)b.p + off, (uint32_t)n, 0), 0);
	}
	assert_int_equal(warned(c, HCB_BAD_REGISTRATION), 0);
	assert_non_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 6));
	pattern(payload, LOSS_BYTES, 3);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 6, .nleaves = 2, .total = LOSS_BYTES }), 0);
	feed_data(c, 6, 0, 0, payload, LOSS_BYTES, LOSS_BYTES);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(c->nwarn, 0);
	release(b.p);
	ctx_free(c);
}

/* ---- problems ---- */

static void test_bad_magic(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);
	unsigned char payload[LOSS_BYTES] = { 0 };

	(void)state;
	feed_reg(c, 5, 3, b.p, b.len, 1000);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .device = 3, .nleaves = 2, .seq = 9,
						       .total = LOSS_BYTES, .magic = 271829 }), 0);
	/* its data finds no packet */
	feed_data(c, 5, 3, 9, payload, LOSS_BYTES, 10);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(problems(c, 3, HCB_BAD_MAGIC), 1);
	assert_int_equal(c->nwarn, 1);
	assert_int_equal(c->warn[0].what, HCB_BAD_MAGIC);
	assert_int_equal(c->warn[0].device, 3);
	assert_int_equal(c->warn[0].consumer_id, 5);
	assert_non_null(strstr(c->warn[0].detail, "271829"));
	/* a problem makes the device known to the stats, with nothing delivered */
	assert_int_equal(hcb_hcbtap_stats(c->d, 3)->packets, 0);
	assert_int_equal(hcb_stream_gaps(hcb_hcbtap_stats(c->d, 3)), 0);
	hcb_hcbtap_finish(c->d);
	assert_int_equal(c->nwarn, 1);
	release(b.p);
	ctx_free(c);
}

static void test_unknown_consumer(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	unsigned char payload[LOSS_BYTES] = { 0 };

	(void)state;
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 0xabcdef, .device = 1, .nleaves = 2,
						       .seq = 4, .total = LOSS_BYTES,
						       .reg_addr = 0x1000, .reg_len = 200 }), 0);
	feed_data(c, 0xabcdef, 1, 4, payload, LOSS_BYTES, LOSS_BYTES);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(problems(c, 1, HCB_UNKNOWN_CONSUMER), 1);
	assert_int_equal(c->nwarn, 1);
	assert_int_equal(c->warn[0].what, HCB_UNKNOWN_CONSUMER);
	assert_int_equal(c->warn[0].consumer_id, 0xabcdef);
	assert_int_equal(c->warn[0].device, 1);
	assert_non_null(strstr(c->warn[0].detail, "11259375"));   /* 0xabcdef */
	ctx_free(c);
}

static void test_unknown_consumer_read_target(void **state)
{
	struct ctx *c = ctx_new(&ops_read);
	struct blob b = make_blob(&loss_spec, 0x77), wrong = make_blob(&loss_spec, 0x78);
	unsigned char payload[LOSS_BYTES];
	struct pkt_args a = { .cid = 0x77, .device = 0, .nleaves = 2, .seq = 0,
			      .total = LOSS_BYTES, .reg_addr = 0x7f0000001000ull };

	(void)state;
	pattern(payload, LOSS_BYTES, 5);

	/* reg_len 0: nothing to read */
	a.reg_len = 0;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(c->reads, 0);
	assert_int_equal(warned(c, HCB_UNKNOWN_CONSUMER), 1);

	/* the target cannot be read */
	a.reg_len = b.len;
	a.seq = 1;
	c->target_err = -ESRCH;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(c->reads, 1);
	assert_int_equal(c->read_addr, 0x7f0000001000ull);
	assert_int_equal(c->read_len, b.len);
	assert_int_equal(warned(c, HCB_UNKNOWN_CONSUMER), 2);

	/* the target has a blob of another consumer there */
	c->target_err = 0;
	c->target_blob = wrong.p;
	c->target_len = wrong.len;
	a.seq = 2;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(warned(c, HCB_BAD_REGISTRATION), 1);
	assert_int_equal(warned(c, HCB_UNKNOWN_CONSUMER), 3);
	assert_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 0x78));

	/* the target has it: the packet decodes */
	c->target_blob = b.p;
	c->target_len = b.len;
	a.seq = 3;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(c->reads, 3);
	feed_data(c, 0x77, 0, 3, payload, LOSS_BYTES, 11);
	assert_int_equal(c->npackets, 1);
	assert_int_equal(c->got[0].seq, 3);
	assert_memory_equal(c->got[0].payload, payload, LOSS_BYTES);
	assert_string_equal(c->got[0].name, "loss");

	/* known now: no more reads */
	a.seq = 4;
	assert_int_equal(feed_pkt(c, &a), 0);
	feed_data(c, 0x77, 0, 4, payload, LOSS_BYTES, 100);
	assert_int_equal(c->reads, 3);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(problems(c, 0, HCB_UNKNOWN_CONSUMER), 3);
	assert_int_equal(problems(c, 0, HCB_BAD_REGISTRATION), 1);
	release(b.p);
	release(wrong.p);
	ctx_free(c);
}

static void test_bad_registration(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);
	unsigned char *bad = malloc(b.len);

	(void)state;
	assert_non_null(bad);
	own(bad, free);
	/* a corrupt blob */
	memcpy(bad, b.p, b.len);
	bad[0] ^= 0xff;
	feed_reg(c, 5, 2, bad, b.len, 50);
	assert_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 5));
	assert_int_equal(problems(c, 2, HCB_BAD_REGISTRATION), 1);
	/* a good blob sent under another consumer's id */
	feed_reg(c, 6, 2, b.p, b.len, 50);
	assert_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 6));
	assert_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 5));
	assert_int_equal(problems(c, 2, HCB_BAD_REGISTRATION), 2);
	assert_int_equal(c->nwarn, 2);
	assert_int_equal(c->warn[1].what, HCB_BAD_REGISTRATION);
	assert_int_equal(c->warn[1].consumer_id, 6);
	/* then the right one */
	feed_reg(c, 5, 2, b.p, b.len, 50);
	assert_non_null(hcb_registry_get(hcb_hcbtap_registry(c->d), 5));
	assert_int_equal(c->nwarn, 2);
	release(bad);
	release(b.p);
	ctx_free(c);
}

static void test_short_payload(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);

	(void)state;
	feed_reg(c, 5, 0, b.p, b.len, 1000);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .seq = 0,
						       .total = LOSS_BYTES - 1 }), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .seq = 1,
						       .total = LOSS_BYTES + 4 }), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 3, .seq = 2,
						       .total = LOSS_BYTES }), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .seq = 3,
						       .total = UINT64_MAX }), 0);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(problems(c, 0, HCB_SHORT_PAYLOAD), 4);
	assert_int_equal(warned(c, HCB_SHORT_PAYLOAD), 4);
	assert_non_null(strstr(c->warn[0].detail, "25"));   /* 25 bytes sent, 26 registered */
	assert_non_null(strstr(c->warn[0].detail, "26"));
	/* nothing left pending */
	hcb_hcbtap_finish(c->d);
	assert_int_equal(c->nwarn, 4);
	release(b.p);
	ctx_free(c);
}

static void test_bad_chunks(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);
	unsigned char payload[LOSS_BYTES + 16];
	struct pkt_args a = { .cid = 5, .nleaves = 2, .total = LOSS_BYTES, .tid = 1 };
	unsigned int n = 0;

	(void)state;
	pattern(payload, sizeof(payload), 0);
	feed_reg(c, 5, 0, b.p, b.len, 1000);

	/* a chunk that skips ahead */
	a.seq = 0;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 0, LOSS_BYTES, payload, 10, 0), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 16, LOSS_BYTES, payload + 16, 10, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	/* the packet is gone: its missing chunk completes nothing */
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 10, LOSS_BYTES, payload + 10, 6, 0), 0);
	assert_int_equal(c->npackets, 0);

	/* a chunk that goes back */
	a.seq = 1;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 1, 0, LOSS_BYTES, payload, 10, 0), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 1, 5, LOSS_BYTES, payload + 5, 21, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);

	/* a chunk past the payload's end */
	a.seq = 2;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 2, 0, LOSS_BYTES, payload, LOSS_BYTES + 1, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);

	/* a chunk claiming another total */
	a.seq = 3;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 3, 0, LOSS_BYTES + 16, payload, 10, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);

	/* an offset far out */
	a.seq = 4;
	assert_int_equal(feed_pkt(c, &a), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 4, UINT64_MAX - 3, LOSS_BYTES, payload, 10, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(c->npackets, 0);

	/* registration chunks out of bounds */
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 50, 0, 0, 0, 0, payload, 0, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 50, 0, 0, 0, HCB_MAX_REG_BYTES + 1, payload, 10, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 50, 0, 0, 100, 90, payload, 1, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 50, 0, 0, 80, 90, payload, 11, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 50, 0, 0, 0, 90, payload, 10, 0), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_REG, 50, 0, 0, 10, 91, payload, 10, 0), 0);   /* total changed */
	assert_int_equal(problems(c, 0, HCB_BAD_CHUNK), ++n);
	assert_int_equal(warned(c, HCB_BAD_CHUNK), n);

	/* and a good packet still decodes after all that */
	a.seq = 5;
	a.tid = 2;
	assert_int_equal(feed_pkt(c, &a), 0);
	feed_data(c, 5, 0, 5, payload, LOSS_BYTES, 9);
	assert_int_equal(c->npackets, 1);
	assert_memory_equal(c->got[0].payload, payload, LOSS_BYTES);
	release(b.p);
	ctx_free(c);
}

/* A DATA chunk of no packet is dropped quietly (its PKT was rejected and
 * counted already, or never came). */
static void test_stray_chunk(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	unsigned char payload[8] = { 0 };

	(void)state;
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 0, 8, payload, 8, 0), 0);
	assert_int_equal(c->npackets, 0);
	hcb_hcbtap_finish(c->d);
	assert_int_equal(c->npackets, 0);
	ctx_free(c);
}

static void test_bad_records(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	unsigned char raw[sizeof(struct hcb_ev_pkt) + 8] = { 0 };
	uint32_t t;
	struct hcb_ev_chunk h = { .type = HCB_EV_DATA, .consumer_id = 1, .device = 7, .len = 9,
				  .total = 100 };
	unsigned int n = 0;

	(void)state;
	assert_int_equal(feed(c, raw, 0), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	assert_int_equal(feed(c, raw, 3), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	/* unknown types */
	for (t = 0; t < 6; t += 4) {   /* 0 and 4 */
		memcpy(raw, &t, 4);
		assert_int_equal(feed(c, raw, sizeof(raw)), 0);
		assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	}
	t = 0xffffffffu;
	memcpy(raw, &t, 4);
	assert_int_equal(feed(c, raw, sizeof(raw)), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	/* records shorter than their header */
	t = HCB_EV_PKT;
	memcpy(raw, &t, 4);
	assert_int_equal(feed(c, raw, sizeof(struct hcb_ev_pkt) - 1), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	assert_int_equal(feed(c, raw, 4), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	t = HCB_EV_REG;
	memcpy(raw, &t, 4);
	assert_int_equal(feed(c, raw, sizeof(struct hcb_ev_chunk) - 1), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	t = HCB_EV_DATA;
	memcpy(raw, &t, 4);
	assert_int_equal(feed(c, raw, 8), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), ++n);
	/* a chunk claiming more bytes than its record has (8 of 9) */
	memcpy(raw, &h, sizeof(h));
	assert_int_equal(feed(c, raw, sizeof(h) + 8), 0);
	assert_int_equal(problems(c, 7, HCB_BAD_RECORD), 1);
	h.len = 0xffffffffu;
	memcpy(raw, &h, sizeof(h));
	assert_int_equal(feed(c, raw, sizeof(raw)), 0);
	assert_int_equal(problems(c, 7, HCB_BAD_RECORD), 2);
	h.type = HCB_EV_REG;
	memcpy(raw, &h, sizeof(h));
	assert_int_equal(feed(c, raw, sizeof(raw)), 0);
	assert_int_equal(problems(c, 7, HCB_BAD_RECORD), 3);
	assert_int_equal(warned(c, HCB_BAD_RECORD), n + 3);
	assert_int_equal(c->nwarn, n + 3);
	assert_int_equal(c->npackets, 0);
	ctx_free(c);
}

static void test_incomplete_new_packet(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);
	unsigned char p0[LOSS_BYTES], p1[LOSS_BYTES];

	(void)state;
	pattern(p0, LOSS_BYTES, 0);
	pattern(p1, LOSS_BYTES, 1);
	feed_reg(c, 5, 4, b.p, b.len, 1000);
	/* thread 11 and thread 12 both have a packet in flight */
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .device = 4, .nleaves = 2, .seq = 0,
						       .total = LOSS_BYTES, .tid = 11, .pid = 1 }), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 4, 0, 0, LOSS_BYTES, p0, 10, 0), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .device = 4, .nleaves = 2, .seq = 1,
						       .total = LOSS_BYTES, .tid = 12, .pid = 1 }), 0);
	assert_int_equal(c->nwarn, 0);   /* another thread: not a cut */
	/* thread 11 starts its next packet: packet 0 was cut short */
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .device = 4, .nleaves = 2, .seq = 2,
						       .total = LOSS_BYTES, .tid = 11, .pid = 1 }), 0);
	assert_int_equal(problems(c, 4, HCB_INCOMPLETE), 1);
	assert_int_equal(c->nwarn, 1);
	assert_int_equal(c->warn[0].what, HCB_INCOMPLETE);
	assert_int_equal(c->warn[0].device, 4);
	assert_int_equal(c->warn[0].consumer_id, 5);
	/* the rest of packet 0 comes too late: nothing */
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 4, 0, 10, LOSS_BYTES, p0 + 10, 16, 0), 0);
	assert_int_equal(c->npackets, 0);
	/* packets 1 and 2 complete */
	feed_data(c, 5, 4, 2, p0, LOSS_BYTES, 8);
	feed_data(c, 5, 4, 1, p1, LOSS_BYTES, 8);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(c->got[0].seq, 2);
	assert_memory_equal(c->got[0].payload, p0, LOSS_BYTES);
	assert_int_equal(c->got[1].seq, 1);
	assert_memory_equal(c->got[1].payload, p1, LOSS_BYTES);
	/* 1..2 delivered, 0 missing from the stats' point of view */
	assert_int_equal(hcb_hcbtap_stats(c->d, 4)->first_seq, 1);
	assert_int_equal(hcb_hcbtap_stats(c->d, 4)->last_seq, 2);
	hcb_hcbtap_finish(c->d);
	assert_int_equal(c->nwarn, 1);
	release(b.p);
	ctx_free(c);
}

static void test_incomplete_at_end(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5);
	unsigned char p0[LOSS_BYTES];

	(void)state;
	pattern(p0, LOSS_BYTES, 0);
	feed_reg(c, 5, 0, b.p, b.len, 1000);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .device = 0, .nleaves = 2, .seq = 7,
						       .total = LOSS_BYTES, .tid = 1 }), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 7, 0, LOSS_BYTES, p0, 25, 0), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .device = 1, .nleaves = 2, .seq = 3,
						       .total = LOSS_BYTES, .tid = 2 }), 0);
	assert_int_equal(c->nwarn, 0);
	assert_int_equal(hcb_hcbtap_pending(c->d), 2);
	hcb_hcbtap_finish(c->d);
	assert_int_equal(hcb_hcbtap_pending(c->d), 0);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(problems(c, 0, HCB_INCOMPLETE), 1);
	assert_int_equal(problems(c, 1, HCB_INCOMPLETE), 1);
	assert_int_equal(warned(c, HCB_INCOMPLETE), 2);
	/* finishing twice finds nothing more */
	hcb_hcbtap_finish(c->d);
	assert_int_equal(c->nwarn, 2);
	/* the last byte after the end: nothing */
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 7, 25, LOSS_BYTES, p0 + 25, 1, 0), 0);
	assert_int_equal(c->npackets, 0);
	release(b.p);
	ctx_free(c);
}

static void deliver_seq(struct ctx *c, uint32_t cid, uint32_t dev, uint64_t seq, uint32_t tid)
{
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = cid, .device = dev, .nleaves = 0,
						       .seq = seq, .tid = tid }), 0);
}

static void test_gaps(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&none_spec, 3);
	static const uint64_t seqs[] = { 3, 4, 6, 10, 5, 12 };
	const struct hcb_stream_stats *st;

	(void)state;
	feed_reg(c, 3, 0, b.p, b.len, 1000);
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		deliver_seq(c, 3, 2, seqs[i], 1);
	st = hcb_hcbtap_stats(c->d, 2);
	assert_non_null(st);
	assert_int_equal(st->packets, 6);
	assert_int_equal(st->first_seq, 3);
	assert_int_equal(st->last_seq, 12);
	assert_int_equal(hcb_stream_gaps(st), 10 - 6);   /* 7 8 9 11 */
	/* another device counts alone */
	deliver_seq(c, 3, 0, 0, 1);
	deliver_seq(c, 3, 0, 1, 1);
	assert_int_equal(hcb_stream_gaps(hcb_hcbtap_stats(c->d, 0)), 0);
	assert_int_equal(hcb_stream_gaps(hcb_hcbtap_stats(c->d, 2)), 4);
	/* no packets, no gaps */
	{
		struct hcb_stream_stats none = { .first_seq = 5, .last_seq = 9 };

		assert_int_equal(hcb_stream_gaps(&none), 0);
	}
	release(b.p);
	ctx_free(c);
}

/* A sequence number seen twice (a replayed or buggy stream) must not turn
 * the gap count into 2^64 - 1. */
static void test_gaps_duplicate_seq(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&none_spec, 3);

	(void)state;
	feed_reg(c, 3, 0, b.p, b.len, 1000);
	deliver_seq(c, 3, 0, 5, 1);
	deliver_seq(c, 3, 0, 5, 2);
	assert_int_equal(c->npackets, 2);
	assert_int_equal(hcb_hcbtap_stats(c->d, 0)->packets, 2);
	assert_true(hcb_stream_gaps(hcb_hcbtap_stats(c->d, 0)) <= 1);
	release(b.p);
	ctx_free(c);
}

/* Devices past HCB_MAX_DEVICES: never delivered (nothing downstream has
 * room for one), counted apart from real ones, never as device 255. */
static void test_device_out_of_range(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&none_spec, 3);
	const struct hcb_stream_stats *stray;

	(void)state;
	feed_reg(c, 3, 0, b.p, b.len, 1000);
	deliver_seq(c, 3, 1000, 42, 1);
	assert_int_equal(c->npackets, 0);
	assert_int_equal(warned(c, HCB_BAD_DEVICE), 1);
	assert_non_null(strstr(c->warn[0].detail, "device 1000"));
	assert_null(hcb_hcbtap_stats(c->d, 1000));
	assert_null(hcb_hcbtap_stats(c->d, HCB_MAX_DEVICES));
	assert_null(hcb_hcbtap_stats(c->d, HCB_MAX_DEVICES - 1));   /* 255 never sent anything */
	stray = hcb_hcbtap_stray(c->d);
	assert_non_null(stray);
	assert_int_equal(stray->problems[HCB_BAD_DEVICE], 1);
	assert_int_equal(stray->packets, 0);
	release(b.p);
	ctx_free(c);
}

static void test_callback_stops(void **state)
{
	struct ctx *c = ctx_new(&ops_plain);
	struct blob b = make_blob(&loss_spec, 5), n = make_blob(&none_spec, 3);
	unsigned char p[LOSS_BYTES] = { 0 };

	(void)state;
	feed_reg(c, 5, 0, b.p, b.len, 1000);
	feed_reg(c, 3, 0, n.p, n.len, 1000);
	c->stop_with = -ECANCELED;
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .total = LOSS_BYTES }), 0);
	assert_int_equal(feed_chunk(c, HCB_EV_DATA, 5, 0, 0, 0, LOSS_BYTES, p, LOSS_BYTES, 0), -ECANCELED);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 3, .seq = 1 }), -ECANCELED);
	assert_int_equal(c->npackets, 2);
	/* the decoder goes on when asked again */
	c->stop_with = 0;
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 3, .seq = 2 }), 0);
	assert_int_equal(c->npackets, 3);
	release(b.p);
	release(n.p);
	ctx_free(c);
}

/* Without a warn callback problems are still counted. */
static void test_no_warn_callback(void **state)
{
	struct ctx *c = ctx_new(&ops_nowarn);

	(void)state;
	assert_int_equal(feed(c, "xx", 2), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .magic = 1 }), 0);
	assert_int_equal(problems(c, 0, HCB_BAD_RECORD), 1);
	assert_int_equal(problems(c, 0, HCB_BAD_MAGIC), 1);
	assert_int_equal(c->nwarn, 0);
	ctx_free(c);
}

static void test_problem_names(void **state)
{
	(void)state;
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++) {
		const char *n = hcb_decode_problem_name((enum hcb_decode_problem)i);

		assert_non_null(n);
		assert_true(strlen(n) > 1);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(n, hcb_decode_problem_name((enum hcb_decode_problem)j));
	}
	assert_string_equal(hcb_decode_problem_name(HCB_BAD_MAGIC), "bad magic");
	assert_string_equal(hcb_decode_problem_name(HCB_INCOMPLETE), "incomplete");
	assert_string_equal(hcb_decode_problem_name(HCB_DECODE_PROBLEMS), "?");
}

/*
 * A target registers f32[2^59] (2^61 bytes: a valid shape, hcb_consumer_from_reg
 * accepts it) and sends a packet claiming that size.  The decoder must not
 * stop the session with -ENOMEM (the capture engine ends tracing on it): the
 * packet is a problem of that stream, and later packets still decode.
 */
static void test_huge_payload(void **state)
{
	static const struct hcb_leaf_spec leaves[] = { { HCB_DT_FLOAT32, 1, { UINT64_C(1) << 59 } } };
	const struct hcb_consumer_spec huge = { .name = "huge", .nleaves = 1, .leaves = leaves };
	struct ctx *c = ctx_new(&ops_plain);
	struct blob h = make_blob(&huge, 66), b = make_blob(&loss_spec, 5);
	unsigned char p[LOSS_BYTES];

	(void)state;
	pattern(p, LOSS_BYTES, 9);
	feed_reg(c, 66, 0, h.p, h.len, 1000);
	feed_reg(c, 5, 0, b.p, b.len, 1000);
	assert_int_equal(hcb_registry_get(hcb_hcbtap_registry(c->d), 66)->total_bytes, UINT64_C(1) << 61);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 66, .nleaves = 1, .seq = 0,
						       .total = UINT64_C(1) << 61, .tid = 1 }), 0);
	assert_int_equal(feed_pkt(c, &(struct pkt_args){ .cid = 5, .nleaves = 2, .seq = 1,
						       .total = LOSS_BYTES, .tid = 2 }), 0);
	feed_data(c, 5, 0, 1, p, LOSS_BYTES, 100);
	assert_int_equal(c->npackets, 1);
	release(h.p);
	release(b.p);
	ctx_free(c);
}

/* ---- mutation fuzz ---- */

static uint64_t rng = 0x13198a2e03707344ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static void test_fuzz(void **state)
{
	const struct hcb_consumer_spec *specs[] = { &loss_spec, &big_spec, &none_spec, &empty_spec };
	static const uint32_t ids[] = { 11, 12, 13, 14 };
	struct blob blobs[4];
	struct ctx *c;
	unsigned char rec[sizeof(struct hcb_ev_chunk) + 600];
	uint64_t delivered = 0;

	(void)state;
	for (int i = 0; i < 4; i++)
		blobs[i] = make_blob(specs[i], ids[i]);
	for (int round = 0; round < 40; round++) {
		uint64_t nproblems = 0, npackets = 0;

		c = ctx_new(round % 2 ? &ops_read : &ops_plain);
		c->target_blob = blobs[round % 4].p;
		c->target_len = blobs[round % 4].len;
		for (int iter = 0; iter < 500; iter++) {
			unsigned int k = rnd() % 4, kind = rnd() % 10;
			uint32_t cid = rnd() % 8 ? ids[k] : rnd();
			uint32_t dev = rnd() % 16 ? rnd() % 3 : rnd();
			uint64_t seq = rnd() % 8;
			size_t len;
			int err;

			memset(rec, 0, sizeof(rec));
			if (kind < 2) {                               /* a REG chunk */
				struct hcb_ev_chunk h = { .type = HCB_EV_REG, .consumer_id = cid,
							  .device = dev, .total = blobs[k].len };
				size_t step = 1 + rnd() % blobs[k].len;

				h.offset = (rnd() % 4 ? (rnd() % (blobs[k].len / step + 1)) * step
						      : rnd() % (blobs[k].len + 2));
				h.len = h.offset < blobs[k].len
					? (uint32_t)(blobs[k].len - h.offset < step ? blobs[k].len - h.offset : step)
					: 0;
				if (h.len > 600)
					h.len = 600;
				if (rnd() % 8 == 0)
					h.total = rnd() % 2048;
				memcpy(rec, &h, sizeof(h));
				if (h.offset < blobs[k].len)
					memcpy(rec + sizeof(h), (char *)blobs[k].p + h.offset,
					       h.len <= blobs[k].len - h.offset ? h.len : 0);
				len = sizeof(h) + h.len;
			} else if (kind < 5) {                        /* a PKT */
				const struct hcb_consumer *kc =
					hcb_registry_get(hcb_hcbtap_registry(c->d), cid);
				struct hcb_ev_pkt e = {
					.type = HCB_EV_PKT, .consumer_id = cid, .device = dev,
					.nleaves = kc && rnd() % 8 ? kc->nleaves : rnd() % 4,
					.seq = seq,
					.total_bytes = kc && rnd() % 8 && kc->total_bytes < (1u << 20)
						? kc->total_bytes : rnd() % 400,
					.reg_addr = rnd(), .reg_len = rnd() % 4 ? blobs[k].len : rnd() % 4096,
					.pid = 1, .tid = rnd() % 3,
					.magic = rnd() % 16 ? HCB_OUTFEED_MAGIC : rnd(),
				};

				memcpy(rec, &e, sizeof(e));
				len = sizeof(e);
			} else if (kind < 9) {                        /* a DATA chunk */
				const struct hcb_consumer *kc =
					hcb_registry_get(hcb_hcbtap_registry(c->d), cid);
				uint64_t total = kc && rnd() % 8 ? kc->total_bytes : rnd() % 400;
				struct hcb_ev_chunk h = { .type = HCB_EV_DATA, .consumer_id = cid,
							  .device = dev, .seq = seq, .total = total };

				h.offset = total ? (rnd() % 3 ? 0 : rnd() % total) : 0;
				h.len = (uint32_t)(total - h.offset < 600 ? total - h.offset : 600);
				if (rnd() % 4 == 0 && h.len)
					h.len = rnd() % h.len;
				memcpy(rec, &h, sizeof(h));
				for (uint32_t i = 0; i < h.len; i++)
					rec[sizeof(h) + i] = (unsigned char)rnd();
				len = sizeof(h) + h.len;
			} else {                                      /* garbage */
				len = rnd() % sizeof(rec);
				for (size_t i = 0; i < len; i++)
					rec[i] = (unsigned char)rnd();
				if (len >= 4 && rnd() % 2) {
					uint32_t t = 1 + rnd() % 3;

					memcpy(rec, &t, 4);
				}
			}
			/* then damage it a little */
			for (unsigned int m = rnd() % 4 == 0 ? 1 + rnd() % 3 : 0; m--;) {
				if (rnd() % 3 == 0)
					len = rnd() % (len + 1);
				else if (len)
					rec[rnd() % len] ^= (unsigned char)(1u << (rnd() % 8));
			}
			err = feed(c, rec, len);
			assert_int_equal(err, 0);
		}
		hcb_hcbtap_finish(c->d);
		assert_int_equal(hcb_hcbtap_pending(c->d), 0);
		/* every problem was warned, every delivery counted, per device
		 * (the last ordinal and those past it left out: how they are
		 * counted is not this loop's business) */
		for (uint32_t dev = 0; dev < HCB_MAX_DEVICES - 1; dev++) {
			const struct hcb_stream_stats *st = hcb_hcbtap_stats(c->d, dev);
			uint64_t np = 0;

			if (!st) {
				assert_int_equal(c->packets_by_dev[dev], 0);
				assert_int_equal(c->warns_by_dev[dev], 0);
				continue;
			}
			for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
				np += st->problems[i];
			assert_int_equal(st->packets, c->packets_by_dev[dev]);
			assert_int_equal(np, c->warns_by_dev[dev]);
			npackets += st->packets;
			nproblems += np;
		}
		assert_true(nproblems > 0);
		delivered += npackets;
		ctx_free(c);
	}
	print_message("fuzz: %llu packets delivered\n", (unsigned long long)delivered);
	assert_true(delivered > 100);
	for (int i = 0; i < 4; i++)
		release(blobs[i].p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_single_packet, teardown),
		cmocka_unit_test_teardown(test_inline_packet, teardown),
		cmocka_unit_test_teardown(test_many_chunks, teardown),
		cmocka_unit_test_teardown(test_interleaved_devices, teardown),
		cmocka_unit_test_teardown(test_two_threads_one_device, teardown),
		cmocka_unit_test_teardown(test_zero_byte_consumers, teardown),
		cmocka_unit_test_teardown(test_duplicate_registration, teardown),
		cmocka_unit_test_teardown(test_registration_restarts, teardown),
		cmocka_unit_test_teardown(test_registration_two_copies_interleaved, teardown),
		cmocka_unit_test_teardown(test_bad_magic, teardown),
		cmocka_unit_test_teardown(test_unknown_consumer, teardown),
		cmocka_unit_test_teardown(test_unknown_consumer_read_target, teardown),
		cmocka_unit_test_teardown(test_bad_registration, teardown),
		cmocka_unit_test_teardown(test_short_payload, teardown),
		cmocka_unit_test_teardown(test_bad_chunks, teardown),
		cmocka_unit_test_teardown(test_stray_chunk, teardown),
		cmocka_unit_test_teardown(test_bad_records, teardown),
		cmocka_unit_test_teardown(test_incomplete_new_packet, teardown),
		cmocka_unit_test_teardown(test_incomplete_at_end, teardown),
		cmocka_unit_test_teardown(test_gaps, teardown),
		cmocka_unit_test_teardown(test_gaps_duplicate_seq, teardown),
		cmocka_unit_test_teardown(test_device_out_of_range, teardown),
		cmocka_unit_test_teardown(test_callback_stops, teardown),
		cmocka_unit_test_teardown(test_no_warn_callback, teardown),
		cmocka_unit_test_teardown(test_problem_names, teardown),
		cmocka_unit_test_teardown(test_huge_payload, teardown),
		cmocka_unit_test_teardown(test_fuzz, teardown),
	};

	return cmocka_run_group_tests_name("hcbtap_decode", tests, NULL, NULL);
}
