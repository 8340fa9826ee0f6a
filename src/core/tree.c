/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "tree.h"

struct parser {
	const char *s;
	size_t len, pos;
	unsigned int leaves;
	int build;   /* 0: validate only */
};

static void skip_spaces(struct parser *p)
{
	while (p->pos < p->len && p->s[p->pos] == ' ')
		p->pos++;
}

/* The current token's length (up to the next space or the end). */
static size_t token_len(const struct parser *p)
{
	size_t n = 0;

	while (p->pos + n < p->len && p->s[p->pos + n] != ' ')
		n++;
	return n;
}

static int key_char_ok(unsigned char c)
{
	return c > ' ' && c != '=' && c != 0x7f;
}

static void free_children(struct hcb_tree *t)
{
	for (unsigned int i = 0; i < t->nchildren; i++) {
		free_children(&t->children[i]);
		free(t->children[i].key);
	}
	free(t->children);
	t->children = NULL;
	t->nchildren = 0;
}

static int parse_value(struct parser *p, struct hcb_tree *out, int depth);

/* Parse a value into a new last child of t; *cap: t->children's capacity. */
static int add_child(struct parser *p, struct hcb_tree *t, size_t *cap, char *key, int depth)
{
	struct hcb_tree child = { 0 };
	int err;

	err = parse_value(p, &child, depth + 1);
	if (err) {
		free_children(&child);
		free(key);
		return err;
	}
	if (!p->build)
		return 0;
	if (hcb_grow(&t->children, cap, (size_t)t->nchildren + 1, sizeof(*t->children))) {
		free_children(&child);
		free(key);
		return -ENOMEM;
	}
	child.key = key;
	t->children[t->nchildren++] = child;
	return 0;
}

static int parse_value(struct parser *p, struct hcb_tree *out, int depth)
{
	char open, close;
	size_t n, cap = 0;   /* out->children's */
	int err;

	if (depth > HCB_TREE_MAX_DEPTH)
		return -EINVAL;
	skip_spaces(p);
	if (p->pos >= p->len)
		return -EINVAL;
	open = p->s[p->pos];
	n = token_len(p);
	if (open == '*' && n == 1) {
		p->pos++;
		out->kind = HCB_TREE_LEAF;
		out->leaf = p->leaves++;
		return 0;
	}
	switch (open) {
	case '(': close = ')'; out->kind = HCB_TREE_TUPLE; break;
	case '[': close = ']'; out->kind = HCB_TREE_LIST; break;
	case '{': close = '}'; out->kind = HCB_TREE_DICT; break;
	default: return -EINVAL;
	}
	/* "(" must stand alone as a token, except as a dict value "k=(" */
	if (n != 1)
		return -EINVAL;
	p->pos++;
	for (;;) {
		char *key = NULL;

		skip_spaces(p);
		if (p->pos >= p->len)
			err = -EINVAL;
		else if (p->s[p->pos] == close && token_len(p) == 1) {
			p->pos++;
			return 0;
		} else if (out->kind == HCB_TREE_DICT) {
			size_t k = 0;

			while (p->pos + k < p->len && key_char_ok((unsigned char)p->s[p->pos + k]))
				k++;
			if (k == 0 || k > 255 || p->pos + k >= p->len || p->s[p->pos + k] != '=')
				return -EINVAL;
			if (p->build) {
				key = strndup(p->s + p->pos, k);
				if (!key)
					return -ENOMEM;
			}
			p->pos += k + 1;
			/* the value follows "=" directly */
			if (p->pos >= p->len || p->s[p->pos] == ' ') {
				free(key);
				return -EINVAL;
			}
			err = add_child(p, out, &cap, key, depth);
		} else {
			err = add_child(p, out, &cap, NULL, depth);
		}
		if (err)
			return err;
	}
}

static int run(struct parser *p, struct hcb_tree *root)
{
	int err;

	if (memchr(p->s, '\0', p->len))
		return -EINVAL;
	err = parse_value(p, root, 0);
	if (err)
		return err;
	skip_spaces(p);
	return p->pos == p->len ? 0 : -EINVAL;
}

int hcb_tree_validate(const char *s, size_t len, unsigned int *nleaves)
{
	struct parser p = { .s = s, .len = len };
	struct hcb_tree root = { 0 };
	int err = run(&p, &root);

	if (!err && nleaves)
		*nleaves = p.leaves;
	return err;
}

int hcb_tree_parse(const char *s, size_t len, struct hcb_tree **out, unsigned int *nleaves)
{
	struct parser p = { .s = s, .len = len, .build = 1 };
	struct hcb_tree *root = calloc(1, sizeof(*root));
	int err;

	if (!root)
		return -ENOMEM;
	err = run(&p, root);
	if (err) {
		hcb_tree_free(root);
		return err;
	}
	*out = root;
	if (nleaves)
		*nleaves = p.leaves;
	return 0;
}

void hcb_tree_free(struct hcb_tree *t)
{
	if (!t)
		return;
	free_children(t);
	free(t);
}
