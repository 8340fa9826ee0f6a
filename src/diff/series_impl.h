/* SPDX-License-Identifier: MIT */
/*
 * diff_series_impl.h - what diff_series.c (the streams and their series)
 * and diff_sample.c (the close-up of the first differing array) share
 * behind diff_series.h.
 */
#ifndef HCB_DIFF_SERIES_IMPL_H
#define HCB_DIFF_SERIES_IMPL_H

#include "series.h"

/* The close-up of leaf l of the pair t (same dtype and shape on both
 * sides); *out allocated, free with hcb_sample_free.  0 or -ENOMEM. */
int hcb_sample_take(const struct hcb_diff_tap *t, const struct hcb_diff_leaf *l,
		    const struct hcb_diff_opts *opts, struct hcb_sample **out);
void hcb_sample_free(struct hcb_sample *s);

#endif
