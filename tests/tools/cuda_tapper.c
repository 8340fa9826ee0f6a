/* SPDX-License-Identifier: MIT */
/*
 * cuda_tapper.c - the CUDA tap handler (hcbtap/hcbtap_cuda.c) in a real
 * process for hcbtrace to trace, on a machine without a GPU: hand-built
 * FFI calls, as XLA would make them, against the stand-in runtime of
 * fake_cudart.c (HCBTAP_CUDART), whose stream a "device" thread plays
 * while the taps are queued.  tests/bats/cuda.bats records it.
 *
 *   cuda_tapper          51 taps "x" on device 0 (x = [10k 10k+1 10k+2
 *                        10k+3], k = 0..50), and between the 50th and the
 *                        51st four taps "big" of 300000 bytes, of which
 *                        the staging memory (HCBTAP_CUDA_STAGING_MB=1)
 *                        takes three: the fourth is lost.  Then
 *                        hcbtap_barrier_wait(), and "issued 0 N" and
 *                        "cuda calls N" (calls into the runtime) on stderr.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ffi_util.h"
#include "hcbtap.h"
#include "ffi_frame.h"

XLA_FFI_Error *hcbtap_ffi_tap_cuda(XLA_FFI_CallFrame *call);

#define BIG (300 * 1000)
#define NX 51

static int (*run_stream)(void *stream);
static size_t (*pending)(void);
static unsigned long (*calls)(void);
static atomic_int stop, paused, parked;
static void *const stream = (void *)0x5100;

static void nap(void)
{
	nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

/* The device and CUDA's host function thread, in one.  Paused, it says
 * so in parked once it has seen the pause: from then on it runs nothing
 * until the pause ends. */
static void *device(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (atomic_load(&paused)) {
			atomic_store(&parked, 1);
		} else {
			atomic_store(&parked, 0);
			run_stream(stream);
		}
		nap();
	}
	return NULL;
}

static void drain(void)
{
	while (pending())
		nap();
}

static int tap(struct frame *f, uint32_t id, void *data)
{
	char msg[256];
	void *args[2] = { NULL, data };     /* token, leaf */

	if (take_error(hcbtap_ffi_tap_cuda(frame(f, 0, stream, id, 1, 2, 2, args)), msg, sizeof(msg)) >= 0) {
		fprintf(stderr, "cuda_tapper: %s\n", msg);
		return -1;
	}
	return 0;
}

int main(void)
{
	static float x[NX][4];
	static unsigned char big[4][BIG];
	static struct frame f;
	const char *x_kw[] = { "what", "x", NULL }, *big_kw[] = { "what", "big", NULL };
	struct hcbtap_leaf xl = { .dtype = HCBTAP_FLOAT32, .ndim = 1, .dims = { 4 } };
	struct hcbtap_leaf bl = { .dtype = HCBTAP_UINT8, .ndim = 1, .dims = { BIG } };
	uint32_t x_id, big_id;
	pthread_t dev;
	void *rt;
	int err = 0;

	rt = dlopen(getenv("HCBTAP_CUDART"), RTLD_NOW);
	run_stream = rt ? (int (*)(void *))dlsym(rt, "fake_cuda_run") : NULL;
	pending = rt ? (size_t (*)(void))dlsym(rt, "fake_cuda_pending") : NULL;
	calls = rt ? (unsigned long (*)(void))dlsym(rt, "fake_cuda_calls") : NULL;
	if (!run_stream || !pending || !calls) {
		fprintf(stderr, "cuda_tapper: HCBTAP_CUDART must name fake_cudart\n");
		return 2;
	}
	if (hcbtap_register("x", x_kw, "*", &xl, 1, &x_id) ||
	    hcbtap_register("big", big_kw, "*", &bl, 1, &big_id))
		return 2;
	pthread_create(&dev, NULL, device, NULL);
	for (int k = 0; k < NX && !err; k++) {
		for (int j = 0; j < 4; j++)
			x[k][j] = (float)(10 * k + j);
		if (k == NX - 1) {
			/* the device stalls: the staging memory fills.  The
			 * big taps are queued once it is parked, not merely
			 * asked to: a device still in run_stream() could play
			 * one and free its staging, room for the fourth (and
			 * drain() returns while the last x's host function
			 * may still run) */
			drain();
			atomic_store(&paused, 1);
			while (!atomic_load(&parked))
				nap();
			for (int b = 0; b < 4 && !err; b++) {
				memset(big[b], b + 1, BIG);
				err = tap(&f, big_id, big[b]);
			}
			atomic_store(&paused, 0);
		}
		if (!err)
			err = tap(&f, x_id, x[k]);
	}
	drain();
	atomic_store(&stop, 1);
	pthread_join(dev, NULL);
	if (!err)
		err = hcbtap_barrier_wait(120000);
	fprintf(stderr, "issued 0 %lld\ncuda calls %lu\n", (long long)hcbtap_issued(0), calls());
	return err ? 1 : 0;
}
