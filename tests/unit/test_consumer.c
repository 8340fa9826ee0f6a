/* SPDX-License-Identifier: MIT */
/*
 * test_consumer.c - registration blobs (src/core/consumer.h): hcb_reg_build from a
 * spec, hcb_consumer_from_reg on untrusted bytes (round trip, every kind of
 * malformed blob), hcb_reg_hash, hcb_consumer_dup and hcb_consumer_equal
 * (which must agree with comparing blobs), and a deterministic mutation
 * fuzz loop.
 *
 *	gcc ... -Isrc src/core/consumer.c src/core/dtype.c src/core/tree.c \
 *		tests/unit/test_consumer.c -lcmocka
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
#include "core/dtype.h"
#include "core/tree.h"

/* ---- a reference spec: { b=( * * ) w=* } with three leaves ---- */

static const char *const ref_kwargs[] = { "what", "loss", "step", "7", "empty", "", NULL };
static const struct hcb_leaf_spec ref_leaves[] = {
	{ HCB_DT_FLOAT32, 2, { 2, 3 } }, { HCB_DT_INT64, 0, { 0 } }, { HCB_DT_COMPLEX128, 1, { 5 } },
};

static const struct hcb_consumer_spec ref_spec = {
	.name = "loss",
	.kwargs = ref_kwargs,
	.tree = "{ b=( * * ) w=* }",
	.nleaves = 3,
	.leaves = ref_leaves,
};

static void build_ok(const struct hcb_consumer_spec *spec, uint32_t id, unsigned char **blob,
		     size_t *len)
{
	void *b = NULL;

	assert_int_equal(hcb_reg_build(spec, id, &b, len), 0);
	assert_non_null(b);
	*blob = b;
}

static struct hcb_wire_reg header(const unsigned char *blob)
{
	struct hcb_wire_reg r;

	memcpy(&r, blob, sizeof(r));
	return r;
}

static void set_header(unsigned char *blob, const struct hcb_wire_reg *r)
{
	memcpy(blob, r, sizeof(*r));
}

/* Parse a copy in a block of exactly len bytes (ASan sees any overread). */
static int parse_exact(const unsigned char *blob, size_t len, struct hcb_consumer **c)
{
	unsigned char *p = malloc(len ? len : 1);
	int err;

	assert_non_null(p);
	memcpy(p, blob, len);
	err = hcb_consumer_from_reg(p, len, c);
	free(p);
	return err;
}

/* ---- round trip ---- */

static void test_round_trip(void **state)
{
	struct hcb_consumer *c = NULL;
	unsigned char *blob;
	size_t len;
	struct hcb_wire_reg r;

	(void)state;
	build_ok(&ref_spec, 0x12345678u, &blob, &len);
	/* layout: header, 3 leaves, "loss", kwargs, tree */
	r = header(blob);
	assert_int_equal(r.magic, HCB_REG_MAGIC);
	assert_int_equal(r.version, HCB_REG_VERSION);
	assert_int_equal(r.total_len, len);
	assert_int_equal(r.consumer_id, 0x12345678u);
	assert_int_equal(r.nleaves, 3);
	assert_int_equal(r.name_len, 4);
	assert_int_equal(r.kwargs_len, sizeof("what\0loss\0step\0" "7\0empty\0") - 1 + 1);
	assert_int_equal(r.tree_len, strlen("{ b=( * * ) w=* }"));
	assert_int_equal(len, sizeof(r) + 3 * sizeof(struct hcb_wire_leaf) + 4 + r.kwargs_len + r.tree_len);
	assert_memory_equal(blob + sizeof(r) + 3 * sizeof(struct hcb_wire_leaf), "loss", 4);
	assert_memory_equal(blob + len - r.tree_len, "{ b=( * * ) w=* }", r.tree_len);

	assert_int_equal(parse_exact(blob, len, &c), 0);
	assert_int_equal(c->id, 0x12345678u);
	assert_string_equal(c->name, "loss");
	assert_int_equal(c->nkwargs, 3);
	assert_string_equal(c->kwargs[0].key, "what");
	assert_string_equal(c->kwargs[0].value, "loss");
	assert_string_equal(c->kwargs[1].key, "step");
	assert_string_equal(c->kwargs[1].value, "7");
	assert_string_equal(c->kwargs[2].key, "empty");
	assert_string_equal(c->kwargs[2].value, "");
	assert_string_equal(hcb_consumer_kwarg(c, "step"), "7");
	assert_string_equal(hcb_consumer_kwarg(c, "empty"), "");
	assert_null(hcb_consumer_kwarg(c, "nope"));
	assert_null(hcb_consumer_kwarg(c, "wha"));
	assert_string_equal(c->tree, "{ b=( * * ) w=* }");
	assert_int_equal(c->nleaves, 3);
	assert_int_equal(c->leaves[0].dtype, HCB_DT_FLOAT32);
	assert_int_equal(c->leaves[0].ndim, 2);
	assert_int_equal(c->leaves[0].dims[0], 2);
	assert_int_equal(c->leaves[0].dims[1], 3);
	assert_int_equal(c->leaves[0].nelems, 6);
	assert_int_equal(c->leaves[0].nbytes, 24);
	assert_int_equal(c->leaves[1].dtype, HCB_DT_INT64);
	assert_int_equal(c->leaves[1].ndim, 0);
	assert_int_equal(c->leaves[1].nelems, 1);
	assert_int_equal(c->leaves[1].nbytes, 8);
	assert_int_equal(c->leaves[2].dtype, HCB_DT_COMPLEX128);
	assert_int_equal(c->leaves[2].nelems, 5);
	assert_int_equal(c->leaves[2].nbytes, 80);
	assert_int_equal(c->total_bytes, 24 + 8 + 80);
	hcb_consumer_free(c);
	free(blob);
	hcb_consumer_free(NULL);
}

/* ---- copy and equality ---- */

static struct hcb_consumer *ref_consumer(uint32_t id)
{
	struct hcb_consumer *c = NULL;
	unsigned char *blob;
	size_t len;

	build_ok(&ref_spec, id, &blob, &len);
	assert_int_equal(parse_exact(blob, len, &c), 0);
	free(blob);
	return c;
}

/* Both registration blobs, compared: what equality must agree with. */
static int same_blob(const struct hcb_consumer *a, const struct hcb_consumer *b)
{
	void *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	int same;

	assert_int_equal(hcb_consumer_to_reg(a, &x, &nx), 0);
	assert_int_equal(hcb_consumer_to_reg(b, &y, &ny), 0);
	same = nx == ny && memcmp(x, y, nx) == 0;
	free(x);
	free(y);
	return same;
}

static void test_dup(void **state)
{
	struct hcb_consumer *c = ref_consumer(77), *d = NULL, *e = NULL;
	struct hcb_consumer bare = { .id = 5 };

	(void)state;
	assert_int_equal(hcb_consumer_dup(c, &d), 0);
	/* deep: nothing shared */
	assert_ptr_not_equal(d->name, c->name);
	assert_ptr_not_equal(d->tree, c->tree);
	assert_ptr_not_equal(d->kwargs, c->kwargs);
	assert_ptr_not_equal(d->kwargs[0].key, c->kwargs[0].key);
	assert_ptr_not_equal(d->leaves, c->leaves);
	assert_true(hcb_consumer_equal(c, d));
	assert_true(same_blob(c, d));
	assert_int_equal(d->total_bytes, c->total_bytes);
	for (unsigned int i = 0; i < c->nleaves; i++) {
		assert_int_equal(d->leaves[i].nelems, c->leaves[i].nelems);
		assert_int_equal(d->leaves[i].nbytes, c->leaves[i].nbytes);
	}
	/* it outlives the original */
	hcb_consumer_free(c);
	assert_string_equal(d->name, "loss");
	assert_string_equal(hcb_consumer_kwarg(d, "step"), "7");
	assert_string_equal(d->tree, "{ b=( * * ) w=* }");
	hcb_consumer_free(d);

	/* no name, tree, kwargs or leaves: copied as "", "" and none */
	assert_int_equal(hcb_consumer_dup(&bare, &e), 0);
	assert_int_equal(e->id, 5);
	assert_string_equal(e->name, "");
	assert_string_equal(e->tree, "");
	assert_int_equal(e->nkwargs, 0);
	assert_int_equal(e->nleaves, 0);
	assert_true(hcb_consumer_equal(&bare, e));
	hcb_consumer_free(e);
}

static void test_equal(void **state)
{
	struct hcb_consumer *a = ref_consumer(77), *b = ref_consumer(77), *other;
	struct hcb_consumer_spec variants[6];
	static const char *const kw_order[] = { "step", "7", "what", "loss", "empty", "", NULL };
	static const char *const kw_fewer[] = { "what", "loss", "step", "7", NULL };
	static const char *const kw_value[] = { "what", "loss", "step", "8", "empty", "", NULL };
	static const struct hcb_leaf_spec dt_other[] = {
		{ HCB_DT_FLOAT32, 2, { 2, 3 } }, { HCB_DT_INT64, 0, { 0 } }, { HCB_DT_COMPLEX64, 1, { 5 } },
	};
	static const struct hcb_leaf_spec dims_other[] = {
		{ HCB_DT_FLOAT32, 2, { 3, 2 } }, { HCB_DT_INT64, 0, { 0 } }, { HCB_DT_COMPLEX128, 1, { 5 } },
	};
	char *name;
	unsigned char *blob;
	size_t len;

	(void)state;
	assert_true(hcb_consumer_equal(a, b));
	assert_true(hcb_consumer_equal(b, a));
	assert_true(hcb_consumer_equal(a, a));
	/* dims past a leaf's rank are not part of it */
	b->leaves[1].dims[3] = 99;
	assert_true(hcb_consumer_equal(a, b));
	b->id = 78;
	assert_false(hcb_consumer_equal(a, b));
	b->id = 77;
	name = b->name;
	b->name = (char *)"lost";
	assert_false(hcb_consumer_equal(a, b));
	b->name = name;
	assert_true(hcb_consumer_equal(a, b));
	hcb_consumer_free(b);

	/* every other part of the registration, one at a time */
	for (int i = 0; i < 6; i++)
		variants[i] = ref_spec;
	variants[0].kwargs = kw_order;
	variants[1].kwargs = kw_fewer;
	variants[2].kwargs = kw_value;
	variants[3].leaves = dt_other;
	variants[4].leaves = dims_other;
	variants[5].tree = "{ b=[ * * ] w=* }";
	for (int i = 0; i < 6; i++) {
		build_ok(&variants[i], 77, &blob, &len);
		assert_int_equal(parse_exact(blob, len, &other), 0);
		free(blob);
		assert_false(hcb_consumer_equal(a, other));
		assert_false(same_blob(a, other));
		hcb_consumer_free(other);
	}
	hcb_consumer_free(a);
}

static void test_default_tree(void **state)
{
	static const struct hcb_leaf_spec leaves[] = {
		{ HCB_DT_BOOL, 0, { 0 } }, { HCB_DT_UINT8, 0, { 0 } }, { HCB_DT_FLOAT16, 0, { 0 } },
	};
	struct hcb_consumer_spec spec = { .name = "t", .leaves = leaves };
	struct hcb_consumer *c = NULL;
	unsigned char *blob;
	size_t len;

	(void)state;
	spec.nleaves = 1;   /* one leaf: a bare array */
	build_ok(&spec, 1, &blob, &len);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	assert_string_equal(c->tree, "*");
	assert_int_equal(c->nkwargs, 0);
	assert_int_equal(c->total_bytes, 1);
	hcb_consumer_free(c);
	free(blob);

	spec.nleaves = 3;   /* several: a tuple */
	build_ok(&spec, 2, &blob, &len);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	assert_string_equal(c->tree, "( * * * )");
	assert_int_equal(c->total_bytes, 1 + 1 + 2);
	hcb_consumer_free(c);
	free(blob);

	spec.nleaves = 0;   /* none: the empty tuple */
	build_ok(&spec, 3, &blob, &len);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	assert_string_equal(c->tree, "( )");
	assert_int_equal(c->nleaves, 0);
	assert_int_equal(c->total_bytes, 0);
	hcb_consumer_free(c);
	free(blob);
}

/* Every dtype, the full rank, zero-sized dims. */
static void test_all_dtypes(void **state)
{
	static const uint64_t d8[8] = { 1, 2, 1, 3, 1, 1, 2, 1 }, dz[2] = { 4, 0 };
	struct hcb_leaf_spec leaves[HCB_DT__COUNT - 1];
	struct hcb_consumer_spec spec = { .name = "all", .leaves = leaves,
					  .nleaves = HCB_DT__COUNT - 1 };
	struct hcb_consumer *c = NULL;
	unsigned char *blob;
	uint64_t sum = 0;
	size_t len;

	(void)state;
	for (unsigned int i = 0; i < HCB_DT__COUNT - 1; i++) {
		leaves[i] = (struct hcb_leaf_spec){ .dtype = i + 1, .ndim = i == 3 ? 2 : 8 };
		memcpy(leaves[i].dims, i == 3 ? dz : d8, (i == 3 ? 2 : 8) * sizeof(uint64_t));
	}
	build_ok(&spec, 77, &blob, &len);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	for (unsigned int i = 0; i < HCB_DT__COUNT - 1; i++) {
		uint64_t n = i == 3 ? 0 : 12;

		assert_int_equal(c->leaves[i].dtype, i + 1);
		assert_int_equal(c->leaves[i].nelems, n);
		assert_int_equal(c->leaves[i].nbytes, n * hcb_dtype_size(i + 1));
		sum += n * hcb_dtype_size(i + 1);
	}
	assert_int_equal(c->leaves[0].ndim, 8);
	assert_int_equal(c->leaves[0].dims[7], 1);
	assert_int_equal(c->leaves[0].dims[6], 2);
	assert_int_equal(c->total_bytes, sum);
	/* bool int8 int16 int64 uint8..uint64 float16 bfloat16 float32 float64
	 * complex64 complex128 float8 x2; int32 has no elements; then the
	 * other float8 kinds x6, float4, int2, int4, uint2, uint4: a byte each */
	assert_int_equal(sum, 12 * (1 + 1 + 2 + 8 + 1 + 2 + 4 + 8 + 2 + 2 + 4 + 8 + 8 + 16 + 1 + 1 +
				    11 * 1));
	hcb_consumer_free(c);
	free(blob);
}

/* ---- hcb_reg_build rejects invalid specs ---- */

static void test_build_rejects(void **state)
{
	static const char *const kw_nullval[] = { "k", NULL, NULL };
	static const char *const kw_emptykey[] = { "", "v", NULL };
	static const char *const kw_ctrlkey[] = { "a\nb", "v", NULL };
	static const struct hcb_leaf_spec dt0[] = { { HCB_DT_INVALID, 0, { 0 } } };
	static const struct hcb_leaf_spec dtpast[] = { { HCB_DT__COUNT, 0, { 0 } } };
	static const struct hcb_leaf_spec rank9[] = { { HCB_DT_FLOAT32, 9, { 1, 1, 1, 1, 1, 1, 1, 1 } } };
	static const struct hcb_leaf_spec big[] = {
		{ HCB_DT_FLOAT32, 3, { UINT64_C(1) << 31, UINT64_C(1) << 31, UINT64_C(1) << 1 } },
	};
	static const struct hcb_leaf_spec big8[] = { { HCB_DT_FLOAT64, 1, { UINT64_C(1) << 60 } } };
	static const struct hcb_leaf_spec rank8[] = { { HCB_DT_FLOAT32, 8, { 1, 1, 1, 1, 1, 1, 1, 1 } } };
	char name256[257], name255[256];
	struct hcb_consumer_spec s;
	void *blob = (void *)&s;
	size_t len = 999;

	(void)state;
	memset(name256, 'n', 256);
	name256[256] = '\0';
	memset(name255, 'n', 255);
	name255[255] = '\0';

#define REJECT(desc) do { \
		print_message("%s\n", desc); \
		assert_int_equal(hcb_reg_build(&s, 1, &blob, &len), -EINVAL); \
		assert_ptr_equal(blob, (void *)&s); \
		assert_int_equal(len, 999); \
		s = ref_spec; \
	} while (0)

	s = ref_spec;
	s.name = NULL;
	REJECT("no name");
	s.name = "";
	REJECT("empty name");
	s.name = "a\tb";
	REJECT("control character in name");
	s.name = "a\x7f";
	REJECT("DEL in name");
	s.name = name256;
	REJECT("256-byte name");
	s.kwargs = kw_nullval;
	REJECT("kwarg without value");
	s.kwargs = kw_emptykey;
	REJECT("empty kwarg key");
	s.kwargs = kw_ctrlkey;
	REJECT("control character in kwarg key");
	s.tree = "( * * ";
	REJECT("malformed tree");
	s.tree = "( * * )";
	REJECT("tree with 2 leaves for 3");
	s.tree = "( * * * * )";
	REJECT("tree with 4 leaves for 3");
	s.nleaves = HCB_MAX_LEAVES + 1;
	s.tree = NULL;
	REJECT("too many leaves");

	/* one-leaf specs */
	s.tree = "*";
	s.nleaves = 1;
	s.leaves = dt0;
	REJECT("dtype 0");
	s.tree = "*";
	s.nleaves = 1;
	s.leaves = dtpast;
	REJECT("dtype past the last");
	s.tree = "*";
	s.nleaves = 1;
	s.leaves = rank9;
	REJECT("rank 9");
	s.tree = "*";
	s.nleaves = 1;
	s.leaves = big;
	REJECT("2^63 elements");
	s.tree = "*";
	s.nleaves = 1;
	s.leaves = big8;
	REJECT("2^60 float64 elements: 2^63 bytes");

	/* the largest rank and a 255-byte name are fine */
	s.name = name255;
	s.tree = "*";
	s.nleaves = 1;
	s.leaves = rank8;
	assert_int_equal(hcb_reg_build(&s, 1, &blob, &len), 0);
	free(blob);
#undef REJECT
}

static void test_build_too_big(void **state)
{
	size_t n = HCB_MAX_REG_BYTES;
	char *value = malloc(n);
	const char *kw[] = { "k", value, NULL };
	struct hcb_consumer_spec s = ref_spec;
	void *blob = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(value);
	/* a kwarg that takes the blob past HCB_MAX_REG_BYTES */
	memset(value, 'v', n - 1);
	value[n - 1] = '\0';
	s.kwargs = kw;
	assert_int_equal(hcb_reg_build(&s, 1, &blob, &len), -EINVAL);
	assert_null(blob);
	/* and one that just fits */
	value[n - 1000] = '\0';
	assert_int_equal(hcb_reg_build(&s, 1, &blob, &len), 0);
	assert_true(len <= HCB_MAX_REG_BYTES);
	{
		struct hcb_consumer *c = NULL;

		assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
		assert_int_equal(strlen(hcb_consumer_kwarg(c, "k")), n - 1000);
		hcb_consumer_free(c);
	}
	free(blob);
	free(value);
}

/* ---- hcb_consumer_from_reg rejects malformed blobs ---- */

/* Offsets of the parts of a blob built from ref_spec. */
#define LEAVES_AT (sizeof(struct hcb_wire_reg))
#define LEAF_AT(i) (LEAVES_AT + (i) * sizeof(struct hcb_wire_leaf))

static void put_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void test_parse_rejects(void **state)
{
	unsigned char *ref, *b;
	size_t len;
	struct hcb_wire_reg r0, r;
	struct hcb_consumer *c = (struct hcb_consumer *)&c;
	size_t name_at, kw_at, tree_at;

	(void)state;
	build_ok(&ref_spec, 42, &ref, &len);
	r0 = header(ref);
	name_at = LEAF_AT(3);
	kw_at = name_at + r0.name_len;
	tree_at = kw_at + r0.kwargs_len;
	b = malloc(len + 64);
	assert_non_null(b);

#define RESET() do { memcpy(b, ref, len); r = r0; } while (0)
#define EXPECT(desc, n, code) do { \
		print_message("%s\n", desc); \
		assert_int_equal(parse_exact(b, (n), &c), (code)); \
		if ((code) != 0) \
			assert_ptr_equal(c, (struct hcb_consumer *)&c); \
	} while (0)

	RESET();
	EXPECT("the reference parses", len, 0);
	hcb_consumer_free(c);
	c = (struct hcb_consumer *)&c;

	RESET();
	EXPECT("empty", 0, -EBADMSG);
	EXPECT("shorter than the header", sizeof(r) - 1, -EBADMSG);
	EXPECT("header only", sizeof(r), -EBADMSG);
	EXPECT("truncated by one byte", len - 1, -EBADMSG);

	RESET(); r.magic ^= 1; set_header(b, &r);
	EXPECT("bad magic", len, -EBADMSG);
	RESET(); r.magic = HCB_REGISTRY_MAGIC; set_header(b, &r);
	EXPECT("registry magic, not a blob's", len, -EBADMSG);
	RESET(); r.version = 2; set_header(b, &r);
	EXPECT("version 2", len, -EBADMSG);
	RESET(); r.version = 0; set_header(b, &r);
	EXPECT("version 0", len, -EBADMSG);
	RESET(); r.total_len++; set_header(b, &r);
	EXPECT("total_len one more than the parts", len + 1, -EBADMSG);
	RESET(); r.total_len--; set_header(b, &r);
	EXPECT("total_len one less than the parts", len, -EBADMSG);
	RESET(); r.name_len += 10; r.total_len += 10; set_header(b, &r);
	EXPECT("name_len past the end", len, -EBADMSG);
	RESET(); r.tree_len += 1; r.total_len += 1; set_header(b, &r);
	EXPECT("tree_len past the end", len, -EBADMSG);
	RESET(); r.kwargs_len = 0xffffffffu; r.total_len = 0xffffffffu; set_header(b, &r);
	EXPECT("kwargs_len 4 GiB", len, -E2BIG);
	RESET(); r.name_len = 0xffffffffu; r.tree_len = 0xffffffffu; r.kwargs_len = 0xffffffffu;
	r.total_len = (uint32_t)len; set_header(b, &r);
	EXPECT("lengths that wrap a 32-bit sum", len, -EBADMSG);
	RESET(); r.nleaves = HCB_MAX_LEAVES + 1; set_header(b, &r);
	EXPECT("nleaves over HCB_MAX_LEAVES", len, -E2BIG);
	RESET(); r.nleaves = 0xffffffffu; set_header(b, &r);
	EXPECT("nleaves 2^32-1", len, -E2BIG);
	RESET(); r.total_len = HCB_MAX_REG_BYTES + 1; set_header(b, &r);
	EXPECT("total_len over HCB_MAX_REG_BYTES", len, -E2BIG);
	RESET(); r.consumer_id = HCB_CONSUMER_RESERVED; set_header(b, &r);
	EXPECT("consumer id 0", len, -EBADMSG);

	/* leaves */
	RESET(); put_u32(b + LEAF_AT(1), HCB_DT_INVALID);
	EXPECT("dtype 0", len, -EBADMSG);
	RESET(); put_u32(b + LEAF_AT(1), HCB_DT__COUNT);
	EXPECT("unknown dtype", len, -EBADMSG);
	RESET(); put_u32(b + LEAF_AT(1), 0x80000000u + HCB_DT_FLOAT32);
	EXPECT("dtype with a high bit", len, -EBADMSG);
	/* ndim 9: header says -E2BIG for HCB_MAX_* limits, the code gives
	 * -EBADMSG; either is a rejection */
	RESET(); put_u32(b + LEAF_AT(0) + 4, 9);
	print_message("ndim 9\n");
	{
		int err = parse_exact(b, len, &c);

		assert_true(err == -EBADMSG || err == -E2BIG);
	}
	RESET(); put_u32(b + LEAF_AT(0) + 4, 0xffffffffu);
	{
		int err = parse_exact(b, len, &c);

		assert_true(err == -EBADMSG || err == -E2BIG);
	}
	RESET(); put_u64(b + LEAF_AT(0) + 8, UINT64_C(1) << 40); put_u64(b + LEAF_AT(0) + 16, UINT64_C(1) << 40);
	EXPECT("2^80 elements", len, -EBADMSG);
	RESET(); put_u64(b + LEAF_AT(0) + 8, UINT64_MAX); put_u64(b + LEAF_AT(0) + 16, 2);
	EXPECT("dims that wrap 64 bits", len, -EBADMSG);
	RESET(); put_u64(b + LEAF_AT(0) + 8, UINT64_C(1) << 30); put_u64(b + LEAF_AT(0) + 16, UINT64_C(1) << 31);
	EXPECT("2^61 float32: 2^63 bytes", len, -EBADMSG);

	/* name */
	RESET(); b[name_at + 1] = '\n';
	EXPECT("newline in name", len, -EBADMSG);
	RESET(); b[name_at] = '\0';
	EXPECT("NUL in name", len, -EBADMSG);
	RESET(); b[name_at + 3] = 0x1b;
	EXPECT("escape in name", len, -EBADMSG);
	RESET(); b[name_at + 3] = 0x7f;
	EXPECT("DEL in name", len, -EBADMSG);
	/* name_len 0: move the name's 4 bytes to the kwargs' front as junk */
	RESET(); r.name_len = 0; r.kwargs_len += 4; set_header(b, &r);
	EXPECT("name_len 0 (and the name read as kwargs)", len, -EBADMSG);

	/* kwargs: "what\0loss\0step\07\0empty\0\0" */
	RESET(); b[tree_at - 1] = 'x';
	EXPECT("kwargs not NUL terminated", len, -EBADMSG);
	/* the 24 bytes of kwargs replaced: first 4 pairs (parses), then 3 pairs
	 * and a key without value */
	assert_int_equal(r0.kwargs_len, 24);
	RESET(); memcpy(b + kw_at, "k\0v\0k2\0v2\0k3\0v3\0o\0d1234", 24);
	EXPECT("the kwargs replaced by 4 pairs parse", len, 0);
	assert_int_equal(c->nkwargs, 4);
	assert_string_equal(hcb_consumer_kwarg(c, "o"), "d1234");
	hcb_consumer_free(c);
	c = (struct hcb_consumer *)&c;
	RESET(); memcpy(b + kw_at, "k\0v\0k2\0v2\0k3\0v3\0odd1234", 24);
	EXPECT("kwargs end in a key without value", len, -EBADMSG);
	RESET(); b[kw_at] = '\0';
	EXPECT("kwargs with an empty key", len, -EBADMSG);
	RESET(); b[kw_at + 1] = '\t';
	EXPECT("kwarg key with a control character", len, -EBADMSG);

	/* tree */
	RESET(); b[tree_at] = '(';
	EXPECT("tree unbalanced", len, -EBADMSG);
	RESET(); memcpy(b + tree_at, "( * * * * * * * )", r.tree_len);
	EXPECT("tree with 7 leaves for 3", len, -EBADMSG);
	assert_int_equal(r0.tree_len, 17);
	RESET(); memcpy(b + tree_at, "[ * * ]          ", 17);
	EXPECT("tree with 2 leaves for 3", len, -EBADMSG);
	RESET(); memcpy(b + tree_at, "[ * { a=* } * ]  ", 17);
	EXPECT("another tree with 3 leaves parses", len, 0);
	assert_string_equal(c->tree, "[ * { a=* } * ]  ");
	hcb_consumer_free(c);
	c = (struct hcb_consumer *)&c;
	RESET(); b[tree_at + 5] = '\0';
	EXPECT("NUL in the tree", len, -EBADMSG);

#undef RESET
#undef EXPECT
	free(b);
	free(ref);
}

/* A blob is parsed from the front: bytes after total_len are not its own. */
static void test_parse_trailing_bytes(void **state)
{
	unsigned char *ref, *b;
	struct hcb_consumer *c = NULL;
	size_t len;

	(void)state;
	build_ok(&ref_spec, 9, &ref, &len);
	b = malloc(len + 100);
	assert_non_null(b);
	memcpy(b, ref, len);
	memset(b + len, 0xee, 100);
	assert_int_equal(hcb_consumer_from_reg(b, len + 100, &c), 0);
	assert_string_equal(c->tree, "{ b=( * * ) w=* }");
	assert_int_equal(c->total_bytes, 112);
	hcb_consumer_free(c);
	free(b);
	free(ref);
}

/* ---- hcb_reg_hash ---- */

/* FNV-1a written out here independently, skipping bytes 12..15 (the id). */
static uint32_t fnv_skip_id(const unsigned char *p, size_t len)
{
	uint32_t h = 0x811c9dc5u;

	for (size_t i = 0; i < len; i++)
		if (i < 12 || i >= 16)
			h = (h ^ p[i]) * 0x01000193u;
	return h ? h : 1;
}

static void test_hash(void **state)
{
	unsigned char *a, *b, *d;
	size_t la, lb, ld;
	struct hcb_consumer_spec other = ref_spec;
	uint32_t h;

	(void)state;
	build_ok(&ref_spec, 1, &a, &la);
	build_ok(&ref_spec, 0xdeadbeefu, &b, &lb);
	assert_int_equal(la, lb);
	assert_memory_not_equal(a, b, la);
	h = hcb_reg_hash(a, la);
	assert_int_not_equal(h, 0);
	/* the id field does not count */
	assert_int_equal(hcb_reg_hash(b, lb), h);
	/* stable: the same function every run (FNV-1a 32) */
	assert_int_equal(h, fnv_skip_id(a, la));
	assert_int_equal(hcb_reg_hash(a, la), h);
	/* the content does count */
	other.name = "lost";
	build_ok(&other, 1, &d, &ld);
	assert_int_not_equal(hcb_reg_hash(d, ld), h);
	free(d);
	other = ref_spec;
	other.tree = "{ w=( * * ) b=* }";
	build_ok(&other, 1, &d, &ld);
	assert_int_not_equal(hcb_reg_hash(d, ld), h);
	free(d);
	a[la - 1] ^= 1;
	assert_int_not_equal(hcb_reg_hash(a, la), h);
	/* a known value: FNV-1a of "" is its offset basis, of "a" 0xe40c292c */
	assert_int_equal(hcb_reg_hash("", 0), 0x811c9dc5u);
	assert_int_equal(hcb_reg_hash("a", 1), 0xe40c292cu);
	/* bytes 12..15 are skipped even in a short buffer */
	assert_int_equal(hcb_reg_hash("0123456789abXXXXz", 17), hcb_reg_hash("0123456789abYYYYz", 17));
	assert_int_not_equal(hcb_reg_hash("0123456789abXXXXz", 17), hcb_reg_hash("0123456789aBXXXXz", 17));
	free(a);
	free(b);
}

/* ---- mutation fuzz ---- */

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static int name_chars_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return 0;
	return 1;
}

/* A consumer that came out of from_reg must be self-consistent, and
 * building it again must give a blob that parses to the same consumer. */
static void check_consistent(const struct hcb_consumer *c, const unsigned char *blob, size_t len)
{
	struct hcb_wire_reg r = header(blob);
	unsigned int nl = 999999;
	struct hcb_leaf_spec *leaves;
	const char **kw;
	uint64_t sum = 0;
	struct hcb_consumer_spec spec;
	struct hcb_consumer *c2 = NULL;
	void *blob2 = NULL;
	size_t len2 = 0;

	assert_int_equal(r.magic, HCB_REG_MAGIC);
	assert_true(r.total_len <= len);
	assert_int_not_equal(c->id, 0);
	assert_int_equal(c->id, r.consumer_id);
	assert_true(c->nleaves <= HCB_MAX_LEAVES);
	assert_int_equal(c->nleaves, r.nleaves);
	assert_true(strlen(c->name) >= 1 && strlen(c->name) < HCB_MAX_NAME);
	assert_int_equal(strlen(c->name), r.name_len);
	assert_true(name_chars_ok(c->name));
	for (unsigned int i = 0; i < c->nkwargs; i++) {
		assert_true(strlen(c->kwargs[i].key) >= 1 && strlen(c->kwargs[i].key) < HCB_MAX_NAME);
		assert_true(name_chars_ok(c->kwargs[i].key));
		assert_non_null(c->kwargs[i].value);
	}
	assert_int_equal(strlen(c->tree), r.tree_len);
	assert_int_equal(hcb_tree_validate(c->tree, strlen(c->tree), &nl), 0);
	assert_int_equal(nl, c->nleaves);
	for (unsigned int i = 0; i < c->nleaves; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		uint64_t n = 1;

		assert_non_null(hcb_dtype_name(l->dtype));
		assert_true(l->ndim <= HCB_MAX_DIMS);
		for (unsigned int d = 0; d < l->ndim; d++)
			n *= l->dims[d];   /* no wrap: from_reg capped it */
		assert_int_equal(l->nelems, n);
		assert_true(l->nelems <= (UINT64_C(1) << 62));
		assert_int_equal(l->nbytes, n * hcb_dtype_size(l->dtype));
		assert_true(sum + l->nbytes >= sum);
		sum += l->nbytes;
	}
	assert_int_equal(c->total_bytes, sum);

	/* rebuild */
	leaves = calloc(c->nleaves + 1, sizeof(*leaves));
	kw = calloc(2 * c->nkwargs + 1, sizeof(*kw));
	assert_true(leaves && kw);
	for (unsigned int i = 0; i < c->nleaves; i++) {
		leaves[i].dtype = c->leaves[i].dtype;
		leaves[i].ndim = c->leaves[i].ndim;
		memcpy(leaves[i].dims, c->leaves[i].dims, sizeof(leaves[i].dims));
	}
	for (unsigned int i = 0; i < c->nkwargs; i++) {
		kw[2 * i] = c->kwargs[i].key;
		kw[2 * i + 1] = c->kwargs[i].value;
	}
	spec = (struct hcb_consumer_spec){ .name = c->name, .kwargs = kw, .tree = c->tree,
					   .nleaves = c->nleaves, .leaves = leaves };
	assert_int_equal(hcb_reg_build(&spec, c->id, &blob2, &len2), 0);
	assert_int_equal(len2, r.total_len);
	assert_int_equal(hcb_consumer_from_reg(blob2, len2, &c2), 0);
	assert_string_equal(c2->name, c->name);
	assert_string_equal(c2->tree, c->tree);
	assert_int_equal(c2->nkwargs, c->nkwargs);
	assert_int_equal(c2->total_bytes, c->total_bytes);
	/* the hash sees the same bytes except the dims past ndim (zeroed on
	 * build) and kwargs/tree/name are byte-identical */
	assert_memory_equal((const char *)blob2 + len2 - r.tree_len - r.kwargs_len - r.name_len,
			    blob + r.total_len - r.tree_len - r.kwargs_len - r.name_len,
			    r.tree_len + r.kwargs_len + r.name_len);
	hcb_consumer_free(c2);
	free(blob2);
	free(leaves);
	free(kw);
}

static void test_fuzz(void **state)
{
	static const char *const kw2[] = { "a", "b", NULL };
	static const struct hcb_leaf_spec leaves1[] = { { HCB_DT_UINT16, 1, { 3 } } };
	const struct hcb_consumer_spec specs[] = {
		ref_spec,
		{ .name = "x", .kwargs = kw2, .tree = "[ * ]", .nleaves = 1, .leaves = leaves1 },
		{ .name = "empty", .tree = "{ }" },
	};
	unsigned char *bases[3], buf[1024];
	size_t lens[3];
	unsigned int accepted = 0, rejected = 0;

	(void)state;
	for (int i = 0; i < 3; i++)
		build_ok(&specs[i], 1000 + (uint32_t)i, &bases[i], &lens[i]);
	for (int iter = 0; iter < 30000; iter++) {
		unsigned int which = rnd() % 3, nmut = 1 + rnd() % 4;
		size_t len = lens[which];
		struct hcb_consumer *c = NULL;
		int err;

		assert_true(len + 64 <= sizeof(buf));
		memcpy(buf, bases[which], len);
		for (unsigned int m = 0; m < nmut; m++) {
			size_t at = len ? rnd() % len : 0;

			switch (rnd() % 8) {
			case 0: buf[at] ^= (unsigned char)(1u << (rnd() % 8)); break;
			case 1: buf[at] = (unsigned char)rnd(); break;
			case 2: len = rnd() % (len + 1); break;                  /* truncate */
			case 3:                                                  /* append */
				for (unsigned int k = rnd() % 16; k--;)
					buf[len++] = (unsigned char)rnd();
				break;
			case 4: {                                                /* a header field */
				uint32_t v = rnd() % 4 ? (uint32_t)(rnd() % 64) : rnd();
				size_t f = 4 * (2 + rnd() % 6);

				if (f + 4 <= len)
					put_u32(buf + f, (rnd() % 2) ? v : v + (uint32_t)buf[f]);
				break;
			}
			case 5: buf[at] = (unsigned char)" *(){}[]=\0\n"[rnd() % 11]; break;
			case 6:                                                  /* a dim */
				if (len >= LEAF_AT(1))
					put_u64(buf + LEAVES_AT + 8 + 8 * (rnd() % 8),
						(uint64_t)1 << (rnd() % 64));
				break;
			default:                                                 /* shift the tail */
				if (len > 1) {
					size_t from = rnd() % len;

					memmove(buf + from, buf + from + 1, len - from - 1);
					len--;
				}
				break;
			}
		}
		err = parse_exact(buf, len, &c);
		if (err) {
			assert_true(err == -EBADMSG || err == -E2BIG);
			rejected++;
			continue;
		}
		accepted++;
		check_consistent(c, buf, len);
		hcb_consumer_free(c);
	}
	/* the loop exercised both outcomes */
	print_message("fuzz: %u accepted, %u rejected\n", accepted, rejected);
	assert_true(accepted > 1000);
	assert_true(rejected > 1000);
	for (int i = 0; i < 3; i++)
		free(bases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_dup),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_default_tree),
		cmocka_unit_test(test_all_dtypes),
		cmocka_unit_test(test_build_rejects),
		cmocka_unit_test(test_build_too_big),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_trailing_bytes),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests_name("consumer", tests, NULL, NULL);
}
