/* SPDX-License-Identifier: MIT */
/*
 * test_npz.c - the .npz export (formats/npz.c) read back by a strict ZIP
 * reader written here: every local header, member CRC and size, the .npy
 * header of every member (format 1.0, exact dict text, 64-byte alignment),
 * the member names (consumer/platform+device/index[_leaf]), the bytes of
 * every array against the taps written, __dtypes__.json, and the central
 * directory and end records against the local headers.  ZIP64: members and
 * offsets past 4 GiB (streamed through a pipe from a zero-filled mapping,
 * never stored) and more than 65535 members.
 *
 * numpy's own reading is checked by tests/tools/check_npz.py.
 *
 *	gcc -std=gnu11 -D_GNU_SOURCE -DHCB_VERSION='"t"' -Isrc -Iformats \
 *		src/{buf,consumer,decode,dtype,registry,tree}.c formats/{*}.c \
 *		tests/unit/test_npz.c -lcmocka -ljansson -lz -lm
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/consumer.h"
#include "core/dtype.h"
#include "le.h"
#include "recfile.h"
#include "recfile_impl.h"

static char tmpdir[] = "/tmp/test_npz.XXXXXX";
#include "testtmp.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* ---- a strict, streaming ZIP reader (no cmocka inside: it runs in a thread too) ---- */

#define KEEP_MAX (1u << 20)    /* members up to this size are kept for comparison */

struct member {
	char name[300];
	uint32_t crc;
	uint64_t size, offset;
	int local_zip64;
	unsigned char *data;   /* when size <= KEEP_MAX */
};

struct zip {
	FILE *f;
	uint64_t off;
	struct member *m;
	size_t n, cap;
	int zip64_end;         /* a ZIP64 end record was there */
	char err[512];
};

static int zfail(struct zip *z, const char *fmt, ...)
{
	va_list ap;

	if (z->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(z->err, sizeof(z->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int zread(struct zip *z, void *p, size_t n)
{
	if (fread(p, 1, n, z->f) != n)
		return zfail(z, "short read at offset %llu", (unsigned long long)z->off);
	z->off += n;
	return 0;
}

/* The ZIP64 extra field of a header: the 8-byte values for the fields that are all ones. */
static int zip64_extra(struct zip *z, const unsigned char *x, size_t len, int nfields,
		       uint64_t *out)
{
	while (len >= 4) {
		uint16_t id = hcb_get_le16(x), sz = hcb_get_le16(x + 2);

		if ((size_t)sz + 4 > len)
			return zfail(z, "extra field overruns its header");
		if (id == 1) {
			if (sz != 8 * nfields)
				return zfail(z, "ZIP64 extra of %u bytes, expected %d", sz, 8 * nfields);
			for (int i = 0; i < nfields; i++)
				out[i] = hcb_get_le64(x + 4 + 8 * i);
			return 1;
		}
		x += 4 + sz;
		len -= 4 + (size_t)sz;
	}
	return len ? zfail(z, "trailing bytes in an extra field") : 0;
}

static int read_local(struct zip *z)
{
	unsigned char h[26], x[256];
	struct member m = { .offset = z->off - 4 };
	uint16_t nlen, xlen;
	uint32_t c = (uint32_t)crc32(0, Z_NULL, 0), csize, usize;
	uint64_t left, v[2] = { 0, 0 };

	if (zread(z, h, sizeof(h)))
		return -1;
	if (hcb_get_le16(h + 2) != 0 || hcb_get_le16(h + 4) != 0)
		return zfail(z, "member at %llu: flags %u method %u (want stored, no flags)",
			     (unsigned long long)m.offset, hcb_get_le16(h + 2), hcb_get_le16(h + 4));
	m.crc = hcb_get_le32(h + 10);
	csize = hcb_get_le32(h + 14);
	usize = hcb_get_le32(h + 18);
	nlen = hcb_get_le16(h + 22);
	xlen = hcb_get_le16(h + 24);
	if (nlen == 0 || nlen >= sizeof(m.name) || xlen > sizeof(x))
		return zfail(z, "name of %u bytes, extra of %u", nlen, xlen);
	if (zread(z, m.name, nlen) || zread(z, x, xlen))
		return -1;
	m.size = usize;
	if (csize == 0xffffffffu || usize == 0xffffffffu) {
		if (csize != usize || zip64_extra(z, x, xlen, 2, v) != 1 || v[0] != v[1])
			return zfail(z, "%s: bad ZIP64 local header", m.name);
		if (hcb_get_le16(h) != 45)
			return zfail(z, "%s: ZIP64 member needs version 45, says %u", m.name, hcb_get_le16(h));
		m.size = v[0];
		m.local_zip64 = 1;
		if (m.size < 0xffffffffu)
			return zfail(z, "%s: ZIP64 for a small member", m.name);
	} else if (csize != usize || xlen) {
		return zfail(z, "%s: sizes %u/%u, extra %u", m.name, csize, usize, xlen);
	}
	if (m.size <= KEEP_MAX) {
		m.data = malloc(m.size ? m.size : 1);
		if (!m.data || zread(z, m.data, m.size))
			return zfail(z, "%s: cannot read %llu bytes", m.name, (unsigned long long)m.size);
		c = (uint32_t)crc32_z(c, m.data, m.size);
	} else {
		static unsigned char chunk[1 << 20];

		for (left = m.size; left;) {
			size_t k = left < sizeof(chunk) ? left : sizeof(chunk);

			if (zread(z, chunk, k))
				return -1;
			c = (uint32_t)crc32_z(c, chunk, k);
			left -= k;
		}
	}
	if (c != m.crc)
		return zfail(z, "%s: CRC %08x, header says %08x", m.name, c, m.crc);
	if (z->n == z->cap) {
		z->cap = z->cap ? 2 * z->cap : 64;
		z->m = realloc(z->m, z->cap * sizeof(*z->m));
		if (!z->m)
			return zfail(z, "no memory");
	}
	z->m[z->n++] = m;
	return 0;
}

static int read_central(struct zip *z, size_t i)
{
	unsigned char h[42], x[256];
	char name[300];
	struct member *m = &z->m[i];
	uint32_t csize, usize, off32;
	uint16_t nlen, xlen, clen;
	uint64_t v[3] = { 0, 0, 0 }, size, off;
	int k = 0, need;

	if (i >= z->n)
		return zfail(z, "more directory entries than members");
	if (zread(z, h, sizeof(h)))
		return -1;
	csize = hcb_get_le32(h + 16);
	usize = hcb_get_le32(h + 20);
	nlen = hcb_get_le16(h + 24);
	xlen = hcb_get_le16(h + 26);
	clen = hcb_get_le16(h + 28);
	off32 = hcb_get_le32(h + 38);
	if (nlen >= sizeof(name) || xlen > sizeof(x) || clen)
		return zfail(z, "entry %zu: name %u extra %u comment %u", i, nlen, xlen, clen);
	if (zread(z, name, nlen) || zread(z, x, xlen))
		return -1;
	name[nlen] = '\0';
	if (strcmp(name, m->name))
		return zfail(z, "entry %zu is %s, member %zu is %s", i, name, i, m->name);
	if (hcb_get_le16(h) >> 8 != 3 || hcb_get_le16(h + 2) > 45 || hcb_get_le16(h + 4) || hcb_get_le16(h + 6) ||
	    hcb_get_le32(h + 12) != m->crc || hcb_get_le16(h + 30) || hcb_get_le32(h + 34) != 0100600u << 16)
		return zfail(z, "%s: directory entry disagrees with its member", name);
	need = (usize == 0xffffffffu) + (csize == 0xffffffffu) + (off32 == 0xffffffffu);
	if (need && zip64_extra(z, x, xlen, need, v) != 1)
		return zfail(z, "%s: missing ZIP64 extra", name);
	if (!need && xlen)
		return zfail(z, "%s: unexpected extra field", name);
	size = usize == 0xffffffffu ? v[k++] : usize;
	if ((csize == 0xffffffffu ? v[k++] : csize) != size)
		return zfail(z, "%s: compressed and uncompressed sizes differ", name);
	off = off32 == 0xffffffffu ? v[k++] : off32;
	if (size != m->size || off != m->offset)
		return zfail(z, "%s: size %llu offset %llu, member has %llu at %llu", name,
			     (unsigned long long)size, (unsigned long long)off,
			     (unsigned long long)m->size, (unsigned long long)m->offset);
	if ((m->size >= 0xffffffffu) != (usize == 0xffffffffu) ||
	    (m->offset >= 0xffffffffu) != (off32 == 0xffffffffu))
		return zfail(z, "%s: ZIP64 fields where not needed, or missing", name);
	return 0;
}

/* Read a whole archive from f; 0, or -1 with z->err. */
static int zip_read(struct zip *z, FILE *f)
{
	unsigned char sig[4], e[18], z64[52], loc[16];
	uint64_t cd_start, cd_end, entries, cd_size, cd_off;
	size_t i = 0;

	memset(z, 0, sizeof(*z));
	z->f = f;
	for (;;) {
		if (zread(z, sig, 4))
			return -1;
		if (hcb_get_le32(sig) != 0x04034b50u)
			break;
		if (read_local(z))
			return -1;
	}
	cd_start = z->off - 4;
	while (hcb_get_le32(sig) == 0x02014b50u) {
		if (read_central(z, i++) || zread(z, sig, 4))
			return -1;
	}
	if (i != z->n)
		return zfail(z, "%zu directory entries for %zu members", i, z->n);
	cd_end = z->off - 4;
	entries = z->n;
	cd_size = cd_end - cd_start;
	cd_off = cd_start;
	if (hcb_get_le32(sig) == 0x06064b50u) {
		z->zip64_end = 1;
		if (zread(z, z64, sizeof(z64)))
			return -1;
		if (hcb_get_le64(z64) != 44 || hcb_get_le16(z64 + 10) != 45 || hcb_get_le32(z64 + 12) || hcb_get_le32(z64 + 16) ||
		    hcb_get_le64(z64 + 20) != entries || hcb_get_le64(z64 + 28) != entries ||
		    hcb_get_le64(z64 + 36) != cd_size || hcb_get_le64(z64 + 44) != cd_off)
			return zfail(z, "bad ZIP64 end record");
		if (zread(z, sig, 4) || hcb_get_le32(sig) != 0x07064b50u || zread(z, loc, 16) ||
		    hcb_get_le32(loc) != 0 || hcb_get_le64(loc + 4) != cd_end || hcb_get_le32(loc + 12) != 1)
			return zfail(z, "bad ZIP64 end locator");
		if (zread(z, sig, 4))
			return -1;
	}
	if (hcb_get_le32(sig) != 0x06054b50u)
		return zfail(z, "no end record at %llu", (unsigned long long)(z->off - 4));
	if (zread(z, e, sizeof(e)))
		return -1;
	if (hcb_get_le16(e) || hcb_get_le16(e + 2) || hcb_get_le16(e + 4) != hcb_get_le16(e + 6) || hcb_get_le16(e + 16))
		return zfail(z, "bad end record");
	if (z->zip64_end) {
		if (entries < 0xffff && cd_size < 0xffffffffu && cd_off < 0xffffffffu)
			return zfail(z, "ZIP64 end record where none is needed");
		if (hcb_get_le16(e + 4) != 0xffff || hcb_get_le32(e + 8) != 0xffffffffu || hcb_get_le32(e + 12) != 0xffffffffu)
			return zfail(z, "end record of a ZIP64 archive not all ones");
	} else if (hcb_get_le16(e + 4) != entries || hcb_get_le32(e + 8) != cd_size || hcb_get_le32(e + 12) != cd_off) {
		return zfail(z, "end record: %u entries %u bytes at %u; the directory has %llu "
			     "entries, %llu bytes at %llu", hcb_get_le16(e + 4), hcb_get_le32(e + 8), hcb_get_le32(e + 12),
			     (unsigned long long)entries, (unsigned long long)cd_size,
			     (unsigned long long)cd_off);
	}
	if (fread(sig, 1, 1, f) != 0)
		return zfail(z, "bytes after the end record");
	return 0;
}

static void zip_free(struct zip *z)
{
	for (size_t i = 0; i < z->n; i++)
		free(z->m[i].data);
	free(z->m);
	memset(z, 0, sizeof(*z));
}

static const struct member *zip_find(const struct zip *z, const char *name)
{
	for (size_t i = 0; i < z->n; i++)
		if (strcmp(z->m[i].name, name) == 0)
			return &z->m[i];
	return NULL;
}

static void zip_read_path(struct zip *z, const char *path)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	if (zip_read(z, f))
		fail_msg("%s: %s", path, z->err);
	fclose(f);
}

/* ---- expectations ---- */

struct expect {
	char name[300];           /* without .npy */
	char dict[300];           /* the .npy header's dict */
	const char *real_dtype;   /* for __dtypes__.json, or NULL */
	unsigned char *data;
	size_t size;
};

struct expects {
	struct expect *e;
	size_t n, cap;
};

static const char *descr_of(unsigned int dt)
{
	static const char *const d[HCB_DT__COUNT] = {
		[HCB_DT_BOOL] = "|b1", [HCB_DT_INT8] = "|i1", [HCB_DT_INT16] = "<i2",
		[HCB_DT_INT32] = "<i4", [HCB_DT_INT64] = "<i8", [HCB_DT_UINT8] = "|u1",
		[HCB_DT_UINT16] = "<u2", [HCB_DT_UINT32] = "<u4", [HCB_DT_UINT64] = "<u8",
		[HCB_DT_FLOAT16] = "<f2", [HCB_DT_BFLOAT16] = "<u2", [HCB_DT_FLOAT32] = "<f4",
		[HCB_DT_FLOAT64] = "<f8", [HCB_DT_COMPLEX64] = "<c8", [HCB_DT_COMPLEX128] = "<c16",
		[HCB_DT_FLOAT8_E4M3FN] = "|u1", [HCB_DT_FLOAT8_E5M2] = "|u1",
	};

	/* the other float8 kinds, float4 and the sub-byte integers: ml_dtypes'
	 * bits, a byte each */
	return dt >= HCB_DT_FLOAT8_E3M4 ? "|u1" : d[dt];
}

static void expect_leaf(struct expects *x, const char *name, const struct hcb_leaf_shape *l,
			const unsigned char *data)
{
	struct expect *e;
	int k;

	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->e = realloc(x->e, x->cap * sizeof(*x->e));
		assert_non_null(x->e);
	}
	e = &x->e[x->n++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	k = snprintf(e->dict, sizeof(e->dict), "{'descr': '%s', 'fortran_order': False, 'shape': (",
		     descr_of(l->dtype));
	for (unsigned int d = 0; d < l->ndim; d++)
		k += snprintf(e->dict + k, sizeof(e->dict) - (size_t)k, "%s%llu%s", d ? " " : "",
			      (unsigned long long)l->dims[d], l->ndim == 1 || d + 1 < l->ndim ? "," : "");
	snprintf(e->dict + k, sizeof(e->dict) - (size_t)k, "), }");
	e->real_dtype = l->dtype == HCB_DT_BFLOAT16 || l->dtype == HCB_DT_FLOAT8_E4M3FN ||
			l->dtype == HCB_DT_FLOAT8_E5M2 || l->dtype >= HCB_DT_FLOAT8_E3M4 ?
			hcb_dtype_name(l->dtype) : NULL;
	e->size = (size_t)l->nbytes;
	e->data = malloc(e->size ? e->size : 1);
	assert_non_null(e->data);
	if (e->size)
		memcpy(e->data, data, e->size);
}

static void expects_free(struct expects *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->e[i].data);
	free(x->e);
	memset(x, 0, sizeof(*x));
}

/* Check every expected array, in order, then __dtypes__.json, and nothing else. */
static void check_archive(const struct zip *z, const struct expects *x)
{
	json_error_t jerr;
	const struct member *d;
	json_t *dtypes;
	size_t nraw = 0;

	assert_int_equal(z->n, x->n + 1);
	for (size_t i = 0; i < x->n; i++) {
		const struct expect *e = &x->e[i];
		const struct member *m = &z->m[i];
		char want[320];
		size_t hlen;

		snprintf(want, sizeof(want), "%s.npy", e->name);
		assert_string_equal(m->name, want);
		assert_non_null(m->data);
		assert_true(m->size >= 10);
		assert_memory_equal(m->data, "\x93NUMPY\x01\x00", 8);
		hlen = hcb_get_le16(m->data + 8);
		assert_int_equal((10 + hlen) % 64, 0);
		assert_true(10 + hlen <= m->size);
		assert_int_equal(m->data[10 + hlen - 1], '\n');
		assert_memory_equal(m->data + 10, e->dict, strlen(e->dict));
		for (size_t k = 10 + strlen(e->dict); k < 10 + hlen - 1; k++)
			assert_int_equal(m->data[k], ' ');
		assert_int_equal(m->size - 10 - hlen, e->size);
		if (e->size)
			assert_memory_equal(m->data + 10 + hlen, e->data, e->size);
		nraw += e->real_dtype != NULL;
	}
	d = &z->m[x->n];
	assert_string_equal(d->name, "__dtypes__.json");
	dtypes = json_loadb((const char *)d->data, d->size, 0, &jerr);
	if (!dtypes)
		fail_msg("__dtypes__.json: %s", jerr.text);
	assert_true(json_is_object(dtypes));
	assert_int_equal(json_object_size(dtypes), nraw);
	for (size_t i = 0; i < x->n; i++)
		if (x->e[i].real_dtype)
			assert_string_equal(json_string_value(json_object_get(dtypes, x->e[i].name)),
					    x->e[i].real_dtype);
	json_decref(dtypes);
}

/* ---- writing taps ---- */

static struct hcb_consumer *make_consumer(const char *name, const char *tree, unsigned int n,
					  const struct hcb_leaf_spec *leaves, uint32_t id)
{
	struct hcb_consumer_spec spec = { .name = name, .tree = tree, .nleaves = n, .leaves = leaves };
	struct hcb_consumer *c = NULL;
	void *blob;
	size_t len;

	assert_int_equal(hcb_reg_build(&spec, id, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

static void write_tap(struct hcb_writer *w, const struct hcb_consumer *c, uint32_t device,
		      uint64_t seq, const unsigned char *payload)
{
	struct hcb_record rec = { .kind = HCB_REC_TAP };

	rec.tap.device = device;
	rec.tap.seq = seq;
	rec.tap.wall_ns = 1732240000123456789ull;
	rec.tap.consumer = c;
	rec.tap.payload = payload;
	assert_int_equal(hcb_writer_write(w, &rec), 0);
}

/* A tap with random payload, and the arrays it must become. */
static void tap_expect(struct hcb_writer *w, struct expects *x, const struct hcb_consumer *c,
		       uint32_t device, uint64_t seq, const char *base)
{
	size_t n = (size_t)c->total_bytes, off = 0;
	unsigned char *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
	write_tap(w, c, device, seq, p);
	for (unsigned int i = 0; i < c->nleaves; i++) {
		char name[300];

		if (c->nleaves == 1)
			snprintf(name, sizeof(name), "%s", base);
		else
			snprintf(name, sizeof(name), "%s_%u", base, i);
		expect_leaf(x, name, &c->leaves[i], p + off);
		off += (size_t)c->leaves[i].nbytes;
	}
	free(p);
}

static void write_session(struct hcb_writer *w, const char *platform)
{
	struct hcb_record rec = { .kind = HCB_REC_SESSION };

	rec.session.version = 1;
	snprintf(rec.session.provider, sizeof(rec.session.provider), "hcbtap");
	snprintf(rec.session.platform, sizeof(rec.session.platform), "%s", platform);
	assert_int_equal(hcb_writer_write(w, &rec), 0);
}


/* ---- tests ---- */

static void test_names_and_arrays(void **state)
{
	static const struct hcb_leaf_spec pleaves[] = {
		{ HCB_DT_BFLOAT16, 0, { 0 } }, { HCB_DT_INT64, 1, { 3 } }, { HCB_DT_COMPLEX128, 1, { 2 } },
		{ HCB_DT_FLOAT8_E4M3FN, 2, { 2, 2 } }, { HCB_DT_BOOL, 1, { 0 } },
	};
	static const struct hcb_leaf_spec lleaf[] = { { HCB_DT_FLOAT32, 2, { 2, 3 } } };
	const char *path = tmp_path("rec.npz");
	struct hcb_consumer *loss, *params, *weird, *dots, *none, *all[HCB_DT__COUNT] = { 0 };
	struct hcb_record rec = { .kind = HCB_REC_DROP };
	struct expects x = { 0 };
	struct hcb_writer *w;
	struct zip z;
	struct stat st;

	(void)state;
	loss = make_consumer("loss", NULL, 1, lleaf, 1);
	params = make_consumer("params", "{ b=* w=( * * ) z=[ * * ] }", 5, pleaves, 2);
	weird = make_consumer("we!rd/name \xc3\xa9", NULL, 1, lleaf, 3);
	dots = make_consumer("..", NULL, 1, lleaf, 4);
	none = make_consumer("nothing", "( )", 0, NULL, 5);
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_NPZ), 0);

	/* before any session: "cpu" */
	tap_expect(w, &x, loss, 0, 0, "loss/cpu0/000000");
	write_session(w, "tpu");
	tap_expect(w, &x, loss, 1, 0, "loss/tpu1/000000");
	tap_expect(w, &x, loss, 0, 1, "loss/tpu0/000001");
	tap_expect(w, &x, params, 0, 2, "params/tpu0/000000");
	write_tap(w, none, 0, 3, NULL);          /* counted, no arrays */
	write_tap(w, none, 0, 4, NULL);
	tap_expect(w, &x, params, 0, 5, "params/tpu0/000001");
	tap_expect(w, &x, weird, 3, 0, "we_rd_name___/tpu3/000000");
	tap_expect(w, &x, dots, 255, 0, "__/tpu255/000000");
	rec.drop.count = 1;
	assert_int_equal(hcb_writer_write(w, &rec), 0);   /* no place in an npz: ignored */
	write_session(w, "my gpu");
	tap_expect(w, &x, loss, 0, 6, "loss/my_gpu0/000002");
	for (unsigned int dt = HCB_DT_BOOL; dt < HCB_DT__COUNT; dt++) {
		const struct hcb_leaf_spec leaf = { dt, 2, { 1 + dt % 3, 2 } };
		char name[64], base[100];

		snprintf(name, sizeof(name), "dt_%s", hcb_dtype_name(dt));
		all[dt] = make_consumer(name, NULL, 1, &leaf, 100 + dt);
		snprintf(base, sizeof(base), "%s/my_gpu1/000000", name);
		tap_expect(w, &x, all[dt], 1, dt, base);
	}
	for (unsigned int k = 0; k < 20; k++) {
		char base[100];

		snprintf(base, sizeof(base), "loss/my_gpu2/%06u", k);
		tap_expect(w, &x, loss, 2, 100 + k, base);
	}
	assert_int_equal(hcb_writer_close(w), 0);

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	zip_read_path(&z, path);
	assert_int_equal(z.zip64_end, 0);
	check_archive(&z, &x);
	zip_free(&z);
	expects_free(&x);
	hcb_consumer_free(loss);
	hcb_consumer_free(params);
	hcb_consumer_free(weird);
	hcb_consumer_free(dots);
	hcb_consumer_free(none);
	for (unsigned int dt = 0; dt < HCB_DT__COUNT; dt++)
		hcb_consumer_free(all[dt]);
}

/* No taps: an archive holding only an empty __dtypes__.json. */
static void test_empty(void **state)
{
	const char *path = tmp_path("empty.npz");
	struct expects x = { 0 };
	struct hcb_writer *w;
	struct zip z;

	(void)state;
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_NPZ), 0);
	write_session(w, "cpu");
	assert_int_equal(hcb_writer_close(w), 0);
	zip_read_path(&z, path);
	check_archive(&z, &x);
	assert_int_equal(z.m[0].size, 3);
	assert_memory_equal(z.m[0].data, "{}\n", 3);
	zip_free(&z);
}

/* More than 65535 members: ZIP64 end records. */
static void test_many_members(void **state)
{
	static const struct hcb_leaf_spec leaf[] = { { HCB_DT_INT8, 0, { 0 } } };
	const char *path = tmp_path("many.npz");
	struct hcb_consumer *c = make_consumer("s", NULL, 1, leaf, 1);
	struct hcb_writer *w;
	struct zip z;
	char want[64];

	(void)state;
	assert_int_equal(hcb_writer_open(&w, path, HCB_FMT_NPZ), 0);
	for (unsigned int i = 0; i < 70000; i++) {
		unsigned char v = (unsigned char)i;

		write_tap(w, c, 0, i, &v);
	}
	assert_int_equal(hcb_writer_close(w), 0);
	zip_read_path(&z, path);
	assert_int_equal(z.n, 70001);
	assert_int_equal(z.zip64_end, 1);
	snprintf(want, sizeof(want), "s/cpu0/%06u.npy", 69999);
	assert_string_equal(z.m[69999].name, want);
	assert_int_equal(z.m[69999].data[z.m[69999].size - 1], (unsigned char)69999);
	zip_free(&z);
	hcb_consumer_free(c);
}

struct pipe_reader {
	int fd;
	struct zip z;
	int status;
};

static void *read_pipe(void *arg)
{
	struct pipe_reader *pr = arg;
	FILE *f = fdopen(pr->fd, "rb");

	pr->status = f ? zip_read(&pr->z, f) : -1;
	if (f)
		fclose(f);
	return NULL;
}

/*
 * A member of 4 GiB + 16 bytes and members behind it: ZIP64 sizes and
 * offsets.  The archive goes through a pipe to a reader thread and is never
 * stored; the payload is a zero-filled mapping that takes no memory.
 */
static void test_zip64_large(void **state)
{
	const uint64_t big = (1ull << 32) + 16, small = 8;
	const struct hcb_leaf_spec bleaf = { HCB_DT_UINT8, 1, { big } }, sleaf = { HCB_DT_UINT8, 1, { small } };
	struct hcb_consumer *b = make_consumer("big", NULL, 1, &bleaf, 1);
	struct hcb_consumer *s = make_consumer("small", NULL, 1, &sleaf, 2);
	struct pipe_reader pr = { 0 };
	const unsigned char eight[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const struct member *m;
	struct hcb_writer *w;
	unsigned char *zeros;
	pthread_t th;
	int fds[2];

	(void)state;
	zeros = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(zeros != MAP_FAILED);
	assert_int_equal(pipe(fds), 0);
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	pr.fd = fds[0];
	assert_int_equal(pthread_create(&th, NULL, read_pipe, &pr), 0);
	assert_int_equal(hcb_writer_open_fd(&w, fds[1], HCB_FMT_NPZ), 0);
	write_tap(w, s, 0, 0, eight);
	write_tap(w, b, 0, 1, zeros);
	write_tap(w, s, 0, 2, eight);
	assert_int_equal(hcb_writer_close(w), 0);
	close(fds[1]);
	assert_int_equal(pthread_join(th, NULL), 0);
	munmap(zeros, big);
	if (pr.status)
		fail_msg("%s", pr.z.err);
	assert_int_equal(pr.z.n, 4);
	assert_int_equal(pr.z.zip64_end, 1);
	m = zip_find(&pr.z, "big/cpu0/000000.npy");
	assert_non_null(m);
	assert_true(m->local_zip64);
	assert_int_equal(m->size, big + 128);
	m = zip_find(&pr.z, "small/cpu0/000001.npy");
	assert_non_null(m);
	assert_false(m->local_zip64);
	assert_true(m->offset > big);
	assert_memory_equal(m->data + m->size - 8, eight, 8);
	zip_free(&pr.z);
	hcb_consumer_free(b);
	hcb_consumer_free(s);
}

static void test_write_error(void **state)
{
	static const struct hcb_leaf_spec leaf[] = { { HCB_DT_INT8, 0, { 0 } } };
	struct hcb_consumer *c = make_consumer("s", NULL, 1, leaf, 1);
	struct hcb_record rec = { .kind = HCB_REC_TAP };
	unsigned char v = 1;
	struct hcb_writer *w;
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0) {
		hcb_consumer_free(c);
		skip();
	}
	rec.tap.consumer = c;
	rec.tap.payload = &v;
	assert_int_equal(hcb_writer_open_fd(&w, fd, HCB_FMT_NPZ), 0);
	assert_int_equal(hcb_writer_write(w, &rec), -ENOSPC);
	assert_int_equal(hcb_writer_close(w), -ENOSPC);
	close(fd);
	hcb_consumer_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_arrays),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_many_members),
		cmocka_unit_test(test_zip64_large),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
