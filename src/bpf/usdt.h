/* SPDX-License-Identifier: MIT */
/*
 * usdt.h - a USDT probe's sites in a file (its .note.stapsdt notes), each
 * with the file offsets a uprobe and its semaphore take and the spec of
 * its arguments as libbpf's usdt.bpf.h reads it: what libbpf's
 * bpf_program__attach_usdt() works out before it attaches by perf event,
 * for the uprobe_multi links it cannot make (uprobe.h).
 */
#ifndef HCB_BPF_USDT_H
#define HCB_BPF_USDT_H

#include <stdint.h>

/* usdt.bpf.h's struct __bpf_usdt_arg_spec and struct __bpf_usdt_spec,
 * the values of its __bpf_usdt_specs map (uprobe.c checks the size) */
enum { HCB_USDT_CONST, HCB_USDT_REG, HCB_USDT_REG_DEREF };
#define HCB_USDT_MAX_ARGS 12
struct hcb_usdt_arg {
	uint64_t val_off;
	uint32_t arg_type;      /* HCB_USDT_* */
	int16_t reg_off;        /* in struct pt_regs */
	uint8_t arg_signed;
	int8_t arg_bitshift;    /* 64 less its bits */
};
struct hcb_usdt_spec {
	struct hcb_usdt_arg args[HCB_USDT_MAX_ARGS];
	uint64_t usdt_cookie;
	int16_t arg_cnt;
};

struct hcb_usdt_site {
	uint64_t off;           /* the probed instruction's file offset */
	uint64_t sema_off;      /* its semaphore's file offset, 0: none */
	struct hcb_usdt_spec spec;
};

/* The sites of provider:name in the ELF file at path, at most max into
 * sites: how many (0: none), or -errno (-EOPNOTSUPP: not an x86-64 file,
 * or arguments written in a way libbpf would not read either). */
int hcb_usdt_sites(const char *path, const char *provider, const char *name,
		   struct hcb_usdt_site *sites, unsigned int max);
/* The file offset of code address vaddr (as the ELF file at path's
 * symbols give it) in the file, which a uprobe takes: 0 or -errno. */
int hcb_elf_file_offset(const char *path, uint64_t vaddr, uint64_t *off);
/* A note's argument string ("-4@%edi 8@-16(%rbp)") into spec: 0 or -EINVAL. */
int hcb_usdt_parse_args(const char *args, struct hcb_usdt_spec *spec);

#endif
