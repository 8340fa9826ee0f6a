/* SPDX-License-Identifier: MIT */
/*
 * jsonl_skim.c - a JSONL tap without its arrays (recfile.h: hcb_reader_skim).
 *
 * The writer puts a tap's header before its data (type, device, seq,
 * consumer, name, kwargs, tree, ts_ns, copy_ns, then arrays: jsonl.c), so
 * the members before "arrays" are scanned here and the data is not parsed
 * at all.  A line this scan does not read (another record type, members in
 * another order, anything unusual) and a tap of a consumer id not met yet
 * are parsed whole by the reader, which checks them as hcb_reader_next()
 * does and defines the consumer; the scan itself only ever accepts what the
 * parser would accept for these members.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/consumer.h"
#include "recfile_impl.h"

struct tap_head {
	int type_tap, has_device, has_consumer, has_seq, has_ts, has_copy;
	uint64_t device, consumer, seq, ts, copy[2];
};

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* Past the string starting at p (its opening quote); NULL if it does not end. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Past the value starting at p: objects and arrays by their nesting (strings
 * minded), anything else to the next ',' '}' or ']'.  NULL: it does not end. */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	if (p < end && *p == '"')
		return skip_string(p, end);
	while (p < end) {
		if (*p == '"') {
			p = skip_string(p, end);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (!depth)
				return p;
			if (!--depth)
				return p + 1;
		} else if (*p == ',' && !depth) {
			return p;
		}
		p++;
	}
	return NULL;
}

/* A whole number as the parser takes it (digits only, no sign, at most
 * UINT64_MAX), ending where a value ends.  NULL if it is not one. */
static const char *whole(const char *p, const char *end, uint64_t *out)
{
	const char *start = p;
	uint64_t v = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == start || p - start > 20)
		return NULL;
	*out = v;
	return p;
}

/* "copy_ns"'s [start, end] as the parser takes it (jsonl_tap.c); NULL if
 * it is anything else, for the parser to judge. */
static const char *pair(const char *p, const char *end, uint64_t out[2])
{
	if (p == end || *p++ != '[')
		return NULL;
	p = whole(ws(p, end), end, &out[0]);
	if (!p || (p = ws(p, end)) == end || *p++ != ',')
		return NULL;
	p = whole(ws(p, end), end, &out[1]);
	if (!p || (p = ws(p, end)) == end || *p != ']' || out[0] > out[1])
		return NULL;
	return p + 1;
}

static int key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && !memcmp(k, want, n);
}

/* One member's value, at p: the ones a skim needs are read, others
 * skipped.  Returns past it, or NULL when the scan gives up (the parser
 * takes a key's first value: a second one is for it to judge). */
static const char *member(const char *k, size_t kn, const char *p, const char *end,
			  struct tap_head *h)
{
	if (key_is(k, kn, "type")) {
		if (h->type_tap)
			return NULL;
		h->type_tap = end - p >= 5 && !memcmp(p, "\"tap\"", 5);
		return h->type_tap ? p + 5 : NULL;
	}
	if (key_is(k, kn, "device"))
		return h->has_device++ ? NULL : whole(p, end, &h->device);
	if (key_is(k, kn, "consumer"))
		return h->has_consumer++ ? NULL : whole(p, end, &h->consumer);
	if (key_is(k, kn, "ts_ns"))
		return h->has_ts++ ? NULL : whole(p, end, &h->ts);
	if (key_is(k, kn, "copy_ns"))
		return h->has_copy++ ? NULL : pair(p, end, h->copy);
	if (key_is(k, kn, "seq")) {
		if (h->has_seq++)
			return NULL;
		if (end - p >= 4 && !memcmp(p, "null", 4)) {
			h->seq = UINT64_MAX;
			return p + 4;
		}
		p = whole(p, end, &h->seq);
		return p && h->seq != UINT64_MAX ? p : NULL;
	}
	return skip_value(p, end);
}

/* The members of line before "arrays": 1 if they make a tap header the
 * parser would take, 0 if the line is for the parser. */
static int scan(const char *p, const char *end, struct tap_head *h)
{
	memset(h, 0, sizeof(*h));
	p = ws(p, end);
	if (p == end || *p++ != '{')
		return 0;
	for (;;) {
		const char *k, *q;

		p = ws(p, end);
		if (p == end || *p != '"' || !(q = skip_string(p, end)))
			return 0;
		k = p + 1;
		p = ws(q, end);
		if (p == end || *p++ != ':')
			return 0;
		p = ws(p, end);
		/* a key with an escape in it is no key this scan knows */
		if (memchr(k, '\\', (size_t)(q - 1 - k)))
			return 0;
		if (key_is(k, (size_t)(q - 1 - k), "arrays"))
			break;
		p = member(k, (size_t)(q - 1 - k), p, end, h);
		if (!p)
			return 0;
		p = ws(p, end);
		if (p == end || *p++ != ',')
			return 0;
	}
	return h->type_tap && h->has_device && h->has_consumer && h->has_seq &&
	       h->device <= UINT32_MAX && h->consumer && h->consumer <= UINT32_MAX;
}

int hcb_jsonl_skim(struct hcb_reader *r, struct hcb_record *rec)
{
	const struct hcb_consumer *c = NULL;
	struct tap_head h;
	char *line;
	size_t len;
	int n = hcb_jsonl_line(r, &line, &len);

	if (n <= 0)
		return n;
	if (scan(line, line + len, &h))
		c = hcb_registry_get(r->consumers, (uint32_t)h.consumer);
	if (!c) {
		n = hcb_jsonl_parse(r, line, len, rec);
		if (n == 1 && rec->kind == HCB_REC_TAP)
			rec->tap.payload = NULL;
		return n;
	}
	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_TAP;
	rec->tap.device = (uint32_t)h.device;
	rec->tap.seq = h.seq;
	rec->tap.wall_ns = h.ts;
	rec->tap.copy_start_ns = h.copy[0];
	rec->tap.copy_end_ns = h.copy[1];
	rec->tap.consumer = c;
	return 1;
}
