/* SPDX-License-Identifier: MIT */
/*
 * privilege.h - what each command needs of privilege, in one table
 * (privilege.c): the refusal messages, `hcbtrace check`'s report, the
 * README and the man page all say what it says, and
 * tests/bats/privilege.bats checks them against it.
 */
#ifndef HCB_CLI_PRIVILEGE_H
#define HCB_CLI_PRIVILEGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* When a capability is needed. */
enum cli_need {
	CLI_NEED_TRACE = 1,        /* to trace any process at all */
	CLI_NEED_OLD,              /* to trace, on kernels without uprobe_multi links */
	CLI_NEED_OTHERS,           /* to trace or read another user's processes */
	CLI_NEED_SIGNAL,           /* to signal another user's processes */
};

struct cli_cap {
	int cap;                   /* its number: CAP_BPF is 39 */
	const char *name;          /* "CAP_BPF" */
	const char *what;          /* what it allows hcbtrace, for check's report */
	enum cli_need when;
	const char *commands;      /* the commands that need it, space-separated */
};
/* The capabilities hcbtrace uses, ending with { 0 }. */
extern const struct cli_cap cli_caps[];

/* "run as root, or with CAP_BPF and CAP_PERFMON (plus ...)":
 * the privilege tracing takes, for every "not enough privilege" message. */
const char *cli_privilege_hint(void);
/*
 * The capabilities this process lacks of those tracing pid takes on this
 * kernel (pid 0: any process of this user), "CAP_SYS_ADMIN" (a kernel
 * without uprobe_multi links) or "CAP_BPF and CAP_PERFMON",
 * into out; "" when it has them all or cannot tell.
 */
void cli_missing_caps(pid_t pid, char *out, size_t cap);
/* The same for the effective set caps (bit N for capability N). */
void cli_missing_of(uint64_t caps, int others, char *out, size_t cap);

#endif
