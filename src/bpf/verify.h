/* SPDX-License-Identifier: MIT */
/*
 * verify.h - one program of the BPF object put before this kernel's
 * verifier, as a session would load it and with nothing attached: what
 * `hcbtrace check` says of each provider's programs.
 */
#ifndef HCB_BPF_VERIFY_H
#define HCB_BPF_VERIFY_H

#include "verdict.h"

struct hcb_verdict {
	int loaded;                 /* 1: the verifier accepted it; 0: refused */
	int err;                    /* refused: bpf(BPF_PROG_LOAD)'s -errno */
	int sleepable;              /* loaded as a sleepable program */
	char reason[256];           /* refused: the verifier's line that says why ("" if none) */
	char stack[128];            /* the stack depth per subprogram ("176+24+16"), "" if not said */
	long insns;                 /* instructions processed, -1 if not said */
	int explained;              /* log is the end of a full (level 1) log */
	char log[HCB_VERDICT_KEEP]; /* the verifier's last lines */
};

/*
 * Load the program called name (hcb_exec: the exec watch) alone into a
 * new BPF object, sleepable if its provider says so and the kernel can
 * (load.h), attach nothing, and fill *v with the verifier's verdict.
 * explain: a refused program is verified again with the verifier's full
 * log (level 1), kept to its last lines, for the instructions that led to
 * the refusal; a log too long for a buffer of HCB_VERIFY_EXPLAIN bytes on a
 * kernel before 6.4 (which fills it from the start) leaves the short one.
 * 0 whether loaded or refused; -ENOENT: no such program; else the -errno
 * that kept it from the verifier (-EPERM, -EACCES: privilege).
 */
#define HCB_VERIFY_EXPLAIN (4u << 20)
int hcb_probes_verify(const char *name, int sleepable, int explain, struct hcb_verdict *v);

#endif
