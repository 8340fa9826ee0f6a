/* SPDX-License-Identifier: MIT */
/*
 * words.h - the one wording, for every command, of what hcbtrace says
 * about a process it cannot reach or use, and of each provider's
 * particulars (what its programs are, why a barrier does not apply).
 */
#ifndef HCB_CLI_WORDS_H
#define HCB_CLI_WORDS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bpf/verdict.h"
#include "providers/provider.h"

struct cli_provider_words {
	const struct hcb_provider *prov;   /* whose words (its name is provider.h's) */
	const char *library;       /* what its library is called in messages: "jaxlib" */
	const char *reads;         /* what of it hcbtrace reads: "outfeed" */
	const char *through;       /* what the taps go through: "legacy outfeed" */
	const char *kind;          /* what its taps are, for `list` */
	const char *no_barrier;    /* why `hcbtrace barrier` does not apply, and what
				    * to use instead; NULL where it does */
	const char *not_read;      /* what else such a program may send that this
				    * provider does not read, said once as a session
				    * starts; NULL where nothing is */
};

/* The words for provider p (never NULL: plain words for NULL). */
const struct cli_provider_words *cli_provider_words(const struct hcb_provider *p);
/* Every provider's name, as a usage message lists them: "a, b or c". */
void cli_provider_names(char *out, size_t cap);

/*
 * Say why process pid cannot be traced (err from hcb_capture_attach or a
 * provider's find; ti as far as it was filled, or NULL) and return the
 * exit code: EXIT_TARGET for the process's fault, EXIT_SYSTEM for the
 * machine's (privilege, kernel).
 */
int cli_target_err(int err, pid_t pid, const struct hcb_target_info *ti);
/*
 * Say why the BPF side did not load (err from hcb_capture_new(), for a
 * ring of ring_bytes) and return the exit code: EXIT_SYSTEM.  Also what
 * bench/capture_bench says, which links this file for it.
 */
int cli_load_err(int err, uint64_t ring_bytes);
/*
 * The kernel refused one of the BPF programs (-HCB_REFUSED, the last
 * refusal of this process, hcb_verdict_last()): say which program, of
 * which provider (p; NULL if not known), and the verifier's line that says
 * why, in one message; under HCBTRACE_DEBUG the verifier's last lines after
 * it.  Returns EXIT_SYSTEM: the machine's, not the target's.
 */
int cli_refused_err(const struct hcb_provider *p);
/* "BPF program NAME (the verifier: WHY)", for messages, into out. */
void cli_refusal_words(char *out, size_t cap, const struct hcb_refusal *r);
/* The verifier's last lines (log) of prog, indented, to stderr. */
void cli_refusal_log(const char *prog, const char *log);
/* Each line of text to f after indent, shown as cli_vis() shows it. */
void cli_print_lines(FILE *f, const char *indent, const char *text);
/* This kernel's release, for messages: "6.1.0-57-amd64" ("?" if unknown). */
const char *cli_kernel_release(void);

/* Say that the provider reading ti refused on its first call (its layout
 * check failed: why); returns EXIT_TARGET. */
int cli_target_refused(const struct hcb_target_info *ti, const char *why);

/* What a BPF feature (bpf/features.h) is called. */
const char *cli_feature_words(int f);

#endif
