/* SPDX-License-Identifier: MIT */
/*
 * shapeproto.h - decode a serialized xla.ShapeProto (xla/xla_data.proto),
 * the shape XLA's CPU runtime hands its outfeed entry points with each
 * leaf.  Outside input: every length and count is checked, nothing is
 * trusted, unknown fields are skipped as protobuf says.
 *
 *   message ShapeProto  { PrimitiveType element_type = 2;
 *                         repeated int64 dimensions = 3;
 *                         repeated ShapeProto tuple_shapes = 4;
 *                         LayoutProto layout = 5; ... }
 *   message LayoutProto { repeated int64 minor_to_major = 1; ... }
 */
#ifndef HCB_SHAPEPROTO_H
#define HCB_SHAPEPROTO_H

#include <stddef.h>

#include "providers/xshape.h"

/*
 * Decode an array ShapeProto into *out.  Errors:
 *   -EBADMSG   not a well-formed ShapeProto (truncated, bad varint, too deep)
 *   -ENOTSUP   a well-formed shape hcbtrace cannot show: a tuple, a token,
 *              an element type without a numpy name, more than HCB_MAX_DIMS
 *              dimensions, or a layout other than row-major
 *   -E2BIG     more elements than fit in 2^62 bytes
 * msg (may be NULL) gets a one-line reason.
 */
int hcb_shapeproto_decode(const void *buf, size_t len, struct hcb_xshape *out, char *msg,
			  size_t msg_size);

#endif
