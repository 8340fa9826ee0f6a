/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * usdt_regs.bpf.h - a USDT probe's first two arguments, read from the
 * registers they sit in.  libbpf's bpf_usdt_arg() looks its spec up and
 * reads the register with bpf_probe_read_kernel() at an offset the
 * verifier cannot see, for every argument: on a tap that is a tenth of
 * what hcbtrace adds.  Here the spec is looked up once and a register is a
 * plain load from the context at a constant offset; anything else (an
 * argument in memory, a narrower one, another architecture) takes
 * bpf_usdt_arg() as before.
 */
#ifndef HCB_USDT_REGS_BPF_H
#define HCB_USDT_REGS_BPF_H

#include <bpf/usdt.bpf.h>

#if defined(__TARGET_ARCH_x86)
/* The load is written out so that the compiler cannot fold the cases
 * into one load at a computed offset, which the verifier refuses. */
#define REG_CASE(r)							\
	case __builtin_offsetof(struct pt_regs, r):			\
		asm volatile("%[x] = *(u64 *)(%[c] + %[o])"		\
			     : [x] "=r"(x)				\
			     : [c] "r"(ctx),				\
			       [o] "i"(__builtin_offsetof(struct pt_regs, r))); \
		*v = x;							\
		return 0

/* 0 with the register's value in *v, or -1: not a whole-register arg */
static __always_inline int usdt_reg(struct pt_regs *ctx, const struct __bpf_usdt_arg_spec *a,
				    __u64 *v)
{
	__u64 x;

	if (a->arg_type != BPF_USDT_ARG_REG || a->arg_bitshift)
		return -1;
	switch (a->reg_off) {
	REG_CASE(ax); REG_CASE(bx); REG_CASE(cx); REG_CASE(dx);
	REG_CASE(si); REG_CASE(di); REG_CASE(bp); REG_CASE(sp);
	REG_CASE(r8); REG_CASE(r9); REG_CASE(r10); REG_CASE(r11);
	REG_CASE(r12); REG_CASE(r13); REG_CASE(r14); REG_CASE(r15);
	}
	return -1;
}
#undef REG_CASE
#else
static __always_inline int usdt_reg(struct pt_regs *ctx, const struct __bpf_usdt_arg_spec *a,
				    __u64 *v)
{
	return -1;
}
#endif

/* Arguments 0 and 1 of the probe that fired; one it does not have is 0. */
static __always_inline void usdt_args2(struct pt_regs *ctx, __u64 *a0, __u64 *a1)
{
	int id = __bpf_usdt_spec_id(ctx);
	struct __bpf_usdt_spec *spec;
	long v;

	*a0 = *a1 = 0;
	spec = id >= 0 ? bpf_map_lookup_elem(&__bpf_usdt_specs, &id) : NULL;
	if (!spec)
		return;
	if (spec->arg_cnt > 0 && usdt_reg(ctx, &spec->args[0], a0)) {
		bpf_usdt_arg(ctx, 0, &v);
		*a0 = v;
	}
	if (spec->arg_cnt > 1 && usdt_reg(ctx, &spec->args[1], a1)) {
		bpf_usdt_arg(ctx, 1, &v);
		*a1 = v;
	}
}

#endif
