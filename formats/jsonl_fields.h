/* SPDX-License-Identifier: MIT */
/*
 * jsonl_fields.h - what the JSONL reader's files share (jsonl_read.c: the
 * lines and the records; jsonl_tap.c: a tap record): the reader's state,
 * where a message points, and a record's members read as
 * formats/JSONL.md says, each failing the reader in one message that
 * names the line.
 */
#ifndef HCB_JSONL_FIELDS_H
#define HCB_JSONL_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "json/jsonparse.h"
#include "recfile_impl.h"

struct jsonl_reader {
	char *line;
	size_t cap;
	uint64_t lineno;       /* after a seek (r->seeked), not known: messages name the offset */
	uint64_t records;      /* lines read so far */
	struct jdoc doc;
	unsigned char *payload;
	size_t payload_cap;
	char where[32];
	/* the last session record's devices (jsonl_session.c) */
	struct hcb_session_device devices[HCB_SESSION_DEVICES];
};

/* Where the record being read is: "12" (its line), or "offset 4096" after
 * a seek, when its line is not known. */
const char *hcb_jsonl_where(struct hcb_reader *r);
/* Fail the reader on the record being read: -EBADMSG, one message. */
#define JSONL_BAD(r, ...) hcb_reader_fail((r), -EBADMSG, hcb_jsonl_where(r), __VA_ARGS__)

/* Member key of object obj: a whole number up to max, a string (without
 * NUL), or a string copied into dst (size bytes).  0 (also when optional
 * and missing: *out untouched), or the reader failed. */
int hcb_jsonl_get_u64(struct hcb_reader *r, uint32_t obj, const char *key, uint64_t max,
		      uint64_t *out, int optional);
int hcb_jsonl_get_str(struct hcb_reader *r, uint32_t obj, const char *key, const char **out,
		      int optional);
int hcb_jsonl_copy_str(struct hcb_reader *r, uint32_t obj, const char *key, char *dst,
		       size_t size, int optional);

/* A "session" line (jsonl_session.c): 1, or the reader failed. */
int hcb_jsonl_read_session(struct hcb_reader *r, struct hcb_record *rec);

#endif
