/* SPDX-License-Identifier: MIT */
/*
 * npz.c - NumPy .npz export: a ZIP archive of stored (uncompressed) members,
 * one .npy file (format 1.0, C order, little endian) per tap leaf, named
 *
 *	NAME/PLATFORMDEVICE/INDEX[_LEAF].npy      e.g. loss/cpu0/000017.npy
 *
 * so numpy.load(...)["loss/cpu0/000017"] is the 18th tap of consumer "loss"
 * on device cpu:0 (INDEX counts that consumer's taps on that device from 0;
 * _LEAF, from 0, is added when the tap has several leaves).  A platform that
 * is a naming pattern gives the device's own name instead of PLATFORMDEVICE
 * (TFRT_CPU_%u: consumer-7/TFRT_CPU_1/000000.npy).  Characters other than
 * [A-Za-z0-9_.-] in NAME and the device's name become '_'.  numpy has no
 * bfloat16, float8, float4, int2, int4, uint2 or uint4: such leaves are
 * stored as their raw bits ('<u2', '|u1': a sub-byte element one to a
 * byte, as ml_dtypes holds it) and the member __dtypes__.json (always
 * written, last) maps their array names to the real dtype, e.g.
 * {"w/cpu0/000003": "bfloat16"}: arr.view(ml_dtypes.bfloat16) is the leaf.
 * (np.save of an ml_dtypes array writes '<V2', which np.load gives back
 * as void: bits without their type.)
 *
 * Members are written as taps arrive, so memory does not grow with the
 * data: only the central directory entries are kept, and written at close.
 * ZIP64 records are used for a member or offset past 4 GiB and for more
 * than 65534 members.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libdeflate.h>

#include "core/dtype.h"
#include "core/grow.h"
#include "core/procid.h"
#include "text/idprint.h"
#include "le.h"
#include "recfile_impl.h"

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP64_END_SIG 0x06064b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP_LOCAL_LEN 30
#define ZIP_CENTRAL_LEN 46
#define ZIP_END_LEN 22
#define ZIP64_END_LEN 56
#define ZIP64_LOCATOR_LEN 20
#define U32_MAX_FIELD 0xffffffffu
#define U16_MAX_FIELD 0xffffu
#define ZIP_MADE_BY ((3u << 8) | 45u)   /* Unix, ZIP 4.5 */
#define ZIP_FILE_MODE 0100600u          /* extracted members stay private */
#define DTYPES_MEMBER "__dtypes__.json"
#define HEAD_MAX 2048                   /* local header + name + extra + .npy header */

struct npz_entry {
	uint64_t offset;        /* of the local header */
	uint64_t size;          /* stored = uncompressed bytes */
	size_t name;            /* into names */
	uint32_t crc;
	uint16_t name_len;
	uint16_t dos_time, dos_date;
	uint8_t dtype;          /* HCB_DT_*, 0 for a member that is no array */
};

/* How many taps a (name, device) has had. */
struct npz_counter {
	char *name;             /* sanitized consumer name; NULL: empty slot */
	uint32_t device;
	uint64_t count;
};

struct npz_writer {
	struct npz_entry *entries;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct npz_counter *counters;
	unsigned int ncounters, nslots;
	uint16_t last_time, last_date;
};

/* ml_dtypes' types, which numpy lacks: stored as their raw bits. */
static int raw_bits(unsigned int dtype)
{
	switch (dtype) {
	case HCB_DT_BFLOAT16: case HCB_DT_FLOAT8_E4M3FN: case HCB_DT_FLOAT8_E5M2:
	case HCB_DT_FLOAT8_E3M4: case HCB_DT_FLOAT8_E4M3: case HCB_DT_FLOAT8_E4M3FNUZ:
	case HCB_DT_FLOAT8_E4M3B11FNUZ: case HCB_DT_FLOAT8_E5M2FNUZ: case HCB_DT_FLOAT8_E8M0FNU:
	case HCB_DT_FLOAT4_E2M1FN: case HCB_DT_INT2: case HCB_DT_INT4: case HCB_DT_UINT2:
	case HCB_DT_UINT4:
		return 1;
	default:
		return 0;
	}
}

/* numpy's descr for a dtype's bytes on disk; raw bits for what numpy lacks. */
static const char *npy_descr(unsigned int dtype)
{
	switch (dtype) {
	case HCB_DT_BOOL: return "|b1";
	case HCB_DT_INT8: return "|i1";
	case HCB_DT_INT16: return "<i2";
	case HCB_DT_INT32: return "<i4";
	case HCB_DT_INT64: return "<i8";
	case HCB_DT_UINT8: return "|u1";
	case HCB_DT_UINT16: return "<u2";
	case HCB_DT_UINT32: return "<u4";
	case HCB_DT_UINT64: return "<u8";
	case HCB_DT_FLOAT16: return "<f2";
	case HCB_DT_BFLOAT16: return "<u2";
	case HCB_DT_FLOAT32: return "<f4";
	case HCB_DT_FLOAT64: return "<f8";
	case HCB_DT_COMPLEX64: return "<c8";
	case HCB_DT_COMPLEX128: return "<c16";
	default: return raw_bits(dtype) ? "|u1" : NULL;   /* float8, float4, int4 ... */
	}
}

/* A path component: [A-Za-z0-9_.-] kept, the rest '_'; "." and ".." never. */
static void sanitize(char *out, size_t size, const char *s)
{
	size_t i, dots = 0;

	for (i = 0; s[i] && i + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';

		out[i] = ok ? (char)c : '_';
		dots += c == '.';
	}
	out[i] = '\0';
	if (dots == i)   /* "", ".", "..": nothing a path could climb with */
		memset(out, '_', i);
}

/* MS-DOS date and time (UTC) of a CLOCK_REALTIME nanosecond stamp. */
static void dos_time(uint64_t ns, uint16_t *t, uint16_t *d)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&s, &tm) || tm.tm_year < 80) {
		*t = 0;
		*d = (1 << 5) | 1;     /* 1980-01-01 */
		return;
	}
	if (tm.tm_year > 207) {
		*t = (23 << 11) | (59 << 5) | 29;
		*d = (uint16_t)((127 << 9) | (12 << 5) | 31);
		return;
	}
	*t = (uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
	*d = (uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
}

static uint64_t next_index(struct npz_writer *st, const char *name, uint32_t device, int *err)
{
	uint64_t h = 1469598103934665603u;
	unsigned int i;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	h = (h ^ device) * 1099511628211u;
	if ((st->ncounters + 1) * 2 > st->nslots) {
		unsigned int nslots = st->nslots ? st->nslots * 2 : 64;
		struct npz_counter *grown = calloc(nslots, sizeof(*grown));

		if (!grown) {
			*err = -ENOMEM;
			return 0;
		}
		for (unsigned int k = 0; k < st->nslots; k++) {
			const struct npz_counter *c = &st->counters[k];
			uint64_t g = 1469598103934665603u;

			if (!c->name)
				continue;
			for (const char *p = c->name; *p; p++)
				g = (g ^ (unsigned char)*p) * 1099511628211u;
			g = (g ^ c->device) * 1099511628211u;
			for (i = (unsigned int)g & (nslots - 1); grown[i].name; i = (i + 1) & (nslots - 1))
				;
			grown[i] = *c;
		}
		free(st->counters);
		st->counters = grown;
		st->nslots = nslots;
	}
	for (i = (unsigned int)h & (st->nslots - 1); st->counters[i].name;
	     i = (i + 1) & (st->nslots - 1))
		if (st->counters[i].device == device && strcmp(st->counters[i].name, name) == 0)
			return st->counters[i].count++;
	st->counters[i].name = strdup(name);
	if (!st->counters[i].name) {
		*err = -ENOMEM;
		return 0;
	}
	st->counters[i].device = device;
	st->counters[i].count = 1;
	st->ncounters++;
	return 0;
}

static int add_entry(struct npz_writer *st, const char *name, size_t name_len,
		     const struct npz_entry *e)
{
	if (hcb_grow(&st->entries, &st->cap, st->n + 1, sizeof(*st->entries)) ||
	    hcb_grow(&st->names, &st->names_cap, st->names_len + name_len, 1))
		return -ENOMEM;
	st->entries[st->n] = *e;
	st->entries[st->n].name = st->names_len;
	st->entries[st->n].name_len = (uint16_t)name_len;
	memcpy(st->names + st->names_len, name, name_len);
	st->names_len += name_len;
	st->n++;
	return 0;
}

/* The local file header of a stored member; returns its length. */
static size_t local_header(unsigned char *p, const char *name, size_t name_len,
			   const struct npz_entry *e)
{
	int z64 = e->size >= U32_MAX_FIELD;

	hcb_put_le32(p, ZIP_LOCAL_SIG);
	hcb_put_le16(p + 4, z64 ? 45 : 20);
	hcb_put_le16(p + 6, 0);                    /* flags */
	hcb_put_le16(p + 8, 0);                    /* stored */
	hcb_put_le16(p + 10, e->dos_time);
	hcb_put_le16(p + 12, e->dos_date);
	hcb_put_le32(p + 14, e->crc);
	hcb_put_le32(p + 18, z64 ? U32_MAX_FIELD : (uint32_t)e->size);
	hcb_put_le32(p + 22, z64 ? U32_MAX_FIELD : (uint32_t)e->size);
	hcb_put_le16(p + 26, (uint16_t)name_len);
	hcb_put_le16(p + 28, z64 ? 20 : 0);
	memcpy(p + ZIP_LOCAL_LEN, name, name_len);
	p += ZIP_LOCAL_LEN + name_len;
	if (z64) {
		hcb_put_le16(p, 0x0001);
		hcb_put_le16(p + 2, 16);
		hcb_put_le64(p + 4, e->size);
		hcb_put_le64(p + 12, e->size);
	}
	return ZIP_LOCAL_LEN + name_len + (z64 ? 20 : 0);
}

/*
 * One stored member: head (the .npy header, or nothing) and data.  The
 * local header and head go out in one write, the data straight from the
 * caller's buffer.
 */
static int write_member(struct hcb_writer *w, struct npz_writer *st, const char *name,
			const unsigned char *head, size_t head_len, const unsigned char *data,
			uint64_t len, unsigned int dtype, uint16_t t, uint16_t d)
{
	unsigned char buf[HEAD_MAX];
	size_t name_len = strlen(name), n;
	struct npz_entry e = {
		.offset = w->bytes, .size = head_len + len, .dos_time = t, .dos_date = d,
		.dtype = (uint8_t)dtype,
	};
	int err;

	if (ZIP_LOCAL_LEN + name_len + 20 + head_len > sizeof(buf))
		return -ENAMETOOLONG;
	/* the member's CRC-32 (ZIP's, zlib's), over the .npy header and the data */
	e.crc = libdeflate_crc32(0, head, head_len);
	e.crc = libdeflate_crc32(e.crc, data, (size_t)len);
	n = local_header(buf, name, name_len, &e);
	if (head_len)
		memcpy(buf + n, head, head_len);
	err = add_entry(st, name, name_len, &e);
	if (!err)
		err = hcb_write_all(w, buf, n + head_len);
	if (!err && len)
		err = hcb_write_all(w, data, (size_t)len);
	if (err)
		st->n--;   /* not in the archive: keep it out of the directory */
	return err;
}

/* The .npy 1.0 header of a leaf: magic, version, u16 length, the dict,
 * padded with spaces and a '\n' to a multiple of 64 bytes. */
static size_t npy_header(unsigned char *p, size_t size, const struct hcb_leaf_shape *l)
{
	char dict[HEAD_MAX / 2];
	size_t n, total;
	int k;

	k = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': (",
		     npy_descr(l->dtype));
	/* the shape as Python's repr of a tuple: (), (5,), (2, 3) */
	for (unsigned int i = 0; i < l->ndim; i++)
		k += snprintf(dict + k, sizeof(dict) - (size_t)k, "%s%llu", i ? ", " : "",
			      (unsigned long long)l->dims[i]);
	k += snprintf(dict + k, sizeof(dict) - (size_t)k, "%s), }", l->ndim == 1 ? "," : "");
	n = (size_t)k;
	total = (10 + n + 1 + 63) / 64 * 64;
	if (total > size)
		return 0;
	memcpy(p, "\x93NUMPY\x01\x00", 8);
	hcb_put_le16(p + 8, (uint16_t)(total - 10));
	memcpy(p + 10, dict, n);
	memset(p + 10 + n, ' ', total - 10 - n - 1);
	p[total - 1] = '\n';
	return total;
}

static int write_tap(struct hcb_writer *w, struct npz_writer *st, const struct hcb_tap *t)
{
	const struct hcb_consumer *c = t->consumer;
	const char *platform = hcb_session_platform(w->have_session ? &w->session : NULL, t->device);
	const unsigned char *data = t->payload;
	char cname[HCB_MAX_NAME], plat[sizeof(w->session.platform)], name[HCB_MAX_NAME + 128];
	char devname[64];
	unsigned char head[HEAD_MAX / 2];
	uint16_t tm, dt;
	uint64_t index;
	int err = 0;

	if (!c || (c->total_bytes && !data))
		return -EINVAL;
	sanitize(cname, sizeof(cname), c->name);
	if (strchr(platform, '%')) {
		/* a naming pattern (TFRT_CPU_%u): the device's own name, no number after */
		struct hcb_buf dev = HCB_BUF_INIT;

		err = hcb_idprint_device(&dev, platform, t->device);
		if (err)
			return err;
		sanitize(devname, sizeof(devname), hcb_buf_str(&dev));
		hcb_buf_free(&dev);
	} else {
		sanitize(plat, sizeof(plat), platform);
		snprintf(devname, sizeof(devname), "%s%u", plat, t->device);
	}
	index = next_index(st, cname, t->device, &err);
	if (err)
		return err;
	dos_time(t->wall_ns, &tm, &dt);
	st->last_time = tm;
	st->last_date = dt;
	for (unsigned int i = 0; i < c->nleaves; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		size_t hn = npy_descr(l->dtype) ? npy_header(head, sizeof(head), l) : 0;

		if (!hn)
			return -EINVAL;
		if (c->nleaves == 1)
			snprintf(name, sizeof(name), "%s/%s/%06llu.npy", cname, devname,
				 (unsigned long long)index);
		else
			snprintf(name, sizeof(name), "%s/%s/%06llu_%u.npy", cname, devname,
				 (unsigned long long)index, i);
		err = write_member(w, st, name, head, hn, data, l->nbytes, l->dtype, tm, dt);
		if (err)
			return err;
		data += l->nbytes;
	}
	return 0;
}

static int npz_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	/* sessions name the platform (recfile.c keeps w->session); drops,
	 * barriers and the end have no place among arrays */
	return rec->kind == HCB_REC_TAP ? write_tap(w, w->state, &rec->tap) : 0;
}

/* __dtypes__.json: array name -> real dtype of the members stored as raw bits. */
static int write_dtypes(struct hcb_writer *w, struct npz_writer *st)
{
	struct hcb_buf json = HCB_BUF_INIT;
	size_t narrays = st->n;
	int err = hcb_buf_puts(&json, "{"), first = 1;

	for (size_t i = 0; i < narrays && !err; i++) {
		const struct npz_entry *e = &st->entries[i];

		if (!raw_bits(e->dtype))
			continue;
		/* names are [A-Za-z0-9_.-/]: nothing to escape; ".npy" dropped */
		err = hcb_buf_printf(&json, "%s\n  \"%.*s\": \"%s\"", first ? "" : ",",
				     (int)e->name_len - 4, st->names + e->name,
				     hcb_dtype_name(e->dtype));
		first = 0;
	}
	if (!err)
		err = hcb_buf_puts(&json, first ? "}\n" : "\n}\n");
	if (!err)
		err = write_member(w, st, DTYPES_MEMBER, NULL, 0, (const unsigned char *)json.data,
				   json.len, 0, st->last_time, st->last_date);
	hcb_buf_free(&json);
	return err;
}

static int flush_dir(struct hcb_writer *w, struct hcb_buf *b)
{
	int err = hcb_write_all(w, b->data, b->len);

	hcb_buf_reset(b);
	return err;
}

/* The central directory header of e at p, its ZIP64 extra field after it
 * (at p + ZIP_CENTRAL_LEN); returns the extra field's length. */
static uint16_t central_header(unsigned char *p, const struct npz_entry *e)
{
	int big = e->size >= U32_MAX_FIELD, far = e->offset >= U32_MAX_FIELD;
	uint16_t extra = (uint16_t)(big || far ? 4 + 16 * big + 8 * far : 0);
	unsigned char *x = p + ZIP_CENTRAL_LEN;

	hcb_put_le32(p, ZIP_CENTRAL_SIG);
	hcb_put_le16(p + 4, ZIP_MADE_BY);
	hcb_put_le16(p + 6, extra ? 45 : 20);
	hcb_put_le16(p + 8, 0);
	hcb_put_le16(p + 10, 0);
	hcb_put_le16(p + 12, e->dos_time);
	hcb_put_le16(p + 14, e->dos_date);
	hcb_put_le32(p + 16, e->crc);
	hcb_put_le32(p + 20, big ? U32_MAX_FIELD : (uint32_t)e->size);
	hcb_put_le32(p + 24, big ? U32_MAX_FIELD : (uint32_t)e->size);
	hcb_put_le16(p + 28, e->name_len);
	hcb_put_le16(p + 30, extra);
	hcb_put_le16(p + 32, 0);                       /* comment */
	hcb_put_le16(p + 34, 0);                       /* disk */
	hcb_put_le16(p + 36, 0);                       /* internal attributes */
	hcb_put_le32(p + 38, (uint32_t)ZIP_FILE_MODE << 16);
	hcb_put_le32(p + 42, far ? U32_MAX_FIELD : (uint32_t)e->offset);
	if (extra) {
		hcb_put_le16(x, 0x0001);
		hcb_put_le16(x + 2, (uint16_t)(extra - 4));
		x += 4;
		if (big) {
			hcb_put_le64(x, e->size);
			hcb_put_le64(x + 8, e->size);
			x += 16;
		}
		if (far)
			hcb_put_le64(x, e->offset);
	}
	return extra;
}

/* The end of the archive, after the directory of size bytes at start: the
 * ZIP64 end record and locator when z64, then the end record. */
static int write_end(struct hcb_writer *w, const struct npz_writer *st, uint64_t start,
		     uint64_t size, int z64)
{
	uint64_t end64 = w->bytes;
	unsigned char e[ZIP_END_LEN];
	uint16_t count = z64 ? U16_MAX_FIELD : (uint16_t)st->n;
	int err;

	if (z64) {
		unsigned char z[ZIP64_END_LEN + ZIP64_LOCATOR_LEN];

		hcb_put_le32(z, ZIP64_END_SIG);
		hcb_put_le64(z + 4, ZIP64_END_LEN - 12);
		hcb_put_le16(z + 12, ZIP_MADE_BY);
		hcb_put_le16(z + 14, 45);
		hcb_put_le32(z + 16, 0);
		hcb_put_le32(z + 20, 0);
		hcb_put_le64(z + 24, st->n);
		hcb_put_le64(z + 32, st->n);
		hcb_put_le64(z + 40, size);
		hcb_put_le64(z + 48, start);
		hcb_put_le32(z + 56, ZIP64_LOCATOR_SIG);
		hcb_put_le32(z + 60, 0);
		hcb_put_le64(z + 64, end64);
		hcb_put_le32(z + 72, 1);
		err = hcb_write_all(w, z, sizeof(z));
		if (err)
			return err;
	}
	hcb_put_le32(e, ZIP_END_SIG);
	hcb_put_le16(e + 4, 0);
	hcb_put_le16(e + 6, 0);
	hcb_put_le16(e + 8, count);
	hcb_put_le16(e + 10, count);
	hcb_put_le32(e + 12, z64 ? U32_MAX_FIELD : (uint32_t)size);
	hcb_put_le32(e + 16, z64 ? U32_MAX_FIELD : (uint32_t)start);
	hcb_put_le16(e + 20, 0);
	return hcb_write_all(w, e, sizeof(e));
}

static int write_directory(struct hcb_writer *w, struct npz_writer *st)
{
	struct hcb_buf b = HCB_BUF_INIT;
	uint64_t start = w->bytes, size;
	unsigned char p[ZIP_CENTRAL_LEN + 28];
	int err = 0, z64;

	for (size_t i = 0; i < st->n && !err; i++) {
		const struct npz_entry *e = &st->entries[i];
		uint16_t extra = central_header(p, e);

		err = hcb_buf_add(&b, p, ZIP_CENTRAL_LEN);
		if (!err)
			err = hcb_buf_add(&b, st->names + e->name, e->name_len);
		if (!err)
			err = hcb_buf_add(&b, p + ZIP_CENTRAL_LEN, extra);
		if (!err && b.len >= 1 << 16)
			err = flush_dir(w, &b);
	}
	if (!err)
		err = flush_dir(w, &b);
	size = w->bytes - start;
	z64 = st->n >= U16_MAX_FIELD || size >= U32_MAX_FIELD || start >= U32_MAX_FIELD;
	if (!err)
		err = write_end(w, st, start, size, z64);
	hcb_buf_free(&b);
	return err;
}

static void npz_free(struct npz_writer *st)
{
	if (!st)
		return;
	for (unsigned int i = 0; i < st->nslots; i++)
		free(st->counters[i].name);
	free(st->counters);
	free(st->entries);
	free(st->names);
	free(st);
}

static int npz_close(struct hcb_writer *w)
{
	struct npz_writer *st = w->state;
	int err = write_dtypes(w, st);

	if (!err)
		err = write_directory(w, st);
	npz_free(st);
	w->state = NULL;
	return err;
}

int hcb_npz_writer_init(struct hcb_writer *w)
{
	struct npz_writer *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->last_date = (1 << 5) | 1;
	w->state = st;
	w->write = npz_write;
	w->close = npz_close;
	return 0;
}
