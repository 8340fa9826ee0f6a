/* SPDX-License-Identifier: MIT */
/*
 * privilege.c - the one table of what hcbtrace needs of privilege, and
 * the words made from it.
 *
 * Tracing attaches uprobes.  Where the kernel has uprobe_multi links (6.6)
 * they are made by bpf() itself, which CAP_BPF and CAP_PERFMON allow
 * (bpf/uprobe.h).  Older kernels attach by perf_event_open() of the
 * uprobe PMU, which with the fix for CVE-2025-38466 (backported to the
 * 5.10, 5.15, 6.1, 6.6 and 6.12 stable kernels) takes CAP_SYS_ADMIN.
 * Loading the BPF programs and maps takes CAP_BPF and
 * CAP_PERFMON (CAP_SYS_ADMIN also grants both).  Reading another user's
 * process (its maps, its memory) takes CAP_SYS_PTRACE; signalling one
 * (--on-trigger stop, dump's SIGUSR1 to a session) CAP_KILL.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bpf/features.h"
#include "privilege.h"

/* The numbers are linux/capability.h's. */
const struct cli_cap cli_caps[] = {
	{ 39, "CAP_BPF", "bpf(): programs and maps", CLI_NEED_TRACE,
	  "attach record run view check" },
	{ 38, "CAP_PERFMON", "tracing programs", CLI_NEED_TRACE,
	  "attach record run view check" },
	{ 21, "CAP_SYS_ADMIN", "uprobes by perf events (kernels before 6.6)", CLI_NEED_OLD,
	  "attach record run view check" },
	{ 19, "CAP_SYS_PTRACE", "other users' processes", CLI_NEED_OTHERS,
	  "attach record view list barrier" },
	{ 5, "CAP_KILL", "signalling other users' processes", CLI_NEED_SIGNAL,
	  "record dump" },
	{ 0 }
};

static const char *const when_words[] = {
	[CLI_NEED_OLD] = "on kernels before 6.6",
	[CLI_NEED_OTHERS] = "for other users' processes",
	[CLI_NEED_SIGNAL] = "to signal them",
};

/* "A, B and C": the names of the capabilities needed at a time in whens
 * (a mask of 1 << enum cli_need) and not in have, into out */
static void names_of(unsigned whens, uint64_t have, char *out, size_t cap)
{
	size_t n = 0, len = 0, k = 0;
	const struct cli_cap *c;

	for (c = cli_caps; c->name; c++)
		n += (whens >> c->when & 1) && !(have >> c->cap & 1);
	out[0] = 0;
	for (c = cli_caps; c->name && len < cap; c++) {
		if (!(whens >> c->when & 1) || (have >> c->cap & 1))
			continue;
		k++;
		len += (size_t)snprintf(out + len, cap - len, "%s%s",
					k == 1 ? "" : k == n ? " and " : ", ", c->name);
	}
}

const char *cli_privilege_hint(void)
{
	static char hint[512];
	char trace[96], old[64], others[64], signal[64];

	if (hint[0])
		return hint;
	names_of(1u << CLI_NEED_TRACE, 0, trace, sizeof(trace));
	names_of(1u << CLI_NEED_OLD, 0, old, sizeof(old));
	names_of(1u << CLI_NEED_OTHERS, 0, others, sizeof(others));
	names_of(1u << CLI_NEED_SIGNAL, 0, signal, sizeof(signal));
	snprintf(hint, sizeof(hint), "run as root, or with %s (plus %s %s, %s %s, %s %s)", trace,
		 old, when_words[CLI_NEED_OLD], others, when_words[CLI_NEED_OTHERS], signal,
		 when_words[CLI_NEED_SIGNAL]);
	return hint;
}

void cli_missing_of(uint64_t caps, int others, char *out, size_t cap)
{
	/* this kernel's way of attaching: a kernel that cannot be asked is
	 * taken to be an old one, whose privilege covers both */
	int old = hcb_feature_uprobe_multi_usable() != 1;

	names_of(1u << CLI_NEED_TRACE | (old ? 1u << CLI_NEED_OLD : 0) |
		 (others ? 1u << CLI_NEED_OTHERS : 0), caps, out, cap);
}

void cli_missing_caps(pid_t pid, char *out, size_t cap)
{
	char path[32];
	struct stat st;
	uint64_t caps;
	int others;

	out[0] = 0;
	if (hcb_feature_caps(&caps))
		return;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	/* a process of another user: reading it takes CAP_SYS_PTRACE too */
	others = pid > 0 && stat(path, &st) == 0 && st.st_uid != geteuid();
	cli_missing_of(caps, others, out, cap);
}
