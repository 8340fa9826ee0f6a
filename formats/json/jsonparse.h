/* SPDX-License-Identifier: MIT */
/*
 * jsonparse.h - a small strict JSON parser for recordings' lines.
 *
 * Why not jansson here: a tap's "data" holds millions of numbers, uint64 max
 * does not fit jansson's integers, and each value must be read in its own
 * dtype.  This parser builds a flat array of nodes (pre-order) over one
 * line and leaves numbers as text spans for the caller to convert, each
 * with its exact decimal value when that has at most 19 digits.
 */
#ifndef HCB_JSONPARSE_H
#define HCB_JSONPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "jsonscan.h"

enum jkind { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jkind kind;
	uint32_t end;       /* index after the last node of this value's subtree */
	union {
		uint32_t count;     /* J_ARR/J_OBJ: children */
		uint32_t numlen;    /* J_NUM: the length of its text */
	};
	int32_t exp10;      /* J_NUM: its value is sig * 10^exp10; JNUM_LONG: see the text */
	size_t key;         /* offset of the member's key in the string arena, or SIZE_MAX */
	/* 40 bytes, not 56: a tap's data is a node per number */
	union {
		struct {
			size_t str;         /* J_STR: offset of the decoded string in the arena */
			size_t slen;        /* J_STR: its length */
		};
		struct {
			const char *num;    /* J_NUM: the number's text, in the parsed line */
			uint64_t sig;       /* J_NUM: its digits, sign apart (jsonscan.h) */
		};
	};
};

struct jdoc {
	struct jnode *nodes;
	uint32_t n, cap;
	struct hcb_buf strings;    /* decoded strings and keys, NUL terminated */
	char error[128];           /* what was wrong, with the column */
};

#define JSON_MAX_DEPTH 64

/* Parse text[0..len) as one JSON value (reusing doc's memory); a number's
 * text may be at most 2^32 - 1 bytes.  0, -EBADMSG (doc->error says why),
 * -ENOMEM, -E2BIG (over 2^31 nodes). */
int jparse(struct jdoc *doc, const char *text, size_t len);
void jdoc_free(struct jdoc *doc);

static inline const char *jstr(const struct jdoc *d, uint32_t i)
{
	return d->strings.data + d->nodes[i].str;
}

static inline const char *jkey(const struct jdoc *d, uint32_t i)
{
	return d->strings.data + d->nodes[i].key;
}

/* Length of the valid UTF-8 sequence at s (1..4; reads up to 4 bytes), or 0. */
int json_utf8_len(const unsigned char *s);

/* The member of object i called key, or UINT32_MAX. */
uint32_t jget(const struct jdoc *d, uint32_t obj, const char *key);
/* The first child of array/object i (valid only if count > 0); the next sibling of child c is nodes[c].end. */
static inline uint32_t jfirst(uint32_t i) { return i + 1; }
/* Node i as a whole number from 0 to max, in plain digits (no sign,
 * fraction or exponent): 0, or -EBADMSG. */
int jwhole(const struct jdoc *d, uint32_t i, uint64_t max, uint64_t *out);

#endif
