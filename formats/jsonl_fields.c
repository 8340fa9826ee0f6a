/* SPDX-License-Identifier: MIT */
/* jsonl_fields.c - a JSONL record's members, read as the schema says (jsonl_fields.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jsonl_fields.h"

const char *hcb_jsonl_where(struct hcb_reader *r)
{
	struct jsonl_reader *s = r->state;

	if (r->seeked)
		snprintf(s->where, sizeof(s->where), "offset %llu", (unsigned long long)r->rec_off);
	else
		snprintf(s->where, sizeof(s->where), "%llu", (unsigned long long)s->lineno);
	return s->where;
}

int hcb_jsonl_get_u64(struct hcb_reader *r, uint32_t obj, const char *key, uint64_t max,
		      uint64_t *out, int optional)
{
	struct jsonl_reader *s = r->state;
	uint32_t i = jget(&s->doc, obj, key);

	if (i == UINT32_MAX) {
		if (optional)
			return 0;
		return JSONL_BAD(r, "'%s' is missing", key);
	}
	if (jwhole(&s->doc, i, max, out))
		return JSONL_BAD(r, "'%s' is not a whole number from 0 to %llu", key,
				 (unsigned long long)max);
	return 0;
}

int hcb_jsonl_get_str(struct hcb_reader *r, uint32_t obj, const char *key, const char **out,
		      int optional)
{
	struct jsonl_reader *s = r->state;
	uint32_t i = jget(&s->doc, obj, key);

	if (i == UINT32_MAX) {
		if (optional)
			return 0;
		return JSONL_BAD(r, "'%s' is missing", key);
	}
	if (s->doc.nodes[i].kind != J_STR)
		return JSONL_BAD(r, "'%s' is not a string", key);
	if (strlen(jstr(&s->doc, i)) != s->doc.nodes[i].slen)
		return JSONL_BAD(r, "'%s' holds a NUL character", key);
	*out = jstr(&s->doc, i);
	return 0;
}

int hcb_jsonl_copy_str(struct hcb_reader *r, uint32_t obj, const char *key, char *dst,
		       size_t size, int optional)
{
	const char *v = NULL;

	if (hcb_jsonl_get_str(r, obj, key, &v, optional))
		return r->err;
	if (!v)
		return 0;
	if (strlen(v) >= size)
		return JSONL_BAD(r, "'%s' is longer than %zu bytes", key, size - 1);
	strcpy(dst, v);
	return 0;
}
