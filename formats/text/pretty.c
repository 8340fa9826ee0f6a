/* SPDX-License-Identifier: MIT */
/*
 * pretty.c - the layout rules of jax._src.pretty_printer, as id_print saw
 * them (jax 0.4.x, the Python version; the later C++ one agrees on this
 * subset).
 *
 * Two rules differ from a textbook Wadler printer and shape id_print's
 * output, so they are kept on purpose:
 *  - a group is measured on its own, not with the rest of the line after it
 *    (JAX: "we care only if the current group fits");
 *  - text is measured by its whole length, newlines included, and printed
 *    verbatim: the lines of a multi-line array are not indented, and the
 *    column after it counts every character of the text.
 * Widths are in characters, as Python's len() counts them: UTF-8
 * continuation bytes do not count.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "pretty.h"

enum doc_type { DOC_TEXT, DOC_BRK, DOC_CONCAT, DOC_NEST, DOC_GROUP };

struct hcb_doc {
	enum doc_type type;
	int n;                   /* DOC_NEST: extra indentation */
	size_t len;              /* DOC_TEXT: bytes; DOC_CONCAT: parts */
	long width;              /* DOC_TEXT, DOC_BRK: characters */
	const char *text;        /* DOC_TEXT, DOC_BRK */
	struct hcb_doc **parts;  /* DOC_CONCAT */
	struct hcb_doc *child;   /* DOC_NEST, DOC_GROUP */
};

struct chunk {
	struct chunk *next;
	size_t used;
	size_t cap;
	alignas(max_align_t) unsigned char data[];
};

struct hcb_doc_arena {
	struct chunk *head;
};

#define CHUNK_SIZE 16384

struct hcb_doc_arena *hcb_doc_arena_new(void)
{
	return calloc(1, sizeof(struct hcb_doc_arena));
}

void hcb_doc_arena_free(struct hcb_doc_arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

static void *arena_alloc(struct hcb_doc_arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	struct chunk *c = a->head;
	void *p;

	if (size > (size_t)-1 / 2)
		return NULL;
	size = (size + align - 1) & ~(align - 1);
	if (!c || c->cap - c->used < size) {
		size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

static struct hcb_doc *doc_new(struct hcb_doc_arena *a, enum doc_type type)
{
	struct hcb_doc *d;

	if (!a)
		return NULL;
	d = arena_alloc(a, sizeof(*d));
	if (d) {
		memset(d, 0, sizeof(*d));
		d->type = type;
	}
	return d;
}

/* Characters as Python counts them in the decoded string. */
static long utf8_width(const char *s, size_t len)
{
	long n = 0;
	size_t i = 0;

	/* 8 bytes at a time (an array's text is long): continuation bytes
	 * are 10xxxxxx, bit 7 set and bit 6 clear */
	for (; i + 8 <= len; i += 8) {
		uint64_t x, cont;

		memcpy(&x, s + i, 8);
		cont = (x & ~(x << 1) & 0x8080808080808080ull) >> 7;
		n += 8 - (long)(cont * 0x0101010101010101ull >> 56);   /* the bytes' sum */
	}
	for (; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

struct hcb_doc *hcb_doc_text(struct hcb_doc_arena *a, const char *s, size_t len)
{
	struct hcb_doc *d = doc_new(a, DOC_TEXT);
	char *copy;

	if (!d || (!s && len))
		return NULL;
	copy = arena_alloc(a, len + 1);
	if (!copy)
		return NULL;
	if (len)
		memcpy(copy, s, len);
	copy[len] = '\0';
	d->text = copy;
	d->len = len;
	d->width = utf8_width(s, len);
	return d;
}

struct hcb_doc *hcb_doc_brk(struct hcb_doc_arena *a)
{
	struct hcb_doc *d = doc_new(a, DOC_BRK);

	if (d) {
		d->text = " ";
		d->len = 1;
		d->width = 1;
	}
	return d;
}

struct hcb_doc *hcb_doc_concat(struct hcb_doc_arena *a, struct hcb_doc *const *parts, size_t n)
{
	struct hcb_doc *d;

	if (n && !parts)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!parts[i])
			return NULL;
	d = doc_new(a, DOC_CONCAT);
	if (!d)
		return NULL;
	if (n > (size_t)-1 / sizeof(*d->parts))
		return NULL;
	d->parts = arena_alloc(a, n * sizeof(*d->parts) + 1);
	if (!d->parts)
		return NULL;
	if (n)
		memcpy(d->parts, parts, n * sizeof(*d->parts));
	d->len = n;
	return d;
}

struct hcb_doc *hcb_doc_nest(struct hcb_doc_arena *a, int n, struct hcb_doc *child)
{
	struct hcb_doc *d = child ? doc_new(a, DOC_NEST) : NULL;

	if (d) {
		d->n = n;
		d->child = child;
	}
	return d;
}

struct hcb_doc *hcb_doc_group(struct hcb_doc_arena *a, struct hcb_doc *child)
{
	struct hcb_doc *d = child ? doc_new(a, DOC_GROUP) : NULL;

	if (d)
		d->child = child;
	return d;
}

/* ---- layout ---------------------------------------------------------- */

struct item {
	long indent;
	bool flat;
	const struct hcb_doc *d;
};

/* An explicit stack: documents nest as deep as the pytree, and do not
 * need to cost C stack. */
struct stack {
	struct item *v;
	size_t n;
	size_t cap;
};

static int push(struct stack *s, long indent, bool flat, const struct hcb_doc *d)
{
	if (hcb_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->n++] = (struct item){ indent, flat, d };
	return 0;
}

/* Push a concatenation's parts so the first comes off the stack first. */
static int push_parts(struct stack *s, long indent, bool flat, const struct hcb_doc *d)
{
	for (size_t i = d->len; i-- > 0;) {
		int err = push(s, indent, flat, d->parts[i]);

		if (err)
			return err;
	}
	return 0;
}

/*
 * Does d, printed flat, take at most width characters?  *fits answers;
 * the return value is 0 or -ENOMEM.
 */
static int fits(struct stack *s, const struct hcb_doc *d, long width, bool *fits)
{
	int err = 0;

	s->n = 0;
	if (width >= 0)
		err = push(s, 0, true, d);
	while (!err && width >= 0 && s->n) {
		const struct hcb_doc *x = s->v[--s->n].d;

		switch (x->type) {
		case DOC_TEXT:
		case DOC_BRK:
			width -= x->width;
			break;
		case DOC_CONCAT:
			err = push_parts(s, 0, true, x);
			break;
		case DOC_NEST:
		case DOC_GROUP:
			err = push(s, 0, true, x->child);
			break;
		}
	}
	*fits = width >= 0;
	return err;
}

int hcb_doc_render(struct hcb_buf *out, const struct hcb_doc *d, int width)
{
	struct stack todo = { 0 }, scratch = { 0 };
	long k = 0;  /* the column, as JAX counts it */
	int err;

	if (!d)
		return -EINVAL;
	/* outside any group, breaks are newlines */
	err = push(&todo, 0, false, d);
	while (!err && todo.n) {
		struct item it = todo.v[--todo.n];
		bool flat;

		switch (it.d->type) {
		case DOC_TEXT:
			err = hcb_buf_add(out, it.d->text, it.d->len);
			k += it.d->width;
			break;
		case DOC_BRK:
			if (it.flat) {
				err = hcb_buf_add(out, it.d->text, it.d->len);
				k += it.d->width;
				break;
			}
			err = hcb_buf_putc(out, '\n');
			if (!err && it.indent > 0)
				err = hcb_buf_fill(out, ' ', (size_t)it.indent);
			k = it.indent;
			break;
		case DOC_CONCAT:
			err = push_parts(&todo, it.indent, it.flat, it.d);
			break;
		case DOC_NEST:
			err = push(&todo, it.indent + it.d->n, it.flat, it.d->child);
			break;
		case DOC_GROUP:
			/* decided again for every group, even inside a flat one */
			err = fits(&scratch, it.d->child, (long)width - k, &flat);
			err = err ?: push(&todo, it.indent, flat, it.d->child);
			break;
		}
	}
	free(todo.v);
	free(scratch.v);
	return err;
}
