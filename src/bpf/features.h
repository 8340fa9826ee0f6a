/* SPDX-License-Identifier: MIT */
/*
 * features.h - what this kernel lets hcbtrace's BPF side use, and what
 * this process may do with it: each found out by trying it (a tiny
 * program loaded, a map made, a probe attached), never read off the
 * kernel's version, which backports and configurations make a poor guide.
 * What `hcbtrace check` reports before it verifies the programs.
 */
#ifndef HCB_BPF_FEATURES_H
#define HCB_BPF_FEATURES_H

#include <stdint.h>

enum hcb_feature {
	HCB_FEAT_BPF,            /* the bpf() system call */
	HCB_FEAT_BTF,            /* the kernel's BTF (/sys/kernel/btf/vmlinux) */
	HCB_FEAT_RINGBUF,        /* the ring buffer map */
	HCB_FEAT_UPROBE,         /* uprobes: the uprobe PMU */
	HCB_FEAT_SLEEPABLE,      /* sleepable uprobe programs */
	HCB_FEAT_LOOP,           /* bpf_loop() */
	HCB_FEAT_COOKIE,         /* attach cookies: bpf_get_attach_cookie() */
	HCB_FEAT_TASK_STORAGE,   /* task local storage in uprobe programs */
	HCB_FEAT_COPY_FROM_USER, /* bpf_copy_from_user() in uprobe programs */
	HCB_FEAT_UPROBE_MULTI,   /* uprobe_multi links */
	HCB_FEAT_PRIV_STACK,     /* the JIT's private stack (x86-64) */
	HCB_FEAT_COUNT
};

struct hcb_feature_info {
	const char *key;         /* its name, for scripts: "ringbuf" */
	const char *since;       /* the Linux release that brought it: "5.8" */
	int needed;              /* 1: hcbtrace traces nothing without it */
};

const struct hcb_feature_info *hcb_feature_info(enum hcb_feature f);
/* 1: this kernel has it; 0: it has not; -errno: cannot tell (-EPERM,
 * -EACCES: this process may not load the program that would tell;
 * -EOPNOTSUPP: not on this machine's architecture). */
int hcb_feature_probe(enum hcb_feature f);

/* The capabilities tracing takes (capability.h numbers). */
enum hcb_cap {
	HCB_CAP_SYS_PTRACE = 19,   /* other users' processes */
	HCB_CAP_SYS_ADMIN = 21,    /* uprobes (perf_event_open), BPF before 5.8 */
	HCB_CAP_PERFMON = 38,      /* tracing programs (5.8) */
	HCB_CAP_BPF = 39,          /* bpf() (5.8) */
};

/* BPF_LINK_CREATE's uprobe_multi (Linux 6.6), which libbpf 1.1 and its
 * headers do not know: its attach type and its fields, after the four
 * that every link has (the kernel's include/uapi/linux/bpf.h). */
#define HCB_UPROBE_MULTI_ATTACH 48      /* BPF_TRACE_UPROBE_MULTI */
#define HCB_UPROBE_MULTI_RETURN 1u      /* BPF_F_UPROBE_MULTI_RETURN */
struct hcb_uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, multi_flags, pid;
};

/*
 * 1 if sessions attach by uprobe_multi links here, which need no
 * CAP_SYS_ADMIN (uprobe.h): the kernel has them (asked by a load when this
 * process may load, else by its BTF) and hcbtrace reads USDT arguments as
 * this architecture writes them (x86-64 alone); 0 if they attach by perf
 * events; -errno if it cannot tell.
 */
int hcb_feature_uprobe_multi_usable(void);

/* This process's effective capabilities, bit N for capability N. */
int hcb_feature_caps(uint64_t *effective);
/* May this process load a uprobe program?  1, or the load's -errno. */
int hcb_feature_can_load(void);
/* May it attach one?  A program put on a uprobe at a function of its own
 * that it never calls, and taken off.  1, or the -errno of the first step
 * that failed. */
int hcb_feature_can_attach(void);

#endif
