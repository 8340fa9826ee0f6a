/* SPDX-License-Identifier: MIT */
/*
 * cupti_inject.c - libhcbtap_cupti.so, the CUPTI injection library of
 * hcbtrace's CUDA launch mode: a program started with
 * CUDA_INJECTION64_PATH=.../libhcbtap_cupti.so has it loaded by the CUDA
 * driver, which calls InitializeInjection() from cuInit().  It opens
 * libcupti (and looks at the driver) with dlopen, records CUPTI activity
 * for memory copies and kernels, and, per tap, fires the USDT probe
 *
 *   hcbtap_cupti:tap_copy(u32 device, u64 seq, u64 start_ns, u64 end_ns,
 *                         u64 bytes, u32 ncopies)
 *
 * with the device-side start of the tap's first device-to-host copy and
 * the end of its last: packet seq of device in hcbtap's numbering (the
 * hcbtap:packet probe's).  The CUDA tap handler tells it which copies are
 * whose (hcbtap_cupti.h); kernels go by on
 *
 *   hcbtap_cupti:kernel(u32 device, u32 stream, u64 start_ns, u64 end_ns,
 *                       const char *name)
 *
 * Both probes have semaphores: no tracer, no probe.  Times are
 * CLOCK_MONOTONIC ns (bpf_ktime_get_ns's clock) where CUPTI takes a
 * timestamp callback, as status.clock says.  The library prints nothing;
 * hcbtap_cupti_status says how it fares, for hcbtrace to read.  Without a
 * GPU the driver never calls it, or CUPTI refuses it (status FAILED): the
 * program runs on either way.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#include "cupti_join.h"
#include "hcbtap_cupti.h"

#define EXPORT __attribute__((visibility("default")))
#define BUFFER_BYTES (1u << 20)
#define FLUSH_PERIOD_MS 100u

__attribute__((section(".probes"), visibility("hidden")))
volatile unsigned short hcbtap_cupti_tap_copy_semaphore;
__attribute__((section(".probes"), visibility("hidden")))
volatile unsigned short hcbtap_cupti_kernel_semaphore;

EXPORT struct hcbtap_cupti_status hcbtap_cupti_status = {
	.magic = HCBTAP_CUPTI_MAGIC,
	.version = HCBTAP_CUPTI_STATUS_VERSION,
};

/* The libcupti functions used, all found with dlsym. */
static struct {
	CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
					  CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*enable)(CUpti_ActivityKind);
	CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*flush_all)(uint32_t);
	CUptiResult (*push)(CUpti_ExternalCorrelationKind, uint64_t);
	CUptiResult (*pop)(CUpti_ExternalCorrelationKind, uint64_t *);
	CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
	/* optional */
	CUptiResult (*get_version)(uint32_t *);
	CUptiResult (*timestamp_callback)(CUpti_TimestampCallbackFunc);
	CUptiResult (*flush_period)(uint32_t);
} cupti;

static struct hcb_join join;
static int active;

static void status_failed(enum hcbtap_cupti_step step, int error, const char *what)
{
	struct hcbtap_cupti_status *s = &hcbtap_cupti_status;

	s->step = step;
	s->error = error;
	snprintf(s->message, sizeof(s->message), "%s", what);
	__atomic_store_n(&s->state, HCBTAP_CUPTI_FAILED, __ATOMIC_RELEASE);
}

static void count(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static void on_tap_done(const struct hcb_join_done *d, void *ctx)
{
	(void)ctx;
	count(&hcbtap_cupti_status.taps_timed, 1);
	if (hcbtap_cupti_tap_copy_semaphore)
		STAP_PROBE6(hcbtap_cupti, tap_copy, d->device, d->seq, d->start, d->end, d->bytes,
			    d->ncopies);
}

/* ---- the handler's hooks (hcbtap_cupti.h) ---- */

static void copy_begin(uint64_t tap_id, unsigned int device, uint32_t ncopies)
{
	if (!__atomic_load_n(&active, __ATOMIC_ACQUIRE))
		return;
	hcb_join_begin(&join, tap_id, device, ncopies);
	cupti.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, tap_id);
}

static void copy_end(void)
{
	uint64_t id;

	if (__atomic_load_n(&active, __ATOMIC_ACQUIRE))
		cupti.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
}

static void emitted(uint64_t tap_id, unsigned int device, uint64_t seq)
{
	if (__atomic_load_n(&active, __ATOMIC_ACQUIRE))
		hcb_join_emitted(&join, tap_id, device, seq);
}

static void abandoned(uint64_t tap_id)
{
	if (__atomic_load_n(&active, __ATOMIC_ACQUIRE)) {
		hcb_join_abandon(&join, tap_id);
		__atomic_store_n(&hcbtap_cupti_status.taps_unmatched, hcb_join_unmatched(&join),
				 __ATOMIC_RELAXED);
	}
}

EXPORT const struct hcbtap_cupti_hooks hcbtap_cupti_hooks = {
	.version = HCBTAP_CUPTI_HOOKS_VERSION,
	.size = sizeof(struct hcbtap_cupti_hooks),
	.copy_begin = copy_begin,
	.copy_end = copy_end,
	.emitted = emitted,
	.abandoned = abandoned,
};

/* ---- CUPTI's activity buffers ---- */

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	*buf = aligned_alloc(8, BUFFER_BYTES);
	*size = *buf ? BUFFER_BYTES : 0;
	*max_records = 0;
}

/*
 * One record.  Only fields that have kept their offsets from CUPTI 12's
 * record versions (Memcpy5, Kernel9) to CUPTI 13's (Memcpy6, Kernel10) are
 * read, so a libcupti of either works with these headers.
 */
static void on_record(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;

		count(&hcbtap_cupti_status.memcpy_records, 1);
		if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
			hcb_join_copy(&join, m->correlationId, m->start, m->end, m->bytes);
		break;
	}
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;

		count(&hcbtap_cupti_status.kernel_records, 1);
		if (hcbtap_cupti_kernel_semaphore)
			STAP_PROBE5(hcbtap_cupti, kernel, k->deviceId, k->streamId, k->start, k->end,
				    k->name);
		break;
	}
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
		const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)r;

		if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
			hcb_join_corr(&join, e->correlationId, e->externalId);
		break;
	}
	default:
		break;
	}
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	CUpti_Activity *r = NULL;
	size_t dropped = 0;

	while (cupti.next_record(buf, valid, &r) == CUPTI_SUCCESS)
		on_record(r);
	if (cupti.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		count(&hcbtap_cupti_status.records_dropped, dropped);
	__atomic_store_n(&hcbtap_cupti_status.taps_unmatched, hcb_join_unmatched(&join),
			 __ATOMIC_RELAXED);
	(void)size;
	free(buf);
}

static uint64_t CUPTIAPI monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void flush_at_exit(void)
{
	if (__atomic_load_n(&active, __ATOMIC_ACQUIRE))
		cupti.flush_all(1);
}

/* ---- set-up ---- */

/* libcupti: $HCBTAP_CUPTI alone if set, else the usual sonames. */
static void *open_cupti(void)
{
	const char *env = getenv("HCBTAP_CUPTI");
	const char *names[] = {
		"libcupti.so.13", "libcupti.so.12", "libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	};
	void *h;

	if (env && env[0])
		return dlopen(env, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
			return h;
	return NULL;
}

static int resolve(void *h)
{
	struct { void **fn; const char *name; int optional; } syms[] = {
		{ (void **)&cupti.register_callbacks, "cuptiActivityRegisterCallbacks", 0 },
		{ (void **)&cupti.enable, "cuptiActivityEnable", 0 },
		{ (void **)&cupti.next_record, "cuptiActivityGetNextRecord", 0 },
		{ (void **)&cupti.flush_all, "cuptiActivityFlushAll", 0 },
		{ (void **)&cupti.push, "cuptiActivityPushExternalCorrelationId", 0 },
		{ (void **)&cupti.pop, "cuptiActivityPopExternalCorrelationId", 0 },
		{ (void **)&cupti.dropped, "cuptiActivityGetNumDroppedRecords", 0 },
		{ (void **)&cupti.get_version, "cuptiGetVersion", 1 },
		{ (void **)&cupti.timestamp_callback, "cuptiActivityRegisterTimestampCallback", 1 },
		{ (void **)&cupti.flush_period, "cuptiActivityFlushPeriod", 1 },
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		if (!*syms[i].fn && !syms[i].optional) {
			status_failed(HCBTAP_CUPTI_STEP_SYMBOLS, 0, syms[i].name);
			return 0;
		}
	}
	return 1;
}

/* The driver that called us, for its version (status only). */
static void driver_version(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int (*get)(int *) = h ? (int (*)(int *))dlsym(h, "cuDriverGetVersion") : NULL;
	int v = 0;

	if (get && get(&v) == 0)
		hcbtap_cupti_status.driver_version = v;
	if (h)
		dlclose(h);
}

static int start(void)
{
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
		/* external correlation records come with runtime API records */
		CUPTI_ACTIVITY_KIND_RUNTIME,
		CUPTI_ACTIVITY_KIND_MEMCPY,
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	};
	CUptiResult rc;
	void *h = open_cupti();

	if (!h) {
		status_failed(HCBTAP_CUPTI_STEP_DLOPEN, 0, "no libcupti (set HCBTAP_CUPTI to its path)");
		return 0;
	}
	if (!resolve(h))
		return 0;
	if (cupti.get_version)
		cupti.get_version(&hcbtap_cupti_status.cupti_version);
	driver_version();
	hcb_join_init(&join, on_tap_done, NULL);
	/* before any kind is enabled, or records mix two clocks */
	if (cupti.timestamp_callback && cupti.timestamp_callback(monotonic_ns) == CUPTI_SUCCESS)
		hcbtap_cupti_status.clock = 1;
	rc = cupti.register_callbacks(buffer_requested, buffer_completed);
	if (rc != CUPTI_SUCCESS) {
		status_failed(HCBTAP_CUPTI_STEP_CALLBACKS, rc, "cuptiActivityRegisterCallbacks");
		return 0;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		rc = cupti.enable(kinds[i]);
		if (rc != CUPTI_SUCCESS) {
			status_failed(HCBTAP_CUPTI_STEP_ENABLE, rc, "cuptiActivityEnable");
			return 0;
		}
	}
	if (cupti.flush_period)
		cupti.flush_period(FLUSH_PERIOD_MS);
	return 1;
}

/*
 * Called by the CUDA driver from cuInit() (once; the guard is for callers
 * who are not the driver).  Nonzero: the injection is in place, which it
 * is whether or not CUPTI could be started; the program must run on.
 */
EXPORT int InitializeInjection(void)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static int done;

	pthread_mutex_lock(&once);
	if (!done) {
		done = 1;
		if (start()) {
			__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&hcbtap_cupti_status.state, HCBTAP_CUPTI_ACTIVE,
					 __ATOMIC_RELEASE);
			atexit(flush_at_exit);
		}
	}
	pthread_mutex_unlock(&once);
	return 1;
}
