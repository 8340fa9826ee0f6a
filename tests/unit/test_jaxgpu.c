/* SPDX-License-Identifier: MIT */
/*
 * test_jaxgpu.c - the jax-callback provider on CUDA (src/providers/jaxcb/gpu.h), with
 * no GPU: the finder and its proof against the real jax-cuda13-plugin
 * 0.11.2 wheel's cuda_plugin_extension.so (HCB_GPU_PLUGIN, fetched by
 * scripts/gpu-plugin; skipped, saying so, where it is absent), the same
 * file altered refused in one line; and the decoder fed what
 * src/providers/jaxcb/gpu.bpf.c sends for CUDA calls: naming, devices, two threads'
 * calls interleaved, accounting.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpf/ring.h"
#include "core/dtype.h"
#include "process/target.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/events.h"
#include "providers/jaxcb/ffi_abi.h"
#include "providers/jaxcb/gpu.h"
#include "text/idprint.h"
#include "testjaxffi.h"

/* The sites in jax-cuda13-plugin 0.11.2 (file offsets), read with objdump:
 * the handler, the body's call of cudaMemcpyAsync, and the instruction
 * after its first call of cudaStreamSynchronize. */
#define HANDLER_OFF 0x11eed0u
#define COPY_OFF 0x11b5eau
#define SYNC_OFF 0x11b6d4u
/* the handler's lea of the body (rdx, [rip - 0x42fd]) */
#define LEA_OFF 0x11efe6u

static const char *plugin(void)
{
	const char *p = getenv("HCB_GPU_PLUGIN");

	if (p && access(p, R_OK) == 0)
		return p;
	fprintf(stderr, "# no jax-cuda13-plugin 0.11.2 here (%s): run scripts/gpu-plugin\n",
		p ? p : "HCB_GPU_PLUGIN unset");
	return NULL;
}

static void test_sites_of_the_wheel(void **state)
{
	const char *p = plugin();
	struct hcb_jaxgpu_sites s;
	unsigned char b[5];
	char why[256];
	FILE *f;

	(void)state;
	if (!p) {
		skip();
		return;
	}
	assert_int_equal(hcb_jaxgpu_find_sites(p, &s, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(s.handler_off, HANDLER_OFF);
	assert_int_equal(s.copy_off, COPY_OFF);
	assert_int_equal(s.sync_off, SYNC_OFF);
	/* a call rel32 at the copy site; one ends where the sync site starts */
	f = fopen(p, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)s.copy_off, SEEK_SET), 0);
	assert_int_equal(fread(b, 1, 1, f), 1);
	assert_int_equal(b[0], 0xe8);
	assert_int_equal(fseek(f, (long)s.sync_off - 5, SEEK_SET), 0);
	assert_int_equal(fread(b, 1, 1, f), 1);
	assert_int_equal(b[0], 0xe8);
	fclose(f);
	assert_true(hcb_jaxgpu_is_library("/v/lib/python3.12/site-packages/jax_cuda13_plugin/"
					  "cuda_plugin_extension.so"));
	assert_false(hcb_jaxgpu_is_library("/v/site-packages/jaxlib/libjax_common.so"));
	assert_true(hcb_jaxgpu_is_pjrt("/s/jax_plugins/xla_cuda13/xla_cuda_plugin.so"));
}

/* A copy of the plugin with len bytes at off replaced: the finder's answer
 * and its words. */
static int altered(const char *p, long off, const unsigned char *bytes, size_t len, char *why,
		   size_t cap)
{
	char tmp[] = "/tmp/hcb_jaxgpu_XXXXXX";
	char cmd[4200];
	struct hcb_jaxgpu_sites s;
	int fd = mkstemp(tmp), err;
	FILE *f;

	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", p, tmp);
	assert_int_equal(system(cmd), 0);
	f = fopen(tmp, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	fclose(f);
	err = hcb_jaxgpu_find_sites(tmp, &s, why, cap);
	unlink(tmp);
	return err;
}

static void test_other_code_refused(void **state)
{
	static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	/* lea rdx, [rip - 0x42fc]: one byte past the body */
	static const unsigned char lea_off_by_one[] = { 0x48, 0x8d, 0x15, 0x04, 0xbd, 0xff, 0xff };
	const char *p = plugin();
	char why[256];

	(void)state;
	if (!p) {
		skip();
		return;
	}
	/* the copy is no call: the operands' copies are not where known */
	assert_int_equal(altered(p, COPY_OFF, nop5, sizeof(nop5), why, sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "calls cudaMemcpyAsync 0 times before cudaStreamSynchronize"));
	assert_null(strchr(why, '\n'));
	/* the handler binds another function */
	assert_int_equal(altered(p, LEA_OFF, lea_off_by_one, sizeof(lea_off_by_one), why,
				 sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "kXlaFfiPythonGpuCallback does not take the address of"));
}

/* A call record as gpu.bpf.c writes it: no thunk, no names. */
static struct hcb_ev_jcall gcall(uint32_t dev, uint64_t seq, uint32_t tid, uint64_t index,
				 uint32_t nargs, uint64_t total)
{
	struct hcb_ev_jcall e = {
		.type = HCB_EV_JCALL, .device = dev, .seq = seq, .ts_ns = 1000 + seq, .pid = 9,
		.tid = tid, .index = index, .total_bytes = total, .nargs = nargs,
		.handler = HCB_JAXFFI_PYTHON, .thunk_device = UINT32_MAX, .device_id = dev,
		.flags = HCB_JAXFFI_F_GPU | HCB_JAXFFI_F_INDEX,
	};

	return e;
}

/* A float32[3] and an int8[2] of device dev, from the host copies. */
static void feed_pair(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t tid,
		      const float *v, const int8_t *w)
{
	static const uint64_t d3[] = { 3 }, d2[] = { 2 };
	struct hcb_ev_jcall e = gcall(dev, seq, tid, 0, 2, 14);

	feed_call(x, &e);
	feed_arg(x, dev, seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, dev, seq, 0, 0, 14, v, 12);
	feed_arg(x, dev, seq, 1, JAXFFI_XLA_S8, 1, d2, 2);
	feed_data(x, dev, seq, 1, 12, 14, w, 2);
}

static void test_gpu_calls_decoded(void **state)
{
	static const float v[3] = { 1.5f, -2, 3 };
	static const int8_t w[2] = { -7, 9 };
	struct hcb_ev_jcall e = gcall(0, 0, 1, 2, 0, 0);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* the device not proven (the PJRT plugin's code not decoded): not shown */
	feed_call(x, &e);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	hcb_jaxffi_free(x);

	memset(&s, 0, sizeof(s));
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_device_proven(x);
	/* a call without operands (a token only): named after its index, on
	 * its device, and no problem for the thunk a GPU never has */
	e = gcall(1, 0, 1, 2, 0, 0);
	feed_call(x, &e);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.device, 1);
	assert_string_equal(s.consumer->name, "callback-2");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "unknown");
	assert_true(no_problems(&s));
	/* two operands: a tuple, the values the host copies held */
	feed_pair(x, 1, 1, 1, v, w);
	assert_int_equal(s.packets, 2);
	assert_string_equal(s.consumer->name, "callback-0");
	assert_int_equal(s.consumer->total_bytes, 14);
	assert_memory_equal(s.payload, v, 12);
	assert_memory_equal(s.payload + 12, w, 2);
	assert_non_null(strstr(s.text, "( [ 1.5 -2.   3. ] [-7  9] )"));
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);
}

/* Two threads' calls of one device, their records interleaved as two CPUs
 * submit them, out of seq order: each its own values; the figures. */
static void test_gpu_interleaved_and_counted(void **state)
{
	static const uint64_t d3[] = { 3 }, d5[] = { 5 };
	static const float a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };
	struct hcb_ev_jcall e1 = gcall(0, 1, 11, 0, 1, 12), e0 = gcall(0, 0, 12, 1, 1, 12);
	const struct hcb_stream_stats *st;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_device_proven(x);
	feed_call(x, &e1);
	feed_call(x, &e0);
	feed_arg(x, 0, 0, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_arg(x, 0, 1, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, 0, 0, 0, 12, b, 12);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.seq, 0);
	assert_string_equal(s.consumer->name, "callback-1");
	assert_memory_equal(s.payload, b, 12);
	feed_data(x, 0, 1, 0, 0, 12, a, 12);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.seq, 1);
	assert_int_equal(s.last.tid, 11);
	assert_memory_equal(s.payload, a, 12);
	/* a call whose bytes never come (the ring was full) counts at the end */
	e0 = gcall(0, 2, 12, 1, 1, 12);
	feed_call(x, &e0);
	feed_arg(x, 0, 2, 0, JAXFFI_XLA_F32, 1, d3, 12);
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 2);
	st = hcb_jaxffi_stats(x, 0);
	assert_int_equal(st->packets, 2);
	assert_int_equal(st->bytes, 24);
	assert_int_equal(st->first_seq, 0);
	assert_int_equal(st->last_seq, 1);
	assert_int_equal(s.problems[HCB_INCOMPLETE], 1);
	/* a 4-bit operand of an odd count, as jax copies it (rounded down): not
	 * the packed size, one malformed call, nothing shown */
	e0 = gcall(0, 3, 11, 0, 1, 2);
	feed_call(x, &e0);
	feed_arg(x, 0, 3, 0, JAXFFI_XLA_S4, 1, d5, 2);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_SHORT_PAYLOAD], 1);
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_of_the_wheel),
		cmocka_unit_test(test_other_code_refused),
		cmocka_unit_test(test_gpu_calls_decoded),
		cmocka_unit_test(test_gpu_interleaved_and_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
