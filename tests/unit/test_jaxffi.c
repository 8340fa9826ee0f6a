/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi.c - the jaxffi provider's user side: calls of JAX's own
 * callbacks put back together from hand-built ring records, the call sites
 * made into consumers, and what must be refused (lost and stray chunks,
 * sizes that disagree, types hcbtrace cannot show, a failed device
 * self-check) without a crash; the version table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpf/hcbtap_events.h"
#include "bpf/jaxffi_abi.h"
#include "bpf/jaxffi_events.h"
#include "dtype.h"
#include "idprint.h"
#include "jaxffi.h"
#include "target.h"

struct seen {
	int packets;
	struct hcb_packet last;
	const struct hcb_consumer *consumer;
	unsigned char payload[4096];
	char text[512];
	int problems[HCB_DECODE_PROBLEMS];
	char warning[256];
	int refusals;
};

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	static const struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct seen *s = ctx;
	struct hcb_buf b = HCB_BUF_INIT;

	s->packets++;
	s->last = *p;
	s->consumer = p->consumer;
	if (p->consumer->total_bytes <= sizeof(s->payload))
		memcpy(s->payload, p->payload, p->consumer->total_bytes);
	assert_int_equal(hcb_idprint(&b, p->consumer, "cpu", p->device, p->payload, &o), 0);
	snprintf(s->text, sizeof(s->text), "%s", hcb_buf_str(&b));
	hcb_buf_free(&b);
	return 0;
}

static void on_warn(void *ctx, enum hcb_decode_problem what, uint32_t device, uint32_t consumer,
		    const char *detail)
{
	struct seen *s = ctx;

	(void)device;
	(void)consumer;
	s->problems[what]++;
	snprintf(s->warning, sizeof(s->warning), "%s", detail);
}

static const struct hcb_decoder_ops ops = { .packet = on_packet, .warn = on_warn };

/* A call record as jaxffi.bpf.c writes it after a thunk of jit_step. */
static struct hcb_ev_jcall jcall(uint32_t dev, uint64_t seq, uint32_t tid, const char *op,
				 uint32_t nargs, uint64_t total)
{
	struct hcb_ev_jcall e = {
		.type = HCB_EV_JCALL, .device = dev, .seq = seq, .ts_ns = 1000 + seq, .pid = 7,
		.tid = tid, .index = 3, .total_bytes = total, .nargs = nargs,
		.handler = HCB_JAXFFI_PYTHON, .thunk_device = dev,
		.flags = HCB_JAXFFI_F_THUNK | HCB_JAXFFI_F_INDEX,
	};

	snprintf(e.op, sizeof(e.op), "%s", op);
	snprintf(e.module, sizeof(e.module), "jit_step");
	snprintf(e.target[0], sizeof(e.target[0]), "xla_ffi_python_cpu_callback");
	e.op_len = (uint32_t)strlen(e.op);
	e.module_len = 8;
	e.target_len[0] = (uint32_t)strlen(e.target[0]);
	return e;
}

static void feed_call(struct hcb_jaxffi *x, const struct hcb_ev_jcall *e)
{
	assert_int_equal(hcb_jaxffi_feed(x, e, sizeof(*e)), 0);
}

static void feed_arg(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t arg,
		     uint32_t xla_dtype, uint32_t rank, const uint64_t *dims, uint64_t nbytes)
{
	struct hcb_ev_jarg e = { .type = HCB_EV_JARG, .device = dev, .seq = seq, .arg = arg,
				 .dtype = xla_dtype, .rank = rank, .nbytes = nbytes };

	memcpy(e.dims, dims, (rank < HCB_MAX_DIMS ? rank : HCB_MAX_DIMS) * sizeof(*dims));
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), 0);
}

static void feed_data(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t arg,
		      uint64_t offset, uint64_t total, const void *data, uint32_t len)
{
	unsigned char buf[sizeof(struct hcb_ev_chunk) + 256];
	struct hcb_ev_chunk c = { .type = HCB_EV_JDATA, .consumer_id = arg, .device = dev,
				  .len = len, .seq = seq, .offset = offset, .total = total };

	assert_true(len <= 256);
	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), data, len);
	/* padded to a size class, as the ring holds it */
	assert_int_equal(hcb_jaxffi_feed(x, buf, sizeof(c) + 64 > sizeof(c) + len ?
					 sizeof(c) + 64 : sizeof(c) + len), 0);
}

/* One float32[3] operand, whole. */
static void f32_call(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t tid,
		     const char *op, const float *v)
{
	static const uint64_t d3[] = { 3 };
	struct hcb_ev_jcall e = jcall(dev, seq, tid, op, 1, 12);

	feed_call(x, &e);
	feed_arg(x, dev, seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, dev, seq, 0, 0, 12, v, 12);
}

static int no_problems(const struct seen *s)
{
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		if (s->problems[i])
			return 0;
	return 1;
}

static void test_one_call(void **state)
{
	float v[3] = { 1, 2, 3 }, w[3] = { 4, 5, 6 };
	const struct hcb_stream_stats *st;
	const struct hcb_consumer *c;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	f32_call(x, 2, 0, 11, "debug_print.1", v);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.device, 2);
	assert_int_equal(s.last.seq, 0);
	assert_int_equal(s.last.tid, 11);
	c = s.consumer;
	assert_string_equal(c->name, "debug_print.1");
	assert_string_equal(hcb_consumer_kwarg(c, "callback"), "debug_print.1");
	assert_string_equal(hcb_consumer_kwarg(c, "module"), "jit_step");
	assert_string_equal(c->tree, "*");
	assert_int_equal(c->nleaves, 1);
	assert_int_equal(c->leaves[0].dtype, HCB_DT_FLOAT32);
	assert_true(c->id != 0);
	assert_memory_equal(s.payload, v, 12);
	assert_string_equal(s.text, "callback: debug_print.1 device: cpu:2 module: jit_step\n[1. 2. 3.]\n");
	/* the same site again: the same consumer; another site: another one */
	f32_call(x, 2, 1, 11, "debug_print.1", w);
	assert_ptr_equal(s.consumer, c);
	assert_memory_equal(s.payload, w, 12);
	f32_call(x, 2, 2, 12, "pure_callback.2", w);
	assert_ptr_not_equal(s.consumer, c);
	assert_true(s.consumer->id != c->id);
	assert_int_equal(hcb_registry_count(hcb_jaxffi_registry(x)), 2);
	st = hcb_jaxffi_stats(x, 2);
	assert_non_null(st);
	assert_int_equal(st->packets, 3);
	assert_int_equal(st->bytes, 36);
	assert_int_equal(hcb_stream_gaps(st), 0);
	assert_null(hcb_jaxffi_stats(x, 0));
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);
}

/* Every XLA type hcbtrace shows, in one call: a tuple of them, in order. */
static void test_every_dtype(void **state)
{
	static const struct { uint32_t xla; unsigned int hcb; } types[] = {
		{ JAXFFI_XLA_PRED, HCB_DT_BOOL }, { JAXFFI_XLA_S8, HCB_DT_INT8 },
		{ JAXFFI_XLA_S16, HCB_DT_INT16 }, { JAXFFI_XLA_S32, HCB_DT_INT32 },
		{ JAXFFI_XLA_S64, HCB_DT_INT64 }, { JAXFFI_XLA_U8, HCB_DT_UINT8 },
		{ JAXFFI_XLA_U16, HCB_DT_UINT16 }, { JAXFFI_XLA_U32, HCB_DT_UINT32 },
		{ JAXFFI_XLA_U64, HCB_DT_UINT64 }, { JAXFFI_XLA_F16, HCB_DT_FLOAT16 },
		{ JAXFFI_XLA_BF16, HCB_DT_BFLOAT16 }, { JAXFFI_XLA_F32, HCB_DT_FLOAT32 },
		{ JAXFFI_XLA_F64, HCB_DT_FLOAT64 }, { JAXFFI_XLA_C64, HCB_DT_COMPLEX64 },
		{ JAXFFI_XLA_C128, HCB_DT_COMPLEX128 }, { JAXFFI_XLA_F8E4M3FN, HCB_DT_FLOAT8_E4M3FN },
		{ JAXFFI_XLA_F8E5M2, HCB_DT_FLOAT8_E5M2 },
	};
	enum { N = sizeof(types) / sizeof(types[0]) };
	static const uint64_t d2[] = { 2 };
	unsigned char bytes[16 * 2 * N];
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;
	uint64_t off = 0, total = 0;
	char tree[128] = "(";

	(void)state;
	for (unsigned int i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i * 7);
	for (unsigned int i = 0; i < N; i++) {
		assert_int_equal(hcb_jaxffi_dtype(types[i].xla), types[i].hcb);
		total += 2 * hcb_dtype_size(types[i].hcb);
		strcat(tree, " *");
	}
	strcat(tree, " )");
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	e = jcall(0, 0, 1, "debug_callback.4", N, total);
	feed_call(x, &e);
	for (unsigned int i = 0; i < N; i++) {
		uint64_t n = 2 * hcb_dtype_size(types[i].hcb);

		/* arg counts the frame's operands: a token at 0 was left out */
		feed_arg(x, 0, 0, i + 1, types[i].xla, 1, d2, n);
		assert_int_equal(s.packets, 0);
		feed_data(x, 0, 0, i + 1, off, total, bytes + off, (uint32_t)n);
		off += n;
	}
	assert_int_equal(s.packets, 1);
	assert_true(no_problems(&s));
	assert_string_equal(s.consumer->tree, tree);
	assert_int_equal(s.consumer->nleaves, N);
	for (unsigned int i = 0; i < N; i++) {
		assert_int_equal(s.consumer->leaves[i].dtype, types[i].hcb);
		assert_int_equal(s.consumer->leaves[i].ndim, 1);
		assert_int_equal(s.consumer->leaves[i].dims[0], 2);
	}
	assert_memory_equal(s.payload, bytes, total);
	/* the ones it cannot show */
	assert_int_equal(hcb_jaxffi_dtype(JAXFFI_XLA_TOKEN), HCB_DT_INVALID);
	assert_int_equal(hcb_jaxffi_dtype(JAXFFI_XLA_S4), HCB_DT_INVALID);
	assert_int_equal(hcb_jaxffi_dtype(JAXFFI_XLA_F8E4M3B11FNUZ), HCB_DT_INVALID);
	assert_int_equal(hcb_jaxffi_dtype(JAXFFI_XLA_INVALID), HCB_DT_INVALID);
	assert_int_equal(hcb_jaxffi_dtype(1000), HCB_DT_INVALID);
	hcb_jaxffi_free(x);
}

/* Scalars, no operands, a chunked operand, and calls of one device on two
 * threads at once. */
static void test_shapes_and_interleaving(void **state)
{
	static const uint64_t d40[] = { 40 }, none[] = { 0 };
	const struct hcb_stream_stats *st;
	int32_t big[40], k = 9;
	struct hcb_ev_jcall a, b;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	for (int i = 0; i < 40; i++)
		big[i] = i * i;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* an ordered io_callback of a token only: no operands, delivered at once */
	a = jcall(1, 0, 5, "io_callback.3", 0, 0);
	feed_call(x, &a);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->tree, "( )");
	assert_string_equal(s.text, "callback: io_callback.3 device: cpu:1 module: jit_step\n(  )\n");
	/* two calls under way at once on threads 5 and 6, the second ending first */
	a = jcall(1, 1, 5, "debug_callback.1", 2, 4 + 160);
	b = jcall(1, 2, 6, "debug_callback.2", 1, 4);
	feed_call(x, &a);
	feed_arg(x, 1, 1, 0, JAXFFI_XLA_S32, 0, none, 4);
	feed_call(x, &b);
	feed_data(x, 1, 1, 0, 0, 164, &k, 4);
	feed_arg(x, 1, 2, 0, JAXFFI_XLA_S32, 0, none, 4);
	feed_arg(x, 1, 1, 1, JAXFFI_XLA_S32, 1, d40, 160);
	feed_data(x, 1, 2, 0, 0, 4, &k, 4);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.seq, 2);
	assert_int_equal(s.consumer->leaves[0].ndim, 0);
	assert_string_equal(s.text, "callback: debug_callback.2 device: cpu:1 module: jit_step\n9\n");
	feed_data(x, 1, 1, 1, 4, 164, big, 100);
	assert_int_equal(hcb_jaxffi_pending(x), 1);
	feed_data(x, 1, 1, 1, 104, 164, (char *)big + 100, 60);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.last.seq, 1);
	assert_string_equal(s.consumer->tree, "( * * )");
	assert_memory_equal(s.payload + 4, big, 160);
	st = hcb_jaxffi_stats(x, 1);
	assert_int_equal(st->first_seq, 0);
	assert_int_equal(st->last_seq, 2);
	assert_int_equal(hcb_stream_gaps(st), 0);
	/* a call the BPF side dropped (ring full) shows as a gap */
	a = jcall(1, 4, 5, "io_callback.3", 0, 0);
	feed_call(x, &a);
	assert_int_equal(hcb_stream_gaps(st), 1);
	assert_true(no_problems(&s));
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	hcb_jaxffi_free(x);
}

/* Lost and stray records: what is broken is counted, never delivered. */
static void test_lost_and_short_chunks(void **state)
{
	static const uint64_t d3[] = { 3 };
	float v[3] = { 1, 2, 3 };
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* chunks of a call never seen (its JCALL counted as dropped): passed over */
	feed_data(x, 0, 40, 0, 0, 12, v, 12);
	feed_arg(x, 0, 40, 0, JAXFFI_XLA_F32, 1, d3, 12);
	assert_true(no_problems(&s));
	/* a chunk that skips bytes */
	e = jcall(0, 0, 1, "debug_print.1", 1, 12);
	feed_call(x, &e);
	feed_arg(x, 0, 0, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, 0, 0, 4, 12, v, 8);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 1);
	assert_non_null(strstr(s.warning, "out of order"));
	feed_data(x, 0, 0, 0, 0, 12, v, 12);   /* the call is gone: passed over */
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 1);
	/* a chunk of another operand than the one under way, a chunk claiming
	 * more than is left, a chunk shorter than it says */
	e = jcall(0, 1, 1, "debug_print.1", 1, 12);
	feed_call(x, &e);
	feed_arg(x, 0, 1, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, 1, 1, 0, 12, v, 12);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 2);
	e = jcall(0, 2, 1, "debug_print.1", 1, 12);
	feed_call(x, &e);
	feed_arg(x, 0, 2, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, 2, 0, 0, 16, v, 12);   /* total differs from the call's */
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 3);
	{
		/* a chunk longer than its record */
		struct hcb_ev_chunk c = { .type = HCB_EV_JDATA, .len = 100, .seq = 3 };
		unsigned char buf[sizeof(c) + 8] = { 0 };

		memcpy(buf, &c, sizeof(c));
		assert_int_equal(hcb_jaxffi_feed(x, buf, sizeof(buf)), 0);
		assert_int_equal(s.problems[HCB_BAD_RECORD], 1);
		assert_non_null(strstr(s.warning, "that is none"));
		/* told, but counted on no device: it names none that can be trusted */
		assert_int_equal(hcb_jaxffi_stats(x, 0)->problems[HCB_BAD_RECORD], 0);
	}
	/* the thread went on to its next call: the last one stopped short */
	e = jcall(0, 3, 1, "debug_print.1", 1, 12);
	feed_call(x, &e);
	feed_arg(x, 0, 3, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, 3, 0, 0, 12, v, 4);
	e = jcall(0, 4, 1, "debug_print.1", 1, 12);
	feed_call(x, &e);
	assert_int_equal(s.problems[HCB_INCOMPLETE], 1);
	assert_non_null(strstr(s.warning, "stopped after 1 of 1 operands, 4 of 12 bytes"));
	/* and the end came first for that one */
	assert_int_equal(hcb_jaxffi_pending(x), 1);
	hcb_jaxffi_finish(x);
	assert_int_equal(s.problems[HCB_INCOMPLETE], 2);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

/* Sizes that disagree with shapes or with the call. */
static void test_wrong_sizes(void **state)
{
	static const uint64_t d3[] = { 3 }, d1[] = { 1 };
	float v[3] = { 1, 2, 3 };
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* an operand whose bytes do not match its shape */
	e = jcall(0, 0, 1, "pure_callback.1", 1, 16);
	feed_call(x, &e);
	feed_arg(x, 0, 0, 0, JAXFFI_XLA_F32, 1, d3, 16);
	assert_int_equal(s.problems[HCB_SHORT_PAYLOAD], 1);
	/* operands of more bytes than the call said */
	e = jcall(0, 1, 1, "pure_callback.1", 1, 8);
	feed_call(x, &e);
	feed_arg(x, 0, 1, 0, JAXFFI_XLA_F32, 1, d3, 12);
	assert_int_equal(s.problems[HCB_SHORT_PAYLOAD], 2);
	/* of fewer */
	e = jcall(0, 2, 1, "pure_callback.1", 1, 16);
	feed_call(x, &e);
	feed_arg(x, 0, 2, 0, JAXFFI_XLA_F32, 1, d1, 4);
	feed_data(x, 0, 2, 0, 0, 16, v, 4);
	assert_int_equal(s.problems[HCB_SHORT_PAYLOAD], 3);
	assert_non_null(strstr(s.warning, "operands of 4 bytes, the call said 16"));
	/* an operand begun before the last one's bytes are all there, and
	 * operands out of order */
	e = jcall(0, 3, 1, "pure_callback.1", 2, 8);
	feed_call(x, &e);
	feed_arg(x, 0, 3, 0, JAXFFI_XLA_F32, 1, d1, 4);
	feed_arg(x, 0, 3, 1, JAXFFI_XLA_F32, 1, d1, 4);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 1);
	e = jcall(0, 4, 1, "pure_callback.1", 2, 8);
	feed_call(x, &e);
	feed_arg(x, 0, 4, 1, JAXFFI_XLA_F32, 1, d1, 4);
	feed_data(x, 0, 4, 1, 0, 8, v, 4);
	feed_arg(x, 0, 4, 1, JAXFFI_XLA_F32, 1, d1, 4);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 2);
	/* a call of more operands or bytes than hcbtrace holds */
	e = jcall(0, 5, 1, "pure_callback.1", HCB_MAX_LEAVES + 1, 8);
	feed_call(x, &e);
	e = jcall(0, 6, 1, "pure_callback.1", 1, UINT64_C(5) << 30);
	feed_call(x, &e);
	assert_int_equal(s.problems[HCB_SHORT_PAYLOAD], 5);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

/* Element types and ranks hcbtrace cannot show, and records that are none. */
static void test_unknown_dtype_and_bad_records(void **state)
{
	static const uint64_t d2[] = { 2 }, d9[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint32_t unshown[] = { JAXFFI_XLA_S4, JAXFFI_XLA_F8E4M3B11FNUZ,
					    JAXFFI_XLA_TOKEN, JAXFFI_XLA_INVALID, 77 };
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;
	uint64_t seq = 0;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	for (unsigned int i = 0; i < sizeof(unshown) / sizeof(unshown[0]); i++, seq++) {
		e = jcall(3, seq, 1, "debug_callback.1", 1, 2);
		feed_call(x, &e);
		feed_arg(x, 3, seq, 0, unshown[i], 1, d2, 2);
		assert_int_equal(s.problems[HCB_BAD_REGISTRATION], (int)i + 1);
		assert_non_null(strstr(s.warning, "element type hcbtrace cannot show"));
	}
	e = jcall(3, seq, 1, "debug_callback.1", 1, 4);
	feed_call(x, &e);
	feed_arg(x, 3, seq, 0, JAXFFI_XLA_S8, 9, d9, 1);
	assert_non_null(strstr(s.warning, "more dimensions"));
	assert_int_equal(hcb_stream_gaps(hcb_jaxffi_stats(x, 3)), 0);   /* none delivered */
	assert_int_equal(hcb_jaxffi_stats(x, 3)->problems[HCB_BAD_REGISTRATION], 6);
	/* too short, of no known type, of a device past the last */
	assert_int_equal(hcb_jaxffi_feed(x, "ab", 2), 0);
	e = jcall(0, 0, 1, "x", 0, 0);
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e) - 1), 0);
	e.type = 99;
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), 0);
	e = jcall(HCB_MAX_DEVICES, 0, 1, "debug_print.1", 0, 0);
	feed_call(x, &e);
	assert_non_null(strstr(s.warning, "past the last"));
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

/* feed a call of one float32[3] on device 0 */
static void feed_f32x3(struct hcb_jaxffi *x, const struct hcb_ev_jcall *e)
{
	static const uint64_t d3[] = { 3 };
	float v[3] = { 1, 2, 3 };

	feed_call(x, e);
	feed_arg(x, 0, e->seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, e->seq, 0, 0, 12, v, 12);
}

/* A call whose target name is at place (where jaxlib 0.6 keeps it: 1),
 * the other places reading what a std::string's bytes read as a name. */
static struct hcb_ev_jcall jcall_at(uint64_t seq, const char *op, unsigned int place)
{
	struct hcb_ev_jcall e = jcall(0, seq, 1, op, 1, 12);

	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "%s", i == place ?
			 "xla_ffi_python_cpu_callback" : i % 2 ? "" : "\x90\x1f\x7f");
	return e;
}

/* Where the call site comes from, and what is done without one. */
static void test_call_site(void **state)
{
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* no thunk ran on the thread (a call under way as hcbtrace attached)
	 * before the layout is proven: its device is not, it is not shown */
	e = jcall(0, 0, 1, "", 1, 12);
	e.flags = HCB_JAXFFI_F_INDEX;
	e.thunk_device = UINT32_MAX;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_non_null(strstr(s.warning, "the layout not yet proven"));
	/* the first call from a thunk proves it: the target name found where
	 * jaxlib 0.6 keeps it, the names HLO's, both ordinals 0 */
	e = jcall_at(1, "debug_print.1", 1);
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->name, "debug_print.1");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "jit_step");
	/* the thread's thunk was another custom call's: its names are not
	 * this one's, named after its index (the device proven before) */
	e = jcall(0, 2, 1, "lapack_sgesdd.2", 1, 12);
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "lapack_sgesdd_ffi");
	e.thunk_device = 5;   /* and its device is no check of this call's */
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	assert_string_equal(s.consumer->name, "callback-3");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "unknown");
	/* the two device ordinals disagree: this call is not trusted */
	e = jcall_at(3, "debug_print.1", 1);
	e.thunk_device = 1;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 1);
	assert_non_null(strstr(s.warning, "layout check failed: its device ordinal reads 0 in the "
				       "execution context and 1 in the thunk's execute parameters"));
	/* nor one whose target name is elsewhere than the layout proven */
	e = jcall_at(4, "debug_print.1", 0);
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 2);
	assert_non_null(strstr(s.warning, "at offset 88 of the thunk, not 96 as before"));
	/* nor one whose op name is no HLO name (a newline in it) */
	e = jcall_at(5, "debug_callback.9", 1);
	e.op[2] = '\n';
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 3);
	assert_non_null(strstr(s.warning, "\"de?ug_callback.9\""));
	/* the thunk's parameters unreadable: no check, the call stands */
	e = jcall_at(6, "debug_print.1", 1);
	e.thunk_device = UINT32_MAX;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 3);
	/* names as the target had them: unterminated, cut, partitioned */
	e = jcall_at(7, "debug_callback.9", 1);
	memset(e.module, 'm', sizeof(e.module));
	e.module_len = 300;
	snprintf(e.target[1], sizeof(e.target[1]), "xla_ffi_partitioned_python_cpu_callback");
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 4);
	assert_string_equal(s.consumer->name, "debug_callback.9");
	assert_int_equal(strlen(hcb_consumer_kwarg(s.consumer, "module")), HCB_JAXFFI_MODULE_MAX - 1);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	hcb_jaxffi_free(x);
}

static void on_refuse(void *ctx, const char *why)
{
	struct seen *s = ctx;

	s->refusals++;
	snprintf(s->warning, sizeof(s->warning), "%s", why);
}

static const struct hcb_decoder_ops refusing_ops = {
	.packet = on_packet, .warn = on_warn, .refuse = on_refuse,
};

/* First call of a session whose layout is shifted: e(seq 0) fed, then a
 * good call; nothing delivered, one refusal whose words have want. */
static void refused(struct hcb_ev_jcall e, const char *want)
{
	struct hcb_ev_jcall good = jcall_at(1, "debug_print.1", 0);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	assert_int_equal(hcb_jaxffi_new(&x, &refusing_ops, &s), 0);
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), -EPROTO);
	assert_int_equal(s.refusals, 1);
	assert_non_null(strstr(s.warning, want));
	/* nothing more is read, however good */
	assert_int_equal(hcb_jaxffi_feed(x, &good, sizeof(good)), -EPROTO);
	assert_int_equal(s.refusals, 1);
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

/* The layout check refuses a layout shifted by a word anywhere it reads. */
static void test_layout_refused(void **state)
{
	struct hcb_ev_jcall e;

	(void)state;
	/* target_name_ a word past every place read: the names read there are
	 * pieces of std::strings, never a target's */
	e = jcall_at(0, "debug_print.1", 0);
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "%s", i % 2 ? "jit_step" : "\x1b[2J");
	refused(e, "the thunk that called it holds no callback target's name at offset "
		"88, 96, 80 or 104");
	/* Thunk::Info a word off: op_name read from the middle of a string */
	e = jcall_at(0, "\x10\x8c\xf3\x01", 0);
	refused(e, "the thunk's op and module names read as \"????\"");
	e = jcall_at(0, "debug_print.1", 0);
	snprintf(e.module, sizeof(e.module), "jit step");
	refused(e, "which are no HLO names");
	/* the execute parameters' ordinal a word off: another number */
	e = jcall_at(0, "debug_print.1", 0);
	e.thunk_device = 1700000000;
	refused(e, "its device ordinal reads 0 in the execution context and 1700000000 in the "
		"thunk's execute parameters");
}

/* One layout for every jaxlib, whatever its version says; only where it
 * is proven (test_layout_refused) makes it hold. */
static void test_layout(void **state)
{
	const struct hcb_jaxffi_layout *l = hcb_jaxffi_layout();
	struct hcb_jaxffi_target t;

	(void)state;
	assert_non_null(strstr(hcb_jaxffi_supported(), "0.6.0 and later"));
	assert_string_equal(l->handler, "kXlaFfiPythonCpuCallback");
	assert_string_equal(l->buffer_handler, "kXlaBufferPythonCpuCallback");
	assert_string_equal(l->thunk_execute,
			    "_ZN3xla3cpu15CustomCallThunk7ExecuteERKNS0_5Thunk13ExecuteParamsE");
	assert_int_equal(l->thunk_arg, 1);
	assert_int_equal(l->op_off, 16);
	assert_int_equal(l->module_off, 48);
	/* 88 from jaxlib 0.7.1 on, 96 before; a word either side */
	assert_int_equal(l->target_offs[0], 88);
	assert_int_equal(l->target_offs[1], 96);
	assert_int_equal(l->params_ccp_off, 48);
	assert_int_equal(l->ctx_device_off, 8);
	assert_true(hcb_jaxffi_is_callback_target("xla_ffi_python_cpu_callback"));
	assert_true(hcb_jaxffi_is_callback_target("xla_ffi_partitioned_python_cpu_callback"));
	assert_true(hcb_jaxffi_is_callback_target("xla_buffer_python_cpu_callback"));
	assert_false(hcb_jaxffi_is_callback_target("xla_python_cpu_callback"));
	assert_false(hcb_jaxffi_is_callback_target(""));
	/* this test has no jaxlib mapped; a process that is not there */
	assert_int_equal(hcb_jaxffi_find(getpid(), &t), -ENOENT);
	assert_int_equal(hcb_jaxffi_find(0x3fffffff, &t), -ESRCH);
}

/* The device ordinal's offset, from the code that reads it. */
static void test_code_ordinal(void **state)
{
	static const struct { unsigned char code[16]; int want; } cases[] = {
		/* jaxlib 0.6.0 to 0.12.0.1 */
		{ { 0x55, 0x48, 0x89, 0xe5, 0x8b, 0x47, 0x08, 0x5d, 0xc3, 0xcc }, 8 },
		/* with CET, without a frame */
		{ { 0xf3, 0x0f, 0x1e, 0xfa, 0x8b, 0x47, 0x10, 0xc3 }, 16 },
		{ { 0x8b, 0x47, 0x00, 0xc3 }, 0 },
		/* anything else: another register, more work, a far offset, no ret */
		{ { 0x55, 0x48, 0x89, 0xe5, 0x8b, 0x47, 0x08, 0xc3 }, -1 },
		{ { 0x8b, 0x46, 0x08, 0xc3 }, -1 },
		{ { 0x8b, 0x47, 0x08, 0x01, 0xc0, 0xc3 }, -1 },
		{ { 0x8b, 0x47, 0x88, 0xc3 }, -1 },
		{ { 0x8b, 0x87, 0x08, 0x01, 0x00, 0x00, 0xc3 }, -1 },
		{ { 0 }, -1 },
	};
	char path[] = "/tmp/hcb-test-code-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char at[64];

		/* 100 bytes in, as a function is in its library */
		assert_int_equal(pwrite(fd, cases[i].code, sizeof(cases[i].code), 100), 16);
		snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
		assert_int_equal(hcb_jaxffi_code_ordinal(at, 100), cases[i].want);
	}
	/* past the end of the file */
	assert_int_equal(hcb_jaxffi_code_ordinal("/proc/self/exe", 1ull << 40), -1);
	assert_int_equal(hcb_jaxffi_code_ordinal("/no/such/file", 0), -1);
	close(fd);
}

/* With the context's ordinal proven by the library's code, a call no thunk
 * named is shown before any proves the layout: its values and device are
 * the C API's and that proven read's. */
static void test_device_proven(void **state)
{
	struct hcb_ev_jcall e = jcall(0, 0, 1, "", 1, 12);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_device_proven(x);
	e.flags = HCB_JAXFFI_F_INDEX;
	e.thunk_device = UINT32_MAX;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->name, "callback-3");
	/* and the first thunk's call still has to pass */
	e = jcall_at(1, "debug_print.1", 0);
	e.thunk_device = 2;
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), -EPROTO);
	hcb_jaxffi_free(x);
}

/* Functions by name in an ELF file's symbol tables, local ones included. */
static void test_elf_funcs(void **state)
{
	const char *names[] = { "on_packet", "main", "no_such_function_here" };
	uint64_t offs[3];

	(void)state;
	assert_int_equal(hcb_target_elf_funcs("/proc/self/exe", names, 3, offs), 0);
	assert_true(offs[0] != 0);   /* a static function: .symtab only */
	assert_true(offs[1] != 0 && offs[1] != offs[0]);
	assert_true(offs[2] == 0);
	assert_int_equal(hcb_target_elf_funcs("/dev/null", names, 3, offs), -EBADMSG);
	assert_int_equal(hcb_target_elf_funcs("/no/such/file", names, 3, offs), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_call),
		cmocka_unit_test(test_every_dtype),
		cmocka_unit_test(test_shapes_and_interleaving),
		cmocka_unit_test(test_lost_and_short_chunks),
		cmocka_unit_test(test_wrong_sizes),
		cmocka_unit_test(test_unknown_dtype_and_bad_records),
		cmocka_unit_test(test_call_site),
		cmocka_unit_test(test_layout_refused),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_code_ordinal),
		cmocka_unit_test(test_device_proven),
		cmocka_unit_test(test_elf_funcs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
