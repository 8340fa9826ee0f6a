/* SPDX-License-Identifier: MIT */
/*
 * test_cuda_ffi.c - the CUDA tap handler (hcbtap/hcbtap_cuda.c) on a
 * machine without a GPU: hand-built XLA FFI call frames, the real
 * libhcbtap (its emit functions wrapped with ld --wrap to see each packet
 * as it is fired), and tests/tools/fake_cudart.c in place of libcudart,
 * loaded through the handler's own dlopen path (HCBTAP_CUDART).  The tests
 * run in order and share the process: each uses its own device.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ffi_util.h"
#include "hcbtap.h"
#include "hcbtap_cupti.h"
#include "../tools/ffi_frame.h"

XLA_FFI_Error *hcbtap_ffi_tap_cuda(XLA_FFI_CallFrame *call);

/* ---- packets, as libhcbtap fires them ---- */

struct pkt {
	uint32_t consumer;
	unsigned int device;
	int64_t seq;
	int lost, reason;
	const void *leaf0;         /* where leaf 0 was read from */
	unsigned char head[32];    /* the first bytes of leaves 0 and 1 */
	unsigned char head1[16];
	uint64_t sum;              /* of all bytes */
};

static struct pkt pkts[4096];
static int npkts;

int64_t __real_hcbtap_emit_attached(uint32_t consumer, unsigned int device, const void *const *leaves);
int64_t __real_hcbtap_emit_lost(uint32_t consumer, unsigned int device, enum hcbtap_lost_reason r);

int64_t __wrap_hcbtap_emit_attached(uint32_t consumer, unsigned int device, const void *const *leaves)
{
	int64_t seq = __real_hcbtap_emit_attached(consumer, device, leaves);
	struct pkt *p = &pkts[npkts++];
	const uint64_t *lb;
	unsigned int n;
	uint64_t total;

	*p = (struct pkt){ .consumer = consumer, .device = device, .seq = seq };
	assert_int_equal(hcbtap_consumer_layout(consumer, &n, &lb, &total), 0);
	if (n > 0) {
		p->leaf0 = leaves[0];
		memcpy(p->head, leaves[0], lb[0] < 32 ? lb[0] : 32);
	}
	if (n > 1)
		memcpy(p->head1, leaves[1], lb[1] < 16 ? lb[1] : 16);
	for (unsigned int i = 0; i < n; i++)
		for (uint64_t k = 0; k < lb[i]; k++)
			p->sum += ((const unsigned char *)leaves[i])[k];
	return seq;
}

int64_t __wrap_hcbtap_emit_lost(uint32_t consumer, unsigned int device, enum hcbtap_lost_reason r)
{
	int64_t seq = __real_hcbtap_emit_lost(consumer, device, r);

	if (seq >= 0)
		pkts[npkts++] = (struct pkt){ .consumer = consumer, .device = device, .seq = seq,
					      .lost = 1, .reason = r };
	return seq;
}

/* ---- the stand-in runtime ---- */

static void *fake;
static int (*fake_run)(void *stream);
static void (*fake_fail)(const char *name, int err, int after);
static unsigned long (*fake_calls)(void);
static size_t (*fake_pending)(void);
static char *fake_log;

static void load_fake(void)
{
	if (fake)
		return;
	fake = dlopen(getenv("HCBTAP_CUDART"), RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(fake);
	fake_run = (int (*)(void *))dlsym(fake, "fake_cuda_run");
	fake_fail = (void (*)(const char *, int, int))dlsym(fake, "fake_cuda_fail");
	fake_calls = (unsigned long (*)(void))dlsym(fake, "fake_cuda_calls");
	fake_pending = (size_t (*)(void))dlsym(fake, "fake_cuda_pending");
	fake_log = dlsym(fake, "fake_cupti_log");
	assert_true(fake_run && fake_fail && fake_calls && fake_pending && fake_log);
}

/* ---- consumers and device memory ---- */

static uint32_t small_id, big_id, empty_id;
static volatile unsigned short *sem;

#define BIG (300 * 1000)

static void attach(int on)
{
	*sem = on;
}

static int setup(void **state)
{
	struct hcbtap_leaf small[2] = {
		{ .dtype = HCBTAP_FLOAT32, .ndim = 1, .dims = { 4 } },
		{ .dtype = HCBTAP_INT32, .ndim = 1, .dims = { 3 } },
	};
	struct hcbtap_leaf big = { .dtype = HCBTAP_UINT8, .ndim = 1, .dims = { BIG } };
	struct hcbtap_leaf empty = { .dtype = HCBTAP_FLOAT32, .ndim = 1, .dims = { 0 } };

	(void)state;
	sem = (volatile unsigned short *)hcbtap_semaphore;
	if (hcbtap_register("small", NULL, "( * * )", small, 2, &small_id) ||
	    hcbtap_register("big", NULL, "*", &big, 1, &big_id) ||
	    hcbtap_register("empty", NULL, "*", &empty, 1, &empty_id))
		return -1;
	return 0;
}

/* A "device" copy of the small consumer's leaves, filled from k. */
struct small_dev {
	float f[4];
	int32_t i[3];
};

static void fill(struct small_dev *d, int k)
{
	for (int j = 0; j < 4; j++)
		d->f[j] = (float)(k * 10 + j);
	for (int j = 0; j < 3; j++)
		d->i[j] = k * 100 + j;
}

static XLA_FFI_Error *tap_small(int device, void *stream, struct small_dev *d)
{
	static struct frame f;
	void *data[3] = { NULL, d->f, d->i };   /* an ordered tap's token first */

	return hcbtap_ffi_tap_cuda(frame(&f, device, stream, small_id, 2, 2, 3, data));
}

static void assert_small(const struct pkt *p, unsigned int device, int64_t seq, int k,
			 const struct small_dev *d)
{
	struct small_dev want;

	fill(&want, k);
	assert_false(p->lost);
	assert_int_equal(p->consumer, small_id);
	assert_int_equal(p->device, device);
	assert_int_equal(p->seq, seq);
	assert_memory_equal(p->head, want.f, sizeof(want.f));
	assert_memory_equal(p->head1, want.i, sizeof(want.i));
	/* read from staging memory, not from the device's buffer */
	assert_ptr_not_equal(p->leaf0, d->f);
}

/* ---- the tests ---- */

static void test_detached_does_nothing(void **state)
{
	struct small_dev d;

	(void)state;
	fill(&d, 1);
	attach(0);
	for (int i = 0; i < 3; i++)
		assert_null(tap_small(0, (void *)0x5000, &d));
	/* not a call into the runtime: it was not even loaded */
	assert_null(dlopen(getenv("HCBTAP_CUDART"), RTLD_NOW | RTLD_NOLOAD));
	assert_int_equal(npkts, 0);
	assert_int_equal(hcbtap_issued(0), 0);
}

static void test_attached_copies_then_emits_in_order(void **state)
{
	static struct small_dev d[3];
	void *stream = (void *)0x5000;

	(void)state;
	attach(1);
	for (int k = 0; k < 3; k++) {
		fill(&d[k], k);
		assert_null(tap_small(0, stream, &d[k]));
	}
	load_fake();
	/* queued, not done: 2 copies and a host function a tap */
	assert_int_equal(npkts, 0);
	assert_int_equal(fake_pending(), 9);
	assert_int_equal(fake_run(stream), 9);
	assert_int_equal(npkts, 3);
	for (int k = 0; k < 3; k++)
		assert_small(&pkts[k], 0, k, k, &d[k]);
	assert_int_equal(hcbtap_issued(0), 3);
	/* the CUPTI hooks heard of each tap's copies, then of its seq */
	assert_non_null(strstr(fake_log, "begin 1 0 2\nend\n"));
	assert_non_null(strstr(fake_log, "emitted 3 0 2\n"));
}

static void test_exhausted_staging_drops_and_counts(void **state)
{
	static unsigned char big[4][BIG];
	static struct frame f;
	void *stream = (void *)0x5001;

	(void)state;
	npkts = 0;
	for (int k = 0; k < 4; k++) {
		void *data[1] = { big[k] };

		memset(big[k], k + 1, BIG);
		/* 1 MiB of staging (HCBTAP_CUDA_STAGING_MB=1): three fit */
		assert_null(hcbtap_ffi_tap_cuda(frame(&f, 1, stream, big_id, 1, 2, 1, data)));
	}
	assert_int_equal(npkts, 0);
	assert_int_equal(fake_run(stream), 3 * 2 + 1);
	assert_int_equal(npkts, 4);
	for (int k = 0; k < 3; k++) {
		assert_false(pkts[k].lost);
		assert_int_equal(pkts[k].seq, k);
		assert_int_equal(pkts[k].sum, (uint64_t)(k + 1) * BIG);
	}
	/* the fourth is lost in its place: it took seq 3 */
	assert_true(pkts[3].lost);
	assert_int_equal(pkts[3].reason, HCBTAP_LOST_NO_STAGING);
	assert_int_equal(pkts[3].seq, 3);
	assert_int_equal(hcbtap_issued(1), 4);
	/* the room came back */
	{
		void *data[1] = { big[3] };

		assert_null(hcbtap_ffi_tap_cuda(frame(&f, 1, stream, big_id, 1, 2, 1, data)));
		fake_run(stream);
		assert_int_equal(npkts, 5);
		assert_false(pkts[4].lost);
		assert_int_equal(pkts[4].seq, 4);
		assert_int_equal(pkts[4].sum, (uint64_t)4 * BIG);
	}
}

static void test_cuda_errors_are_ffi_errors(void **state)
{
	struct small_dev d;
	void *stream = (void *)0x5002;
	char msg[256];

	(void)state;
	npkts = 0;
	fill(&d, 7);
	/* the tap's second copy fails: an error now, a lost packet in order */
	fake_fail("cudaMemcpyAsync", 700, 1);
	assert_int_equal(take_error(tap_small(2, stream, &d), msg, sizeof(msg)),
			 XLA_FFI_Error_Code_INTERNAL);
	assert_string_equal(msg, "hcbtap_tap (CUDA): cudaMemcpyAsync failed: fake CUDA error 700 (CUDA error 700)");
	assert_int_equal(npkts, 0);
	fake_run(stream);
	assert_int_equal(npkts, 1);
	assert_true(pkts[0].lost);
	assert_int_equal(pkts[0].reason, HCBTAP_LOST_DEVICE_ERROR);
	assert_non_null(strstr(fake_log, "abandoned 2000000000001\n"));
	/* the host function cannot be queued: lost at once, room back after
	 * waiting for the copies already queued */
	fake_fail("cudaLaunchHostFunc", 801, 0);
	assert_int_equal(take_error(tap_small(2, stream, &d), msg, sizeof(msg)),
			 XLA_FFI_Error_Code_INTERNAL);
	assert_non_null(strstr(msg, "cudaLaunchHostFunc failed: fake CUDA error 801"));
	assert_int_equal(npkts, 2);
	assert_true(pkts[1].lost);
	assert_int_equal(fake_pending(), 0);
	assert_non_null(strstr(fake_log, "abandoned 2000000000002\n"));
	/* still works, in order after them */
	assert_null(tap_small(2, stream, &d));
	fake_run(stream);
	assert_int_equal(npkts, 3);
	assert_small(&pkts[2], 2, 2, 7, &d);
	/* no staging memory for a new device */
	fake_fail("cudaHostAlloc", 2, 0);
	assert_int_equal(take_error(tap_small(3, stream, &d), msg, sizeof(msg)),
			 XLA_FFI_Error_Code_INTERNAL);
	assert_non_null(strstr(msg, "cudaHostAlloc (staging memory) failed: fake CUDA error 2"));
}

static void test_detached_in_flight(void **state)
{
	struct small_dev d;
	void *stream = (void *)0x5004;

	(void)state;
	npkts = 0;
	fill(&d, 4);
	assert_null(tap_small(4, stream, &d));
	/* the tracer went away before the copy completed: no packet, no seq */
	attach(0);
	fake_run(stream);
	attach(1);
	assert_int_equal(npkts, 0);
	assert_int_equal(hcbtap_issued(4), 0);
	assert_null(tap_small(4, stream, &d));
	fake_run(stream);
	assert_int_equal(npkts, 1);
	assert_small(&pkts[0], 4, 0, 4, &d);
}

static void test_bad_calls(void **state)
{
	static struct frame f;
	struct small_dev d;
	void *data[2] = { d.f, d.i };
	unsigned long calls;
	char msg[256];

	(void)state;
	calls = fake_calls();
	assert_int_equal(take_error(hcbtap_ffi_tap_cuda(frame(&f, 5, NULL, small_id, 2, 1, 2, data)),
				    msg, sizeof(msg)), XLA_FFI_Error_Code_INVALID_ARGUMENT);
	assert_non_null(strstr(msg, "lacks its consumer and ntap"));
	assert_int_equal(take_error(hcbtap_ffi_tap_cuda(frame(&f, 5, NULL, 12345, 2, 2, 2, data)),
				    msg, sizeof(msg)), XLA_FFI_Error_Code_NOT_FOUND);
	assert_int_equal(take_error(hcbtap_ffi_tap_cuda(frame(&f, 5, NULL, small_id, 1, 2, 2, data)),
				    msg, sizeof(msg)), XLA_FFI_Error_Code_INVALID_ARGUMENT);
	assert_int_equal(take_error(hcbtap_ffi_tap_cuda(frame(&f, 5, NULL, small_id, 3, 2, 2, data)),
				    msg, sizeof(msg)), XLA_FFI_Error_Code_INVALID_ARGUMENT);
	/* none of them reached CUDA */
	assert_int_equal(fake_calls(), calls);
}

static void test_metadata_and_stages(void **state)
{
	static struct frame f;
	XLA_FFI_Metadata md = { .struct_size = XLA_FFI_Metadata_STRUCT_SIZE };
	XLA_FFI_Metadata_Extension ext = {
		.extension_base = { .struct_size = XLA_FFI_Metadata_Extension_STRUCT_SIZE,
				    .type = XLA_FFI_Extension_Metadata },
		.metadata = &md,
	};
	struct small_dev d;
	XLA_FFI_CallFrame *call;
	size_t pending;

	(void)state;
	fill(&d, 6);
	call = frame(&f, 6, (void *)0x5006, small_id, 2, 2, 0, NULL);
	call->extension_start = &ext.extension_base;
	assert_null(hcbtap_ffi_tap_cuda(call));
	assert_int_equal(md.api_version.major_version, XLA_FFI_API_MAJOR);
	assert_int_equal(md.api_version.minor_version, XLA_FFI_API_MINOR);
	/* stages other than execute do nothing */
	pending = fake_pending();
	{
		void *data[2] = { d.f, d.i };

		call = frame(&f, 6, (void *)0x5006, small_id, 2, 2, 2, data);
		call->stage = XLA_FFI_ExecutionStage_PREPARE;
		assert_null(hcbtap_ffi_tap_cuda(call));
	}
	assert_int_equal(fake_pending(), pending);
}

static void test_empty_leaves(void **state)
{
	static struct frame f;
	float nothing;
	void *data[1] = { &nothing };
	void *stream = (void *)0x5007;

	(void)state;
	npkts = 0;
	assert_null(hcbtap_ffi_tap_cuda(frame(&f, 7, stream, empty_id, 1, 2, 1, data)));
	/* nothing to copy: only the host function */
	assert_int_equal(fake_pending(), 1);
	fake_run(stream);
	assert_int_equal(npkts, 1);
	assert_false(pkts[0].lost);
	assert_int_equal(pkts[0].seq, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detached_does_nothing),
		cmocka_unit_test(test_attached_copies_then_emits_in_order),
		cmocka_unit_test(test_exhausted_staging_drops_and_counts),
		cmocka_unit_test(test_cuda_errors_are_ffi_errors),
		cmocka_unit_test(test_detached_in_flight),
		cmocka_unit_test(test_bad_calls),
		cmocka_unit_test(test_metadata_and_stages),
		cmocka_unit_test(test_empty_leaves),
	};

	if (!getenv("HCBTAP_CUDART") || !getenv("CUDA_INJECTION64_PATH")) {
		fprintf(stderr, "test_cuda_ffi: run it from meson test (HCBTAP_CUDART names the stand-in)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, NULL);
}
