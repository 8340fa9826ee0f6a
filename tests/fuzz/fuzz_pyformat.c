/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: jax.debug.print's formatter (formats/text/pyformat.h)
 * with a target's fmt, print options and leaves.  The input: a header
 * (leaf count, options), each leaf's dtype, rank and dims, the fmt's
 * length and bytes, then the elements' bytes (cycled to fill every leaf).
 * Whatever it is given: a line within its bound or a refusal, never a
 * crash or an overrun.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "text/pyformat.h"

#define MAX_LEAVES 4
#define MAX_ELEMS 64u

/* Byte *i of data, 0 past its end. */
static uint8_t take(const uint8_t *data, size_t size, size_t *i)
{
	return *i < size ? data[(*i)++] : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcb_print_opts o;
	struct hcb_array leaves[MAX_LEAVES];
	uint64_t dims[MAX_LEAVES][3];
	void *bytes[MAX_LEAVES] = { NULL };
	struct hcb_buf out = HCB_BUF_INIT;
	unsigned int n;
	size_t i = 0, fmt_len;
	const char *fmt;
	int err;

	n = take(data, size, &i) % (MAX_LEAVES + 1);
	o.threshold = take(data, size, &i);
	o.precision = take(data, size, &i) % 24;
	o.linewidth = take(data, size, &i);
	o.edgeitems = take(data, size, &i) % 6;
	o.suppress = take(data, size, &i) & 1;
	o.exp_cutoff_by_type = (int)(take(data, size, &i) % 3) - 1;
	for (unsigned int k = 0; k < n; k++) {
		leaves[k].dtype = take(data, size, &i) % HCB_DT__COUNT;
		leaves[k].ndim = take(data, size, &i) % 4;
		for (unsigned int d = 0; d < 3; d++)
			dims[k][d] = take(data, size, &i) % 5;
		leaves[k].dims = dims[k];
	}
	fmt_len = take(data, size, &i);
	fmt_len = fmt_len < size - i ? fmt_len : size - i;
	fmt = (const char *)data + i;
	i += fmt_len;
	for (unsigned int k = 0; k < n; k++) {
		size_t esize = hcb_dtype_size(leaves[k].dtype) ?: 1;
		size_t len = MAX_ELEMS * esize;
		uint8_t *b = malloc(len);

		if (!b)
			goto out;
		for (size_t j = 0; j < len; j++)
			b[j] = i < size ? data[i + j % (size - i)] : (uint8_t)j;
		bytes[k] = b;
		leaves[k].data = b;
	}
	err = hcb_pyformat(&out, fmt, fmt_len, &o, leaves, n);
	assert(err == 0 || err == -ENOTSUP || err == -E2BIG || err == -ENOMEM);
	assert(err || out.len <= HCB_PYFMT_MAX_LINE);
out:
	for (unsigned int k = 0; k < n; k++)
		free(bytes[k]);
	hcb_buf_free(&out);
	return 0;
}
