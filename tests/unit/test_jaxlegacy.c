/* SPDX-License-Identifier: MIT */
/*
 * test_jaxlegacy.c - the jax-callback provider on jaxlib 0.4.26 to 0.5.3
 * (src/providers/jaxcb/legacy.h): the legacy callbacks' records as
 * legacy.bpf.c writes them, through the decoder and the layout check: the
 * device from the thunk or the classic runtime's run, sites named by
 * descriptor where no thunk names them, and every way a descriptor that
 * is not an xla::CpuCallback is refused, not shown.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/dtype.h"
#include "bpf/ring.h"
#include "providers/jaxcb/events.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/ffi_abi.h"
#include "text/idprint.h"
#include "testjaxffi.h"

#define DESC1 0x7f0000001000ull
#define DESC2 0x7f0000002000ull

/* A legacy call of the classic runtime: device from the run, no names. */
static struct hcb_ev_jcall classic(uint32_t dev, uint64_t seq, uint64_t desc)
{
	struct hcb_ev_jcall e = jcall(dev, seq, 1, "", 1, 12);

	memset(e.module, 0, sizeof(e.module));
	memset(e.target, 0, sizeof(e.target));
	e.index = ~0ull;
	e.flags = HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_RUN;
	e.thunk_device = UINT32_MAX;
	e.desc = desc;
	snprintf(e.pytype, sizeof(e.pytype), "function");
	return e;
}

/* A legacy call made by a thunk (jaxlib 0.4.31 on): the target name at
 * place 1 (96, as 0.4.33 on), jax's backend_config beside it. */
static struct hcb_ev_jcall thunked(uint32_t dev, uint64_t seq, uint64_t desc, const char *op)
{
	struct hcb_ev_jcall e = classic(dev, seq, desc);

	e.flags = HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_THUNK;
	e.thunk_device = dev;
	snprintf(e.op, sizeof(e.op), "%s", op);
	snprintf(e.module, sizeof(e.module), "jit_f");
	snprintf(e.target[1], sizeof(e.target[1]), "xla_python_cpu_callback");
	snprintf(e.config[1], sizeof(e.config[1]), "%llu", (unsigned long long)desc);
	return e;
}

/* One float32[3] operand with the Arg's strides. */
static int feed_f32(struct hcb_jaxffi *x, const struct hcb_ev_jcall *e, uint64_t stride)
{
	struct hcb_ev_jarg a = { .type = HCB_EV_JARG, .device = e->device, .seq = e->seq,
				 .dtype = JAXFFI_XLA_F32, .rank = 1, .nstrides = 1, .nbytes = 12,
				 .dims = { 3 }, .strides = { stride } };
	float v[3] = { 1, 2, (float)e->seq };
	int err = hcb_jaxffi_feed(x, e, sizeof(*e));

	if (!err)
		err = hcb_jaxffi_feed(x, &a, sizeof(a));
	if (!err)
		feed_data(x, e->device, e->seq, 0, 0, 12, v, 12);
	return err;
}

/* Classic runtime: the descriptor names the site, numbered by first sight. */
static void test_classic_sites(void **state)
{
	struct seen s = { 0 };
	struct hcb_ev_jcall e;
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &refusing_ops, &s), 0);
	e = classic(2, 0, DESC1);
	assert_int_equal(feed_f32(x, &e, 4), 0);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.device, 2);
	assert_string_equal(s.consumer->name, "callback.1");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "unknown");
	assert_non_null(strstr(s.text, "[1. 2. 0.]"));
	e = classic(0, 0, DESC2);
	assert_int_equal(feed_f32(x, &e, 4), 0);
	assert_string_equal(s.consumer->name, "callback.2");
	e = classic(1, 0, DESC1);
	assert_int_equal(feed_f32(x, &e, 4), 0);
	assert_string_equal(s.consumer->name, "callback.1");
	assert_int_equal(s.packets, 3);
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);
}

/* A thunk names the site, and its backend_config and both device
 * ordinals prove it; no device at all: not shown, counted. */
static void test_thunk_and_no_device(void **state)
{
	struct seen s = { 0 };
	struct hcb_ev_jcall e;
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &refusing_ops, &s), 0);
	e = classic(0, 0, DESC1);
	e.flags = HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_NODEV;
	assert_int_equal(feed_f32(x, &e, 4), 0);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_non_null(strstr(s.warning, "its device is not known"));
	e = thunked(3, 0, DESC1, "custom-call.4");
	assert_int_equal(feed_f32(x, &e, 4), 0);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.device, 3);
	assert_string_equal(s.consumer->name, "custom-call.4");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "jit_f");
	/* proven: a later call whose ordinals disagree is one bad call */
	e = thunked(3, 1, DESC1, "custom-call.4");
	e.thunk_device = 1;
	assert_int_equal(feed_f32(x, &e, 4), 0);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 1);
	assert_int_equal(s.refusals, 0);
	/* and one whose strides are not row-major */
	e = thunked(3, 2, DESC1, "custom-call.4");
	assert_int_equal(feed_f32(x, &e, 8), 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 2);
	assert_non_null(strstr(s.warning, "row-major"));
	assert_int_equal(s.packets, 1);
	hcb_jaxffi_free(x);
}

/* The first call of a session whose descriptor is no CpuCallback: one
 * refusal whose words have want, nothing shown, nothing more read. */
static void refused(struct hcb_ev_jcall e, uint64_t stride, const char *want)
{
	struct hcb_ev_jcall good = classic(0, 1, DESC1);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	assert_int_equal(hcb_jaxffi_new(&x, &refusing_ops, &s), 0);
	assert_int_equal(feed_f32(x, &e, stride), -EPROTO);
	assert_int_equal(s.refusals, 1);
	assert_non_null(strstr(s.warning, want));
	assert_int_equal(hcb_jaxffi_feed(x, &good, sizeof(good)), -EPROTO);
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

static void test_refused(void **state)
{
	struct hcb_ev_jcall e;

	(void)state;
	e = classic(0, 0, DESC1);
	e.layout = HCB_JAXLEGACY_BAD_DESC;
	refused(e, 4, "no whole arrays of Arg and Result");
	e.layout = HCB_JAXLEGACY_BAD_SIZE;
	refused(e, 4, "size in bytes is not its elements'");
	e.layout = HCB_JAXLEGACY_BAD_DIMS;
	refused(e, 4, "dims are inline");
	e = classic(0, 0, DESC1);
	snprintf(e.pytype, sizeof(e.pytype), "\x01\x02junk");
	refused(e, 4, "holds a \"??junk\" where its Python function must be");
	e = classic(0, 0, DESC1);
	refused(e, 12, "not its row-major byte strides");
	e = thunked(0, 0, DESC1, "custom-call.1");
	snprintf(e.config[1], sizeof(e.config[1]), "12345");
	refused(e, 4, "backend_config reads \"12345\", not the address");
	e = thunked(0, 0, DESC1, "custom-call.1");
	e.thunk_device = 7;
	refused(e, 4, "reads 0 in the thunk's custom call parameters and 7 in its collective");
	e = thunked(0, 0, DESC1, "custom-call.1");
	snprintf(e.module, sizeof(e.module), "\x7f\x10");
	refused(e, 4, "which are no HLO names");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classic_sites),
		cmocka_unit_test(test_thunk_and_no_device),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
