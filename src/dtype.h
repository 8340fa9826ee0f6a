/* SPDX-License-Identifier: MIT */
/* dtype.h - element types: numpy names, sizes, and decoding of raw elements. */
#ifndef HCB_DTYPE_H
#define HCB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "hcb_wire.h"

/* numpy's name ("float32"), or NULL for an unknown value. */
const char *hcb_dtype_name(unsigned int dtype);
/* Bytes per element, 0 for an unknown value. */
size_t hcb_dtype_size(unsigned int dtype);
/* The dtype called name, or HCB_DT_INVALID. */
enum hcb_dtype hcb_dtype_from_name(const char *name);

int hcb_dtype_is_float(unsigned int dtype);   /* real floating types, float8 included */
int hcb_dtype_is_complex(unsigned int dtype);
int hcb_dtype_is_signed(unsigned int dtype);  /* signed integers */
int hcb_dtype_is_unsigned(unsigned int dtype);

/* Decoding of one element (little endian, unaligned p is fine). */
double hcb_half_to_double(uint16_t h);
double hcb_bfloat16_to_double(uint16_t h);
double hcb_f8e4m3fn_to_double(uint8_t v);
double hcb_f8e5m2_to_double(uint8_t v);
/*
 * The bit pattern of the float16, bfloat16 or float8 value nearest to v
 * (round half to even; overflow to inf, or NaN for float8_e4m3fn which has
 * no inf).  0 for other dtypes.
 */
uint32_t hcb_double_to_narrow_bits(unsigned int dtype, double v);

/* Real value of a float/int/bool element as double (complex: the real part). */
double hcb_elem_to_double(unsigned int dtype, const void *p);
/* Integer/bool element, exact. */
int64_t hcb_elem_to_i64(unsigned int dtype, const void *p);
uint64_t hcb_elem_to_u64(unsigned int dtype, const void *p);

/* Product of dims, or -EOVERFLOW past 2^62 elements.  ndim 0 gives 1. */
int hcb_shape_elems(unsigned int ndim, const uint64_t *dims, uint64_t *count);

#endif
