/* SPDX-License-Identifier: MIT */
/* libFuzzer target: pytree structure strings; validate and parse must agree. */
#include <assert.h>
#include <stdint.h>

#include "core/tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int n1 = 0, n2 = 0;
	struct hcb_tree *t = NULL;
	int a = hcb_tree_validate((const char *)data, size, &n1);
	int b = hcb_tree_parse((const char *)data, size, &t, &n2);

	assert((a == 0) == (b == 0));
	assert(a || n1 == n2);
	hcb_tree_free(t);
	return 0;
}
