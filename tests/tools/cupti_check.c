/* SPDX-License-Identifier: MIT */
/*
 * cupti_check.c - a CUDA program in miniature for tests/bats/cupti.bats, to
 * run with libhcbtap_cupti.so injected (CUDA_INJECTION64_PATH):
 *
 *   cupti_check driver    cuInit(0) through the driver (libcuda.so.1, or
 *                         $HCB_LIBCUDA), as any CUDA program starts; prints
 *                         "cuInit N"
 *   cupti_check direct    calls the library's InitializeInjection() itself,
 *                         as the driver would, then its handler hooks, and
 *                         prints its status: "state S step T error E
 *                         clock C message M"
 * Either way it exits 0 if the program could go on: the library must do no
 * harm where there is no GPU.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcbtap_cupti.h"

static int driver(void)
{
	const char *name = getenv("HCB_LIBCUDA");
	void *h = dlopen(name && name[0] ? name : "libcuda.so.1", RTLD_NOW);
	int (*init)(unsigned int) = h ? (int (*)(unsigned int))dlsym(h, "cuInit") : NULL;

	if (!init) {
		printf("cuInit unavailable\n");
		return 0;
	}
	printf("cuInit %d\n", init(0));
	return 0;
}

static int direct(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	void *h = path ? dlopen(path, RTLD_NOW) : NULL;
	int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
	const struct hcbtap_cupti_hooks *hooks = h ? dlsym(h, HCBTAP_CUPTI_HOOKS_SYMBOL) : NULL;
	const struct hcbtap_cupti_status *s = h ? dlsym(h, HCBTAP_CUPTI_STATUS_SYMBOL) : NULL;

	if (!init || !hooks || !s) {
		fprintf(stderr, "cupti_check: %s is no hcbtap injection library\n", path ? path : "(unset)");
		return 1;
	}
	if (init() != 1 || init() != 1)
		return 1;
	/* the handler's calls, whatever state the library is in */
	hooks->copy_begin(42, 0, 1);
	hooks->copy_end();
	hooks->emitted(42, 0, 7);
	hooks->abandoned(43);
	printf("state %d step %u error %d clock %u message %s\n", s->state, s->step, s->error,
	       s->clock, s->message);
	return s->magic == HCBTAP_CUPTI_MAGIC && s->version == HCBTAP_CUPTI_STATUS_VERSION ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "driver"))
		return driver();
	if (argc == 2 && !strcmp(argv[1], "direct"))
		return direct();
	fprintf(stderr, "usage: cupti_check driver|direct\n");
	return 2;
}
