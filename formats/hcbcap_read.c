/* SPDX-License-Identifier: MIT */
/*
 * hcbcap_read.c - the .hcbcap reader (the format: hcbcap.c, HCBCAP.md).
 *
 * The reader trusts nothing: a length is checked against its limit before
 * anything is read or allocated for it, and the buffer grows only as bytes
 * actually arrive, so a damaged length costs at most twice the file's size.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/consumer.h"
#include "core/grow.h"
#include "hcbcap_impl.h"
#include "le.h"
#include "recfile_impl.h"

static const char *type_name(uint32_t t)
{
	static const char *const names[] = {
		[CAP_SESSION] = "session", [CAP_CONSUMER] = "consumer", [CAP_TAP] = "tap",
		[CAP_DROP] = "drop", [CAP_BARRIER] = "barrier", [CAP_END] = "end",
	};

	if (t == CAP_COPY)
		return "copy times";
	if (t == CAP_TRIGGER)
		return "trigger";
	if (t == CAP_TEXT)
		return "text";
	if (t == CAP_WHO)
		return "who";
	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : "unknown";
}

struct cap_reader {
	unsigned char *buf;     /* the current frame, head to CRC; taps point in here */
	size_t cap;
	uint64_t off;           /* file offset of the current frame */
	int started;            /* the file header was read */
	/* a copy times frame read, for the tap frame that must follow: its
	 * offset is where that tap's record starts */
	int copy_pending, copy_taken;
	uint64_t copy[2], copy_off;
	/* a text frame read, likewise: its bytes, kept apart from buf */
	int text_pending, text_taken;
	uint64_t text_off;
	char *text;
	size_t text_cap, text_len;
	/* a who frame read, for the session frame that must follow */
	int who_pending, who_taken;
	uint64_t who_off;
	struct hcb_session_info who;
	struct hcb_session_device devices[HCB_SESSION_DEVICES];
};

#define FAIL(r, st, err, ...) fail_at(r, (st)->off, err, __VA_ARGS__)

static int __attribute__((format(printf, 4, 5)))
fail_at(struct hcb_reader *r, uint64_t off, int err, const char *fmt, ...)
{
	char where[40], msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "offset %llu", (unsigned long long)off);
	return hcb_reader_fail(r, err, where, "%s", msg);
}

static int read_error(struct hcb_reader *r, struct cap_reader *st)
{
	int e = errno ? errno : EIO;

	return FAIL(r, st, -EIO, "read error: %s", strerror(e));
}

static int read_file_header(struct hcb_reader *r, struct cap_reader *st)
{
	unsigned char h[CAP_HEADER];
	size_t got = fread(h, 1, sizeof(h), r->f);
	uint32_t version, flags;

	if (got < sizeof(h) && ferror(r->f))
		return read_error(r, st);
	if (got == 0)
		return hcb_reader_empty(r, "offset 0");
	if (memcmp(h, CAP_MAGIC, got < CAP_MAGIC_LEN ? got : CAP_MAGIC_LEN))
		return FAIL(r, st, -EBADMSG, "not an .hcbcap recording (its first bytes are not "
			    "\"HCBCAP\\x1a\\n\")");
	if (got < sizeof(h))
		return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside its header "
			    "(%zu of %d bytes); nothing was recorded", got, CAP_HEADER);
	version = hcb_get_le32(h + 8);
	flags = hcb_get_le32(h + 12);
	if (version != CAP_VERSION)
		return FAIL(r, st, -EPROTO, ".hcbcap version %u; this hcbtrace reads version %u "
			    "(a newer hcbtrace may read it)", version, CAP_VERSION);
	if (flags)
		return FAIL(r, st, -EPROTO, "unknown header flags 0x%x (written by a newer hcbtrace?)",
			    flags);
	st->off = CAP_HEADER;
	r->pos = CAP_HEADER;
	st->started = 1;
	return 0;
}

/*
 * Read the rest of the frame whose head is in st->buf: len body bytes and
 * the CRC.  The buffer grows at most to twice what has arrived, so a
 * damaged length that passed its limit still cannot make us allocate for
 * bytes that are not there.
 */
static int read_body(struct hcb_reader *r, struct cap_reader *st, uint32_t type, uint64_t len)
{
	size_t need = FRAME_HEAD + (size_t)len + FRAME_TAIL, have = FRAME_HEAD;

	while (have < need) {
		size_t target = have * 2 > st->cap ? have * 2 : st->cap;
		size_t got;
		int err;

		if (target < 65536)
			target = 65536;
		if (target > need)
			target = need;
		err = hcb_grow(&st->buf, &st->cap, target, 1);
		if (err)
			return FAIL(r, st, err, "no memory for a %s frame of %llu bytes",
				    type_name(type), (unsigned long long)len);
		got = fread(st->buf + have, 1, target - have, r->f);
		have += got;
		if (have < target) {
			if (ferror(r->f))
				return read_error(r, st);
			return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside a "
				    "%s frame (%zu of %zu bytes); the records before it are complete",
				    type_name(type), have, need);
		}
	}
	if (cap_crc(st->buf, FRAME_HEAD + len) != hcb_get_le32(st->buf + FRAME_HEAD + len))
		return FAIL(r, st, -EBADMSG, "damaged %s frame of %llu bytes: checksum mismatch",
			    type_name(type), (unsigned long long)len);
	return 0;
}

/* Does a string field of a session or drop frame hold text (no NUL)? */
static int text_ok(const unsigned char *p, size_t n)
{
	return memchr(p, '\0', n) == NULL;
}

static int parse_session(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
			 uint64_t len, struct hcb_record *rec)
{
	struct hcb_session_info *s = &rec->session;
	uint32_t n, m;

	n = hcb_get_le32(b + 16);
	m = hcb_get_le32(b + 20);
	if (n >= sizeof(s->provider) || m >= sizeof(s->platform) || len != SESSION_HEAD + n + m ||
	    !text_ok(b + SESSION_HEAD, n + m))
		return FAIL(r, st, -EBADMSG, "invalid session frame (provider %u bytes, platform "
			    "%u bytes, frame %llu bytes)", n, m, (unsigned long long)len);
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_SESSION;
	/* who the process is, from the who frame just before */
	st->who_taken = st->who_pending;
	if (st->who_pending) {
		*s = st->who;
		st->who_pending = 0;
	}
	s->version = (int)hcb_get_le32(b);
	s->pid = (int32_t)hcb_get_le32(b + 4);
	s->start_ns = hcb_get_le64(b + 8);
	memcpy(s->provider, b + SESSION_HEAD, n);
	memcpy(s->platform, b + SESSION_HEAD + n, m);
	return 1;
}

static int parse_consumer(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
			  uint64_t len)
{
	struct hcb_consumer *c;
	const struct hcb_consumer *old;
	int err = hcb_consumer_from_reg(b, (size_t)len, &c), same;

	if (err == -ENOMEM)
		return FAIL(r, st, err, "no memory for a consumer definition");
	if (err == -E2BIG)
		return FAIL(r, st, err, "a consumer definition with more leaves or bytes than "
			    "this hcbtrace holds");
	if (err)
		return FAIL(r, st, -EBADMSG, "invalid consumer definition");
	old = hcb_registry_get(r->consumers, c->id);
	if (!old) {
		err = hcb_registry_add(r->consumers, c);
		return err ? FAIL(r, st, err, "no memory for consumer %u", c->id) : 0;
	}
	/* a repeated definition is harmless; a different one is not */
	same = hcb_consumer_equal(old, c);
	hcb_consumer_free(c);
	if (!same)
		return FAIL(r, st, -EBADMSG, "consumer %u (%s) defined again with a different shape",
			    old->id, old->name);
	return 0;
}

static int parse_tap(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
		     uint64_t len, struct hcb_record *rec)
{
	uint32_t device = hcb_get_le32(b), id = hcb_get_le32(b + 4);
	const struct hcb_consumer *c = hcb_registry_get(r->consumers, id);

	if (!c)
		return FAIL(r, st, -EBADMSG, "tap of consumer %u, which no earlier frame defines", id);
	if (len - TAP_HEAD != c->total_bytes)
		return FAIL(r, st, -EBADMSG, "tap of consumer %u (%s) holds %llu payload bytes; "
			    "its shape needs %llu", id, c->name,
			    (unsigned long long)(len - TAP_HEAD), (unsigned long long)c->total_bytes);
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_TAP;
	rec->tap.device = device;
	rec->tap.consumer = c;
	rec->tap.seq = hcb_get_le64(b + 8);
	rec->tap.wall_ns = hcb_get_le64(b + 16);
	rec->tap.pid = hcb_get_le32(b + 24);
	rec->tap.tid = hcb_get_le32(b + 28);
	rec->tap.payload = b + TAP_HEAD;
	st->text_taken = st->text_pending;
	if (st->text_pending) {
		rec->tap.text = st->text;
		rec->tap.text_len = (uint32_t)st->text_len;
		st->text_pending = 0;
	}
	st->copy_taken = st->copy_pending;
	if (st->copy_pending) {
		rec->tap.copy_start_ns = st->copy[0];
		rec->tap.copy_end_ns = st->copy[1];
		st->copy_pending = 0;
	}
	return 1;
}

/* A tap's copy times, kept for the tap frame that follows. */
static int parse_copy(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b)
{
	uint64_t start = hcb_get_le64(b), end = hcb_get_le64(b + 8);

	if (start > end)
		return FAIL(r, st, -EBADMSG, "a tap's copy times end before they start (%llu > %llu)",
			    (unsigned long long)start, (unsigned long long)end);
	st->copy[0] = start;
	st->copy[1] = end;
	st->copy_off = st->off;
	st->copy_pending = 1;
	return 0;
}

/* A tap's text, kept for the tap frame that follows (copied: the tap's
 * frame takes its place in buf). */
static int parse_text(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
		      uint64_t len)
{
	if (st->text_pending)
		return FAIL(r, st, -EBADMSG, "two texts for one tap");
	if (hcb_grow(&st->text, &st->text_cap, len + 1, 1))
		return -ENOMEM;
	memcpy(st->text, b, len);
	st->text_len = len;
	st->text_off = st->off;
	st->text_pending = 1;
	return 0;
}

/* Where the record just read starts: at its tap's text or copy times, if
 * any. */
static uint64_t record_start(const struct cap_reader *st, uint32_t type)
{
	if (type == CAP_TAP && st->text_taken)
		return st->text_off;
	if (type == CAP_SESSION && st->who_taken)
		return st->who_off;
	return type == CAP_TAP && st->copy_taken ? st->copy_off : st->off;
}

/* The body size a frame of this type may have: [min, max]. */
static void body_limits(uint32_t type, uint64_t *min, uint64_t *max)
{
	switch (type) {
	case CAP_SESSION: *min = SESSION_HEAD; *max = SESSION_HEAD + 31 + 15; break;
	case CAP_CONSUMER: *min = 0; *max = HCB_MAX_REG_BYTES; break;
	case CAP_TAP: *min = TAP_HEAD; *max = CAP_MAX_BODY; break;
	case CAP_DROP: *min = DROP_HEAD; *max = DROP_HEAD + 127; break;
	case CAP_BARRIER: *min = *max = 16; break;
	case CAP_END: *min = *max = 24; break;
	case CAP_COPY: *min = *max = COPY_BODY; break;
	case CAP_TEXT: *min = 0; *max = CAP_MAX_TEXT; break;
	case CAP_WHO: *min = WHO_HEAD; *max = WHO_MAX_BODY; break;
	case CAP_TRIGGER: *min = TRIGGER_HEAD; *max = TRIGGER_MAX_BODY; break;
	default: *min = 0; *max = CAP_MAX_BODY; break;   /* skippable */
	}
}

/*
 * The next frame's head into st->buf, checked: 1 and its type and body
 * length, 0 at the end of the file, or the failure.
 */
static int read_frame_head(struct hcb_reader *r, struct cap_reader *st, uint32_t *type,
			   uint64_t *len)
{
	size_t got = fread(st->buf, 1, FRAME_HEAD, r->f);
	uint64_t min, max;

	if (got == 0 && !ferror(r->f) && (st->copy_pending || st->text_pending || st->who_pending))
		return fail_at(r, st->who_pending ? st->who_off : st->copy_off, -ENODATA,
			       "truncated recording: the file ends after %s; the records before it "
			       "are complete", st->who_pending ? "a session's who frame, before "
			       "the session" : "a tap's copy times, before the tap");
	if (got == 0 && !ferror(r->f))
		return 0;
	if (got < FRAME_HEAD) {
		if (ferror(r->f))
			return read_error(r, st);
		return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside a "
			    "frame header (%zu of %d bytes); the records before it are "
			    "complete", got, FRAME_HEAD);
	}
	*type = hcb_get_le32(st->buf);
	*len = hcb_get_le64(st->buf + 4);
	if (cap_crc(st->buf, 12) != hcb_get_le32(st->buf + 12))
		return FAIL(r, st, -EBADMSG, "damaged frame header: checksum mismatch");
	if (*type == 0 || (*type > CAP_END && !(*type & CAP_SKIPPABLE)))
		return FAIL(r, st, -EBADMSG, "unknown frame type %u", *type);
	body_limits(*type, &min, &max);
	if (*len > max && (*type == CAP_TAP || *type == CAP_CONSUMER ||
			   (*type & CAP_SKIPPABLE && *type != CAP_COPY && *type != CAP_TRIGGER)))
		return FAIL(r, st, -E2BIG, "a %s frame of %llu bytes, more than the %llu this "
			    "hcbtrace reads", type_name(*type), (unsigned long long)*len,
			    (unsigned long long)max);
	if (*len < min || *len > max)
		return FAIL(r, st, -EBADMSG, "a %s frame of %llu bytes (expected %llu to %llu)",
			    type_name(*type), (unsigned long long)*len,
			    (unsigned long long)min, (unsigned long long)max);
	if (st->copy_pending && *type != CAP_TAP)
		return fail_at(r, st->copy_off, -EBADMSG, "a tap's copy times not followed by "
			       "their tap (a %s frame comes next)", type_name(*type));
	if (st->text_pending && *type != CAP_TAP && *type != CAP_COPY)
		return fail_at(r, st->text_off, -EBADMSG, "a tap's text not followed by its tap "
			       "(a %s frame comes next)", type_name(*type));
	if (st->who_pending && *type != CAP_SESSION)
		return fail_at(r, st->who_off, -EBADMSG, "a who frame not followed by its session "
			       "(a %s frame comes next)", type_name(*type));
	return 1;
}

static int parse_drop(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
		      uint64_t len, struct hcb_record *rec)
{
	uint32_t m = hcb_get_le32(b + 12);

	if (len != DROP_HEAD + (uint64_t)m || !text_ok(b + DROP_HEAD, m))
		return FAIL(r, st, -EBADMSG, "invalid drop frame");
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_DROP;
	rec->drop.device = hcb_get_le32(b);
	rec->drop.count = hcb_get_le64(b + 4);
	memcpy(rec->drop.reason, b + DROP_HEAD, m);
	return 1;
}

static int parse_trigger(struct hcb_reader *r, struct cap_reader *st, const unsigned char *b,
			 uint64_t len, struct hcb_record *rec)
{
	struct hcb_trigger_info *t = &rec->trigger;
	uint32_t n = hcb_get_le32(b + 48), m = hcb_get_le32(b + 52);
	uint64_t bits = hcb_get_le64(b + 28);
	uint64_t strings = TRIGGER_HEAD + (uint64_t)n + m;

	/* the tail: a job's, a fleet's or an exit's trigger (older files: none) */
	if (n > 127 || m > 255 || len < strings || !text_ok(b + TRIGGER_HEAD, n + m))
		return FAIL(r, st, -EBADMSG, "invalid trigger frame");
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_TRIGGER;
	t->device = hcb_get_le32(b);
	t->seq = hcb_get_le64(b + 4);
	t->leaf = (int64_t)hcb_get_le64(b + 12);
	t->element = (int64_t)hcb_get_le64(b + 20);
	memcpy(&t->value, &bits, sizeof(bits));
	t->wall_ns = hcb_get_le64(b + 36);
	t->oversize = hcb_get_le32(b + 44) != 0;
	memcpy(t->consumer, b + TRIGGER_HEAD, n);
	memcpy(t->condition, b + TRIGGER_HEAD + n, m);
	if (cap_trigger_tail_get(b + strings, len - strings, t))
		return FAIL(r, st, -EBADMSG, "invalid trigger frame");
	return 1;
}

/* The body b of a frame: 1 and a record, 0 for a frame that is none (a
 * consumer definition, a skippable frame), or the failure. */
static int parse_frame(struct hcb_reader *r, struct cap_reader *st, uint32_t type,
		       const unsigned char *b, uint64_t len, struct hcb_record *rec)
{
	switch (type) {
	case CAP_SESSION:
		return parse_session(r, st, b, len, rec);
	case CAP_CONSUMER:
		return parse_consumer(r, st, b, len);
	case CAP_TAP:
		return parse_tap(r, st, b, len, rec);
	case CAP_DROP:
		return parse_drop(r, st, b, len, rec);
	case CAP_BARRIER:
		memset(rec, 0, sizeof(*rec));
		rec->kind = HCB_REC_BARRIER;
		rec->barrier.wall_ns = hcb_get_le64(b);
		rec->barrier.taps = hcb_get_le64(b + 8);
		return 1;
	case CAP_END:
		memset(rec, 0, sizeof(*rec));
		rec->kind = HCB_REC_END;
		rec->end.taps = hcb_get_le64(b);
		rec->end.drops = hcb_get_le64(b + 8);
		rec->end.end_ns = hcb_get_le64(b + 16);
		return 1;
	case CAP_COPY:
		return parse_copy(r, st, b);
	case CAP_TEXT:
		return parse_text(r, st, b, len);
	case CAP_WHO:
		if (cap_who_parse(b, len, &st->who, st->devices))
			return FAIL(r, st, -EBADMSG, "invalid who frame");
		st->who_off = st->off;
		st->who_pending = 1;
		return 0;
	case CAP_TRIGGER:
		return parse_trigger(r, st, b, len, rec);
	default:    /* a skippable frame of a later version */
		return 0;
	}
}

/* The frame whose head was just read, body and all, past it: 1 and its
 * record in rec, 0 for a frame that makes none, or an error. */
static int whole_frame(struct hcb_reader *r, struct cap_reader *st, uint32_t type, uint64_t len,
		       struct hcb_record *rec)
{
	int n = read_body(r, st, type, len);

	if (!n)
		n = parse_frame(r, st, type, st->buf + FRAME_HEAD, len, rec);
	if (n < 0)
		return n;
	r->rec_off = record_start(st, type);
	st->off += FRAME_HEAD + len + FRAME_TAIL;
	r->pos = st->off;
	return n ? 1 : 0;
}

static int cap_next(struct hcb_reader *r, struct hcb_record *rec)
{
	struct cap_reader *st = r->state;

	if (!st->started) {
		int err = read_file_header(r, st);

		if (err)
			return err;
	}
	for (;;) {
		uint64_t len = 0;
		uint32_t type = 0;
		int n;

		n = read_frame_head(r, st, &type, &len);
		if (n <= 0)
			return n;
		n = whole_frame(r, st, type, len, rec);
		if (n)
			return n;
	}
}

/*
 * A tap frame's head without its payload (recfile.h: hcb_reader_skim): its
 * header is checked as cap_next checks it, the payload is seeked over (its
 * CRC is checked when the tap is read back), the file must hold all of it.
 */
static int skim_tap(struct hcb_reader *r, struct cap_reader *st, uint64_t len,
		    struct hcb_record *rec)
{
	uint64_t end = st->off + FRAME_HEAD + len + FRAME_TAIL;
	struct stat sb;
	int n;

	if (fread(st->buf + FRAME_HEAD, 1, TAP_HEAD, r->f) < TAP_HEAD) {
		if (ferror(r->f))
			return read_error(r, st);
		return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside a tap "
			    "frame; the records before it are complete");
	}
	n = parse_tap(r, st, st->buf + FRAME_HEAD, len, rec);
	if (n < 0)
		return n;
	/* seeking past the end is no error: ask the file (it may have grown) */
	if (end > r->size && fstat(fileno(r->f), &sb) == 0 && S_ISREG(sb.st_mode))
		r->size = (uint64_t)sb.st_size;
	if (end > r->size)
		return FAIL(r, st, -ENODATA, "truncated recording: the file ends inside a tap "
			    "frame (%llu of %llu bytes); the records before it are complete",
			    (unsigned long long)(r->size - st->off),
			    (unsigned long long)(end - st->off));
	if (fseeko(r->f, (off_t)end, SEEK_SET) < 0)
		return read_error(r, st);
	rec->tap.payload = NULL;
	r->rec_off = record_start(st, CAP_TAP);
	st->off = end;
	r->pos = end;
	return 1;
}

static int cap_skim(struct hcb_reader *r, struct hcb_record *rec)
{
	struct cap_reader *st = r->state;
	uint64_t len = 0;
	uint32_t type = 0;
	int n;

	if (!st->started && (n = read_file_header(r, st)))
		return n;
	if (!r->size)
		return cap_next(r, rec);   /* nothing to seek over: read it all */
	for (;;) {
		n = read_frame_head(r, st, &type, &len);
		if (n <= 0)
			return n;
		if (type == CAP_TAP)
			return skim_tap(r, st, len, rec);
		n = whole_frame(r, st, type, len, rec);
		if (n)
			return n;
	}
}

/* Read on from a frame at off; the file's header is checked first. */
static int cap_seek(struct hcb_reader *r, uint64_t off)
{
	struct cap_reader *st = r->state;
	int err;

	if (!st->started) {
		if (fseeko(r->f, 0, SEEK_SET) < 0)
			return -errno;
		err = read_file_header(r, st);
		if (err)
			return err;
	}
	st->off = off;
	st->copy_pending = 0;
	st->text_pending = 0;
	st->who_pending = 0;
	return 0;
}

static void cap_free(struct hcb_reader *r)
{
	struct cap_reader *st = r->state;

	if (st) {
		free(st->buf);
		free(st->text);
	}
	free(st);
	r->state = NULL;
}

int hcb_hcbcap_reader_init(struct hcb_reader *r)
{
	struct cap_reader *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	r->state = st;
	r->next = cap_next;
	r->skim = cap_skim;
	r->seek = cap_seek;
	r->free = cap_free;
	/* frame heads are read here; bodies grow it as they arrive */
	if (hcb_grow(&st->buf, &st->cap, 4096, 1)) {
		cap_free(r);
		return -ENOMEM;
	}
	return 0;
}
