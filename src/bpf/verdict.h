/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - what the kernel's verifier said of a BPF program it was
 * asked to load: its log, and what of it a message needs (the line that
 * says why, the stack depths, the instructions it went through).
 *
 * A refusal is kept for the process (the last one), so that the words can
 * be found after the object that met it is gone: a session's BPF object is
 * closed on the way out of a failed attach, long before cli/ says why.
 */
#ifndef HCB_BPF_VERDICT_H
#define HCB_BPF_VERDICT_H

#include <errno.h>
#include <stddef.h>

/*
 * The -errno of a program the kernel refused to load (hcb_probes_load,
 * hcb_probes_verify): no other part of hcbtrace returns it, and the
 * kernel's bpf() never does, so it cannot be mistaken for the verifier's
 * own -EACCES, -EINVAL or -E2BIG, nor for a lack of privilege.
 */
#define HCB_REFUSED EBADSLT

/* The verifier's last lines kept of a log (its end: the error, then its
 * figures; a level-4 log is a few hundred bytes on every kernel). */
#define HCB_VERDICT_KEEP 4096

struct hcb_refusal {
	char prog[64];                 /* the program refused */
	int err;                       /* bpf(BPF_PROG_LOAD)'s -errno for it */
	char log[HCB_VERDICT_KEEP];    /* the verifier's last lines, "" if it wrote none */
};

/* Keep r as this process's last refusal; 0 into out, or -ENOENT if none
 * was met. */
void hcb_verdict_refused(const struct hcb_refusal *r);
int hcb_verdict_last(struct hcb_refusal *out);

/* The end of log that fits in cap bytes (a NUL included), from the start
 * of a line: into out. */
void hcb_verdict_keep(char *out, size_t cap, const char *log);
/* The line of log that says why it refused: its last line that is not
 * one of the verifier's figures; "" if there is none. */
void hcb_verdict_reason(const char *log, char *out, size_t cap);
/* The verifier's "stack depth" figures, one a subprogram ("176+24+16"),
 * "" if it gave none (a log below level 4). */
void hcb_verdict_stack(const char *log, char *out, size_t cap);
/* The instructions it processed, -1 if it did not say. */
long hcb_verdict_insns(const char *log);
/* 1 if log ends as the verifier ends a whole log (its "processed N insns"
 * line): what it holds is its true end, not a fixed buffer's start. */
int hcb_verdict_whole_end(const char *log);

#endif
