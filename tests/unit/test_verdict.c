/* SPDX-License-Identifier: MIT */
/*
 * test_verdict.c - what the verifier's log says (src/bpf/verdict.h), on
 * logs Debian 12's 6.1 and 6.18 wrote for hcbtrace's programs: the line
 * that says why (the last before its figures, past its warnings), the
 * stack depths, the instructions processed, whether a log holds its true
 * end; the end kept of a long log starts at a line; the last refusal is
 * the process's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/verdict.h"

/* 6.1, log level 4 (hcbtap_packet) */
static const char refused61[] =
	"reg type unsupported for arg#2 function bpf_usdt_arg#89\n"
	"R2 unbounded memory access, use 'var &= const' or 'if (var < const)'\n"
	"verification time 306524 usec\n"
	"stack depth 176+24+16+64\n"
	"processed 6704 insns (limit 1000000) max_states_per_insn 19 total_states 426 "
	"peak_states 398 mark_read 41\n";

/* 6.1, log level 1 (jaxffi_call): no time, no stack */
static const char refused61_full[] =
	"; }\n"
	"84: (b4) w0 = 0                       ; R0_w=0 refs=16\n"
	"85: (95) exit\n"
	"Unreleased reference id=16 alloc_insn=271\n"
	"processed 4472 insns (limit 1000000) max_states_per_insn 4 total_states 313 "
	"peak_states 307 mark_read 69\n";

/* 6.18, log level 4, loaded */
static const char loaded618[] =
	"verification time 57154 usec\n"
	"stack depth 200+24+16+64\n"
	"processed 37043 insns (limit 1000000) max_states_per_insn 27 total_states 2280 "
	"peak_states 1492 mark_read 0\n";

static void test_reason(void **state)
{
	char why[256];

	(void)state;
	hcb_verdict_reason(refused61, why, sizeof(why));
	assert_string_equal(why, "R2 unbounded memory access, use 'var &= const' or 'if (var < const)'");
	hcb_verdict_reason(refused61_full, why, sizeof(why));
	assert_string_equal(why, "Unreleased reference id=16 alloc_insn=271");
	hcb_verdict_reason(loaded618, why, sizeof(why));
	assert_string_equal(why, "");
	hcb_verdict_reason("", why, sizeof(why));
	assert_string_equal(why, "");
	/* no newline at the end, blank lines between */
	hcb_verdict_reason("a\n\nBPF program is too large. Processed 1000001 insn\n\nprocessed 1000001 insns",
			   why, sizeof(why));
	assert_string_equal(why, "BPF program is too large. Processed 1000001 insn");
	/* cut to what fits */
	hcb_verdict_reason(refused61, why, 6);
	assert_string_equal(why, "R2 un");
}

static void test_figures(void **state)
{
	char stack[64];

	(void)state;
	hcb_verdict_stack(refused61, stack, sizeof(stack));
	assert_string_equal(stack, "176+24+16+64");
	hcb_verdict_stack(refused61_full, stack, sizeof(stack));
	assert_string_equal(stack, "");
	assert_int_equal(hcb_verdict_insns(loaded618), 37043);
	assert_int_equal(hcb_verdict_insns(refused61_full), 4472);
	assert_int_equal(hcb_verdict_insns("R0 invalid mem access 'scalar'\n"), -1);
}

static void test_whole_end(void **state)
{
	(void)state;
	assert_true(hcb_verdict_whole_end(refused61));
	assert_true(hcb_verdict_whole_end(refused61_full));
	/* a fixed buffer filled from the start (before 6.4) */
	assert_false(hcb_verdict_whole_end("0: (bf) r6 = r1\n1: (85) call bpf_get_current_pid_tgid#14\n2: (b"));
	assert_false(hcb_verdict_whole_end(""));
}

static void test_keep(void **state)
{
	char out[64];

	(void)state;
	hcb_verdict_keep(out, sizeof(out), "short\n");
	assert_string_equal(out, "short\n");
	/* a last line longer than the room: its end */
	hcb_verdict_keep(out, sizeof(out), refused61);
	assert_string_equal(out, refused61 + strlen(refused61) - 63);
	/* else the end, from a line's start */
	hcb_verdict_keep(out, sizeof(out), "aaaa\nbbbb\ncccc\n" "0123456789012345678901234567890123456789"
			 "0123456789\nthe end\n");
	assert_string_equal(out, "01234567890123456789012345678901234567890123456789\nthe end\n");
	hcb_verdict_keep(out, 20, "line one\nline two\nline three\n");
	assert_string_equal(out, "line three\n");
	hcb_verdict_keep(out, 8, "abcdefghijkl");
	assert_string_equal(out, "fghijkl");
}

static void test_last(void **state)
{
	struct hcb_refusal r = { .prog = "hcbtap_packet", .err = -EACCES, .log = "R2 unbounded\n" }, got;

	(void)state;
	assert_int_equal(hcb_verdict_last(&got), -ENOENT);
	hcb_verdict_refused(&r);
	assert_int_equal(hcb_verdict_last(&got), 0);
	assert_string_equal(got.prog, "hcbtap_packet");
	assert_int_equal(got.err, -EACCES);
	assert_string_equal(got.log, "R2 unbounded\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_whole_end),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_last),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
