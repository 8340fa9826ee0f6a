/* SPDX-License-Identifier: MIT */
/*
 * hcbtap_cupti.h - between the CUDA tap handler (hcbtap_cuda.c, in the
 * traced program's libhcbtap) and the CUPTI injection library
 * (cupti_inject.c, libhcbtap_cupti.so, loaded by the CUDA driver through
 * CUDA_INJECTION64_PATH), and what hcbtrace reads of the latter.
 *
 * The handler finds the hooks with dlopen($CUDA_INJECTION64_PATH,
 * RTLD_NOLOAD) and dlsym(HCBTAP_CUPTI_HOOKS_SYMBOL): where the library is
 * not injected it never calls it.  Each tap's device-to-host copies are
 * made under an external correlation id (the tap id) that CUPTI attaches
 * to their activity records; once the tap is emitted, the handler tells
 * the library its (device, seq), and the library fires the
 * hcbtap_cupti:tap_copy USDT probe with the copies' device-side times.
 */
#ifndef HCBTAP_CUPTI_H
#define HCBTAP_CUPTI_H

#include <stdint.h>

#include "core/wire.h"

#define HCBTAP_CUPTI_HOOKS_SYMBOL "hcbtap_cupti_hooks"
#define HCBTAP_CUPTI_HOOKS_VERSION 1u

struct hcbtap_cupti_hooks {
	uint32_t version;           /* HCBTAP_CUPTI_HOOKS_VERSION */
	uint32_t size;              /* sizeof(struct hcbtap_cupti_hooks) */
	/* around a tap's cudaMemcpyAsync calls, on the calling thread: the
	 * ncopies copies made in between belong to tap_id */
	void (*copy_begin)(uint64_t tap_id, unsigned int device, uint32_t ncopies);
	void (*copy_end)(void);
	/* tap_id was emitted as packet seq of device */
	void (*emitted)(uint64_t tap_id, unsigned int device, uint64_t seq);
	/* tap_id will not be emitted (its copy failed, or no tracer took it) */
	void (*abandoned)(uint64_t tap_id);
};

/* The library's state, which hcbtrace reads: struct hcbtap_cupti_status,
 * in the wire header (hcb_wire.h). */

#endif /* HCBTAP_CUPTI_H */
