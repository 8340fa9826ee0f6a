/* SPDX-License-Identifier: MIT */
/*
 * load.h - loading the one BPF object's programs (probes.c): the ones a
 * session wants, each with the verifier's log kept in a bounded buffer,
 * and, when the kernel refuses one, which and why (verdict.h), told apart
 * from a lack of privilege.
 */
#ifndef HCB_BPF_LOAD_H
#define HCB_BPF_LOAD_H

#include <stddef.h>

struct hcb_capture_bpf;

/* At level 4 (BPF_LOG_STATS) the verifier writes its error, if any, and
 * its figures: a few hundred bytes, on every kernel, at no cost worth
 * counting.  Level 1 writes every instruction it goes through, megabytes
 * for a program that verifies; and a kernel before 6.4 fills a buffer
 * from the start and then fails the load with -ENOSPC, so that a log too
 * small for it would refuse a program the verifier accepted. */
#define HCB_LOAD_LEVEL 4
#define HCB_LOAD_BYTES (16u << 10)

struct hcb_load {
	unsigned int level;     /* the verifier's log level (BPF_LOG_* bits) */
	size_t bytes;           /* the log's size, per program */
	int exec_watch;         /* load hcb_exec besides the programs named */
	int no_sleep;           /* set by hcb_load: the kernel has no sleepable
				 * uprobe programs, and none is loaded so */
	int multi;              /* set by hcb_load: the uprobes are loaded for
				 * uprobe_multi links (uprobe.h), not perf events */
	char **logs;            /* one per program wanted, by its place in the object */
	size_t nlogs;
};

/*
 * Load the programs named (NULL-terminated; NULL: none but the exec
 * watch) of skel, opened and not yet loaded, and the exec watch if
 * l->exec_watch; the others are never verified.  Those of them also in
 * sleepable are loaded sleepable where the kernel can (l->no_sleep says
 * it cannot).  0; -HCB_REFUSED when the
 * kernel refused one (hcb_verdict_last() says which and why); else the
 * -errno of the load (-EPERM, -EACCES: not enough privilege).
 */
int hcb_load(struct hcb_capture_bpf *skel, const char *const *names,
	     const char *const *sleepable, struct hcb_load *l);
/* The verifier's log of the program called name in the last hcb_load ("" if
 * none was kept). */
const char *hcb_load_log(const struct hcb_load *l, struct hcb_capture_bpf *skel,
			 const char *name);
void hcb_load_free(struct hcb_load *l);

#endif
