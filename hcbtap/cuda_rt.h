/* SPDX-License-Identifier: MIT */
/*
 * cuda_rt.h - the few CUDA runtime functions the CUDA tap handler calls,
 * from a libcudart found with dlopen when the first attached tap needs it:
 * the package builds, loads and taps on CPU without CUDA anywhere.
 *
 * Where it looks, in order:
 *   $HCBTAP_CUDART         a path or soname, and then nothing else; also
 *                          the test hook: the unit tests name a stand-in
 *                          library on host memory
 *   the hint, if given     (python/: the libcudart of the nvidia-cuda-runtime
 *                          wheel next to jaxlib's CUDA plugin)
 *   libcudart.so.13, libcudart.so.12, libcudart.so
 * A soname already loaded in the process (by XLA's CUDA plugin) is that one.
 */
#ifndef HCBTAP_CUDA_RT_H
#define HCBTAP_CUDA_RT_H

#include <stddef.h>

/* cudaMemcpyKind's device-to-host, cudaHostAlloc's portable flag */
#define HCB_CUDA_MEMCPY_D2H 2
#define HCB_CUDA_HOST_ALLOC_PORTABLE 1

/* cudaError_t is an int-sized enum, cudaStream_t a pointer (CUstream). */
struct hcb_cudart {
	int (*host_alloc)(void **ptr, size_t size, unsigned int flags);
	int (*memcpy_async)(void *dst, const void *src, size_t n, int kind, void *stream);
	int (*launch_host_func)(void *stream, void (*fn)(void *), void *data);
	int (*stream_synchronize)(void *stream);
	const char *(*error_string)(int err);
};

/* A place to look before the sonames (copied); call before the first tap. */
void hcb_cudart_hint(const char *path);

/*
 * The runtime, loaded on the first call (the later ones return the same);
 * NULL if none could be loaded, with *why saying why.
 */
const struct hcb_cudart *hcb_cudart_get(const char **why);

#endif /* HCBTAP_CUDA_RT_H */
