/* SPDX-License-Identifier: MIT */
/*
 * jsonl_num.h - the numbers of JSONL recordings' "data", fast: floats
 * written as their shortest text (dragonbox's digits in the layout
 * formats/jsonl.c's Dragon4 path gives them), numbers read with fast_float
 * and integers digit by digit.  Each gives what the slower general path in
 * jsonl.c / jsonl_tap.c gives, byte for byte and bit for bit.
 */
#ifndef HCB_JSONL_NUM_H
#define HCB_JSONL_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* The longest float32 or float64 element text, "-1.2345678901234567e-308",
 * and the room its writer needs (it copies fixed-size blocks). */
#define HCB_JSON_REAL_LEN 24
#define HCB_JSON_REAL_MAX 64

/*
 * The text of a float32 or float64 element at p into text (room for
 * HCB_JSON_REAL_MAX bytes, no NUL): the shortest digits that read back to
 * it, laid out as Python's repr; "nan", "inf", "-inf" as JSON strings.
 * Returns its length.
 */
size_t hcb_json_real_text(char *text, unsigned int dtype, const void *p);

/*
 * n elements of dtype at data, comma separated, appended to out as
 * hcb_json_element would write them one by one.  Only float32 and
 * float64: -EINVAL for any other dtype (nothing appended); -ENOMEM.
 */
int hcb_json_reals(struct hcb_buf *out, unsigned int dtype, const void *data, uint64_t n);

/* The Dragon4 path of jsonl.c (any float dtype): the reference the fast
 * one is tested against. */
int hcb_json_real_d4(struct hcb_buf *out, unsigned int dtype, const void *p);

/*
 * The JSON number text[0..len) as an element of dtype (a float dtype, or
 * an integer one for a plain integer in range) stored at p: 0; -EINVAL
 * when it is not that simple or dtype takes no number (bool, complex), for
 * the caller's general path to decide (and word any error).  Floats round
 * as strtod (float64, and the 16 and 8-bit floats, rounded from the double
 * as before) and strtof (float32) do.
 */
int hcb_json_number(const char *text, size_t len, unsigned int dtype, void *p);

/* A float element's string, "nan", "inf" or "-inf", as *v: true; any
 * other string: false. */
bool hcb_json_nonfinite(const char *s, double *v);

struct jdoc;
/*
 * The elements of a float32 or float64 JSON array, as element by element
 * reading stores them, from node *node on: numbers, "nan", "inf", "-inf".
 * Stops before the first other node (and after n): returns how many were
 * stored at out, *node left at the next one, for the general path to take
 * from there (and word what is wrong).  Any other dtype: 0.
 */
uint64_t hcb_json_reals_read(const struct jdoc *d, uint32_t *node, unsigned int dtype, void *out,
			     uint64_t n);

#endif
