/* SPDX-License-Identifier: MIT */
/*
 * test_hcbcap.c - the .hcbcap binary capture (formats/hcbcap.c and hcbcap_read.c, HCBCAP.md)
 * through the public reader and writer of formats/recfile.h, on real files
 * in a temporary directory:
 *
 *  - round trip, byte for byte, of every dtype with its extreme values
 *    (int64 min, uint64 max, -0.0, NaN payloads, infinities, all 256 float8
 *    patterns), 0-d and empty arrays, multi-leaf trees, a leafless tap, many
 *    consumers on many devices, sessions, drops, barriers and the end; the
 *    JSONL text of each tap read back equals that of the tap written;
 *  - each record goes out in one write(2) (seen through a SOCK_SEQPACKET
 *    socket, which keeps write boundaries), a consumer's definition with its
 *    first tap, once per consumer;
 *  - a file cut at every byte offset reads its complete records and ends
 *    with -ENODATA, or cleanly at a frame boundary;
 *  - every byte flipped (three ways) gives -EBADMSG after the records before
 *    the damage (-EPROTO in the version and flags fields); never a crash;
 *  - lengths claiming more than the limits give -E2BIG; a plausible length
 *    in a short file gives -ENODATA without allocating it (checked under an
 *    address-space limit in a child process);
 *  - versions and header flags this reader does not know give -EPROTO;
 *    frames of a later version marked skippable are skipped;
 *  - a tap's copy times: a skippable frame just before its tap, only where
 *    known (a file without them has no trace of them), read back with the
 *    tap, and refused when out of place, cut or malformed;
 *  - files are created 0600 whatever the umask; write errors are reported.
 *
 *	gcc -std=gnu11 -D_GNU_SOURCE -DHCB_VERSION='"t"' -Isrc -Iformats \
 *		src/{buf,consumer,decode,dtype,registry,tree}.c \
 *		formats/{recfile,hcbcap,hcbcap_read,npz,jsonl,jsonl_read,jsonl_writer,jsonparse}.c \
 *		tests/unit/test_hcbcap.c -lcmocka -ljansson -lz -lm
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "core/dtype.h"
#include "jsonl.h"
#include "le.h"
#include "recfile.h"
#include "recfile_impl.h"

static char tmpdir[] = "/tmp/test_hcbcap.XXXXXX";
#include "testtmp.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* ---- consumers ---- */

static struct hcb_consumer *make_consumer(const char *name, const char *tree, unsigned int n,
					  const struct hcb_leaf_spec *leaves,
					  const char *const *kwargs, uint32_t id)
{
	struct hcb_consumer_spec spec = {
		.name = name, .kwargs = kwargs, .tree = tree, .nleaves = n, .leaves = leaves,
	};
	struct hcb_consumer *c = NULL;
	void *blob;
	size_t len;

	assert_int_equal(hcb_reg_build(&spec, id, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

static struct hcb_consumer *vector_consumer(const char *name, unsigned int dtype, uint64_t n,
					    uint32_t id)
{
	const struct hcb_leaf_spec leaf = { dtype, 1, { n } };

	return make_consumer(name, NULL, 1, &leaf, NULL, id);
}

/* Same definition: the same registration blob. */
static void assert_same_consumer(const struct hcb_consumer *a, const struct hcb_consumer *b)
{
	void *ba, *bb;
	size_t na, nb;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(hcb_consumer_to_reg(a, &ba, &na), 0);
	assert_int_equal(hcb_consumer_to_reg(b, &bb, &nb), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(ba, bb, na);
	free(ba);
	free(bb);
}

/* ---- a list of records and the payload bytes they own ---- */

struct reclist {
	struct hcb_record *r;
	unsigned char **payload;
	size_t n, cap;
};

static void list_add(struct reclist *l, const struct hcb_record *rec)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->r = realloc(l->r, l->cap * sizeof(*l->r));
		l->payload = realloc(l->payload, l->cap * sizeof(*l->payload));
		assert_non_null(l->r);
		assert_non_null(l->payload);
	}
	l->r[l->n] = *rec;
	l->payload[l->n] = NULL;
	if (rec->kind == HCB_REC_TAP) {
		size_t n = (size_t)rec->tap.consumer->total_bytes;

		l->payload[l->n] = malloc(n ? n : 1);
		assert_non_null(l->payload[l->n]);
		if (n)
			memcpy(l->payload[l->n], rec->tap.payload, n);
		l->r[l->n].tap.payload = l->payload[l->n];
	}
	l->n++;
}

static void list_free(struct reclist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->payload[i]);
	free(l->r);
	free(l->payload);
	memset(l, 0, sizeof(*l));
}

static void add_tap(struct reclist *l, const struct hcb_consumer *c, uint32_t device, uint64_t seq,
		    const unsigned char *payload)
{
	struct hcb_record rec = { .kind = HCB_REC_TAP };

	rec.tap.device = device;
	rec.tap.seq = seq;
	rec.tap.wall_ns = 1732240000123456789ull + seq * 1000;
	rec.tap.pid = 4242;
	rec.tap.tid = 4243 + device;
	rec.tap.consumer = c;
	rec.tap.payload = payload;
	list_add(l, &rec);
}

static void add_random_tap(struct reclist *l, const struct hcb_consumer *c, uint32_t device,
			   uint64_t seq)
{
	size_t n = (size_t)c->total_bytes;
	unsigned char *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
	add_tap(l, c, device, seq, p);
	free(p);
}

/* A random tap whose device copy ran from start to end. */
static void add_timed_tap(struct reclist *l, const struct hcb_consumer *c, uint32_t device,
			  uint64_t seq, uint64_t start, uint64_t end)
{
	add_random_tap(l, c, device, seq);
	l->r[l->n - 1].tap.copy_start_ns = start;
	l->r[l->n - 1].tap.copy_end_ns = end;
}

static void add_session(struct reclist *l, const char *platform)
{
	struct hcb_record rec = { .kind = HCB_REC_SESSION };

	rec.session.version = 1;
	rec.session.pid = 4242;
	snprintf(rec.session.provider, sizeof(rec.session.provider), "hcbtap");
	snprintf(rec.session.platform, sizeof(rec.session.platform), "%s", platform);
	rec.session.start_ns = 1732240000000000000ull;
	list_add(l, &rec);
}

static void add_drop(struct reclist *l, uint32_t device, uint64_t count, const char *reason)
{
	struct hcb_record rec = { .kind = HCB_REC_DROP };

	rec.drop.device = device;
	rec.drop.count = count;
	/* what does not fit is cut, as a provider would */
	memcpy(rec.drop.reason, reason, strnlen(reason, sizeof(rec.drop.reason) - 1));
	list_add(l, &rec);
}

static void add_barrier(struct reclist *l, uint64_t ts, uint64_t taps)
{
	struct hcb_record rec = { .kind = HCB_REC_BARRIER };

	rec.barrier.wall_ns = ts;
	rec.barrier.taps = taps;
	list_add(l, &rec);
}

static void add_end(struct reclist *l, uint64_t taps, uint64_t drops)
{
	struct hcb_record rec = { .kind = HCB_REC_END };

	rec.end.taps = taps;
	rec.end.drops = drops;
	rec.end.end_ns = UINT64_MAX;
	list_add(l, &rec);
}

static void assert_same_record(const struct hcb_record *want, const struct hcb_record *got)
{
	assert_int_equal(want->kind, got->kind);
	switch (want->kind) {
	case HCB_REC_SESSION:
		assert_int_equal(want->session.version, got->session.version);
		assert_int_equal(want->session.pid, got->session.pid);
		assert_string_equal(want->session.provider, got->session.provider);
		assert_string_equal(want->session.platform, got->session.platform);
		assert_int_equal(want->session.start_ns, got->session.start_ns);
		break;
	case HCB_REC_TAP: {
		struct hcb_buf a = HCB_BUF_INIT, b = HCB_BUF_INIT;

		assert_int_equal(want->tap.device, got->tap.device);
		assert_int_equal(want->tap.seq, got->tap.seq);
		assert_int_equal(want->tap.wall_ns, got->tap.wall_ns);
		assert_int_equal(want->tap.pid, got->tap.pid);
		assert_int_equal(want->tap.tid, got->tap.tid);
		assert_true(want->tap.copy_start_ns == got->tap.copy_start_ns);
		assert_true(want->tap.copy_end_ns == got->tap.copy_end_ns);
		assert_int_equal(want->tap.consumer->id, got->tap.consumer->id);
		assert_same_consumer(want->tap.consumer, got->tap.consumer);
		if (want->tap.consumer->total_bytes)
			assert_memory_equal(want->tap.payload, got->tap.payload,
					    want->tap.consumer->total_bytes);
		/* and so the same JSONL: the capture converts losslessly */
		assert_int_equal(hcb_jsonl_record(&a, want), 0);
		assert_int_equal(hcb_jsonl_record(&b, got), 0);
		assert_string_equal(hcb_buf_str(&a), hcb_buf_str(&b));
		hcb_buf_free(&a);
		hcb_buf_free(&b);
		break;
	}
	case HCB_REC_DROP:
		assert_int_equal(want->drop.device, got->drop.device);
		assert_int_equal(want->drop.count, got->drop.count);
		assert_string_equal(want->drop.reason, got->drop.reason);
		break;
	case HCB_REC_BARRIER:
		assert_int_equal(want->barrier.wall_ns, got->barrier.wall_ns);
		assert_int_equal(want->barrier.taps, got->barrier.taps);
		break;
	case HCB_REC_END:
		assert_int_equal(want->end.taps, got->end.taps);
		assert_int_equal(want->end.drops, got->end.drops);
		assert_int_equal(want->end.end_ns, got->end.end_ns);
		break;
	default:
		fail_msg("unknown record kind %d", want->kind);
	}
}

static void write_list(const char *path, const struct reclist *l)
{
	struct hcb_writer *w;

	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_HCBCAP), 0);
	for (size_t i = 0; i < l->n; i++)
		assert_int_equal(hcb_writer_write(w, &l->r[i]), 0);
	assert_int_equal(hcb_writer_close(w), 0);
}

/*
 * Read path to its end: every record must equal want's in order.  Returns
 * the reader's last result (0 at a clean end, or the error), the number of
 * records in *count and the message in msg.
 */
static int read_list(const char *path, const struct reclist *want, size_t *count, char *msg,
		     size_t msg_size)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	int n;

	*count = 0;
	n = hcb_reader_open(&r, path);
	if (n)
		return n;
	while ((n = hcb_reader_next(r, &rec)) == 1) {
		assert_true(*count < want->n);
		assert_same_record(&want->r[*count], &rec);
		++*count;
	}
	if (n < 0) {
		/* errors are sticky and name the file and the offset */
		assert_int_equal(hcb_reader_next(r, &rec), n);
		assert_non_null(strstr(hcb_reader_error(r), path));
		assert_non_null(strstr(hcb_reader_error(r), "offset "));
	} else {
		assert_int_equal(hcb_reader_next(r, &rec), 0);
	}
	if (msg)
		snprintf(msg, msg_size, "%s", hcb_reader_error(r));
	hcb_reader_close(r);
	return n;
}

static void assert_round_trip(const struct reclist *l, const char *name)
{
	const char *path = tmp_path(name);
	size_t count;

	write_list(path, l);
	assert_int_equal(read_list(path, l, &count, NULL, 0), 0);
	assert_int_equal(count, l->n);
	unlink(path);
}

/* ---- the file's structure ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	p = malloc(n ? (size_t)n : 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spit(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

#define COPY_FRAME 0x80000001u   /* a tap's copy times (skippable) */

/*
 * Walk the frames of a whole file as HCBCAP.md describes them, checking
 * both CRCs; fills the frame start offsets (ends with the file size) and
 * counts frames per type (copy times frames in counts[7]).  Returns the
 * number of frames.
 */
static size_t walk(const unsigned char *p, size_t len, size_t *starts, size_t max,
		   unsigned int counts[8])
{
	size_t off = 16, n = 0;

	assert_true(len >= 16);
	assert_memory_equal(p, "HCBCAP\x1a\n", 8);
	assert_int_equal(hcb_get_le32(p + 8), 1);
	assert_int_equal(hcb_get_le32(p + 12), 0);
	if (counts)
		memset(counts, 0, 8 * sizeof(counts[0]));
	while (off < len) {
		uint32_t type = hcb_get_le32(p + off);
		uint64_t body = hcb_get_le64(p + off + 4);

		assert_true(off + 20 <= len);
		assert_int_equal(hcb_get_le32(p + off + 12), crc32(0, p + off, 12));
		assert_true(body <= len - off - 20);
		assert_int_equal(hcb_get_le32(p + off + 16 + body), crc32(0, p + off, (uInt)(16 + body)));
		assert_true((type >= 1 && type <= 6) || type == COPY_FRAME);
		if (counts)
			counts[type == COPY_FRAME ? 7 : type]++;
		if (starts && n < max)
			starts[n] = off;
		n++;
		off += 20 + (size_t)body;
	}
	assert_int_equal(off, len);
	if (starts && n < max)
		starts[n] = len;
	return n;
}

/* ---- tests ---- */

/* Every dtype, its extremes first, then random bits. */
static void test_every_dtype(void **state)
{
	struct hcb_consumer *cs[HCB_DT__COUNT] = { 0 };
	struct reclist l = { 0 };
	unsigned char buf[256 * 16];

	(void)state;
	add_session(&l, "cpu");
	for (unsigned int dt = HCB_DT_BOOL; dt < HCB_DT__COUNT; dt++) {
		size_t size = hcb_dtype_size(dt), n = size == 1 && dt != HCB_DT_BOOL ? 256 : 24;
		char name[64];

		snprintf(name, sizeof(name), "dt_%s", hcb_dtype_name(dt));
		cs[dt] = vector_consumer(name, dt, n, 1000 + dt);
		for (size_t i = 0; i < n * size; i++)
			buf[i] = (unsigned char)rnd();
		switch (dt) {
		case HCB_DT_BOOL:
			for (size_t i = 0; i < n; i++)
				buf[i] = (unsigned char)(rnd() & 1);
			break;
		case HCB_DT_INT8: case HCB_DT_UINT8:
		case HCB_DT_FLOAT8_E4M3FN: case HCB_DT_FLOAT8_E5M2: case HCB_DT_FLOAT8_E3M4:
		case HCB_DT_FLOAT8_E4M3: case HCB_DT_FLOAT8_E4M3FNUZ: case HCB_DT_FLOAT8_E4M3B11FNUZ:
		case HCB_DT_FLOAT8_E5M2FNUZ: case HCB_DT_FLOAT8_E8M0FNU:
			for (size_t i = 0; i < 256; i++)
				buf[i] = (unsigned char)i;   /* every bit pattern */
			break;
		case HCB_DT_FLOAT4_E2M1FN: case HCB_DT_INT2: case HCB_DT_INT4:
		case HCB_DT_UINT2: case HCB_DT_UINT4:
			/* every value, one a byte, the bits above zero */
			for (size_t i = 0; i < 256; i++)
				buf[i] = (unsigned char)(i % (1u << hcb_dtype_bits(dt)));
			break;
		case HCB_DT_INT64: {
			const int64_t v[] = { INT64_MIN, INT64_MAX, -1, 0 };

			memcpy(buf, v, sizeof(v));
			break;
		}
		case HCB_DT_UINT64: {
			const uint64_t v[] = { UINT64_MAX, 0, 1ull << 63 };

			memcpy(buf, v, sizeof(v));
			break;
		}
		case HCB_DT_INT32: {
			const int32_t v[] = { INT32_MIN, INT32_MAX };

			memcpy(buf, v, sizeof(v));
			break;
		}
		case HCB_DT_FLOAT16: case HCB_DT_BFLOAT16: case HCB_DT_INT16: case HCB_DT_UINT16: {
			const uint16_t v[] = { 0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e01, 0xffff, 0x0001,
					       0x7f80, 0xff80, 0x7fc1, 0x3c00, 0x7bff };

			memcpy(buf, v, sizeof(v));
			break;
		}
		case HCB_DT_FLOAT32: case HCB_DT_COMPLEX64: {
			const float v[] = { -0.0f, 0.0f, NAN, -NAN, INFINITY, -INFINITY, 1e-45f,
					    3.4028235e38f, 0.1f };
			const uint32_t nan_payload = 0x7fa00001;

			memcpy(buf, v, sizeof(v));
			memcpy(buf + sizeof(v), &nan_payload, 4);
			break;
		}
		case HCB_DT_FLOAT64: case HCB_DT_COMPLEX128: {
			const double v[] = { -0.0, 0.0, NAN, -NAN, INFINITY, -INFINITY, 5e-324,
					     1.7976931348623157e308, 0.1 };
			const uint64_t nan_payload = 0x7ff4000000000001ull;

			memcpy(buf, v, sizeof(v));
			memcpy(buf + sizeof(v), &nan_payload, 8);
			break;
		}
		default:
			break;
		}
		add_tap(&l, cs[dt], dt % 4, dt, buf);
	}
	add_end(&l, HCB_DT__COUNT - 1, 0);
	assert_round_trip(&l, "dtypes.hcbcap");
	list_free(&l);
	for (unsigned int dt = 0; dt < HCB_DT__COUNT; dt++)
		hcb_consumer_free(cs[dt]);
}

/* 0-d, empty and multi-dimensional arrays, trees, kwargs, a leafless tap. */
static void test_shapes_and_trees(void **state)
{
	static const char *const kw[] = { "what", "params", "q\"uote", "tab\there", "empty", "", NULL };
	static const struct hcb_leaf_spec leaves[] = {
		{ HCB_DT_FLOAT32, 2, { 2, 3 } }, { HCB_DT_INT64, 0, { 0 } },
		{ HCB_DT_COMPLEX64, 1, { 0 } }, { HCB_DT_BFLOAT16, 2, { 3, 0 } },
		{ HCB_DT_BOOL, 8, { 1, 2, 1, 2, 1, 2, 1, 2 } }, { HCB_DT_FLOAT8_E5M2, 3, { 2, 2, 2 } },
	};
	static const struct hcb_leaf_spec scalar_leaf[] = { { HCB_DT_FLOAT64, 0, { 0 } } };
	struct hcb_consumer *tree, *scalar, *empty, *leafless;
	struct reclist l = { 0 };

	(void)state;
	tree = make_consumer("params", "{ b=( * * ) w=[ * { x=* y=* } ] z=* }", 6, leaves, kw, 7);
	scalar = make_consumer("scalar", NULL, 1, scalar_leaf, NULL, 0xffffffffu);
	empty = vector_consumer("empty", HCB_DT_FLOAT32, 0, 9);
	leafless = make_consumer("nothing", "( )", 0, NULL, NULL, 10);
	assert_int_equal(empty->total_bytes, 0);
	add_session(&l, "cuda");
	for (unsigned int i = 0; i < 5; i++) {
		add_random_tap(&l, tree, i, i);
		add_random_tap(&l, scalar, i, 100 + i);
		add_random_tap(&l, empty, i, 200 + i);
		add_random_tap(&l, leafless, 255, UINT64_MAX - i);
	}
	add_end(&l, 20, 0);
	assert_round_trip(&l, "shapes.hcbcap");
	list_free(&l);
	hcb_consumer_free(tree);
	hcb_consumer_free(scalar);
	hcb_consumer_free(empty);
	hcb_consumer_free(leafless);
}

/* Many consumers, interleaved on many devices: one definition each. */
static void test_many_consumers(void **state)
{
	enum { NC = 300 };
	struct hcb_consumer *cs[NC];
	struct reclist l = { 0 };
	const char *path = tmp_path("many.hcbcap");
	unsigned int counts[8];
	unsigned char *p;
	size_t len, count;

	(void)state;
	for (unsigned int i = 0; i < NC; i++) {
		char name[32];

		snprintf(name, sizeof(name), "site%u", i);
		/* ids that collide in a small hash table */
		cs[i] = vector_consumer(name, HCB_DT_FLOAT32 + i % 2, 1 + i % 7, (i + 1) << 12);
	}
	add_session(&l, "cpu");
	for (unsigned int k = 0; k < 3000; k++)
		add_random_tap(&l, cs[rnd() % NC], rnd() % 16, k);
	add_drop(&l, 3, 17, "ring buffer full");
	add_barrier(&l, 1, 3000);
	add_end(&l, 3000, 17);
	write_list(path, &l);
	assert_int_equal(read_list(path, &l, &count, NULL, 0), 0);
	assert_int_equal(count, l.n);
	p = slurp(path, &len);
	walk(p, len, NULL, 0, counts);
	assert_int_equal(counts[1], 1);
	assert_int_equal(counts[3], 3000);
	assert_true(counts[2] <= NC && counts[2] > NC / 2);
	assert_int_equal(counts[4] + counts[5] + counts[6], 3);
	free(p);
	list_free(&l);
	for (unsigned int i = 0; i < NC; i++)
		hcb_consumer_free(cs[i]);
}

/* Sessions, drops, barriers, ends with their extremes; a recording with no records. */
static void test_other_records(void **state)
{
	struct reclist l = { 0 };
	struct hcb_record rec = { .kind = HCB_REC_SESSION };
	char reason[200];
	size_t count;

	(void)state;
	memset(reason, 'r', sizeof(reason));
	reason[sizeof(reason) - 1] = '\0';
	rec.session.version = 7;
	rec.session.pid = -1;
	memset(rec.session.provider, 'p', sizeof(rec.session.provider) - 1);
	memset(rec.session.platform, 'q', sizeof(rec.session.platform) - 1);
	rec.session.start_ns = UINT64_MAX;
	list_add(&l, &rec);
	add_session(&l, "");
	add_drop(&l, UINT32_MAX, UINT64_MAX, reason);   /* 127 bytes kept */
	add_drop(&l, 0, 0, "");
	add_barrier(&l, 0, 0);
	add_barrier(&l, UINT64_MAX, UINT64_MAX);
	add_end(&l, 0, 0);
	assert_int_equal(strlen(l.r[2].drop.reason), 127);
	assert_round_trip(&l, "records.hcbcap");

	/* no records at all: just the header, and a clean end */
	l.n = 0;
	write_list(tmp_path("none.hcbcap"), &l);
	assert_int_equal(read_list(tmp_path("none.hcbcap"), &l, &count, NULL, 0), 0);
	assert_int_equal(count, 0);
	l.n = 7;
	list_free(&l);
}

/* A file named otherwise is recognised by its first byte. */
static void test_sniffed(void **state)
{
	struct hcb_consumer *c = vector_consumer("x", HCB_DT_INT16, 3, 5);
	struct reclist l = { 0 };
	size_t count;

	(void)state;
	add_session(&l, "cpu");
	add_random_tap(&l, c, 0, 0);
	write_list(tmp_path("named.hcbcap"), &l);
	assert_int_equal(rename(tmp_path("named.hcbcap"), tmp_path("named.rec")), 0);
	assert_int_equal(read_list(tmp_path("named.rec"), &l, &count, NULL, 0), 0);
	assert_int_equal(count, 2);
	list_free(&l);
	hcb_consumer_free(c);
}

/* Each record in one write(2): a SOCK_SEQPACKET socket keeps the boundaries. */
static void test_one_write_per_record(void **state)
{
	struct hcb_consumer *a = vector_consumer("a", HCB_DT_FLOAT32, 4, 1);
	struct hcb_consumer *b = vector_consumer("b", HCB_DT_UINT8, 3, 2);
	struct reclist l = { 0 };
	struct hcb_writer *w;
	unsigned char msg[65536];
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(hcb_writer_open_fd(&w, sv[0], HCB_FMT_HCBCAP), 0);
	add_session(&l, "cpu");
	add_random_tap(&l, a, 0, 0);       /* a's definition and tap: two frames, one write */
	add_random_tap(&l, a, 0, 1);
	add_random_tap(&l, b, 1, 0);
	add_random_tap(&l, a, 1, 2);
	add_drop(&l, 0, 1, "x");
	add_end(&l, 4, 1);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(hcb_writer_write(w, &l.r[i]), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	close(sv[0]);

	assert_int_equal(recv(sv[1], msg, sizeof(msg), 0), 16);   /* the file header */
	for (size_t i = 0; i < l.n; i++) {
		ssize_t n = recv(sv[1], msg, sizeof(msg), 0);
		size_t frames = 0, off = 0;

		assert_true(n > 0);
		while (off < (size_t)n) {
			uint64_t body = hcb_get_le64(msg + off + 4);

			assert_true(off + 20 + body <= (size_t)n);
			assert_int_equal(hcb_get_le32(msg + off + 16 + body),
					 crc32(0, msg + off, (uInt)(16 + body)));
			off += 20 + body;
			frames++;
		}
		assert_int_equal(off, (size_t)n);
		assert_int_equal(frames, i == 1 || i == 3 ? 2 : 1);
	}
	assert_int_equal(recv(sv[1], msg, sizeof(msg), 0), 0);
	close(sv[1]);
	list_free(&l);
	hcb_consumer_free(a);
	hcb_consumer_free(b);
}

static void small_recording(struct reclist *l, struct hcb_consumer **cs)
{
	static const struct hcb_leaf_spec leaves[] = {
		{ HCB_DT_INT8, 1, { 3 } }, { HCB_DT_FLOAT16, 0, { 0 } },
	};
	static const char *const kw[] = { "what", "w", NULL };

	cs[0] = vector_consumer("loss", HCB_DT_FLOAT32, 2, 11);
	cs[1] = make_consumer("pair", "( * * )", 2, leaves, kw, 12);
	cs[2] = vector_consumer("empty", HCB_DT_INT32, 0, 13);
	add_session(l, "cpu");
	add_random_tap(l, cs[0], 0, 0);
	add_random_tap(l, cs[1], 0, 1);
	add_timed_tap(l, cs[0], 1, 0, 1732240000123455000ull, 1732240000123456000ull);
	add_drop(l, 1, 2, "lost");
	add_random_tap(l, cs[2], 0, 2);
	add_barrier(l, 5, 4);
	add_random_tap(l, cs[1], 1, 1);
	add_end(l, 5, 2);
}

/* Records each frame ends: frame i of the file ends record rec_of[i], or none. */
static size_t records_before(const size_t *starts, size_t nframes, const unsigned int *is_record,
			     size_t cut)
{
	size_t recs = 0;

	for (size_t i = 0; i < nframes && starts[i + 1] <= cut; i++)
		recs += is_record[i];
	return recs;
}

/* A file cut anywhere: all complete records, then -ENODATA or a clean end. */
static void test_truncation(void **state)
{
	struct hcb_consumer *cs[3];
	struct reclist l = { 0 };
	const char *full = tmp_path("full.hcbcap"), *cut_path = tmp_path("cut.hcbcap");
	size_t starts[64], nframes, len, count;
	unsigned int is_record[64];
	unsigned char *p;
	char msg[512];

	(void)state;
	small_recording(&l, cs);
	write_list(full, &l);
	p = slurp(full, &len);
	nframes = walk(p, len, starts, 63, NULL);
	/* consumer frames and copy times are no records */
	for (size_t i = 0; i < nframes; i++)
		is_record[i] = hcb_get_le32(p + starts[i]) != 2 &&
			       hcb_get_le32(p + starts[i]) != COPY_FRAME;
	for (size_t cut = 0; cut < len; cut++) {
		int boundary = cut == 16;
		int n;

		/* a file that ends after a tap's copy times is cut in that tap */
		for (size_t i = 0; i < nframes; i++)
			boundary |= starts[i + 1] == cut && hcb_get_le32(p + starts[i]) != COPY_FRAME;
		spit(cut_path, p, cut);
		n = read_list(cut_path, &l, &count, msg, sizeof(msg));
		if (cut == 0) {
			/* nothing at all is no recording, not a truncated one */
			assert_int_equal(n, -EBADMSG);
			assert_non_null(strstr(msg, "empty file: not a recording"));
		} else if (boundary) {
			assert_int_equal(n, 0);
		} else {
			if (n != -ENODATA)
				fail_msg("cut at %zu: %d (%s)", cut, n, msg);
			assert_non_null(strstr(msg, "truncated"));
		}
		assert_int_equal(count, cut < 16 ? 0 : records_before(starts, nframes, is_record, cut));
	}
	free(p);
	list_free(&l);
	for (int i = 0; i < 3; i++)
		hcb_consumer_free(cs[i]);
}

/* Damage anywhere: -EBADMSG (or -EPROTO in the version and flags), never a crash. */
static void test_flipped_bytes(void **state)
{
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };
	struct hcb_consumer *cs[3];
	struct reclist l = { 0 };
	const char *full = tmp_path("full.hcbcap"), *bad = tmp_path("bad.hcbcap");
	size_t starts[64], nframes, len, count;
	unsigned int is_record[64];
	unsigned char *p;
	char msg[512];

	(void)state;
	small_recording(&l, cs);
	write_list(full, &l);
	p = slurp(full, &len);
	nframes = walk(p, len, starts, 63, NULL);
	for (size_t i = 0; i < nframes; i++)
		is_record[i] = hcb_get_le32(p + starts[i]) != 2 &&
			       hcb_get_le32(p + starts[i]) != COPY_FRAME;
	for (size_t at = 0; at < len; at++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			size_t frame = 0;
			int n;

			p[at] ^= masks[m];
			spit(bad, p, len);
			p[at] ^= masks[m];
			n = read_list(bad, &l, &count, msg, sizeof(msg));
			if (at < 8) {
				assert_int_equal(n, -EBADMSG);
			} else if (at < 16) {
				assert_int_equal(n, -EPROTO);
			} else {
				if (n != -EBADMSG)
					fail_msg("byte %zu ^ 0x%02x: %d (%s)", at, masks[m], n, msg);
				while (starts[frame + 1] <= at)
					frame++;
				/* the records before the damaged frame, no more */
				assert_int_equal(count, records_before(starts, nframes, is_record,
								       starts[frame]));
			}
		}
	}
	free(p);
	list_free(&l);
	for (int i = 0; i < 3; i++)
		hcb_consumer_free(cs[i]);
}

/* A frame with a valid header CRC claiming len bytes, and nothing more. */
static size_t claim(unsigned char *out, uint32_t type, uint64_t len)
{
	memcpy(out, "HCBCAP\x1a\n", 8);
	hcb_put_le32(out + 8, 1);
	hcb_put_le32(out + 12, 0);
	hcb_put_le32(out + 16, type);
	hcb_put_le64(out + 20, len);
	hcb_put_le32(out + 28, (uint32_t)crc32(0, out + 16, 12));
	memset(out + 32, 0, 64);
	return 32 + 64;
}

static int read_status(const char *path, char *msg, size_t size)
{
	struct reclist none = { 0 };
	size_t count;

	return read_list(path, &none, &count, msg, size);
}

static void test_huge_lengths(void **state)
{
	static const struct { uint32_t type; uint64_t len; int err; } cases[] = {
		{ 3, UINT64_MAX, -E2BIG },
		{ 3, 1ull << 40, -E2BIG },
		{ 3, (1ull << 30) + 33, -E2BIG },
		{ 3, (1ull << 30) + 32, -ENODATA },      /* at the limit: plausible, truncated */
		{ 2, (1u << 20) + 1, -E2BIG },           /* consumer: a registration's limit */
		{ 2, 1u << 20, -ENODATA },
		{ 0x80000007u, 1ull << 31, -E2BIG },     /* skippable frames too */
		{ 0x80000007u, 1000, -ENODATA },
		{ COPY_FRAME, 1ull << 31, -EBADMSG },    /* but a tap's copy times: 16 bytes */
		{ COPY_FRAME, 1000, -EBADMSG },
		{ 1, 1ull << 35, -EBADMSG },             /* fixed-size records: wrong size */
		{ 5, 17, -EBADMSG },
		{ 6, 23, -EBADMSG },
		{ 4, 200, -EBADMSG },
		{ 7, 8, -EBADMSG },                      /* unknown, not skippable */
		{ 0, 0, -EBADMSG },
	};
	const char *path = tmp_path("huge.hcbcap");
	unsigned char buf[128];
	char msg[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n;

		spit(path, buf, claim(buf, cases[i].type, cases[i].len));
		n = read_status(path, msg, sizeof(msg));
		if (n != cases[i].err)
			fail_msg("type %u length %llu: %d, not %d (%s)", cases[i].type,
				 (unsigned long long)cases[i].len, n, cases[i].err, msg);
	}
}

/* The reader allocates for the bytes that are there, not for what a frame claims:
 * with 256 MiB of address space to spare, a 1 GiB claim still reads to -ENODATA. */
static void test_claims_not_allocated(void **state)
{
	const char *path = tmp_path("claim.hcbcap");
	unsigned char buf[128];
	pid_t pid;
	int status;

	(void)state;
	spit(path, buf, claim(buf, 3, (1ull << 30) + 32));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen("/proc/self/statm", "r");
		unsigned long pages = 0;
		struct rlimit lim;
		char msg[512];

		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(3);
		fclose(f);
		lim.rlim_cur = lim.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) + (256ul << 20);
		if (setrlimit(RLIMIT_AS, &lim))
			_exit(4);
		_exit(read_status(path, msg, sizeof(msg)) == -ENODATA ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_versions(void **state)
{
	struct hcb_consumer *c = vector_consumer("v", HCB_DT_INT8, 1, 3);
	struct reclist l = { 0 };
	const char *path = tmp_path("v.hcbcap");
	unsigned char *p;
	size_t len, count;
	char msg[512];

	(void)state;
	add_session(&l, "cpu");
	add_random_tap(&l, c, 0, 0);
	write_list(path, &l);
	p = slurp(path, &len);

	hcb_put_le32(p + 8, 2);
	spit(path, p, len);
	assert_int_equal(read_list(path, &l, &count, msg, sizeof(msg)), -EPROTO);
	assert_non_null(strstr(msg, "version 2"));
	assert_int_equal(count, 0);
	hcb_put_le32(p + 8, 0);
	spit(path, p, len);
	assert_int_equal(read_list(path, &l, &count, NULL, 0), -EPROTO);
	hcb_put_le32(p + 8, 1);
	hcb_put_le32(p + 12, 4);
	spit(path, p, len);
	assert_int_equal(read_list(path, &l, &count, NULL, 0), -EPROTO);
	hcb_put_le32(p + 12, 0);
	p[1] = 'X';
	spit(path, p, len);
	assert_int_equal(read_list(path, &l, &count, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "not an .hcbcap"));
	p[1] = 'C';
	spit(path, p, len);
	assert_int_equal(read_list(path, &l, &count, NULL, 0), 0);
	assert_int_equal(count, 2);
	free(p);
	list_free(&l);
	hcb_consumer_free(c);
}

/* Frames that pass their CRCs but contradict what came before. */
static void test_inconsistent_frames(void **state)
{
	struct hcb_consumer *a = vector_consumer("a", HCB_DT_FLOAT32, 4, 1);
	struct hcb_consumer *a2 = vector_consumer("a", HCB_DT_FLOAT32, 5, 1);
	struct hcb_consumer *b = vector_consumer("b", HCB_DT_FLOAT32, 4, 2);
	struct reclist l = { 0 }, la = { 0 }, lb = { 0 };
	const char *pa = tmp_path("a.hcbcap"), *pb = tmp_path("b.hcbcap"), *pc = tmp_path("c.hcbcap");
	unsigned char *fa, *fb, *cat;
	size_t na, nb, count;
	char msg[512];

	(void)state;
	add_random_tap(&la, a, 0, 0);
	add_random_tap(&lb, a2, 0, 0);
	add_random_tap(&lb, b, 0, 1);
	write_list(pa, &la);
	write_list(pb, &lb);
	fa = slurp(pa, &na);
	fb = slurp(pb, &nb);

	/* the same consumer defined twice alike: fine */
	cat = malloc(na + na);
	assert_non_null(cat);
	memcpy(cat, fa, na);
	memcpy(cat + na, fa + 16, na - 16);
	spit(pc, cat, na + na - 16);
	list_add(&l, &la.r[0]);
	list_add(&l, &la.r[0]);
	assert_int_equal(read_list(pc, &l, &count, NULL, 0), 0);
	assert_int_equal(count, 2);

	/* defined again differently: damage, after the first tap */
	memcpy(cat + na, fb + 16, nb - 16 < na - 16 ? nb - 16 : na - 16);
	spit(pc, cat, na + (nb - 16 < na - 16 ? nb - 16 : na - 16));
	assert_int_equal(read_list(pc, &l, &count, msg, sizeof(msg)), -EBADMSG);
	assert_int_equal(count, 1);
	assert_non_null(strstr(msg, "defined again"));

	/* a tap of a consumer never defined: b's second tap frame alone */
	{
		size_t starts[8], n = walk(fb, nb, starts, 7, NULL);
		size_t len = starts[n] - starts[n - 1];

		assert_int_equal(n, 4);
		memcpy(cat + 16, fb + starts[n - 1], len);
		spit(pc, cat, 16 + len);
		assert_int_equal(read_list(pc, &l, &count, msg, sizeof(msg)), -EBADMSG);
		assert_non_null(strstr(msg, "no earlier frame defines"));
	}

	/* the writer refuses a second, different consumer with the same id */
	{
		struct hcb_writer *w;
		struct hcb_record rec = la.r[0];

		assert_int_equal(hcb_writer_open(&w, pc, HCB_FMT_HCBCAP), 0);
		assert_int_equal(hcb_writer_write(w, &rec), 0);
		rec.tap.consumer = a2;
		rec.tap.payload = lb.r[0].tap.payload;
		assert_int_equal(hcb_writer_write(w, &rec), -EINVAL);
		/* any u32 is a device (jax's 2048 on, a hostile 2^32 - 1):
		 * test_devids.c reads such ones back */
		rec.tap.consumer = a;
		rec.tap.device = UINT32_MAX;
		assert_int_equal(hcb_writer_write(w, &rec), 0);
		assert_int_equal(hcb_writer_close(w), 0);
	}
	free(cat);
	free(fa);
	free(fb);
	list_free(&l);
	list_free(&la);
	list_free(&lb);
	hcb_consumer_free(a);
	hcb_consumer_free(a2);
	hcb_consumer_free(b);
}

/* Skippable frames (type bit 31) of later versions are checked and skipped. */
static void test_skippable_frames(void **state)
{
	struct hcb_consumer *c = vector_consumer("s", HCB_DT_UINT16, 2, 3);
	struct reclist l = { 0 };
	const char *path = tmp_path("skip.hcbcap");
	unsigned char *p, *q, extra[20 + 5];
	size_t len, count, starts[8];

	(void)state;
	add_session(&l, "cpu");
	add_random_tap(&l, c, 0, 0);
	write_list(path, &l);
	p = slurp(path, &len);
	walk(p, len, starts, 7, NULL);
	hcb_put_le32(extra, 0x80000007u);
	hcb_put_le64(extra + 4, 5);
	hcb_put_le32(extra + 12, (uint32_t)crc32(0, extra, 12));
	memcpy(extra + 16, "later", 5);
	hcb_put_le32(extra + 21, (uint32_t)crc32(0, extra, 21));
	/* header, session, the new frame, consumer and tap, the new frame */
	q = malloc(len + 2 * sizeof(extra));
	assert_non_null(q);
	memcpy(q, p, starts[1]);
	memcpy(q + starts[1], extra, sizeof(extra));
	memcpy(q + starts[1] + sizeof(extra), p + starts[1], len - starts[1]);
	memcpy(q + len + sizeof(extra), extra, sizeof(extra));
	spit(path, q, len + 2 * sizeof(extra));
	assert_int_equal(read_list(path, &l, &count, NULL, 0), 0);
	assert_int_equal(count, 2);
	/* damaged, it is damage like any other frame */
	q[starts[1] + 17] ^= 1;
	spit(path, q, len + 2 * sizeof(extra));
	assert_int_equal(read_list(path, &l, &count, NULL, 0), -EBADMSG);
	assert_int_equal(count, 1);
	free(p);
	free(q);
	list_free(&l);
	hcb_consumer_free(c);
}

/*
 * A tap's copy times: a frame of their own just before the tap, in the same
 * write; none where a tap has none, so that the file is byte for byte the
 * one without them less those frames; read back with their tap, which
 * starts (for hcb_reader_offset and seek) at its copy times.
 */
static void test_copy_times(void **state)
{
	struct hcb_consumer *a = vector_consumer("a", HCB_DT_FLOAT32, 3, 1);
	struct hcb_consumer *b = vector_consumer("b", HCB_DT_INT8, 0, 2);
	struct reclist l = { 0 };
	const char *timed = tmp_path("timed.hcbcap"), *plain = tmp_path("plain.hcbcap");
	size_t starts[32], nframes, tlen, plen, n, count, k = 0;
	unsigned char *tp, *pp, *q;
	unsigned int counts[8];
	struct hcb_reader *r;
	struct hcb_record rec;

	(void)state;
	add_session(&l, "cpu");
	add_timed_tap(&l, a, 0, 0, 1000, 2500);        /* with its consumer frame */
	add_random_tap(&l, a, 0, 1);
	add_timed_tap(&l, b, 1, 0, 0, UINT64_MAX);     /* a leafless tap */
	add_timed_tap(&l, a, 1, 1, UINT64_MAX, UINT64_MAX);
	add_drop(&l, 0, 1, "x");
	add_timed_tap(&l, a, 0, 3, 7, 7);
	add_end(&l, 5, 1);
	assert_round_trip(&l, "timed.hcbcap");
	write_list(timed, &l);
	tp = slurp(timed, &tlen);
	nframes = walk(tp, tlen, starts, 31, counts);
	assert_int_equal(counts[7], 4);
	for (size_t i = 0; i < nframes; i++) {
		if (hcb_get_le32(tp + starts[i]) != COPY_FRAME)
			continue;
		/* 16 bytes, start and end; the tap frame next */
		assert_int_equal(hcb_get_le64(tp + starts[i] + 4), 16);
		assert_int_equal(hcb_get_le32(tp + starts[i + 1]), 3);
		while (l.r[k].kind != HCB_REC_TAP || !l.r[k].tap.copy_end_ns)
			k++;
		assert_true(hcb_get_le64(tp + starts[i] + 16) == l.r[k].tap.copy_start_ns);
		assert_true(hcb_get_le64(tp + starts[i] + 24) == l.r[k].tap.copy_end_ns);
		k++;
	}
	/* without the times: the same file less those frames */
	for (size_t i = 0; i < l.n; i++)
		if (l.r[i].kind == HCB_REC_TAP)
			l.r[i].tap.copy_start_ns = l.r[i].tap.copy_end_ns = 0;
	write_list(plain, &l);
	pp = slurp(plain, &plen);
	walk(pp, plen, NULL, 0, counts);
	assert_int_equal(counts[7], 0);
	q = malloc(tlen);
	assert_non_null(q);
	n = 0;
	for (size_t i = 0; i < nframes; i++) {
		if (i == 0) {
			memcpy(q, tp, starts[0]);
			n = starts[0];
		}
		if (hcb_get_le32(tp + starts[i]) == COPY_FRAME)
			continue;
		memcpy(q + n, tp + starts[i], starts[i + 1] - starts[i]);
		n += starts[i + 1] - starts[i];
	}
	assert_int_equal(n, plen);
	assert_memory_equal(q, pp, plen);

	/* a timed tap starts at its copy times: read back from there, whole */
	assert_int_equal(hcb_reader_open(&r, timed), 0);
	count = 0;
	while (hcb_reader_next(r, &rec) == 1) {
		if (rec.kind == HCB_REC_TAP && rec.tap.copy_end_ns) {
			uint64_t off = hcb_reader_offset(r), start = rec.tap.copy_start_ns;

			assert_int_equal(hcb_get_le32(tp + off), COPY_FRAME);
			assert_int_equal(hcb_reader_seek(r, off), 0);
			assert_int_equal(hcb_reader_next(r, &rec), 1);
			assert_true(rec.tap.copy_start_ns == start && rec.tap.copy_end_ns);
			count++;
		}
	}
	assert_int_equal(count, 4);
	hcb_reader_close(r);
	free(q);
	free(tp);
	free(pp);
	list_free(&l);
	hcb_consumer_free(a);
	hcb_consumer_free(b);
}

/* The file of one tap with copy times, frames: header, consumer, copy times, tap. */
static unsigned char *timed_file(struct hcb_consumer *c, size_t *len, size_t starts[8])
{
	struct reclist l = { 0 };
	const char *path = tmp_path("one.hcbcap");
	unsigned char *p;

	add_timed_tap(&l, c, 0, 0, 100, 200);
	write_list(path, &l);
	p = slurp(path, len);
	assert_int_equal(walk(p, *len, starts, 7, NULL), 3);
	assert_int_equal(hcb_get_le32(p + starts[1]), COPY_FRAME);
	list_free(&l);
	return p;
}

/* Put a frame of type and body (n bytes) at out; its size. */
static size_t frame_at(unsigned char *out, uint32_t type, const void *body, size_t n)
{
	hcb_put_le32(out, type);
	hcb_put_le64(out + 4, n);
	hcb_put_le32(out + 12, (uint32_t)crc32(0, out, 12));
	memcpy(out + 16, body, n);
	hcb_put_le32(out + 16 + n, (uint32_t)crc32(0, out, (uInt)(16 + n)));
	return 20 + n;
}

/* Copy times out of place, cut, or malformed: one clear message at their frame. */
static void test_copy_times_damage(void **state)
{
	struct hcb_consumer *c = vector_consumer("c", HCB_DT_UINT16, 2, 5);
	const char *path = tmp_path("bad.hcbcap");
	unsigned char *p, q[512], body[24];
	size_t len, starts[8], n, count;
	struct reclist none = { 0 };
	char msg[512], want[128];

	(void)state;
	p = timed_file(c, &len, starts);
	assert_true(len < sizeof(q) - 64);
	snprintf(want, sizeof(want), "offset %zu: ", starts[1]);

	/* the file ends after them: a cut tap */
	spit(path, p, starts[2]);
	assert_int_equal(read_list(path, &none, &count, msg, sizeof(msg)), -ENODATA);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "the file ends after a tap's copy times, before the tap"));

	/* another frame after them: an end record */
	memcpy(q, p, starts[2]);
	memset(body, 0, sizeof(body));
	n = starts[2] + frame_at(q + starts[2], 6, body, 24);
	spit(path, q, n);
	assert_int_equal(read_list(path, &none, &count, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "a tap's copy times not followed by their tap (a end frame"));
	/* or twice */
	n = starts[2] + frame_at(q + starts[2], COPY_FRAME, p + starts[1] + 16, 16);
	memcpy(q + n, p + starts[2], len - starts[2]);
	spit(path, q, n + len - starts[2]);
	assert_int_equal(read_list(path, &none, &count, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "(a copy times frame comes next)"));

	/* an end before the start */
	hcb_put_le64(body, 201);
	hcb_put_le64(body + 8, 200);
	memcpy(q, p, starts[1]);
	n = starts[1] + frame_at(q + starts[1], COPY_FRAME, body, 16);
	memcpy(q + n, p + starts[2], len - starts[2]);
	spit(path, q, n + len - starts[2]);
	assert_int_equal(read_list(path, &none, &count, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "a tap's copy times end before they start (201 > 200)"));

	/* a body of another size is damage, not a frame too large to read */
	for (size_t size = 0; size <= 24; size += 8) {
		if (size == 16)
			continue;
		n = starts[1] + frame_at(q + starts[1], COPY_FRAME, body, size);
		memcpy(q + n, p + starts[2], len - starts[2]);
		spit(path, q, n + len - starts[2]);
		assert_int_equal(read_list(path, &none, &count, msg, sizeof(msg)), -EBADMSG);
		assert_non_null(strstr(msg, want));
		assert_non_null(strstr(msg, "a copy times frame of"));
		assert_non_null(strstr(msg, "bytes (expected 16 to 16)"));
	}

	/* a reader that does not know them skips them (as for any skippable
	 * type it does not know): the tap, without times */
	{
		struct reclist l = { 0 };

		add_random_tap(&l, c, 0, 0);
		memcpy(q, p, len);
		frame_at(q + starts[1], 0x800000ffu, p + starts[1] + 16, 16);
		memcpy(l.payload[0], p + starts[2] + 16 + 32, 4);   /* the random payload written */
		spit(path, q, len);
		assert_int_equal(read_list(path, &l, &count, msg, sizeof(msg)), 0);
		assert_int_equal(count, 1);
		list_free(&l);
	}

	/* the writer refuses what readers would */
	{
		struct hcb_writer *w;
		struct reclist l = { 0 };

		add_timed_tap(&l, c, 0, 0, 201, 200);
		assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_HCBCAP), 0);
		assert_int_equal(hcb_writer_write(w, &l.r[0]), -EINVAL);
		assert_int_equal(hcb_writer_close(w), 0);
		list_free(&l);
	}
	free(p);
	hcb_consumer_free(c);
}

static void test_mode_and_write_errors(void **state)
{
	const char *path = tmp_path("private.hcbcap");
	struct hcb_writer *w;
	struct stat st;
	mode_t old = umask(0);
	int fd;

	(void)state;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_HCBCAP), 0);
	assert_int_equal(hcb_writer_close(w), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 16);

	/* a full disk: the header cannot be written */
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		assert_int_equal(hcb_writer_open_fd(&w, fd, HCB_FMT_HCBCAP), -ENOSPC);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_dtype),
		cmocka_unit_test(test_shapes_and_trees),
		cmocka_unit_test(test_many_consumers),
		cmocka_unit_test(test_other_records),
		cmocka_unit_test(test_sniffed),
		cmocka_unit_test(test_one_write_per_record),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_huge_lengths),
		cmocka_unit_test(test_claims_not_allocated),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_inconsistent_frames),
		cmocka_unit_test(test_skippable_frames),
		cmocka_unit_test(test_copy_times),
		cmocka_unit_test(test_copy_times_damage),
		cmocka_unit_test(test_mode_and_write_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
