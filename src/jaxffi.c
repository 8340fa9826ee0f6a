/* SPDX-License-Identifier: MIT */
/*
 * jaxffi.c - the jaxlib versions the jaxffi provider knows, and finding
 * jaxlib in a target (through target.c: /proc and the library's ELF
 * symbols).  The decoder of its records, libc only, is jaxffi_decode.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jaxffi.h"
#include "target.h"

/* xla::cpu::CustomCallThunk::Execute(const Thunk::ExecuteParams &) */
#define THUNK_EXECUTE "_ZN3xla3cpu15CustomCallThunk7ExecuteERKNS0_5Thunk13ExecuteParamsE"

/*
 * How each entry was checked, per version (disassembly of that jaxlib's
 * libjax_common.so, and bpftrace on a running program):
 *   - Execute returns tsl::AsyncValueRef by value, so `this` is its second
 *     argument (the disassembly moves %rsi, not %rdi, into the thunk's
 *     register; its VLOG reads target_name_ at %rsi + target_off);
 *   - Thunk::Info {op_name, module_name} follows the vtable pointer and the
 *     kind: strings at 16 and 48, read as "debug_print.1" and "jit_step"
 *     from a running program; target_name_ read as
 *     "xla_ffi_python_cpu_callback" there (0.6.2 has one more word in Thunk);
 *   - CallTypedFFI tests ExecuteParams + 48 (custom_call_params) for NULL,
 *     then copies its {RunId run_id; int32 device_ordinal} (ordinal at 8)
 *     into the execution context it hands the handler;
 *   - XLA_FFI_ExecutionContext {RunId run_id; int32 device_ordinal; ...}:
 *     ordinal at 8, read as 1 for a computation put on device 1 and as 0..3
 *     under pmap over 4 devices, equal to the execute parameters' ordinal.
 */
static const struct hcb_jaxffi_layout layouts[] = {
	{
		.jaxlib = "0.6.2", .thunk_execute = THUNK_EXECUTE,
		.handler = "kXlaFfiPythonCpuCallback",
		.buffer_handler = "kXlaBufferPythonCpuCallback",
		.thunk_arg = 1, .op_off = 16, .module_off = 48, .target_off = 96,
		.params_ccp_off = 48, .ccp_device_off = 8, .ctx_device_off = 8,
	},
	{
		.jaxlib = "0.10.2", .thunk_execute = THUNK_EXECUTE,
		.handler = "kXlaFfiPythonCpuCallback",
		.buffer_handler = "kXlaBufferPythonCpuCallback",
		.thunk_arg = 1, .op_off = 16, .module_off = 48, .target_off = 88,
		.params_ccp_off = 48, .ccp_device_off = 8, .ctx_device_off = 8,
	},
	{
		.jaxlib = "0.12.0.1", .thunk_execute = THUNK_EXECUTE,
		.handler = "kXlaFfiPythonCpuCallback",
		.buffer_handler = "kXlaBufferPythonCpuCallback",
		.thunk_arg = 1, .op_off = 16, .module_off = 48, .target_off = 88,
		.params_ccp_off = 48, .ccp_device_off = 8, .ctx_device_off = 8,
	},
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

const struct hcb_jaxffi_layout *hcb_jaxffi_layout_for(const char *jaxlib_version)
{
	for (size_t i = 0; jaxlib_version && i < NLAYOUTS; i++)
		if (strcmp(layouts[i].jaxlib, jaxlib_version) == 0)
			return &layouts[i];
	return NULL;
}

const char *hcb_jaxffi_supported(void)
{
	static char list[128];

	if (!list[0]) {
		size_t n = 0;

		for (size_t i = 0; i < NLAYOUTS && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      layouts[i].jaxlib);
	}
	return list;
}

/* jaxlib >= 0.6's native runtime: .../jaxlib/libjax_common.so */
int hcb_jaxffi_is_library(const char *path)
{
	size_t n = strlen(path);

	return n >= 24 && strcmp(path + n - 24, "/jaxlib/libjax_common.so") == 0;
}

int hcb_jaxffi_find(pid_t pid, struct hcb_jaxffi_target *t)
{
	const char *names[3];
	uint64_t offs[3], base;
	int err;

	memset(t, 0, sizeof(*t));
	err = hcb_target_find_mapping(pid, hcb_jaxffi_is_library, t->lib, sizeof(t->lib), &base);
	if (err)
		return err;
	hcb_target_version_py(t->lib, t->version, sizeof(t->version));
	t->layout = hcb_jaxffi_layout_for(t->version);
	if (!t->layout)
		return -ENOTSUP;
	names[0] = t->layout->thunk_execute;
	names[1] = t->layout->handler;
	names[2] = t->layout->buffer_handler;
	err = hcb_target_elf_funcs(t->lib, names, 3, offs);
	if (err)
		return err;
	/* buffer_callback's handler is optional, the other two are not */
	if (!offs[0] || !offs[1])
		return -ENOEXEC;
	t->thunk_off = offs[0];
	t->handler_off = offs[1];
	t->buffer_off = offs[2];
	return 0;
}
