/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi.c - the jaxffi provider's user side: calls of JAX's own
 * callbacks put back together from hand-built ring records, the call sites
 * made into consumers, and what must be refused (lost and stray chunks,
 * sizes that disagree, types hcbtrace cannot show) without a crash;
 * every element type, sub-byte ones unpacked; functions found in ELF
 * symbol tables.  The layout check is test_jaxffi_layout.c's.
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

#include "bpf/ring.h"
#include "core/dtype.h"
#include "process/target.h"
#include "providers/bounds.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/events.h"
#include "providers/jaxcb/ffi_abi.h"
#include "providers/jaxcb/layout.h"
#include "text/idprint.h"
#include "testjaxffi.h"

/* decode_impl.h's JX_CALL_BYTES: two of the largest calls; and its
 * JX_MAX_INFLIGHT, the calls under way */
#define JAXFFI_TEST_CALL_BYTES (UINT64_C(8) << 30)
#define JAXFFI_TEST_INFLIGHT 4096u

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
	assert_int_equal(hcb_jaxffi_dtype(JAXFFI_XLA_S1), HCB_DT_INVALID);
	assert_int_equal(hcb_jaxffi_dtype(JAXFFI_XLA_U1), HCB_DT_INVALID);
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
	static const uint32_t unshown[] = { JAXFFI_XLA_S1, JAXFFI_XLA_U1,
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
	assert_int_equal(hcb_jaxffi_feed(x, &e, HCB_JAXFFI_CALL_HEAD - 1), 0);
	e.type = 99;
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), 0);
	e = jcall(HCB_MAX_DEVICES, 0, 1, "debug_print.1", 0, 0);
	feed_call(x, &e);
	assert_non_null(strstr(s.warning, "past the last"));
	assert_int_equal(s.packets, 0);
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
	/* what is not a regular file is refused before it is read (a FIFO
	 * would block the open); a regular file that is no ELF is not one */
	assert_int_equal(hcb_target_elf_funcs("/dev/null", names, 3, offs), -ESTALE);
	assert_int_equal(hcb_target_elf_funcs("/proc/self/cmdline", names, 3, offs), -EBADMSG);
	assert_int_equal(hcb_target_elf_funcs("/no/such/file", names, 3, offs), -ENOENT);
}

/*
 * The float8 kinds, float4 and the sub-byte integers.  The operands' bytes
 * are what jaxlib 0.12.0.1's CPU runtime handed kXlaFfiPythonCpuCallback
 * (read there with bpftrace), each beside what the Python callback got
 * (np.asarray(x).tobytes()): the sub-byte ones packed, low bits first, the
 * last byte's spare bits left as they were; a tap holds them one a byte.
 */
static void test_new_dtypes(void **state)
{
	static const struct { uint32_t xla; unsigned int hcb; } map[] = {
		{ JAXFFI_XLA_F8E3M4, HCB_DT_FLOAT8_E3M4 }, { JAXFFI_XLA_F8E4M3, HCB_DT_FLOAT8_E4M3 },
		{ JAXFFI_XLA_F8E4M3FNUZ, HCB_DT_FLOAT8_E4M3FNUZ },
		{ JAXFFI_XLA_F8E4M3B11FNUZ, HCB_DT_FLOAT8_E4M3B11FNUZ },
		{ JAXFFI_XLA_F8E5M2FNUZ, HCB_DT_FLOAT8_E5M2FNUZ },
		{ JAXFFI_XLA_F8E8M0FNU, HCB_DT_FLOAT8_E8M0FNU },
		{ JAXFFI_XLA_F4E2M1FN, HCB_DT_FLOAT4_E2M1FN }, { JAXFFI_XLA_S2, HCB_DT_INT2 },
		{ JAXFFI_XLA_S4, HCB_DT_INT4 }, { JAXFFI_XLA_U2, HCB_DT_UINT2 },
		{ JAXFFI_XLA_U4, HCB_DT_UINT4 },
	};
	static const struct {
		uint32_t xla;
		uint32_t rank;
		uint64_t dims[3];
		const char *wire, *tap;      /* hex */
	} ops_[] = {
		/* jnp.arange(16) - 2, as int4: -2 -1 0 1 ... 5, then 7s (cast saturates) */
		{ JAXFFI_XLA_S4, 1, { 16 }, "fe10325476777777", "0e0f0001020304050607070707070707" },
		/* 9 elements: the last byte's high nibble (0xe) is not the array's */
		{ JAXFFI_XLA_S4, 2, { 3, 3 }, "10325406e1", "000102030405060001" },
		{ JAXFFI_XLA_U2, 2, { 3, 3 }, "e43fb9", "000102030303030001" },
		{ JAXFFI_XLA_S2, 1, { 16 }, "4e555555", "02030001010101010101010101010101" },
		{ JAXFFI_XLA_F4E2M1FN, 1, { 16 }, "ccabaa8900212243",
		  "0c0c0b0a0a0a09080000010202020304" },
		{ JAXFFI_XLA_F32, 1, { 1 }, "0000c03f", "0000c03f" },
		{ JAXFFI_XLA_U4, 3, { 2, 3, 3 }, "103254062143651032",
		  "000102030405060001020304050600010203" },
		{ JAXFFI_XLA_F8E8M0FNU, 1, { 8 }, "ff7f808181818282", "ff7f808181818282" },
		{ JAXFFI_XLA_F8E3M4, 1, { 2 }, "c0b0", "c0b0" },
		{ JAXFFI_XLA_U4, 1, { 0 }, "", "" },
	};
	enum { N = sizeof(ops_) / sizeof(ops_[0]) };
	unsigned char wire[256], tap[256];
	size_t wlen = 0, tlen = 0;
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;
	uint64_t off = 0;

	(void)state;
	for (unsigned int i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		assert_int_equal(hcb_jaxffi_dtype(map[i].xla), map[i].hcb);
	for (unsigned int i = 0; i < N; i++) {
		for (const char *h = ops_[i].wire; *h; h += 2)
			sscanf(h, "%2hhx", &wire[wlen++]);
		for (const char *h = ops_[i].tap; *h; h += 2)
			sscanf(h, "%2hhx", &tap[tlen++]);
	}
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	e = jcall(1, 5, 1, "debug_callback.2", N, wlen);
	feed_call(x, &e);
	for (unsigned int i = 0; i < N; i++) {
		uint64_t n = strlen(ops_[i].wire) / 2;

		feed_arg(x, 1, 5, i, ops_[i].xla, ops_[i].rank, ops_[i].dims, n);
		/* in two chunks, cut inside the packed bytes */
		if (n > 1)
			feed_data(x, 1, 5, i, off, wlen, wire + off, (uint32_t)(n / 2));
		if (n)
			feed_data(x, 1, 5, i, off + n / 2, wlen, wire + off + n / 2,
				  (uint32_t)(n - n / 2));
		off += n;
	}
	if (!no_problems(&s))
		fail_msg("%s", s.warning);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.consumer->nleaves, N);
	assert_int_equal(s.consumer->total_bytes, tlen);
	assert_int_equal(s.consumer->leaves[0].dtype, HCB_DT_INT4);
	assert_int_equal(s.consumer->leaves[6].nbytes, 18);
	assert_memory_equal(s.payload, tap, tlen);
	/* a packed size that is not the shape's is malformed, as any other */
	e = jcall(1, 6, 1, "debug_callback.2", 1, 9);
	feed_call(x, &e);
	feed_arg(x, 1, 6, 0, JAXFFI_XLA_S4, 1, ops_[0].dims, 9);
	assert_int_equal(s.problems[HCB_SHORT_PAYLOAD], 1);
	hcb_jaxffi_free(x);
}

/* What a target may leave under way and how many call sites it may name
 * (providers/bounds.h): past each, given up and counted, never held. */
static void test_bounds(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	const struct hcb_bounds *b;
	struct hcb_ev_jcall e;
	struct hcb_jaxffi *x;
	char op[32];

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	b = hcb_jaxffi_bounds(x);
	/* one call more than may be under way, each on its thread: the oldest goes */
	for (uint32_t i = 0; i <= JAXFFI_TEST_INFLIGHT; i++) {
		e = jcall(0, i, 100 + i, "debug_print.1", 1, 12);
		feed_call(x, &e);
	}
	assert_int_equal(hcb_jaxffi_pending(x), JAXFFI_TEST_INFLIGHT);
	assert_int_equal(s.problems[HCB_OVER_BOUND], 1);
	assert_int_equal(b->passed[HCB_BOUND_PACKET_MEM], 1);
	assert_int_equal(hcb_jaxffi_stats(x, 0)->problems[HCB_OVER_BOUND], 1);
	/* the newest is found (by device and seq) and finishes; the oldest is gone */
	feed_arg(x, 0, JAXFFI_TEST_INFLIGHT, 0, JAXFFI_XLA_F32, 1, (const uint64_t[]){ 3 }, 12);
	feed_data(x, 0, JAXFFI_TEST_INFLIGHT, 0, 0, 12, v, 12);
	assert_int_equal(s.packets, 1);
	feed_arg(x, 0, 0, 0, JAXFFI_XLA_F32, 1, (const uint64_t[]){ 3 }, 12);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.problems[HCB_BAD_CHUNK], 0);
	/* no progress for the expiry: every call given up at a tick, not before */
	assert_int_equal(hcb_jaxffi_tick(x, 1000), 0);
	assert_int_equal(hcb_jaxffi_tick(x, 1000 + HCB_BOUNDS_EXPIRY_NS), 0);
	assert_int_equal(hcb_jaxffi_pending(x), JAXFFI_TEST_INFLIGHT - 1);
	assert_int_equal(hcb_jaxffi_tick(x, 2000 + HCB_BOUNDS_EXPIRY_NS), 0);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	assert_int_equal(b->passed[HCB_BOUND_EXPIRED], JAXFFI_TEST_INFLIGHT - 1);
	assert_int_equal(b->packets.bytes, 0);
	/* claims past the bytes: the older gives way to the newer */
	e = jcall(1, 0, 1, "big", 1, UINT64_C(4) << 30);
	feed_call(x, &e);
	e = jcall(1, 1, 2, "big", 1, UINT64_C(4) << 30);
	feed_call(x, &e);
	assert_int_equal(hcb_jaxffi_pending(x), 1);
	assert_int_equal(b->passed[HCB_BOUND_PACKET_MEM], 2);
	assert_true(b->packets.bytes <= JAXFFI_TEST_CALL_BYTES);
	hcb_jaxffi_finish(x);
	/* as many call sites as are kept (debug_print.1 is one), then one
	 * more: counted, not shown */
	s.packets = 1;
	for (unsigned int i = 1; i < HCB_BOUNDS_CONSUMERS; i++) {
		snprintf(op, sizeof(op), "site.%u", i);
		e = jcall(2, i, 5, op, 0, 0);
		feed_call(x, &e);
	}
	assert_int_equal(s.packets, HCB_BOUNDS_CONSUMERS);
	e = jcall(2, HCB_BOUNDS_CONSUMERS, 5, "one.more", 0, 0);
	feed_call(x, &e);
	assert_int_equal(s.packets, HCB_BOUNDS_CONSUMERS);
	assert_int_equal(b->passed[HCB_BOUND_CONSUMERS], 1);
	assert_non_null(strstr(s.warning, "a call site past the"));
	/* a site kept is still shown */
	e = jcall(2, HCB_BOUNDS_CONSUMERS + 1, 5, "site.7", 0, 0);
	feed_call(x, &e);
	assert_int_equal(s.packets, HCB_BOUNDS_CONSUMERS + 1);
	assert_int_equal(hcb_registry_count(hcb_jaxffi_registry(x)), HCB_BOUNDS_CONSUMERS);
	hcb_jaxffi_free(x);
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
		cmocka_unit_test(test_elf_funcs),
		cmocka_unit_test(test_new_dtypes),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
