/* SPDX-License-Identifier: MIT */
/*
 * print_opts.h - numpy.set_printoptions equivalents: id_print's text, and a
 * jax.debug.print's as its site's options say (read by the jax-callback
 * provider, used by formats/text/pyformat.h): here, below both.
 */
#ifndef HCB_CORE_PRINT_OPTS_H
#define HCB_CORE_PRINT_OPTS_H

#include <stdint.h>

struct hcb_print_opts {
	uint64_t threshold;  /* summarize when size > threshold; id_print: 1024 */
	int precision;       /* 8 */
	int linewidth;       /* 75 */
	int edgeitems;       /* 3 */
	int suppress;        /* 0 */
	/* when floats go scientific for their size: 0, at 1e8 (numpy
	 * before 2.3, id_print's); 1, at 10**min(8, finfo(dtype).precision),
	 * 1e3 for float16, 1e6 for float32 (numpy 2.5.5 does, 2.2.6 not) */
	int exp_cutoff_by_type;
};

#define HCB_PRINT_OPTS_IDPRINT { 1024, 8, 75, 3, 0, 0 }

/* A view of one array: row-major, little endian, elements packed. */
struct hcb_array {
	unsigned int dtype;        /* enum hcb_dtype */
	unsigned int ndim;
	const uint64_t *dims;
	const void *data;
};

#endif
