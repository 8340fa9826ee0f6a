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

/*
 * The library's state, exported as HCBTAP_CUPTI_STATUS_SYMBOL for hcbtrace
 * to read (process_vm_readv at the symbol's address in the library's
 * mapping).  The library itself prints nothing.
 */
#define HCBTAP_CUPTI_STATUS_SYMBOL "hcbtap_cupti_status"
#define HCBTAP_CUPTI_MAGIC 0x50554348u /* "HCUP" little endian */
#define HCBTAP_CUPTI_STATUS_VERSION 1u

enum hcbtap_cupti_state {
	HCBTAP_CUPTI_IDLE = 0,      /* InitializeInjection never called: no CUDA
				     * driver initialised (no GPU) so far */
	HCBTAP_CUPTI_ACTIVE = 1,    /* recording copies and kernels */
	HCBTAP_CUPTI_FAILED = 2,    /* gave up: step and error say where, why */
};

enum hcbtap_cupti_step {
	HCBTAP_CUPTI_STEP_NONE = 0,
	HCBTAP_CUPTI_STEP_DLOPEN,   /* libcupti not found (error: 0) */
	HCBTAP_CUPTI_STEP_SYMBOLS,  /* libcupti lacks a function we need */
	HCBTAP_CUPTI_STEP_CALLBACKS,/* cuptiActivityRegisterCallbacks */
	HCBTAP_CUPTI_STEP_ENABLE,   /* cuptiActivityEnable */
};

struct hcbtap_cupti_status {
	uint32_t magic;             /* HCBTAP_CUPTI_MAGIC */
	uint32_t version;           /* HCBTAP_CUPTI_STATUS_VERSION */
	int32_t state;              /* enum hcbtap_cupti_state */
	uint32_t step;              /* enum hcbtap_cupti_step, when FAILED */
	int32_t error;              /* the CUptiResult of that step */
	uint32_t cupti_version;     /* cuptiGetVersion(), 0 if unknown */
	int32_t driver_version;     /* cuDriverGetVersion(), 0 if unknown */
	uint32_t clock;             /* 1: times are CLOCK_MONOTONIC ns (as BPF's
				     * ts_ns); 0: CUPTI's own (CLOCK_REALTIME ns) */
	uint64_t memcpy_records;    /* activity records seen, per kind */
	uint64_t kernel_records;
	uint64_t taps_timed;        /* tap_copy probes fired */
	uint64_t taps_unmatched;    /* taps forgotten before all of their
				     * records came (table full, or abandoned) */
	uint64_t records_dropped;   /* CUPTI's own count of dropped records */
	char message[128];          /* the failed step in words, NUL ended */
};

#endif /* HCBTAP_CUPTI_H */
