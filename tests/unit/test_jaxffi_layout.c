/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_layout.c - the jax-callback provider's layout check
 * (src/providers/jaxcb/check.h): where a call's site comes from, the first call
 * proving the layout or refusing it (shifted by a word anywhere it reads),
 * later calls held to it, the one layout for every jaxlib, and the device
 * ordinal's offset decoded from the code that reads it.
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
#include "providers/jaxcb/ffi.h"
#include "providers/jaxcb/ffi_abi.h"
#include "providers/jaxcb/layout.h"
#include "text/idprint.h"
#include "testjaxffi.h"

/* feed a call of one float32[3] on device 0 */
static void feed_f32x3(struct hcb_jaxffi *x, const struct hcb_ev_jcall *e)
{
	static const uint64_t d3[] = { 3 };
	float v[3] = { 1, 2, 3 };

	feed_call(x, e);
	feed_arg(x, 0, e->seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, e->seq, 0, 0, 12, v, 12);
}

/* A call whose target name is at place (where jaxlib 0.6 keeps it: 1),
 * the other places reading what a std::string's bytes read as a name. */
static struct hcb_ev_jcall jcall_at(uint64_t seq, const char *op, unsigned int place)
{
	struct hcb_ev_jcall e = jcall(0, seq, 1, op, 1, 12);

	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "%s", i == place ?
			 "xla_ffi_python_cpu_callback" : i % 2 ? "" : "\x90\x1f\x7f");
	return e;
}

/* Where the call site comes from, and what is done without one. */
static void test_call_site(void **state)
{
	struct hcb_ev_jcall e;
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	/* no thunk ran on the thread (a call under way as hcbtrace attached)
	 * before the layout is proven: its device is not, it is not shown */
	e = jcall(0, 0, 1, "", 1, 12);
	e.flags = HCB_JAXFFI_F_INDEX;
	e.thunk_device = UINT32_MAX;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_non_null(strstr(s.warning, "the layout not yet proven"));
	/* the first call from a thunk proves it: the target name found where
	 * jaxlib 0.6 keeps it, the names HLO's, both ordinals 0 */
	e = jcall_at(1, "debug_print.1", 1);
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->name, "debug_print.1");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "jit_step");
	/* the thread's thunk was another custom call's: its names are not
	 * this one's, named after its index (the device proven before) */
	e = jcall(0, 2, 1, "lapack_sgesdd.2", 1, 12);
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "lapack_sgesdd_ffi");
	e.thunk_device = 5;   /* and its device is no check of this call's */
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	assert_string_equal(s.consumer->name, "callback-3");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "unknown");
	/* the two device ordinals disagree: this call is not trusted */
	e = jcall_at(3, "debug_print.1", 1);
	e.thunk_device = 1;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 1);
	assert_non_null(strstr(s.warning, "layout check failed: its device ordinal reads 0 in the "
				       "execution context and 1 in the thunk's execute parameters"));
	/* nor one whose target name is elsewhere than the layout proven */
	e = jcall_at(4, "debug_print.1", 0);
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 2);
	assert_non_null(strstr(s.warning, "at offset 88 of the thunk, not 96 as before"));
	/* nor one whose op name is no HLO name (a newline in it) */
	e = jcall_at(5, "debug_callback.9", 1);
	e.op[2] = '\n';
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 3);
	assert_non_null(strstr(s.warning, "\"de?ug_callback.9\""));
	/* the thunk's parameters unreadable: no check, the call stands */
	e = jcall_at(6, "debug_print.1", 1);
	e.thunk_device = UINT32_MAX;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 3);
	/* names as the target had them: unterminated, cut, partitioned */
	e = jcall_at(7, "debug_callback.9", 1);
	memset(e.module, 'm', sizeof(e.module));
	e.module_len = 300;
	snprintf(e.target[1], sizeof(e.target[1]), "xla_ffi_partitioned_python_cpu_callback");
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 4);
	assert_string_equal(s.consumer->name, "debug_callback.9");
	assert_int_equal(strlen(hcb_consumer_kwarg(s.consumer, "module")), HCB_JAXFFI_MODULE_MAX - 1);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	hcb_jaxffi_free(x);
}

/* First call of a session whose layout is shifted: e(seq 0) fed, then a
 * good call; nothing delivered, one refusal whose words have want. */
static void refused(struct hcb_ev_jcall e, const char *want)
{
	struct hcb_ev_jcall good = jcall_at(1, "debug_print.1", 0);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	assert_int_equal(hcb_jaxffi_new(&x, &refusing_ops, &s), 0);
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), -EPROTO);
	assert_int_equal(s.refusals, 1);
	assert_non_null(strstr(s.warning, want));
	/* nothing more is read, however good */
	assert_int_equal(hcb_jaxffi_feed(x, &good, sizeof(good)), -EPROTO);
	assert_int_equal(s.refusals, 1);
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

/* The layout check refuses a layout shifted by a word anywhere it reads. */
static void test_layout_refused(void **state)
{
	struct hcb_ev_jcall e;

	(void)state;
	/* target_name_ a word past every place read: the names read there are
	 * pieces of std::strings, never a target's */
	e = jcall_at(0, "debug_print.1", 0);
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "%s", i % 2 ? "jit_step" : "\x1b[2J");
	refused(e, "the thunk that called it holds no callback target's name at offset "
		"88, 96, 80 or 104");
	/* Thunk::Info a word off: op_name read from the middle of a string */
	e = jcall_at(0, "\x10\x8c\xf3\x01", 0);
	refused(e, "the thunk's op and module names read as \"????\"");
	e = jcall_at(0, "debug_print.1", 0);
	snprintf(e.module, sizeof(e.module), "jit step");
	refused(e, "which are no HLO names");
	/* the execute parameters' ordinal a word off: another number */
	e = jcall_at(0, "debug_print.1", 0);
	e.thunk_device = 1700000000;
	refused(e, "its device ordinal reads 0 in the execution context and 1700000000 in the "
		"thunk's execute parameters");
}

/* One layout for every jaxlib, whatever its version says; only where it
 * is proven (test_layout_refused) makes it hold. */
static void test_layout(void **state)
{
	const struct hcb_jaxffi_layout *l = hcb_jaxffi_layout();
	struct hcb_jaxffi_target t;

	(void)state;
	assert_non_null(strstr(hcb_jaxffi_supported(), "0.4.26 and later"));
	assert_string_equal(l->handler, "kXlaFfiPythonCpuCallback");
	assert_string_equal(l->buffer_handler, "kXlaBufferPythonCpuCallback");
	assert_string_equal(l->thunk_execute,
			    "_ZN3xla3cpu15CustomCallThunk7ExecuteERKNS0_5Thunk13ExecuteParamsE");
	assert_int_equal(l->thunk_arg, 1);
	assert_int_equal(l->op_off, 16);
	assert_int_equal(l->module_off, 48);
	/* 88 from jaxlib 0.7.1 on, 96 before; a word either side */
	assert_int_equal(l->target_offs[0], 88);
	assert_int_equal(l->target_offs[1], 96);
	assert_int_equal(l->params_ccp_off, 48);
	assert_int_equal(l->ctx_device_off, 8);
	assert_true(hcb_jaxffi_is_callback_target("xla_ffi_python_cpu_callback"));
	assert_true(hcb_jaxffi_is_callback_target("xla_ffi_partitioned_python_cpu_callback"));
	assert_true(hcb_jaxffi_is_callback_target("xla_buffer_python_cpu_callback"));
	/* the legacy custom call's (jaxlib before 0.6) */
	assert_true(hcb_jaxffi_is_callback_target("xla_python_cpu_callback"));
	assert_false(hcb_jaxffi_is_callback_target("xla_python_gpu_callback"));
	assert_false(hcb_jaxffi_is_callback_target(""));
	/* this test has no jaxlib mapped; a process that is not there */
	assert_int_equal(hcb_jaxffi_find(getpid(), &t), -ENOENT);
	assert_int_equal(hcb_jaxffi_find(0x3fffffff, &t), -ESRCH);
}

/* The device ordinal's offset, from the code that reads it. */
static void test_code_ordinal(void **state)
{
	static const struct { unsigned char code[16]; int want; } cases[] = {
		/* jaxlib 0.6.0 to 0.12.0.1 */
		{ { 0x55, 0x48, 0x89, 0xe5, 0x8b, 0x47, 0x08, 0x5d, 0xc3, 0xcc }, 8 },
		/* with CET, without a frame */
		{ { 0xf3, 0x0f, 0x1e, 0xfa, 0x8b, 0x47, 0x10, 0xc3 }, 16 },
		{ { 0x8b, 0x47, 0x00, 0xc3 }, 0 },
		/* anything else: another register, more work, a far offset, no ret */
		{ { 0x55, 0x48, 0x89, 0xe5, 0x8b, 0x47, 0x08, 0xc3 }, -1 },
		{ { 0x8b, 0x46, 0x08, 0xc3 }, -1 },
		{ { 0x8b, 0x47, 0x08, 0x01, 0xc0, 0xc3 }, -1 },
		{ { 0x8b, 0x47, 0x88, 0xc3 }, -1 },
		{ { 0x8b, 0x87, 0x08, 0x01, 0x00, 0x00, 0xc3 }, -1 },
		{ { 0 }, -1 },
	};
	char path[] = "/tmp/hcb-test-code-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char at[64];

		/* 100 bytes in, as a function is in its library */
		assert_int_equal(pwrite(fd, cases[i].code, sizeof(cases[i].code), 100), 16);
		snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
		assert_int_equal(hcb_jaxffi_code_ordinal(at, 100), cases[i].want);
	}
	/* past the end of the file */
	assert_int_equal(hcb_jaxffi_code_ordinal("/proc/self/exe", 1ull << 40), -1);
	assert_int_equal(hcb_jaxffi_code_ordinal("/no/such/file", 0), -1);
	close(fd);
}

/* With the context's ordinal proven by the library's code, a call no thunk
 * named is shown before any proves the layout: its values and device are
 * the C API's and that proven read's. */
static void test_device_proven(void **state)
{
	struct hcb_ev_jcall e = jcall(0, 0, 1, "", 1, 12);
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_device_proven(x);
	e.flags = HCB_JAXFFI_F_INDEX;
	e.thunk_device = UINT32_MAX;
	feed_f32x3(x, &e);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->name, "callback-3");
	/* and the first thunk's call still has to pass */
	e = jcall_at(1, "debug_print.1", 0);
	e.thunk_device = 2;
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), -EPROTO);
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_site),
		cmocka_unit_test(test_layout_refused),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_code_ordinal),
		cmocka_unit_test(test_device_proven),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
