/* SPDX-License-Identifier: MIT */
/*
 * ffi.c - finding jaxlib in a target (through target/target.h: /proc and
 * the library's ELF symbols).  Where XLA keeps what the provider reads is
 * layout.c's, how that is proven check.c's; the decoder of its records,
 * libc only, decode.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/openfile.h"
#include "process/target.h"
#include "ffi.h"
#include "layout.h"

/* jaxlib >= 0.6's native runtime: .../jaxlib/libjax_common.so */
int hcb_jaxffi_is_library(const char *path)
{
	size_t n = strlen(path);

	return n >= 24 && strcmp(path + n - 24, "/jaxlib/libjax_common.so") == 0;
}

/* xla::ffi::XLA_FFI_INTERNAL_DeviceOrdinal_Get(XLA_FFI_ExecutionContext *), static */
#define DEVICE_ORDINAL_GET "_ZN3xla3ffiL34XLA_FFI_INTERNAL_DeviceOrdinal_GetEP24XLA_FFI_ExecutionContext"

int hcb_jaxffi_code_ordinal(const char *path, uint64_t off)
{
	static const unsigned char endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char frame[] = { 0x55, 0x48, 0x89, 0xe5 };
	unsigned char code[16];
	bool framed = false;
	size_t i = 0;
	int fd = hcb_open_regular(path), disp;
	ssize_t n = fd < 0 ? -1 : pread(fd, code, sizeof(code), (off_t)off);

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(code))
		return -1;
	if (!memcmp(code, endbr, sizeof(endbr)))
		i += sizeof(endbr);
	if (!memcmp(code + i, frame, sizeof(frame))) {
		i += sizeof(frame);
		framed = true;
	}
	/* mov disp8(%rdi),%eax */
	if (code[i] != 0x8b || code[i + 1] != 0x47 || code[i + 2] >= 0x80)
		return -1;
	disp = code[i + 2];
	i += 3;
	if (framed && code[i++] != 0x5d)
		return -1;
	return code[i] == 0xc3 ? disp : -1;
}

/* The handler's inner function, which calls the Python callable: a local
 * symbol, xla:: in jaxlib 0.6, jax:: from 0.7 (pycall.bpf.c). */
#define INNER_06 "_ZN3xla23XlaFfiPythonCpuCallbackEPNS_22FfiLoadedHostCallbacksEPNS_21" \
	"CpuTransposePlanCacheEmNS_3ffi13RemainingArgsENS4_13RemainingRetsE"
#define INNER_07 "_ZN3jax23XlaFfiPythonCpuCallbackEPN3xla22FfiLoadedHostCallbacksEPNS_21" \
	"CpuTransposePlanCacheEmNS0_3ffi13RemainingArgsENS5_13RemainingRetsE"

int hcb_jaxffi_find(pid_t pid, struct hcb_jaxffi_target *t)
{
	const char *names[6];
	uint64_t offs[6], base;
	int err;

	memset(t, 0, sizeof(*t));
	err = hcb_target_find_mapping(pid, hcb_jaxffi_is_library, t->lib, sizeof(t->lib), &base);
	if (err)
		return err;
	hcb_target_version_py(t->lib, t->version, sizeof(t->version));
	names[0] = hcb_jaxffi_layout()->thunk_execute;
	names[1] = hcb_jaxffi_layout()->handler;
	names[2] = hcb_jaxffi_layout()->buffer_handler;
	names[3] = DEVICE_ORDINAL_GET;
	names[4] = INNER_07;
	names[5] = INNER_06;
	err = hcb_target_elf_funcs(t->lib, names, 6, offs);
	if (err)
		return err;
	/* buffer_callback's handler is optional, the other two are not */
	if (!offs[0] || !offs[1])
		return -ENOEXEC;
	t->thunk_off = offs[0];
	t->handler_off = offs[1];
	t->buffer_off = offs[2];
	t->inner_off = offs[4] ? offs[4] : offs[5];
	t->ctx_device_off = offs[3] ? hcb_jaxffi_code_ordinal(t->lib, offs[3]) : -1;
	return 0;
}
