/* SPDX-License-Identifier: MIT */
/*
 * fake_cudart.c - a stand-in for the few CUDA runtime functions the CUDA
 * tap handler calls (hcbtap/cuda_rt.h), on host memory, for the tests of
 * a machine without a GPU.  The handler loads it as it loads libcudart,
 * through HCBTAP_CUDART.
 *
 * A stream is a queue: cudaMemcpyAsync and cudaLaunchHostFunc append to it
 * and return, as on a device; fake_cuda_run() (or cudaStreamSynchronize)
 * plays it in order on the calling thread, as the device and CUDA's host
 * function thread would.  The fake_cuda_* functions steer it from a test;
 * it also exports CUPTI injection hooks that log what the handler tells
 * them (found when CUDA_INJECTION64_PATH names this library).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcbtap_cupti.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_OPS 65536
#define ERR_INVALID_VALUE 1

struct op {
	void *stream;
	void (*fn)(void *);    /* a host function, or NULL for a copy */
	void *dst;
	const void *src;
	size_t n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct op ops[MAX_OPS];
static size_t nops;
static unsigned long calls;
static char fail_name[64];
static int fail_err, fail_after;

/* The call named name fails now if fake_cuda_fail() asked for it. */
static int failing(const char *name)
{
	calls++;
	if (!fail_name[0] || strcmp(fail_name, name) != 0)
		return 0;
	if (fail_after-- > 0)
		return 0;
	fail_name[0] = 0;
	return fail_err;
}

EXPORT int cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	int err;

	(void)flags;
	pthread_mutex_lock(&lock);
	err = failing("cudaHostAlloc");
	pthread_mutex_unlock(&lock);
	if (err)
		return err;
	*ptr = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
	return *ptr ? 0 : 2; /* cudaErrorMemoryAllocation */
}

static int queue(const char *name, struct op o)
{
	int err;

	pthread_mutex_lock(&lock);
	err = failing(name);
	if (!err && nops == MAX_OPS)
		err = ERR_INVALID_VALUE;
	if (!err)
		ops[nops++] = o;
	pthread_mutex_unlock(&lock);
	return err;
}

EXPORT int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
	if (kind != 2) /* device to host is all the handler may ask for */
		return ERR_INVALID_VALUE;
	return queue("cudaMemcpyAsync", (struct op){ .stream = stream, .dst = dst, .src = src, .n = n });
}

EXPORT int cudaLaunchHostFunc(void *stream, void (*fn)(void *), void *data)
{
	return queue("cudaLaunchHostFunc", (struct op){ .stream = stream, .fn = fn, .dst = data });
}

/* Play stream's queue in order; the ops run without the lock held, as a
 * host function may queue more (it must not, but must not hang here). */
EXPORT int fake_cuda_run(void *stream)
{
	int done = 0;

	for (;;) {
		struct op o;
		size_t i;

		pthread_mutex_lock(&lock);
		for (i = 0; i < nops && ops[i].stream != stream; i++)
			;
		if (i == nops) {
			pthread_mutex_unlock(&lock);
			return done;
		}
		o = ops[i];
		memmove(&ops[i], &ops[i + 1], (nops - i - 1) * sizeof(ops[0]));
		nops--;
		pthread_mutex_unlock(&lock);
		if (o.fn)
			o.fn(o.dst);
		else
			memcpy(o.dst, o.src, o.n);
		done++;
	}
}

EXPORT int cudaStreamSynchronize(void *stream)
{
	int err;

	pthread_mutex_lock(&lock);
	err = failing("cudaStreamSynchronize");
	pthread_mutex_unlock(&lock);
	if (!err)
		fake_cuda_run(stream);
	return err;
}

EXPORT const char *cudaGetErrorString(int err)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "fake CUDA error %d", err);
	return buf;
}

/* The after+1-th call of the function called name from now fails with err. */
EXPORT void fake_cuda_fail(const char *name, int err, int after)
{
	pthread_mutex_lock(&lock);
	snprintf(fail_name, sizeof(fail_name), "%s", name);
	fail_err = err;
	fail_after = after;
	pthread_mutex_unlock(&lock);
}

/* Calls of the CUDA functions so far. */
EXPORT unsigned long fake_cuda_calls(void)
{
	unsigned long n;

	pthread_mutex_lock(&lock);
	n = calls;
	pthread_mutex_unlock(&lock);
	return n;
}

/* Operations queued on any stream and not played yet. */
EXPORT size_t fake_cuda_pending(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = nops;
	pthread_mutex_unlock(&lock);
	return n;
}

/* The CUPTI hooks: one line per call in fake_cupti_log. */
EXPORT char fake_cupti_log[65536];

static void logf_(const char *fmt, unsigned long long a, unsigned long long b, unsigned long long c)
{
	size_t len;

	pthread_mutex_lock(&lock);
	len = strlen(fake_cupti_log);
	snprintf(fake_cupti_log + len, sizeof(fake_cupti_log) - len, fmt, a, b, c);
	pthread_mutex_unlock(&lock);
}

static void begin(uint64_t tap_id, unsigned int device, uint32_t ncopies)
{
	logf_("begin %llx %llu %llu\n", tap_id, device, ncopies);
}

static void end(void)
{
	logf_("end\n", 0, 0, 0);
}

static void emitted(uint64_t tap_id, unsigned int device, uint64_t seq)
{
	logf_("emitted %llx %llu %llu\n", tap_id, device, seq);
}

static void abandoned(uint64_t tap_id)
{
	logf_("abandoned %llx\n", tap_id, 0, 0);
}

EXPORT const struct hcbtap_cupti_hooks hcbtap_cupti_hooks = {
	.version = HCBTAP_CUPTI_HOOKS_VERSION,
	.size = sizeof(struct hcbtap_cupti_hooks),
	.copy_begin = begin,
	.copy_end = end,
	.emitted = emitted,
	.abandoned = abandoned,
};
