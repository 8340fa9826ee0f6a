/* SPDX-License-Identifier: MIT */
/*
 * xshape.h - XLA's array shapes as a tap holds them, for the providers
 * that read XLA's buffers (jaxcb/, outfeed/): the leaf specs of a
 * consumer made up from them, and the sub-byte element types, which XLA
 * keeps packed and a tap holds one element a byte.
 */
#ifndef HCB_XSHAPE_H
#define HCB_XSHAPE_H

#include <stdint.h>

#include "core/consumer.h"
#include "core/wire.h"

/* One array shape, as hcbtrace can print it. */
struct hcb_xshape {
	unsigned int dtype;          /* enum hcb_dtype */
	unsigned int ndim;
	uint64_t dims[HCB_MAX_DIMS];
	uint64_t nbytes;             /* of the elements, packed */
};

/* The leaf specs (core/consumer.h) of n shapes, for a made-up consumer. */
void hcb_xshape_specs(const struct hcb_xshape *shapes, unsigned int n, struct hcb_leaf_spec *out);

/*
 * payload: the n arrays of shapes back to back as XLA's CPU runtime holds
 * them, the sub-byte ones packed (core/dtype.h: hcb_packed_bytes), made
 * the arrays as a tap holds them, one element a byte (nbytes each).
 * Unchanged if none is sub-byte.  0, or -ENOMEM (payload unchanged).
 */
struct hcb_buf;
int hcb_xshape_unpack(const struct hcb_xshape *shapes, unsigned int n, struct hcb_buf *payload);

#endif
