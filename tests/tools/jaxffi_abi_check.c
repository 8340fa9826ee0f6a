/* SPDX-License-Identifier: MIT */
/*
 * jaxffi_abi_check.c - src/providers/jaxcb/ffi_abi.h against the real XLA FFI C API
 * header of an installed jaxlib: every offset and size the jaxffi provider
 * reads from a target.  Not built by meson (it needs a jaxlib); compiling
 * it is the check:
 *
 *   cc -std=c11 -Isrc -I"$(python -c 'import jax.ffi; print(jax.ffi.include_dir())')" \
 *       -fsyntax-only tests/tools/jaxffi_abi_check.c
 *
 * Checked with jaxlib 0.6.2, 0.10.2 and 0.12.0.1.
 */
#include <assert.h>
#include <stddef.h>

#include "xla/ffi/api/c_api.h"

#include "providers/jaxcb/ffi_abi.h"

#define SAME(ours, theirs, f) \
	static_assert(offsetof(struct ours, f) == offsetof(theirs, f), #theirs "." #f)
#define SAME_AS(ours, of, theirs, tf) \
	static_assert(offsetof(struct ours, of) == offsetof(theirs, tf), #theirs "." #tf)

SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, struct_size);
SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, api);
SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, ctx);
SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, stage);
SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, args);
SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, rets);
SAME(jaxffi_xla_frame, XLA_FFI_CallFrame, attrs);
/* the frame as far as the provider reads it: what struct_size promises */
static_assert(sizeof(struct jaxffi_xla_frame) == XLA_FFI_CallFrame_STRUCT_SIZE, "frame size");

SAME(jaxffi_xla_args, XLA_FFI_Args, size);
SAME(jaxffi_xla_args, XLA_FFI_Args, types);
SAME(jaxffi_xla_args, XLA_FFI_Args, args);
static_assert(sizeof(struct jaxffi_xla_args) == sizeof(XLA_FFI_Args), "args size");
SAME_AS(jaxffi_xla_args, types, XLA_FFI_Rets, types);
SAME_AS(jaxffi_xla_args, args, XLA_FFI_Rets, rets);
static_assert(sizeof(XLA_FFI_ArgType) == 4, "an ArgType is 4 bytes");

SAME(jaxffi_xla_attrs, XLA_FFI_Attrs, size);
SAME(jaxffi_xla_attrs, XLA_FFI_Attrs, types);
SAME(jaxffi_xla_attrs, XLA_FFI_Attrs, names);
SAME(jaxffi_xla_attrs, XLA_FFI_Attrs, attrs);
static_assert(sizeof(struct jaxffi_xla_attrs) == sizeof(XLA_FFI_Attrs), "attrs size");
static_assert(sizeof(XLA_FFI_AttrType) == 4, "an AttrType is 4 bytes");

SAME(jaxffi_xla_buffer, XLA_FFI_Buffer, dtype);
SAME(jaxffi_xla_buffer, XLA_FFI_Buffer, data);
SAME(jaxffi_xla_buffer, XLA_FFI_Buffer, rank);
SAME(jaxffi_xla_buffer, XLA_FFI_Buffer, dims);
static_assert(sizeof(struct jaxffi_xla_buffer) == XLA_FFI_Buffer_STRUCT_SIZE, "buffer size");

SAME(jaxffi_xla_bytespan, XLA_FFI_ByteSpan, ptr);
SAME(jaxffi_xla_bytespan, XLA_FFI_ByteSpan, len);
SAME(jaxffi_xla_scalar, XLA_FFI_Scalar, dtype);
SAME(jaxffi_xla_scalar, XLA_FFI_Scalar, value);

static_assert(JAXFFI_XLA_ARG_BUFFER == XLA_FFI_ArgType_BUFFER, "ArgType_BUFFER");
static_assert(JAXFFI_XLA_ATTR_SCALAR == XLA_FFI_AttrType_SCALAR, "AttrType_SCALAR");
static_assert(JAXFFI_XLA_STAGE_EXECUTE == XLA_FFI_ExecutionStage_EXECUTE, "EXECUTE");

#define DT(x) static_assert(JAXFFI_XLA_##x == XLA_FFI_DataType_##x, "DataType_" #x)
DT(INVALID); DT(PRED); DT(S8); DT(S16); DT(S32); DT(S64); DT(U8); DT(U16); DT(U32); DT(U64);
DT(F16); DT(F32); DT(F64); DT(C64); DT(BF16); DT(TOKEN); DT(C128); DT(F8E5M2); DT(F8E4M3FN);
DT(S4); DT(U4); DT(F8E4M3B11FNUZ); DT(F8E5M2FNUZ); DT(F8E4M3FNUZ); DT(S2); DT(U2);
DT(F8E4M3); DT(F8E3M4); DT(S1); DT(U1); DT(F4E2M1FN); DT(F8E8M0FNU);
