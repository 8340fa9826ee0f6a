/* SPDX-License-Identifier: MIT */
/* dtype.h - element types: numpy names, sizes, and decoding of raw elements. */
#ifndef HCB_DTYPE_H
#define HCB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* numpy's name ("float32"; ml_dtypes' for the types numpy lacks), or NULL
 * for an unknown value. */
const char *hcb_dtype_name(unsigned int dtype);
/* Bytes per element, 0 for an unknown value. */
size_t hcb_dtype_size(unsigned int dtype);
/*
 * Bits of an element's value: 2 (int2, uint2), 4 (int4, uint4,
 * float4_e2m1fn), else 8 x its size; 0 for an unknown value.  A sub-byte
 * element still takes a byte, its value in the low bits and the bits above
 * zero, as numpy holds ml_dtypes' arrays: readers look at the low bits only.
 */
unsigned int hcb_dtype_bits(unsigned int dtype);
/* The dtype called name, or HCB_DT_INVALID. */
enum hcb_dtype hcb_dtype_from_name(const char *name);

int hcb_dtype_is_float(unsigned int dtype);   /* real floating types, float8 and float4 included */
int hcb_dtype_is_complex(unsigned int dtype);
int hcb_dtype_is_signed(unsigned int dtype);  /* signed integers, int2 and int4 included */
int hcb_dtype_is_unsigned(unsigned int dtype);

/* A real float dtype's explicit mantissa bits and the exponent of its
 * smallest normal (float16: 10, -14; float8_e8m0fnu: 0, -127): what its
 * shortest digits depend on.  0, or -EINVAL for any other dtype. */
int hcb_dtype_float_format(unsigned int dtype, int *mant_bits, int *min_exp);
/* An integer dtype's range (bool: 0..1). */
void hcb_dtype_int_range(unsigned int dtype, int64_t *min, uint64_t *max);
/* Store v (in range, two's complement) as an element of integer dtype. */
void hcb_int_store(unsigned int dtype, uint64_t v, void *p);

/*
 * XLA's CPU runtime hands an FFI handler sub-byte arrays packed: element i
 * in bits (i * bits) % 8 up of byte i * bits / 8, the last byte's spare
 * bits undefined.  The bytes n elements take so (n x size for the other
 * dtypes), and the unpacking of n of them into one byte each.
 */
uint64_t hcb_packed_bytes(unsigned int dtype, uint64_t n);
void hcb_unpack_subbyte(unsigned int dtype, unsigned char *dst, const unsigned char *src,
			uint64_t n);

/* Decoding of one element (little endian, unaligned p is fine). */
double hcb_half_to_double(uint16_t h);
double hcb_bfloat16_to_double(uint16_t h);
double hcb_f8e4m3fn_to_double(uint8_t v);
double hcb_f8e5m2_to_double(uint8_t v);
/*
 * The bit pattern of the float16, bfloat16, float8 or float4 value nearest
 * to v (round half to even; overflow to inf, or NaN for float8_e4m3fn which
 * has no inf).  The float8 kinds other than e4m3fn and e5m2, and float4, go
 * as ml_dtypes converts a double: through float32, then what the type
 * cannot hold as ml_dtypes has it (overflow to inf, NaN or, float4, the
 * largest value; e8m0fnu: zero and negative values to NaN).  0 for other
 * dtypes.
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
