/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "jsonparse.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
int json_utf8_len(const unsigned char *s)
{
	int n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

struct parser {
	struct jdoc *d;
	const char *s, *end, *start;
	int err;
};

static int fail(struct parser *p, const char *what)
{
	if (!p->err) {
		snprintf(p->d->error, sizeof(p->d->error), "%s at column %zu", what,
			 (size_t)(p->s - p->start) + 1);
		p->err = -EBADMSG;
	}
	return p->err;
}

static void ws(struct parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\r' || *p->s == '\n'))
		p->s++;
}

/* Room for one more node (out of line: it is seldom needed). */
static __attribute__((noinline)) int grow_nodes(struct parser *p)
{
	struct jdoc *d = p->d;
	/* node indices are uint32_t; cap grows by doubling, from 256 */
	size_t cap = d->cap;

	if ((size_t)d->n + 1 > (1u << 31))
		return p->err = -E2BIG;
	if (hcb_grow(&d->nodes, &cap, d->cap ? (size_t)d->n + 1 : 256, sizeof(*d->nodes)))
		return p->err = -ENOMEM;
	d->cap = (uint32_t)cap;
	return 0;
}

/* Inline: a tap's data is one node per number, millions of them. */
static inline int new_node(struct parser *p, enum jkind kind, uint32_t *idx)
{
	struct jdoc *d = p->d;
	int err;

	if (d->n == d->cap && (err = grow_nodes(p)))
		return err;
	*idx = d->n++;
	d->nodes[*idx] = (struct jnode){ .kind = kind, .key = SIZE_MAX };
	return 0;
}

static int hex4(const char *s, unsigned int *out)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static int put_utf8(struct hcb_buf *b, unsigned int cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return hcb_buf_add(b, u, n);
}

/* A string at p->s (after the quote) into the arena; *off and *len out. */
static int string(struct parser *p, size_t *off, size_t *len)
{
	struct hcb_buf *b = &p->d->strings;

	*off = b->len;
	for (;;) {
		const char *run = p->s;
		unsigned char c;

		while (p->s < p->end && *p->s != '"' && *p->s != '\\' && (unsigned char)*p->s >= 0x20) {
			/* JSON text is UTF-8: anything else is damage, not a name */
			int n = (unsigned char)*p->s < 0x80 ? 1 :
				p->end - p->s >= 4 ? json_utf8_len((const unsigned char *)p->s) : 0;

			if (n == 0) {
				/* near the end of the line: check on a padded copy */
				unsigned char tail[4] = { 0 };

				memcpy(tail, p->s, (size_t)(p->end - p->s) < 4 ? (size_t)(p->end - p->s) : 4);
				n = json_utf8_len(tail);
				if (n == 0 || n > p->end - p->s)
					return fail(p, "invalid UTF-8 in string");
			}
			p->s += n;
		}
		if (hcb_buf_add(b, run, (size_t)(p->s - run)))
			return p->err = -ENOMEM;
		if (p->s >= p->end)
			return fail(p, "unterminated string");
		c = (unsigned char)*p->s++;
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(p, "control character in string");
		/* a backslash escape */
		if (p->s >= p->end)
			return fail(p, "unterminated string");
		c = (unsigned char)*p->s++;
		switch (c) {
		case '"': case '\\': case '/':
			if (hcb_buf_putc(b, (char)c)) return p->err = -ENOMEM;
			break;
		case 'b': if (hcb_buf_putc(b, '\b')) return p->err = -ENOMEM; break;
		case 'f': if (hcb_buf_putc(b, '\f')) return p->err = -ENOMEM; break;
		case 'n': if (hcb_buf_putc(b, '\n')) return p->err = -ENOMEM; break;
		case 'r': if (hcb_buf_putc(b, '\r')) return p->err = -ENOMEM; break;
		case 't': if (hcb_buf_putc(b, '\t')) return p->err = -ENOMEM; break;
		case 'u': {
			unsigned int cp, lo;

			if (p->end - p->s < 4 || hex4(p->s, &cp))
				return fail(p, "bad \\u escape");
			p->s += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u' ||
				    hex4(p->s + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return fail(p, "unpaired surrogate in \\u escape");
				p->s += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				return fail(p, "unpaired surrogate in \\u escape");
			}
			if (cp == 0)
				return fail(p, "NUL in string");
			if (put_utf8(b, cp))
				return p->err = -ENOMEM;
			break;
		}
		default:
			return fail(p, "bad escape in string");
		}
	}
	*len = b->len - *off;
	if (hcb_buf_putc(b, '\0'))
		return p->err = -ENOMEM;
	return 0;
}

/* The number at p->s into node idx (its kind and key already set). */
static int number(struct parser *p, uint32_t idx)
{
	const char *start = p->s, *bad, *e;
	struct jscan_num num;
	struct jnode *n;

	if (!(e = jscan_number(p->s, p->end, &bad, &num)))
		return p->s = bad, fail(p, "bad number");
	if (e - start > UINT32_MAX)
		return fail(p, "number too long");   /* at its start: p->s not moved */
	p->s = e;
	n = &p->d->nodes[idx];
	n->num = start;
	n->numlen = (uint32_t)(e - start);
	n->sig = num.sig;
	n->exp10 = num.exp10;
	return 0;
}

/*
 * A number at p->s, and those after it while each follows the last one's
 * ',' directly, as nodes: what value() makes of them one by one, each
 * node written once, the text in locals.  *count gets one for each but
 * the first (the caller counts that one).
 */
static int number_run(struct parser *p, uint32_t *count)
{
	const char *s = p->s, *end = p->end, *e, *bad;
	struct jdoc *d = p->d;
	struct jscan_num num;
	int err;

	for (;;) {
		if (!(e = jscan_number(s, end, &bad, &num)))
			return p->s = bad, fail(p, "bad number");
		if (e - s > UINT32_MAX)
			return p->s = s, fail(p, "number too long");
		if (d->n == d->cap && (err = grow_nodes(p)))
			return err;
		d->nodes[d->n] = (struct jnode){ .kind = J_NUM, .end = d->n + 1,
						 .numlen = (uint32_t)(e - s), .exp10 = num.exp10,
						 .key = SIZE_MAX, .num = s, .sig = num.sig };
		d->n++;
		s = e;
		/* '|', not '||': whether the next is negative is data */
		if (end - s < 2 || s[0] != ',' ||
		    !((s[1] == '-') | ((unsigned int)(s[1] - '0') <= 9)))
			break;
		s++;
		++*count;
	}
	p->s = s;
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return fail(p, "unexpected character");
	p->s += n;
	return 0;
}

/* A member's name and its ':' (the object's '{' or ',' read); *key: the name. */
static int member_name(struct parser *p, size_t *key)
{
	size_t klen;

	ws(p);
	if (p->s >= p->end || *p->s != '"')
		return fail(p, "expected a member name");
	p->s++;
	if (string(p, key, &klen))
		return p->err;
	ws(p);
	if (p->s >= p->end || *p->s != ':')
		return fail(p, "expected ':'");
	p->s++;
	return 0;
}

static int value(struct parser *p, int depth, size_t key);

/*
 * The next member of an array (open '[') or object at depth: value(), or
 * a run of numbers in an array (a tap's data) taken as value() would take
 * them, without a call each.
 */
static int member(struct parser *p, char open, int depth, size_t key, uint32_t *count)
{
	ws(p);
	if (open == '[' && depth < JSON_MAX_DEPTH && p->s < p->end &&
	    (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')))
		return number_run(p, count);
	return value(p, depth + 1, key);
}

/* The object or array at p->s: its node, then its members' after it. */
static int container(struct parser *p, int depth, size_t key)
{
	char open = *p->s, close = open == '{' ? '}' : ']';
	uint32_t idx, count = 0;

	if (new_node(p, open == '{' ? J_OBJ : J_ARR, &idx))
		return p->err;
	p->d->nodes[idx].key = key;
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
	} else {
		for (;;) {
			size_t k = SIZE_MAX;

			if (open == '{' && member_name(p, &k))
				return p->err;
			if (member(p, open, depth, k, &count))
				return p->err;
			count++;
			ws(p);
			if (p->s < p->end && *p->s == ',') {
				p->s++;
				continue;
			}
			if (p->s < p->end && *p->s == close) {
				p->s++;
				break;
			}
			return fail(p, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
	p->d->nodes[idx].count = count;
	p->d->nodes[idx].end = p->d->n;
	return 0;
}

static int value(struct parser *p, int depth, size_t key)
{
	size_t off, len;
	uint32_t idx;
	char c;

	ws(p);
	if (p->s >= p->end)
		return fail(p, "unexpected end");
	if (depth > JSON_MAX_DEPTH)
		return fail(p, "nested too deep");
	c = *p->s;
	switch (c) {
	case '{': case '[':
		return container(p, depth, key);
	case '"':
		if (new_node(p, J_STR, &idx))
			return p->err;
		p->d->nodes[idx].key = key;
		p->s++;
		if (string(p, &off, &len))
			return p->err;
		p->d->nodes[idx].str = off;
		p->d->nodes[idx].slen = len;
		break;
	case 't': case 'f': case 'n':
		if (new_node(p, c == 't' ? J_TRUE : c == 'f' ? J_FALSE : J_NULL, &idx))
			return p->err;
		p->d->nodes[idx].key = key;
		if (literal(p, c == 't' ? "true" : c == 'f' ? "false" : "null"))
			return p->err;
		break;
	default:
		if (new_node(p, J_NUM, &idx))
			return p->err;
		p->d->nodes[idx].key = key;
		if (number(p, idx))
			return p->err;
	}
	p->d->nodes[idx].end = idx + 1;
	return 0;
}

int jparse(struct jdoc *d, const char *text, size_t len)
{
	struct parser p = { .d = d, .s = text, .end = text + len, .start = text };

	d->n = 0;
	d->error[0] = '\0';
	hcb_buf_reset(&d->strings);
	if (value(&p, 0, SIZE_MAX))
		return p.err;
	ws(&p);
	if (p.s != p.end)
		return fail(&p, "text after the value");
	return 0;
}

void jdoc_free(struct jdoc *d)
{
	free(d->nodes);
	hcb_buf_free(&d->strings);
	memset(d, 0, sizeof(*d));
}

uint32_t jget(const struct jdoc *d, uint32_t obj, const char *key)
{
	uint32_t c = obj + 1;

	if (d->nodes[obj].kind != J_OBJ)
		return UINT32_MAX;
	for (uint32_t i = 0; i < d->nodes[obj].count; i++, c = d->nodes[c].end)
		if (strcmp(jkey(d, c), key) == 0)
			return c;
	return UINT32_MAX;
}

int jwhole(const struct jdoc *d, uint32_t i, uint64_t max, uint64_t *out)
{
	const struct jnode *n = &d->nodes[i];
	char buf[32], *end;
	unsigned long long v;

	if (n->kind != J_NUM || n->numlen >= sizeof(buf) || n->num[0] == '-')
		return -EBADMSG;
	memcpy(buf, n->num, n->numlen);
	buf[n->numlen] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || *end || v > max)
		return -EBADMSG;
	*out = v;
	return 0;
}
