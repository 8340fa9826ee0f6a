/* SPDX-License-Identifier: MIT */
/*
 * textprobe.h - the probes a jax.debug.print's text alone needs: the one
 * on the target's str concatenation (pycall.bpf.c's pytext_concat), which
 * every `a + b` of the program pays for, and the inner function's return
 * (jaxffi_inner_ret, a uretprobe: two traps a call), which ends a call's
 * text.  Attached apart from the session's, and taken off together once
 * the decoder needs them no more (textproof.c), beside the session: a
 * uprobe's removal waits for the kernel's grace period (0.12 to 0.14 s
 * each, measured on 6.18), while the session reads its ring.  Without
 * the text probe (--no-text, a Python not read, a test's made lines
 * alone) the return is not probed at all: a call goes at its entry.
 */
#ifndef HCB_JAXCB_TEXTPROBE_H
#define HCB_JAXCB_TEXTPROBE_H

#include <pthread.h>
#include <stdint.h>

#include "bpf/uprobe.h"

struct hcb_probes;
struct hcb_pyoffsets;
struct hcb_pyver;
struct hcb_target_info;

struct hcb_jaxcb_text {
	struct hcb_uprobe_link concat;      /* the text probe, while it is on */
	struct hcb_uprobe_link ret;         /* the return probe, while it is on */
	struct hcb_uprobe_link going[2];    /* being taken off (hcb_jaxcb_text_off) */
	pthread_t off;
	int off_started;
};

void hcb_jaxcb_text_init(struct hcb_jaxcb_text *t);
/* The text probe on the concatenation of the target's Python (v, laid
 * out as o; NULL: not read, pywhy says why), its str layout given to the
 * probe.  A Python that cannot be read is no failure: the taps go without
 * their text, and ti->notice says why, once. */
void hcb_jaxcb_text_attach(struct hcb_jaxcb_text *t, struct hcb_probes *probes,
			   struct hcb_target_info *ti, const struct hcb_pyver *v,
			   const struct hcb_pyoffsets *o, const char *pywhy);
/* Whether the text probe is on. */
int hcb_jaxcb_text_on(const struct hcb_jaxcb_text *t);
/* The inner function's return at file offset off, if the text probe is
 * on (else nothing: 0).  0 or -errno. */
int hcb_jaxcb_text_attach_ret(struct hcb_jaxcb_text *t, struct hcb_probes *probes,
			      const struct hcb_target_info *ti, uint64_t off);
/* Whether the return is probed. */
int hcb_jaxcb_text_ends(const struct hcb_jaxcb_text *t);
/* Both taken off, beside the session (the decoder's probe_off: ctx is t). */
void hcb_jaxcb_text_off(void *ctx);
/* What is left taken off, and the thread that took the rest joined. */
void hcb_jaxcb_text_close(struct hcb_jaxcb_text *t);
/* A test's prints shown with hcbtrace's made line alone, no text probe
 * (HCBTRACE_TEST_TEXT=format): the made lines against the program's own
 * (tests/bats/pytext.bats). */
int hcb_jaxcb_text_format_test(void);

#endif
