/* SPDX-License-Identifier: MIT */
/*
 * arrayprint.h - numpy.array2string in C.
 *
 * id_print shows every leaf the way numpy 1.26 prints it, so the text has to
 * be byte for byte what numpy.array2string(arr, threshold=...) returns with
 * the other print options at their defaults (floatmode 'maxprec', sign '-',
 * separator ' ', prefix '').  bfloat16, float8, float4, int2 and int4
 * arrays (and uint2, uint4) come out the way numpy prints ml_dtypes
 * scalars: through their repr, without alignment.
 */
#ifndef HCB_ARRAYPRINT_H
#define HCB_ARRAYPRINT_H

#include "core/buf.h"
#include "print_opts.h"

/*
 * Append the text of a (0-d or n-d) array to out.  No trailing newline;
 * multi-dimensional arrays contain '\n'.
 *
 * Returns 0, -ENOMEM, or -EINVAL for an unknown dtype or options numpy
 * would reject (negative precision, linewidth or edgeitems).
 * On error out may hold part of the text.
 */
int hcb_array2string(struct hcb_buf *out, const struct hcb_array *a,
		     const struct hcb_print_opts *o);

#endif
