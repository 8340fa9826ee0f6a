/* SPDX-License-Identifier: MIT */
/* leafpath.c - names for the leaves of a pytree (leafpath.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/tree.h"
#include "leafpath.h"

/* Name every leaf under t, whose own path is in b (restored on return). */
static int walk(const struct hcb_tree *t, struct hcb_buf *b, char **paths, unsigned int nleaves)
{
	size_t len = b->len;
	int err = 0;

	if (t->kind == HCB_TREE_LEAF) {
		if (t->leaf < nleaves && !paths[t->leaf])
			paths[t->leaf] = strdup(hcb_buf_str(b));
		return t->leaf < nleaves && !paths[t->leaf] ? -ENOMEM : 0;
	}
	for (unsigned int i = 0; i < t->nchildren && !err; i++) {
		const struct hcb_tree *c = &t->children[i];

		if (t->kind == HCB_TREE_DICT)
			err = hcb_buf_printf(b, "%s%s", len ? "." : "", c->key ? c->key : "?");
		else
			err = hcb_buf_printf(b, "[%u]", i);
		if (!err)
			err = walk(c, b, paths, nleaves);
		b->len = len;
		if (b->data)
			b->data[len] = '\0';
	}
	return err;
}

int hcb_leaf_paths(const char *tree, unsigned int nleaves, char ***out)
{
	char **paths = calloc(nleaves ? nleaves : 1, sizeof(*paths));
	struct hcb_buf b = HCB_BUF_INIT;
	struct hcb_tree *t = NULL;
	unsigned int n = 0;
	int err = 0;

	if (!paths)
		return -ENOMEM;
	if (tree && hcb_tree_parse(tree, strlen(tree), &t, &n) == 0 && n == nleaves)
		err = walk(t, &b, paths, nleaves);
	hcb_tree_free(t);
	hcb_buf_free(&b);
	/* a tree that does not match the leaves names them by number */
	for (unsigned int i = 0; i < nleaves && !err; i++) {
		char num[32];

		snprintf(num, sizeof(num), "leaf %u", i);
		if (!paths[i] && !(paths[i] = strdup(num)))
			err = -ENOMEM;
	}
	if (err) {
		hcb_leaf_paths_free(paths, nleaves);
		return err;
	}
	*out = paths;
	return 0;
}

void hcb_leaf_paths_free(char **paths, unsigned int nleaves)
{
	if (!paths)
		return;
	for (unsigned int i = 0; i < nleaves; i++)
		free(paths[i]);
	free(paths);
}
