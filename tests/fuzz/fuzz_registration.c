/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a registration blob as read from a target's memory.
 * Whatever it accepts must be self-consistent and printable.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/consumer.h"
#include "core/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcb_consumer *c;
	struct hcb_tree *tree;
	unsigned int nleaves;
	uint64_t sum = 0;

	if (hcb_consumer_from_reg(data, size, &c))
		return 0;
	for (unsigned int i = 0; i < c->nleaves; i++)
		sum += c->leaves[i].nbytes;
	assert(sum == c->total_bytes);
	assert(c->id != 0 && c->name[0]);
	assert(hcb_tree_parse(c->tree, strlen(c->tree), &tree, &nleaves) == 0);
	assert(nleaves == c->nleaves);
	hcb_tree_free(tree);
	hcb_consumer_free(c);
	return 0;
}
