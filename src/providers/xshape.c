/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/buf.h"
#include "core/dtype.h"
#include "xshape.h"

void hcb_xshape_specs(const struct hcb_xshape *shapes, unsigned int n, struct hcb_leaf_spec *out)
{
	for (unsigned int i = 0; i < n; i++) {
		out[i].dtype = shapes[i].dtype;
		out[i].ndim = shapes[i].ndim;
		memcpy(out[i].dims, shapes[i].dims, sizeof(out[i].dims));
	}
}

int hcb_xshape_unpack(const struct hcb_xshape *shapes, unsigned int n, struct hcb_buf *payload)
{
	const unsigned char *in = (const unsigned char *)payload->data;
	struct hcb_buf out = HCB_BUF_INIT;
	bool packed = false;
	uint64_t elems;

	for (unsigned int k = 0; k < n; k++)
		packed |= hcb_dtype_bits(shapes[k].dtype) < 8;
	if (!packed)
		return 0;
	for (unsigned int k = 0; k < n; k++) {
		const struct hcb_xshape *s = &shapes[k];

		/* an empty operand has no bytes either side (and the buffers
		 * may have no memory yet to point into) */
		if (!s->nbytes)
			continue;
		if (hcb_buf_reserve(&out, s->nbytes)) {
			hcb_buf_free(&out);
			return -ENOMEM;
		}
		hcb_shape_elems(s->ndim, s->dims, &elems);
		if (hcb_dtype_bits(s->dtype) < 8)
			hcb_unpack_subbyte(s->dtype, (unsigned char *)out.data + out.len, in, elems);
		else
			memcpy(out.data + out.len, in, s->nbytes);
		out.len += s->nbytes;
		in += hcb_packed_bytes(s->dtype, elems);
	}
	hcb_buf_free(payload);
	*payload = out;
	return 0;
}
