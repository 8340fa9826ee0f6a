/* SPDX-License-Identifier: MIT */
/*
 * test_usdt.c - a USDT probe's sites and argument specs as src/bpf/usdt.c
 * reads them for uprobe_multi links: notes' argument strings in each form
 * x86-64's sys/sdt.h writes, and ones libbpf would refuse too; the real
 * libhcbtap.so's hcbtap:packet, whose site must be the nop sys/sdt.h puts
 * there and whose semaphore the word the library reads.
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

#include <asm/ptrace.h>

#include "bpf/usdt.h"

static void test_args(void **state)
{
	struct hcb_usdt_spec s;

	(void)state;
	/* usdt.bpf.h's struct __bpf_usdt_spec, byte for byte */
	assert_int_equal(sizeof(s), 208);
	assert_int_equal(hcb_usdt_parse_args("-4@%edi 8@-16(%rbp) 8@(%rsp) 2@$71 1@%r9b", &s), 0);
	assert_int_equal(s.arg_cnt, 5);
	assert_int_equal(s.args[0].arg_type, HCB_USDT_REG);
	assert_int_equal(s.args[0].reg_off, offsetof(struct pt_regs, rdi));
	assert_true(s.args[0].arg_signed && s.args[0].arg_bitshift == 32);
	assert_int_equal(s.args[1].arg_type, HCB_USDT_REG_DEREF);
	assert_int_equal((int64_t)s.args[1].val_off, -16);
	assert_int_equal(s.args[1].reg_off, offsetof(struct pt_regs, rbp));
	assert_true(!s.args[1].arg_signed && s.args[1].arg_bitshift == 0);
	assert_int_equal(s.args[2].arg_type, HCB_USDT_REG_DEREF);
	assert_int_equal(s.args[2].val_off, 0);
	assert_int_equal(s.args[2].reg_off, offsetof(struct pt_regs, rsp));
	assert_int_equal(s.args[3].arg_type, HCB_USDT_CONST);
	assert_int_equal(s.args[3].val_off, 71);
	assert_int_equal(s.args[3].arg_bitshift, 48);
	assert_int_equal(s.args[4].reg_off, offsetof(struct pt_regs, r9));
	assert_int_equal(hcb_usdt_parse_args("", &s), 0);
	assert_int_equal(s.arg_cnt, 0);
	/* what no x86-64 register or size is, and more than 12 */
	assert_int_equal(hcb_usdt_parse_args("8@%xmm0", &s), -EINVAL);
	assert_int_equal(hcb_usdt_parse_args("3@%rax", &s), -EINVAL);
	assert_int_equal(hcb_usdt_parse_args("8@", &s), -EINVAL);
	assert_int_equal(hcb_usdt_parse_args("8@%rax junk", &s), -EINVAL);
	assert_int_equal(hcb_usdt_parse_args("1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al "
					     "1@%al 1@%al 1@%al 1@%al 1@%al", &s), -EINVAL);
}

static void test_libhcbtap(void **state)
{
	const char *path = getenv("HCB_LIBHCBTAP");
	struct hcb_usdt_site sites[4];
	unsigned char byte = 0;
	FILE *f;
	int n;

	(void)state;
	assert_non_null(path);
	n = hcb_usdt_sites(path, "hcbtap", "packet", sites, 4);
	assert_int_equal(n, 1);
	assert_int_equal(sites[0].spec.arg_cnt, 2);
	assert_int_equal(sites[0].spec.args[0].arg_type, HCB_USDT_REG);
	assert_int_not_equal(sites[0].sema_off, 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)sites[0].off, SEEK_SET), 0);
	assert_int_equal(fread(&byte, 1, 1, f), 1);
	fclose(f);
	assert_int_equal(byte, 0x90);
	/* another probe's name, another file's lack of notes, no file */
	assert_int_equal(hcb_usdt_sites(path, "hcbtap", "nosuch", sites, 4), 0);
	assert_int_equal(hcb_usdt_sites("/proc/self/exe", "hcbtap", "packet", sites, 4), 0);
	assert_int_equal(hcb_usdt_sites("/nonexistent", "hcbtap", "packet", sites, 4), -ENOENT);
	assert_int_equal(hcb_usdt_sites(path, "hcbtap", "packet", sites, 0), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_libhcbtap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
