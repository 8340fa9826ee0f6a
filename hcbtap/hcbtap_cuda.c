/* SPDX-License-Identifier: MIT */
/*
 * hcbtap_cuda.c - the tap's XLA FFI custom call on CUDA devices (the
 * Python package registers it for platform "CUDA"; hcbtap_ffi.c is the
 * CPU one).  The leaves are in device memory, where BPF cannot read them,
 * so while a tracer is attached each tap
 *   1. takes room in its device's staging ring (pinned host memory,
 *      allocated once per device: HCBTAP_CUDA_STAGING_MB, default 64),
 *   2. queues the device-to-host copies of its leaves on XLA's stream, and
 *   3. queues a host function after them that emits the packet (libhcbtap's
 *      normal path) and gives the room back,
 * and returns: the device never waits for the tracer, and a device's
 * packets are emitted in stream order.  A tap that finds no room is lost:
 * a host function in its place emits it as a lost packet, so it takes its
 * seq in order and the tracer counts it.  While no tracer is attached the
 * call returns after the semaphore check: no CUDA call at all.
 *
 * The CUDA runtime is opened with dlopen (cuda_rt.c) on the first attached
 * tap: the package builds and imports where there is no CUDA.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "cuda_rt.h"
#include "ffi_util.h"
#include "hcbtap.h"
#include "hcbtap_cupti.h"
#include "staging.h"

#define EXPORT __attribute__((visibility("default")))
#define WHO "hcbtap_tap (CUDA)"

/* Taps in flight per device, whatever their size. */
#define SLOTS 1024u
#define DEFAULT_STAGING_MB 64u

_Static_assert(sizeof(void *) == 8, "lost taps are encoded in a 64-bit pointer");

struct cuda_dev {
	struct hcb_staging *pool;
	_Atomic uint64_t next_tap;
};

static struct cuda_dev *_Atomic devs[HCB_MAX_DEVICES];
static pthread_mutex_t devs_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct hcbtap_cupti_hooks *hooks;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static uint64_t round_up(uint64_t n)
{
	return (n + HCB_STAGE_ALIGN - 1) / HCB_STAGE_ALIGN * HCB_STAGE_ALIGN;
}

/* The CUPTI injection library's hooks, if it is in the process. */
static void find_hooks(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	const struct hcbtap_cupti_hooks *h;
	void *lib;

	if (!path || !path[0] || !(lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD)))
		return;
	h = dlsym(lib, HCBTAP_CUPTI_HOOKS_SYMBOL);
	if (h && h->version == HCBTAP_CUPTI_HOOKS_VERSION && h->size >= sizeof(*h))
		hooks = h;
	/* the driver keeps it loaded; the handle is not ours to keep */
	dlclose(lib);
}

static size_t staging_bytes(void)
{
	const char *env = getenv("HCBTAP_CUDA_STAGING_MB");
	unsigned long mb = env ? strtoul(env, NULL, 10) : 0;

	return (size_t)(mb && mb <= 65536 ? mb : DEFAULT_STAGING_MB) << 20;
}

/* device's state, made on its first attached tap; NULL with *rc the CUDA
 * error (or -ENOMEM) when its staging memory cannot be had. */
static struct cuda_dev *device_state(const struct hcb_cudart *rt, unsigned int device, int *rc)
{
	struct cuda_dev *d = atomic_load_explicit(&devs[device], memory_order_acquire);
	void *mem = NULL;
	size_t size;

	if (d)
		return d;
	pthread_mutex_lock(&devs_lock);
	d = atomic_load_explicit(&devs[device], memory_order_relaxed);
	if (d)
		goto out;
	size = staging_bytes();
	*rc = rt->host_alloc(&mem, size, HCB_CUDA_HOST_ALLOC_PORTABLE);
	if (*rc)
		goto out;
	*rc = -ENOMEM;
	d = calloc(1, sizeof(*d));
	if (d)
		d->pool = hcb_staging_new(mem, size, SLOTS);
	if (!d || !d->pool) {
		/* pinned memory is never given back: cudaFreeHost would
		 * synchronize the device, and this is a rare failure */
		free(d);
		d = NULL;
		goto out;
	}
	atomic_store_explicit(&devs[device], d, memory_order_release);
out:
	pthread_mutex_unlock(&devs_lock);
	return d;
}

static XLA_FFI_Error *cuda_error(XLA_FFI_CallFrame *call, const struct hcb_cudart *rt,
				 const char *what, int rc)
{
	char msg[256];

	if (rc < 0)
		snprintf(msg, sizeof(msg), WHO ": %s: %s", what, strerror(-rc));
	else
		snprintf(msg, sizeof(msg), WHO ": %s failed: %s (CUDA error %d)", what,
			 rt->error_string ? rt->error_string(rc) : "?", rc);
	return hcb_ffi_error(call->api, XLA_FFI_Error_Code_INTERNAL, msg);
}

/* A lost tap rides the stream as its host function's argument itself, so
 * that it needs no memory: bit 0 set, device, reason, consumer. */
static void *lost_tag(uint32_t consumer, unsigned int device, enum hcbtap_lost_reason reason)
{
	return (void *)((uintptr_t)consumer << 32 | (uintptr_t)(reason & 0xf) << 9 |
			(uintptr_t)(device & 0xff) << 1 | 1);
}

/* The stream reached the host function queued after a tap's copies: its
 * leaves are in staging memory now (or its copy failed).  Runs on CUDA's
 * own thread, so no CUDA calls here. */
static void on_copied(void *arg)
{
	uintptr_t v = (uintptr_t)arg;
	struct hcb_stage *st = arg;
	int64_t seq;

	if (v & 1) {
		hcbtap_emit_lost((uint32_t)(v >> 32), (unsigned int)(v >> 1 & 0xff),
				 (enum hcbtap_lost_reason)(v >> 9 & 0xf));
		return;
	}
	if (st->failed)
		seq = hcbtap_emit_lost(st->consumer, st->device, HCBTAP_LOST_DEVICE_ERROR);
	else
		seq = hcbtap_emit(st->consumer, st->device, (const void *const *)st->buf);
	if (hooks && st->tap_id) {
		if (seq >= 0 && !st->failed)
			hooks->emitted(st->tap_id, st->device, (uint64_t)seq);
		else
			hooks->abandoned(st->tap_id);
	}
	hcb_staging_put(st);
}

/* No room: the tap is lost in its place in the stream. */
static XLA_FFI_Error *lose_in_order(XLA_FFI_CallFrame *call, const struct hcb_cudart *rt,
				    void *stream, const struct hcb_ffi_tap *t)
{
	int rc = rt->launch_host_func(stream, on_copied,
				      lost_tag(t->consumer, t->device, HCBTAP_LOST_NO_STAGING));

	if (!rc)
		return NULL;
	hcbtap_emit_lost(t->consumer, t->device, HCBTAP_LOST_NO_STAGING);
	return cuda_error(call, rt, "cudaLaunchHostFunc", rc);
}

/*
 * Queue st's copies and the host function that emits it.  st->buf gets
 * the leaves' addresses (the packet's data_addrs), then the leaves, each
 * HCB_STAGE_ALIGN aligned.
 */
static XLA_FFI_Error *copy_and_emit(XLA_FFI_CallFrame *call, const struct hcb_cudart *rt,
				    void *stream, const struct hcb_ffi_tap *t, struct hcb_stage *st,
				    unsigned int n, const uint64_t *leaf_bytes)
{
	const void **addrs = (const void **)st->buf;
	char *p = st->buf + round_up((uint64_t)n * sizeof(*addrs));
	unsigned int i, queued = 0, ncopies = 0;
	uint64_t tap_id;
	int rc = 0, launch;

	for (i = 0; i < n; i++)
		ncopies += leaf_bytes[i] != 0;
	tap_id = st->tap_id = hooks && ncopies ? st->tap_id : 0;
	if (tap_id)
		hooks->copy_begin(tap_id, t->device, ncopies);
	for (i = 0; i < n; i++) {
		addrs[i] = p;
		if (leaf_bytes[i]) {
			rc = rt->memcpy_async(p, t->leaves[i], leaf_bytes[i], HCB_CUDA_MEMCPY_D2H, stream);
			if (rc)
				break;
			queued++;
		}
		p += round_up(leaf_bytes[i]);
	}
	if (tap_id)
		hooks->copy_end();
	st->failed = rc != 0;
	/* from here on st is the host function's: read nothing of it */
	launch = rt->launch_host_func(stream, on_copied, st);
	if (launch) {
		/* on_copied will not run: wait for what was queued, then take
		 * the room back; if even that fails the room stays taken */
		if (!queued || !rt->stream_synchronize(stream))
			hcb_staging_put(st);
		if (tap_id)
			hooks->abandoned(tap_id);
		hcbtap_emit_lost(t->consumer, t->device, HCBTAP_LOST_DEVICE_ERROR);
		return cuda_error(call, rt, "cudaLaunchHostFunc", launch);
	}
	return rc ? cuda_error(call, rt, "cudaMemcpyAsync", rc) : NULL;
}

static XLA_FFI_Error *stage_tap(XLA_FFI_CallFrame *call, const struct hcb_ffi_tap *t)
{
	XLA_FFI_Stream_Get_Args sa = {
		.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE,
		.ctx = call->ctx,
	};
	const struct hcb_cudart *rt;
	const uint64_t *leaf_bytes;
	uint64_t total, need;
	struct hcb_stage *st;
	struct cuda_dev *d;
	XLA_FFI_Error *err;
	unsigned int n;
	const char *why;
	int rc = 0;

	if (hcbtap_consumer_layout(t->consumer, &n, &leaf_bytes, &total))
		return hcb_ffi_error(call->api, XLA_FFI_Error_Code_NOT_FOUND,
				     WHO ": the consumer was never registered in this process");
	if (n != t->ntap)
		return hcb_ffi_error(call->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
				     WHO ": ntap differs from the consumer's leaf count");
	/* as on CPU: a device beyond HCB_MAX_DEVICES loses the tap, not the run */
	if (t->device >= HCB_MAX_DEVICES)
		return NULL;
	err = call->api->XLA_FFI_Stream_Get(&sa);
	if (err)
		return err;
	rt = hcb_cudart_get(&why);
	if (!rt) {
		/* nothing can be in flight without a runtime: lose it here */
		hcbtap_emit_lost(t->consumer, t->device, HCBTAP_LOST_NO_RUNTIME);
		return NULL;
	}
	pthread_once(&hooks_once, find_hooks);
	d = device_state(rt, t->device, &rc);
	if (!d)
		return cuda_error(call, rt, "cudaHostAlloc (staging memory)", rc);
	need = round_up((uint64_t)n * sizeof(void *)) + total + (uint64_t)n * HCB_STAGE_ALIGN;
	st = hcb_staging_get(d->pool, need);
	if (!st)
		return lose_in_order(call, rt, sa.stream, t);
	st->consumer = t->consumer;
	st->device = t->device;
	st->tap_id = (uint64_t)t->device << 48 |
		     (atomic_fetch_add(&d->next_tap, 1) + 1) % (UINT64_C(1) << 48);
	return copy_and_emit(call, rt, sa.stream, t, st, n, leaf_bytes);
}

EXPORT XLA_FFI_Error *hcbtap_ffi_tap_cuda(XLA_FFI_CallFrame *call)
{
	struct hcb_ffi_tap t;
	XLA_FFI_Error *err;

	if (hcb_ffi_metadata_request(call))
		return NULL;
	if (call->stage != XLA_FFI_ExecutionStage_EXECUTE || !hcbtap_attached())
		return NULL;
	err = hcb_ffi_tap_read(call, WHO, &t);
	if (!err)
		err = stage_tap(call, &t);
	hcb_ffi_tap_done(&t);
	return err;
}

/* python/: where the nvidia-cuda-runtime wheel's libcudart is, if any. */
EXPORT void hcbtap_cuda_runtime_hint(const char *path)
{
	hcb_cudart_hint(path);
}
