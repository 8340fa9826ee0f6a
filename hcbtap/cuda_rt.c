/* SPDX-License-Identifier: MIT */
/*
 * cuda_rt.c - libcudart through dlopen, for the CUDA tap handler: see
 * cuda_rt.h for where it is looked for.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rt.h"

static struct hcb_cudart rt;
static const struct hcb_cudart *loaded;
static const char *failure = "not loaded";
static char hint[4096];
static pthread_once_t once = PTHREAD_ONCE_INIT;

void hcb_cudart_hint(const char *path)
{
	if (path && strlen(path) < sizeof(hint))
		strcpy(hint, path);
}

/* All five, or none: a library that lacks one is not a CUDA runtime. */
static int resolve(void *h)
{
	struct { void **fn; const char *name; } syms[] = {
		{ (void **)&rt.host_alloc, "cudaHostAlloc" },
		{ (void **)&rt.memcpy_async, "cudaMemcpyAsync" },
		{ (void **)&rt.launch_host_func, "cudaLaunchHostFunc" },
		{ (void **)&rt.stream_synchronize, "cudaStreamSynchronize" },
		{ (void **)&rt.error_string, "cudaGetErrorString" },
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		if (!*syms[i].fn) {
			memset(&rt, 0, sizeof(rt));
			return 0;
		}
	}
	return 1;
}

static void load(void)
{
	const char *env = getenv("HCBTAP_CUDART");
	const char *names[] = {
		hint[0] ? hint : NULL, "libcudart.so.13", "libcudart.so.12", "libcudart.so",
	};
	size_t n = sizeof(names) / sizeof(names[0]);

	failure = "no libcudart.so.13, .so.12 or .so could be loaded (set HCBTAP_CUDART to its path)";
	/* named: that one or none, so a test never runs on a real GPU by mistake */
	if (env && env[0]) {
		names[0] = env;
		n = 1;
		failure = "the library $HCBTAP_CUDART names could not be loaded";
	}
	for (size_t i = 0; i < n; i++) {
		void *h;

		if (!names[i] || !names[i][0])
			continue;
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			continue;
		if (resolve(h)) {
			loaded = &rt;
			return;
		}
		dlclose(h);
		failure = "a library found as libcudart lacks the CUDA runtime functions";
	}
}

const struct hcb_cudart *hcb_cudart_get(const char **why)
{
	pthread_once(&once, load);
	if (!loaded && why)
		*why = failure;
	return loaded;
}
