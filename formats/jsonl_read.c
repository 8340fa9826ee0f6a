/* SPDX-License-Identifier: MIT */
/*
 * jsonl_read.c - the JSONL recording reader (formats/JSONL.md): one line
 * at a time, parsed strictly, then checked against the schema; a tap
 * record is jsonl_tap.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/jsonparse.h"
#include "jsonl.h"
#include "jsonl_fields.h"
#include "jsonl_tap.h"

/* No line is longer than this (a 64 Mi-element float64 tap is ~1.5 GB of
 * text; past it a file is more likely damaged than real). */
#define MAX_LINE (4ull << 30)

static int read_record(struct hcb_reader *r, struct hcb_record *rec)
{
	struct jsonl_reader *s = r->state;
	const char *type;
	uint64_t v;

	if (s->doc.nodes[0].kind != J_OBJ)
		return JSONL_BAD(r, "a record is a JSON object");
	if (hcb_jsonl_get_str(r, 0, "type", &type, 0))
		return r->err;
	memset(rec, 0, sizeof(*rec));
	if (!strcmp(type, "tap"))
		return hcb_jsonl_read_tap(r, rec);
	if (!strcmp(type, "session"))
		return hcb_jsonl_read_session(r, rec);
	if (!strcmp(type, "drop")) {
		rec->kind = HCB_REC_DROP;
		if (hcb_jsonl_get_u64(r, 0, "device", UINT32_MAX, &v, 0))
			return r->err;
		rec->drop.device = (uint32_t)v;
		if (hcb_jsonl_get_u64(r, 0, "count", UINT64_MAX, &rec->drop.count, 0) ||
		    hcb_jsonl_copy_str(r, 0, "reason", rec->drop.reason, sizeof(rec->drop.reason), 1))
			return r->err;
		return 1;
	}
	if (!strcmp(type, "barrier")) {
		rec->kind = HCB_REC_BARRIER;
		if (hcb_jsonl_get_u64(r, 0, "ts_ns", UINT64_MAX, &rec->barrier.wall_ns, 1) ||
		    hcb_jsonl_get_u64(r, 0, "taps", UINT64_MAX, &rec->barrier.taps, 1))
			return r->err;
		return 1;
	}
	if (!strcmp(type, "trigger"))
		return hcb_jsonl_read_trigger(r, &s->doc, rec, hcb_jsonl_where(r));
	if (!strcmp(type, "end")) {
		rec->kind = HCB_REC_END;
		if (hcb_jsonl_get_u64(r, 0, "taps", UINT64_MAX, &rec->end.taps, 1) ||
		    hcb_jsonl_get_u64(r, 0, "drops", UINT64_MAX, &rec->end.drops, 1) ||
		    hcb_jsonl_get_u64(r, 0, "end_ns", UINT64_MAX, &rec->end.end_ns, 1))
			return r->err;
		return 1;
	}
	return JSONL_BAD(r, "unknown record type '%s' (expected session, tap, drop, barrier, trigger or end)", type);
}

int hcb_jsonl_line(struct hcb_reader *r, char **line, size_t *len)
{
	struct jsonl_reader *s = r->state;
	ssize_t n;

	for (;;) {
		errno = 0;
		n = getline(&s->line, &s->cap, r->f);
		if (n < 0) {
			/* getline reports running out of memory through errno alone */
			if (errno == ENOMEM)
				return hcb_reader_fail(r, -ENOMEM, hcb_jsonl_where(r), "out of memory reading the next line");
			if (ferror(r->f) || errno)
				return hcb_reader_fail(r, -EIO, NULL, "read error: %s", strerror(errno ? errno : EIO));
			return s->records || r->seeked ? 0 : hcb_reader_empty(r, NULL);
		}
		s->lineno++;
		r->rec_off = r->pos;
		r->pos += (uint64_t)n;
		if ((uint64_t)n > MAX_LINE)
			return hcb_reader_fail(r, -E2BIG, hcb_jsonl_where(r), "a line of %zd bytes: more than this reader holds", n);
		if (s->line[n - 1] != '\n')
			return hcb_reader_fail(r, -ENODATA, hcb_jsonl_where(r),
					       "the recording ends in the middle of a line (truncated?); "
					       "the %llu lines before it are complete",
					       (unsigned long long)s->lineno - 1);
		if (n == 1)
			continue;   /* blank lines carry nothing */
		s->records++;
		s->line[n - 1] = '\0';
		*line = s->line;
		*len = (size_t)n - 1;
		return 1;
	}
}

int hcb_jsonl_parse(struct hcb_reader *r, char *line, size_t len, struct hcb_record *rec)
{
	struct jsonl_reader *s = r->state;
	int err;

	if (memchr(line, '\0', len))
		return JSONL_BAD(r, "a NUL byte in the line");
	err = jparse(&s->doc, line, len);
	if (err == -EBADMSG)
		return JSONL_BAD(r, "not valid JSON: %s", s->doc.error);
	if (err)
		return err;
	return read_record(r, rec);
}

static int jsonl_next(struct hcb_reader *r, struct hcb_record *rec)
{
	char *line;
	size_t len;
	int n = hcb_jsonl_line(r, &line, &len);

	return n <= 0 ? n : hcb_jsonl_parse(r, line, len, rec);
}

static void jsonl_free(struct hcb_reader *r)
{
	struct jsonl_reader *s = r->state;

	if (!s)
		return;
	free(s->line);
	free(s->payload);
	jdoc_free(&s->doc);
	free(s);
}

int hcb_jsonl_reader_init(struct hcb_reader *r)
{
	r->state = calloc(1, sizeof(struct jsonl_reader));
	if (!r->state)
		return -ENOMEM;
	r->next = jsonl_next;
	r->skim = hcb_jsonl_skim;
	r->free = jsonl_free;
	return 0;
}
