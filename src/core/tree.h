/* SPDX-License-Identifier: MIT */
/*
 * tree.h - pytree structure strings.
 *
 * Grammar (tokens separated by one or more spaces):
 *   value := "*" | "(" value* ")" | "[" value* "]" | "{" (KEY "=" value)* "}"
 * where a dict entry is written KEY=value with no spaces around "=", e.g.
 *   "*"   "( * * )"   "{ b=* w=[ * * ] }"
 * KEY is 1..255 bytes without space, "=", NUL or control characters.  Leaves
 * ("*") are numbered left to right.  Uses libc only: libhcbtap links it too.
 */
#ifndef HCB_TREE_H
#define HCB_TREE_H

#include <stddef.h>

enum hcb_tree_kind { HCB_TREE_LEAF, HCB_TREE_TUPLE, HCB_TREE_LIST, HCB_TREE_DICT };

struct hcb_tree {
	enum hcb_tree_kind kind;
	char *key;                   /* dict entries: the key, else NULL */
	unsigned int leaf;           /* HCB_TREE_LEAF: leaf index */
	unsigned int nchildren;
	struct hcb_tree *children;   /* array of nchildren */
};

#define HCB_TREE_MAX_DEPTH 64

/* Check s[0..len) and count its leaves; no allocation.  -EINVAL if malformed. */
int hcb_tree_validate(const char *s, size_t len, unsigned int *nleaves);
/* Parse into a tree (free with hcb_tree_free). -EINVAL, -ENOMEM. */
int hcb_tree_parse(const char *s, size_t len, struct hcb_tree **out, unsigned int *nleaves);
void hcb_tree_free(struct hcb_tree *t);

#endif
