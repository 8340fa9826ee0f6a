/* SPDX-License-Identifier: MIT */
/*
 * diff_isclose.h - numpy's isclose rule over a pair of leaves
 * (diff_isclose.c), for the diff engine (diff.c), of whose module it is
 * part.  The rule itself is worded in diff.h, which also exports it for
 * one pair of elements (hcb_isclose).
 */
#ifndef HCB_ISCLOSE_H
#define HCB_ISCLOSE_H

#include "core/consumer.h"
#include "diff.h"

/*
 * Compare the leaves ref and new, both of shape l (the same dtype and
 * dims), with o's tolerances: 0 if every element is close.  Else 1, with
 * out's statistics filled in (mismatched, max_abs, max_rel, diff_dtype)
 * and its first o->max_examples mismatches written to ex[] (out->examples
 * points there); out's other fields are the caller's.
 */
int hcb_isclose_leaf(const struct hcb_leaf_shape *l, const unsigned char *ref,
		     const unsigned char *new, const struct hcb_diff_opts *o,
		     struct hcb_diff_leaf *out, struct hcb_diff_example *ex);

#endif
