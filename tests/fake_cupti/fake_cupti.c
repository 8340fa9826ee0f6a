/* SPDX-License-Identifier: MIT */
/*
 * fake_cupti.c - a TEST STAND-IN for libhcbtap_cupti.so (the CUPTI
 * injection library, hcbtap/cupti_inject.c), so that `hcbtrace record
 * --cuda` can be tested end to end on a machine without a GPU
 * (tests/bats/cupti.bats).  It is built under tests/ only, never
 * installed, and has nothing of CUDA or CUPTI in it: it makes device copy
 * times up.
 *
 * hcbtrace runs it as it runs the real one: HCBTRACE_CUPTI_LIB names it,
 * `run --cuda` puts it in LD_PRELOAD (and CUDA_INJECTION64_PATH, which no
 * CUDA driver reads here).  Like the real one it exports
 * hcbtap_cupti_status, which says ACTIVE from the start, and has the USDT
 * probe hcbtap_cupti:tap_copy with its semaphore.  Preloaded, it takes the
 * place of libhcbtap's hcbtap_emit_attached(), which a program calls
 * through its PLT from the inline hcbtap_emit() (hcbtap/hcbtap.h): it
 * calls the real one (dlsym RTLD_NEXT) and, when that emitted the packet
 * (a seq >= 0), makes up the copy's times on CLOCK_MONOTONIC, as the real
 * library's are (status.clock 1):
 *
 *	end   = now - 1000 ns           (now: read after the real emit returned)
 *	start = end - (1000 + 100000 * device + 10 * (seq % 1000)) ns
 *
 * so a test can check the duration exactly (which tells a tap given another
 * tap's times, of its own device or another) and the end against ts_ns.
 *
 * Like the real library, it fires tap_copy later and from another thread:
 * CUPTI hands its records over in batches (the real library asks for every
 * 100 ms, and flushes at exit), so hcbtrace must hold a tap until its times
 * come.  Here a thread fires what is queued every FLUSH_MS, well inside
 * hcbtrace's hold (250 ms), and the library's destructor fires the rest.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "core/wire.h"
#include "hcbtap.h"

#define EXPORT __attribute__((visibility("default")))
#define FLUSH_MS 20
#define QUEUE_MAX 4096

struct copy {
	uint32_t device, nleaves;
	uint64_t seq, start, end, bytes;
};

/* Times made up and not fired yet, oldest first. */
static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	struct copy q[QUEUE_MAX];
	unsigned int n;
} pending = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_ONCE_INIT, { { 0 } }, 0 };

__attribute__((section(".probes"), visibility("hidden")))
volatile unsigned short hcbtap_cupti_tap_copy_semaphore;

EXPORT struct hcbtap_cupti_status hcbtap_cupti_status = {
	.magic = HCBTAP_CUPTI_MAGIC,
	.version = HCBTAP_CUPTI_STATUS_VERSION,
	.state = HCBTAP_CUPTI_ACTIVE,
	.clock = 1,
	.message = "test stand-in (tests/fake_cupti): copy times are made up",
};

typedef int64_t (*emit_fn)(uint32_t, unsigned int, const void *const *);
typedef int (*layout_fn)(uint32_t, unsigned int *, const uint64_t **, uint64_t *);

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fire(const struct copy *c)
{
	__atomic_fetch_add(&hcbtap_cupti_status.taps_timed, 1, __ATOMIC_RELAXED);
	if (hcbtap_cupti_tap_copy_semaphore)
		STAP_PROBE6(hcbtap_cupti, tap_copy, c->device, c->seq, c->start, c->end, c->bytes,
			    c->nleaves);
}

/* Fire everything queued, in order. */
static void flush(void)
{
	pthread_mutex_lock(&pending.lock);
	for (unsigned int i = 0; i < pending.n; i++)
		fire(&pending.q[i]);
	pending.n = 0;
	pthread_mutex_unlock(&pending.lock);
}

static void *flusher(void *arg)
{
	const struct timespec period = { 0, FLUSH_MS * 1000000L };

	(void)arg;
	for (;;) {
		nanosleep(&period, NULL);
		flush();
	}
	return NULL;
}

static void start_flusher(void)
{
	pthread_t t;

	/* without the thread, the destructor still fires them all */
	if (pthread_create(&t, NULL, flusher, NULL) == 0)
		pthread_detach(t);
}

/* What is still queued when the program ends: the real library's flush at
 * exit. */
__attribute__((destructor)) static void flush_at_exit(void)
{
	flush();
}

static void queue(const struct copy *c)
{
	pthread_once(&pending.once, start_flusher);
	pthread_mutex_lock(&pending.lock);
	/* full: fire what waits now rather than lose any */
	if (pending.n == QUEUE_MAX) {
		for (unsigned int i = 0; i < pending.n; i++)
			fire(&pending.q[i]);
		pending.n = 0;
	}
	pending.q[pending.n++] = *c;
	pthread_mutex_unlock(&pending.lock);
}

EXPORT int64_t hcbtap_emit_attached(uint32_t consumer_id, unsigned int device,
				    const void *const *leaves)
{
	static emit_fn real;
	static layout_fn layout;
	emit_fn emit = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	layout_fn lay;
	const uint64_t *sizes;
	struct copy c = { .device = device };
	int64_t seq;

	/* looked up again by a thread that races the first: no harm */
	if (!emit) {
		__atomic_store_n(&layout, (layout_fn)dlsym(RTLD_NEXT, "hcbtap_consumer_layout"),
				 __ATOMIC_RELEASE);
		emit = (emit_fn)dlsym(RTLD_NEXT, "hcbtap_emit_attached");
		if (!emit)
			return -ENOSYS;
		__atomic_store_n(&real, emit, __ATOMIC_RELEASE);
	}
	seq = emit(consumer_id, device, leaves);
	if (seq < 0 || !hcbtap_cupti_tap_copy_semaphore)
		return seq;
	c.seq = (uint64_t)seq;
	c.end = monotonic_ns() - 1000;
	c.start = c.end - (1000 + 100000 * (uint64_t)device + 10 * ((uint64_t)seq % 1000));
	lay = __atomic_load_n(&layout, __ATOMIC_ACQUIRE);
	if (lay && lay(consumer_id, &c.nleaves, &sizes, &c.bytes))
		c.bytes = c.nleaves = 0;
	queue(&c);
	return seq;
}
