/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - the jax-callback provider on CUDA: where, in the jax CUDA
 * plugin's cuda_plugin_extension.so (jax-cuda12-plugin, jax-cuda13-plugin),
 * JAX's Python callbacks (custom call xla_ffi_python_gpu_callback) get their
 * operands, and the proof of it read from the file.
 *
 * The handler kXlaFfiPythonGpuCallback gets the FFI call frame the CPU
 * handler gets (ffi_abi.h), but its operands are device memory.
 * Its body, jax::cuda::XlaFfiPythonGpuCallback (jaxlib/gpu/py_client_gpu.cc),
 * copies each operand but tokens, in order, to a new host buffer with
 * cudaMemcpyAsync(host, device, size, cudaMemcpyDeviceToHost, stream), then
 * calls cudaStreamSynchronize(stream) once and hands Python those host
 * buffers.  The probes (gpu.bpf.c): the handler's entry (the frame),
 * the copy's call instruction (each host buffer) and the instruction after
 * the synchronisation's call (the buffers are whole): from there the
 * operands are sent as the CPU probe sends them, read from the host copies.
 *
 * Nothing is taken from a version number.  The file must show it:
 *   - the four functions are in its .symtab (all local symbols);
 *   - the handler's code takes the body's address (an lea of it);
 *   - in the body, in code order, exactly one direct call of cudaMemcpyAsync
 *     comes before the first direct call of cudaStreamSynchronize, and an
 *     instruction follows that call.
 * What the file cannot show the probes check per call: the copy's kind is
 * device-to-host, each copy's source is the frame's operand's device
 * pointer, in order, and its size the operand's (gpu.bpf.c).
 *
 * The device ordinal is the execution context's, which is XLA's (the PJRT
 * plugin xla_cuda_plugin.so, jax-cudaNN-pjrt): read where that library's
 * own XLA_FFI_DeviceOrdinal_Get reads it (hcb_jaxgpu_code_ordinal), or not
 * at all: no thunk on a GPU proves it otherwise.
 */
#ifndef HCB_JAXGPU_H
#define HCB_JAXGPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* File offsets of the probes in cuda_plugin_extension.so. */
struct hcb_jaxgpu_sites {
	uint64_t handler_off;          /* kXlaFfiPythonGpuCallback's entry */
	uint64_t copy_off;             /* the call of cudaMemcpyAsync (operands to host) */
	uint64_t sync_off;             /* the instruction after the call of
					* cudaStreamSynchronize that follows it */
};

struct hcb_jaxgpu_target {
	char lib[4096];                /* cuda_plugin_extension.so */
	char pjrt[4096];               /* xla_cuda_plugin.so, "" if not mapped */
	char version[64];              /* the plugin's, "unknown" if unreadable */
	struct hcb_jaxgpu_sites s;
	int ctx_device_off;            /* as hcb_jaxgpu_code_ordinal found it, -1: unknown */
	char why[256];                 /* -ENOEXEC: what did not check out */
};

/* 1 for the jax CUDA plugin's cuda_plugin_extension.so (a maps path). */
int hcb_jaxgpu_is_library(const char *path);
/* 1 for the jax CUDA PJRT plugin's xla_cuda_plugin.so. */
int hcb_jaxgpu_is_pjrt(const char *path);

/*
 * The probe sites in the plugin file at path, proven as above.  0; -ENOEXEC
 * with why (one line) when the file is not the code known; -ENODATA (no
 * .symtab), -EBADMSG (no ELF), -ENOSYS (no disassembler), -errno.
 */
int hcb_jaxgpu_find_sites(const char *path, struct hcb_jaxgpu_sites *s, char *why, size_t cap);

/*
 * The offset in XLA_FFI_ExecutionContext of the device ordinal, as the PJRT
 * plugin at path reads it in XLA_FFI_DeviceOrdinal_Get: the context loaded
 * from args->ctx (8 bytes at 16), a 32-bit load from it, stored to
 * args->device_ordinal (at 24).  -1 for other code or none.
 */
int hcb_jaxgpu_code_ordinal(const char *path);

/*
 * Find the CUDA plugin in process pid, where the CUDA driver (libcuda.so)
 * is loaded too (jax loads the plugin where CUDA is unusable as well, and
 * runs on CPU): 0; -ENOENT none, or no driver; -ENOEXEC
 * (t->why says what did not check out); others as hcb_jaxgpu_find_sites.
 */
int hcb_jaxgpu_find(pid_t pid, struct hcb_jaxgpu_target *t);

#endif
