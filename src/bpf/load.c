/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "features.h"
#include "load.h"
#include "verdict.h"

/*
 * libbpf stops at the first program the kernel refuses, closes what it
 * had loaded, and names that program only in a message: it is caught here
 * on its way to whatever print function was set (the engine's, which
 * shows libbpf's messages under HCBTRACE_DEBUG), during the load alone.
 */
static libbpf_print_fn_t passed_on;
static char failed[64];

static int catch_failed(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && !strcmp(fmt, "libbpf: prog '%s': BPF program load failed: %s\n")) {
		va_list name;

		va_copy(name, ap);
		snprintf(failed, sizeof(failed), "%s", va_arg(name, const char *));
		va_end(name);
	}
	return passed_on ? passed_on(level, fmt, ap) : 0;
}

/*
 * HCBTRACE_TEST_REFUSE=NAME, for tests only: the program NAME is loaded
 * so that every verifier refuses it, for the refusal of a real program to
 * be met on a kernel that accepts them all.  Its last exit becomes a jump
 * to a load through R0, appended (R0 is a scalar at every exit: refused
 * with -EACCES, "R0 invalid mem access"), so that no instruction moves and
 * libbpf's relocations still apply; without an exit in reach, the program
 * gets one it cannot reach ("unreachable insn", -EINVAL).
 */
static int refuse_for_test(struct bpf_program *prog)
{
	const char *name = getenv("HCBTRACE_TEST_REFUSE");
	size_t n = bpf_program__insn_cnt(prog), k = n;
	struct bpf_insn *insns;
	int err;

	if (!name || strcmp(name, bpf_program__name(prog)))
		return 0;
	insns = calloc(n + 2, sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
	while (k > 0 && insns[k - 1].code != (BPF_JMP | BPF_EXIT))
		k--;
	if (k > 0 && n - k < 0x7fff) {
		insns[k - 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = (__s16)(n - k) };
		insns[n++] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW };   /* r0 = *(u64 *)r0 */
	}
	insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	err = bpf_program__set_insns(prog, insns, n);
	free(insns);
	return err;
}

static int program_index(struct hcb_capture_bpf *skel, const char *name)
{
	struct bpf_program *prog;
	int i = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!strcmp(bpf_program__name(prog), name))
			return i;
		i++;
	}
	return -1;
}

/* Its log, as the verifier writes it. */
static int keep_log(struct hcb_load *l, struct bpf_program *prog, size_t i)
{
	if (!l->logs[i])
		l->logs[i] = malloc(l->bytes);
	if (!l->logs[i])
		return -ENOMEM;
	l->logs[i][0] = 0;
	if (bpf_program__set_log_buf(prog, l->logs[i], l->bytes) ||
	    bpf_program__set_log_level(prog, l->level))
		return -EINVAL;
	return 0;
}

/*
 * The programs named, and the exec watch if asked: a session verifies
 * only its provider's programs.  Those it says may fault pages in run
 * sleepable, where the kernel can, so that bpf_copy_from_user() can fault
 * in pages the target has not touched lately.  The flag is set here, never
 * by a section's name ("uprobe.s"), which libbpf would load sleepable
 * whatever the kernel has.
 */
static int named(const char *const *names, const char *name)
{
	for (size_t j = 0; names && names[j]; j++)
		if (!strcmp(names[j], name))
			return 1;
	return 0;
}

static int choose(struct hcb_capture_bpf *skel, const char *const *names,
		  const char *const *sleepable, struct hcb_load *l)
{
	struct bpf_program *prog;
	size_t i = 0;
	int err = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);
		int wanted = (l->exec_watch && prog == skel->progs.hcb_exec) || named(names, name);
		uint32_t flags = bpf_program__flags(prog) & ~BPF_F_SLEEPABLE;

		/* a provider's prepare() may have turned off one of its own
		 * that this target does not need */
		bpf_program__set_autoload(prog, wanted && bpf_program__autoload(prog));
		if (named(sleepable, name) && !l->no_sleep)
			flags |= BPF_F_SLEEPABLE;
		if (wanted)
			err = bpf_program__set_flags(prog, flags);
		if (!err && wanted && l->multi && bpf_program__type(prog) == BPF_PROG_TYPE_KPROBE)
			err = bpf_program__set_expected_attach_type(
				prog, (enum bpf_attach_type)HCB_UPROBE_MULTI_ATTACH);
		if (!err && wanted)
			err = keep_log(l, prog, i);
		if (!err && wanted)
			err = refuse_for_test(prog);
		if (err)
			return err;
		i++;
	}
	return 0;
}

/*
 * What a failed load was: the refusal of a program, or a lack of
 * privilege.  -EPERM is always privilege (the verifier too says so when a
 * program needs more than it has); -EACCES is privilege only when the
 * kernel turned the program away before the verifier wrote a word, as it
 * does without CAP_BPF and CAP_PERFMON, and the verifier's own "permission
 * denied" when it did.  Anything else a program met is its refusal, with
 * or without the verifier's words (a kernel that knows no sleepable
 * uprobes refuses the flag first).  A failure before the programs (maps,
 * BTF) names none, and stays as it is.
 */
static int told_apart(struct hcb_load *l, struct hcb_capture_bpf *skel, int err)
{
	struct hcb_refusal r = { .err = err };
	const char *log;

	if (!failed[0] || err == -EPERM)
		return err;
	log = hcb_load_log(l, skel, failed);
	if (err == -EACCES && !log[0])
		return err;
	snprintf(r.prog, sizeof(r.prog), "%s", failed);
	hcb_verdict_keep(r.log, sizeof(r.log), log);
	hcb_verdict_refused(&r);
	return -HCB_REFUSED;
}

int hcb_load(struct hcb_capture_bpf *skel, const char *const *names,
	     const char *const *sleepable, struct hcb_load *l)
{
	size_t n = 0;
	struct bpf_program *prog;
	int err;

	if (!l->level)
		l->level = HCB_LOAD_LEVEL;
	if (!l->bytes)
		l->bytes = HCB_LOAD_BYTES;
	bpf_object__for_each_program(prog, skel->obj)
		n++;
	if (!l->logs) {
		l->logs = calloc(n, sizeof(*l->logs));
		if (!l->logs)
			return -ENOMEM;
		l->nlogs = n;
	}
	/* no sleepable uprobes (before 6.0): the programs load as they are,
	 * and read only what is in memory (capture.bpf.h: hcb_no_sleep) */
	l->no_sleep = getenv("HCBTRACE_TEST_NOSLEEP") ||
		      hcb_feature_probe(HCB_FEAT_SLEEPABLE) == 0;
	skel->rodata->hcb_no_sleep = (uint32_t)l->no_sleep;
	/* a uprobe program is loaded for one way of attaching or the other,
	 * so the kernel is asked first (uprobe.h: why uprobe_multi where it can) */
	l->multi = hcb_feature_uprobe_multi_usable() == 1;
	err = choose(skel, names, sleepable, l);
	if (err)
		return err < 0 ? err : -EINVAL;
	failed[0] = 0;
	passed_on = libbpf_set_print(catch_failed);
	err = hcb_capture_bpf__load(skel);
	libbpf_set_print(passed_on);
	if (err)
		return told_apart(l, skel, err < 0 ? err : -EINVAL);
	return 0;
}

const char *hcb_load_log(const struct hcb_load *l, struct hcb_capture_bpf *skel, const char *name)
{
	int i = program_index(skel, name);

	if (i < 0 || (size_t)i >= l->nlogs || !l->logs[i])
		return "";
	return l->logs[i];
}

void hcb_load_free(struct hcb_load *l)
{
	for (size_t i = 0; i < l->nlogs; i++)
		free(l->logs[i]);
	free(l->logs);
	l->logs = NULL;
	l->nlogs = 0;
}
