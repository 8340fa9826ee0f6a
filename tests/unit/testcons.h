/* SPDX-License-Identifier: MIT */
/*
 * testcons.h - a consumer for the unit tests, made as a program's would be:
 * its registration built from spec and parsed back (both must succeed).
 * Include after cmocka.h.  The caller frees it (hcb_consumer_free).
 */
#ifndef HCB_TESTCONS_H
#define HCB_TESTCONS_H

#include <stdlib.h>

#include "core/consumer.h"

static inline struct hcb_consumer *test_consumer(const struct hcb_consumer_spec *spec, uint32_t id)
{
	struct hcb_consumer *c = NULL;
	void *blob = NULL;
	size_t len = 0;

	assert_int_equal(hcb_reg_build(spec, id, &blob, &len), 0);
	assert_int_equal(hcb_consumer_from_reg(blob, len, &c), 0);
	free(blob);
	return c;
}

/* One leaf of dtype and up to two dims, its kwargs {"what": what}, tree "*". */
static inline struct hcb_consumer *test_leaf_consumer(const char *name, uint32_t id, const char *what,
						      unsigned int dtype, unsigned int ndim,
						      uint64_t d0, uint64_t d1)
{
	const char *kwargs[] = { "what", what, NULL };
	const struct hcb_leaf_spec leaf = { dtype, ndim, { d0, d1 } };
	struct hcb_consumer_spec s = { .name = name, .kwargs = kwargs, .tree = "*", .nleaves = 1,
				       .leaves = &leaf };

	return test_consumer(&s, id);
}

#endif
