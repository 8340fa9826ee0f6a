/* SPDX-License-Identifier: MIT */
/*
 * ffi_abi.h - the part of XLA's C FFI API (xla/ffi/api/c_api.h, shipped
 * in every jaxlib wheel: jax.ffi.include_dir()) that the jax-callback
 * provider reads from a target: the call frame an FFI handler gets, its
 * operand buffers and its attributes.
 *
 * That header is C++-compatible C but cannot be included in BPF code or in
 * a build that has no jaxlib at hand, so the few structures needed are
 * written out here field for field, with fixed width types.  The C API is
 * versioned and only ever appended to (each struct carries struct_size), so
 * these offsets hold across jaxlib versions; tests/tools/jaxffi_abi_check.c
 * checks every one against the real header of an installed jaxlib.
 */
#ifndef HCB_JAXFFI_ABI_H
#define HCB_JAXFFI_ABI_H

#include "core/wire.h"

/* XLA_FFI_DataType (= xla::PrimitiveType), the values the provider names */
enum jaxffi_xla_dtype {
	JAXFFI_XLA_INVALID = 0,
	JAXFFI_XLA_PRED = 1,
	JAXFFI_XLA_S8 = 2,
	JAXFFI_XLA_S16 = 3,
	JAXFFI_XLA_S32 = 4,
	JAXFFI_XLA_S64 = 5,
	JAXFFI_XLA_U8 = 6,
	JAXFFI_XLA_U16 = 7,
	JAXFFI_XLA_U32 = 8,
	JAXFFI_XLA_U64 = 9,
	JAXFFI_XLA_F16 = 10,
	JAXFFI_XLA_F32 = 11,
	JAXFFI_XLA_F64 = 12,
	JAXFFI_XLA_C64 = 15,
	JAXFFI_XLA_BF16 = 16,
	JAXFFI_XLA_TOKEN = 17,
	JAXFFI_XLA_C128 = 18,
	JAXFFI_XLA_F8E5M2 = 19,
	JAXFFI_XLA_F8E4M3FN = 20,
	JAXFFI_XLA_S4 = 21,
	JAXFFI_XLA_U4 = 22,
	JAXFFI_XLA_F8E4M3B11FNUZ = 23,
	JAXFFI_XLA_F8E5M2FNUZ = 24,
	JAXFFI_XLA_F8E4M3FNUZ = 25,
	JAXFFI_XLA_S2 = 26,
	JAXFFI_XLA_U2 = 27,
	JAXFFI_XLA_F8E4M3 = 28,
	JAXFFI_XLA_F8E3M4 = 29,
	JAXFFI_XLA_S1 = 30,
	JAXFFI_XLA_U1 = 31,
	JAXFFI_XLA_F4E2M1FN = 32,
	JAXFFI_XLA_F8E8M0FNU = 33,
	JAXFFI_XLA_NDTYPES
};

#define JAXFFI_XLA_ARG_BUFFER 1u      /* XLA_FFI_ArgType_BUFFER */
#define JAXFFI_XLA_ATTR_SCALAR 3u     /* XLA_FFI_AttrType_SCALAR */
#define JAXFFI_XLA_STAGE_EXECUTE 3u   /* XLA_FFI_ExecutionStage_EXECUTE */

/* XLA_FFI_Args and XLA_FFI_Rets */
struct jaxffi_xla_args {
	HCB_WIRE_U64 struct_size;
	HCB_WIRE_U64 extension_start;
	HCB_WIRE_U64 size;          /* int64_t */
	HCB_WIRE_U64 types;         /* XLA_FFI_ArgType[size] (a C enum: 4 bytes each) */
	HCB_WIRE_U64 args;          /* void *[size]: XLA_FFI_Buffer * for buffers */
};

/* XLA_FFI_Attrs: sorted by name */
struct jaxffi_xla_attrs {
	HCB_WIRE_U64 struct_size;
	HCB_WIRE_U64 extension_start;
	HCB_WIRE_U64 size;          /* int64_t */
	HCB_WIRE_U64 types;         /* XLA_FFI_AttrType[size] */
	HCB_WIRE_U64 names;         /* XLA_FFI_ByteSpan *[size] */
	HCB_WIRE_U64 attrs;         /* void *[size]: XLA_FFI_Scalar * for scalars */
};

/* XLA_FFI_CallFrame up to its attrs: XLA_FFI_CallFrame_STRUCT_SIZE bytes */
struct jaxffi_xla_frame {
	HCB_WIRE_U64 struct_size;
	HCB_WIRE_U64 extension_start;
	HCB_WIRE_U64 api;
	HCB_WIRE_U64 ctx;           /* XLA_FFI_ExecutionContext *: NULL in metadata queries */
	HCB_WIRE_U32 stage;         /* XLA_FFI_ExecutionStage */
	HCB_WIRE_U32 pad;
	struct jaxffi_xla_args args;
	struct jaxffi_xla_args rets;
	struct jaxffi_xla_attrs attrs;
};

/* XLA_FFI_Buffer */
struct jaxffi_xla_buffer {
	HCB_WIRE_U64 struct_size;
	HCB_WIRE_U64 extension_start;
	HCB_WIRE_U32 dtype;         /* XLA_FFI_DataType */
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 data;
	HCB_WIRE_U64 rank;          /* int64_t */
	HCB_WIRE_U64 dims;          /* int64_t[rank] */
};

/* XLA_FFI_ByteSpan */
struct jaxffi_xla_bytespan {
	HCB_WIRE_U64 ptr;
	HCB_WIRE_U64 len;
};

/* XLA_FFI_Scalar */
struct jaxffi_xla_scalar {
	HCB_WIRE_U32 dtype;
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 value;         /* points at the value */
};

/* libstdc++'s std::string (jaxlib's C++ runtime): pointer, then length */
struct jaxffi_std_string {
	HCB_WIRE_U64 ptr;
	HCB_WIRE_U64 len;
};

#endif
