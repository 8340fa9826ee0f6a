/* SPDX-License-Identifier: MIT */
/*
 * layout.c - where XLA keeps what the jax-callback provider reads
 * (layout.h), as read from each release's code; check.c proves it on the
 * running process.
 */
#include <stddef.h>
#include <string.h>

#include "core/dtype.h"
#include "ffi_abi.h"
#include "layout.h"

/* xla::cpu::CustomCallThunk::Execute(const Thunk::ExecuteParams &) */
#define THUNK_EXECUTE "_ZN3xla3cpu15CustomCallThunk7ExecuteERKNS0_5Thunk13ExecuteParamsE"

/*
 * Read from the code of every jaxlib release from 0.6.0 to 0.12.0.1
 * (disassembly of libjax_common.so) and from running programs (bpftrace),
 * the same in all of them but where the target name is:
 *   - Execute returns tsl::AsyncValueRef by value, so `this` is its second
 *     argument (%rdi is the returned value's slot; the VLOG reads
 *     target_name_ at %rsi + its offset);
 *   - Thunk::Info {op_name, module_name} follows the vtable pointer and the
 *     kind: strings at 16 and 48 ("debug_print.1", "jit_step");
 *   - target_name_, CustomCallThunk's first field, follows the Thunk base:
 *     at 96 up to 0.7.0, whose Thunk had one more word, and at 88 from
 *     0.7.1 on; a word either side is read too, for the releases to come;
 *   - CallTypedFFI tests ExecuteParams + 48 (custom_call_params) for NULL,
 *     then copies its {RunId run_id; int32 device_ordinal} (ordinal at 8)
 *     into the execution context it hands the handler;
 *   - XLA_FFI_ExecutionContext {RunId run_id; int32 device_ordinal; ...}:
 *     ordinal at 8 (XLA_FFI_INTERNAL_DeviceOrdinal_Get reads it there).
 *
 * The legacy callbacks (jaxlib 0.4.26 to 0.5.3, legacy.h), read from
 * the code of each of those 14 releases (xla_extension.so: the copy
 * constructor of CpuCallback::Arg, the destructors of its vectors,
 * PrepareAndCall, CustomCallThunk::Execute) and checked on programs of
 * 0.4.26, 0.4.31 and 0.5.3, the same in all of them:
 *   - xla::CpuCallback {PyObject *callable_; std::vector<Arg> args_;
 *     std::vector<Result> results_; ...}: vectors at 8 and 32, Result 120
 *     bytes (the probe's constants);
 *   - Arg, 88 bytes: {PrimitiveType type; PyArray_Descr *dtype;
 *     absl::InlinedVector<int64_t, 4> dims (at 16: size << 1 | allocated,
 *     then 4 inline or {data, capacity}); std::vector<int64_t> strides (at
 *     56, bytes); size_t size_in_bytes (at 80)};
 *   - the thunk as above, target_name_ at 88 (0.4.31) or 96, its
 *     backend_config 144 bytes after it; ExecuteParams + 40 is the
 *     collective parameters, whose local device ordinal is at 8;
 *   - the custom call parameters keep the device ordinal first up to 0.5.0
 *     and after the run id from 0.5.1, as XLA_FFI_INTERNAL_DeviceOrdinal_Get
 *     reads it (its code gives the offset, ffi.c); the run options' is
 *     where ExecutableRunOptions::device_ordinal reads it (8).
 * None of it is trusted for a version's sake: hcb_jaxffi_check_site (check.c)
 * proves it on the running process.
 */
static const struct hcb_jaxffi_layout layout = {
	.thunk_execute = THUNK_EXECUTE,
	.handler = "kXlaFfiPythonCpuCallback",
	.buffer_handler = "kXlaBufferPythonCpuCallback",
	.thunk_arg = 1, .op_off = 16, .module_off = 48, .target_offs = { 88, 96, 80, 104 },
	.params_ccp_off = 48, .ccp_device_off = 8, .ctx_device_off = 8,
	.params_coll_off = 40, .coll_device_off = 8, .run_device_off = 8, .legacy_arg_size = 88,
};

const struct hcb_jaxffi_layout *hcb_jaxffi_layout(void)
{
	return &layout;
}

const char *hcb_jaxffi_supported(void)
{
	return "0.4.26 and later, each proven on the running process by its first callback call";
}

int hcb_jaxffi_is_callback_target(const char *target)
{
	static const char *const targets[] = {
		"xla_ffi_python_cpu_callback",               /* most of them */
		"xla_ffi_partitioned_python_cpu_callback",   /* partitioned=True */
		"xla_buffer_python_cpu_callback",            /* buffer_callback */
		"xla_python_cpu_callback",                   /* jaxlib < 0.6 (legacy.h) */
	};

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (strcmp(target, targets[i]) == 0)
			return 1;
	return 0;
}

unsigned int hcb_jaxffi_dtype(uint32_t xla_dtype)
{
	static const unsigned char map[JAXFFI_XLA_NDTYPES] = {
		[JAXFFI_XLA_PRED] = HCB_DT_BOOL,
		[JAXFFI_XLA_S8] = HCB_DT_INT8,
		[JAXFFI_XLA_S16] = HCB_DT_INT16,
		[JAXFFI_XLA_S32] = HCB_DT_INT32,
		[JAXFFI_XLA_S64] = HCB_DT_INT64,
		[JAXFFI_XLA_U8] = HCB_DT_UINT8,
		[JAXFFI_XLA_U16] = HCB_DT_UINT16,
		[JAXFFI_XLA_U32] = HCB_DT_UINT32,
		[JAXFFI_XLA_U64] = HCB_DT_UINT64,
		[JAXFFI_XLA_F16] = HCB_DT_FLOAT16,
		[JAXFFI_XLA_BF16] = HCB_DT_BFLOAT16,
		[JAXFFI_XLA_F32] = HCB_DT_FLOAT32,
		[JAXFFI_XLA_F64] = HCB_DT_FLOAT64,
		[JAXFFI_XLA_C64] = HCB_DT_COMPLEX64,
		[JAXFFI_XLA_C128] = HCB_DT_COMPLEX128,
		[JAXFFI_XLA_F8E4M3FN] = HCB_DT_FLOAT8_E4M3FN,
		[JAXFFI_XLA_F8E5M2] = HCB_DT_FLOAT8_E5M2,
		[JAXFFI_XLA_F8E3M4] = HCB_DT_FLOAT8_E3M4,
		[JAXFFI_XLA_F8E4M3] = HCB_DT_FLOAT8_E4M3,
		[JAXFFI_XLA_F8E4M3FNUZ] = HCB_DT_FLOAT8_E4M3FNUZ,
		[JAXFFI_XLA_F8E4M3B11FNUZ] = HCB_DT_FLOAT8_E4M3B11FNUZ,
		[JAXFFI_XLA_F8E5M2FNUZ] = HCB_DT_FLOAT8_E5M2FNUZ,
		[JAXFFI_XLA_F8E8M0FNU] = HCB_DT_FLOAT8_E8M0FNU,
		[JAXFFI_XLA_F4E2M1FN] = HCB_DT_FLOAT4_E2M1FN,
		[JAXFFI_XLA_S2] = HCB_DT_INT2,
		[JAXFFI_XLA_S4] = HCB_DT_INT4,
		[JAXFFI_XLA_U2] = HCB_DT_UINT2,
		[JAXFFI_XLA_U4] = HCB_DT_UINT4,
	};

	return xla_dtype < JAXFFI_XLA_NDTYPES ? map[xla_dtype] : HCB_DT_INVALID;
}
