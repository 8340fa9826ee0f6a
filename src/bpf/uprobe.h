/* SPDX-License-Identifier: MIT */
/*
 * uprobe.h - attaching a provider's program to a uprobe or a USDT probe
 * of one process, the one way its programs were loaded for (load.h).
 *
 * Where the kernel has uprobe_multi links (6.6), by BPF_LINK_CREATE
 * itself: libbpf 1.1 predates them, and they need no CAP_SYS_ADMIN, which
 * the uprobe PMU's perf_event_open() does on every kernel with the fix
 * for CVE-2025-38466.  A USDT probe's sites and argument specs are then
 * worked out here (usdt.h), as libbpf does for its own.  Elsewhere, by
 * libbpf's perf events, as before.
 */
#ifndef HCB_BPF_UPROBE_H
#define HCB_BPF_UPROBE_H

#include <stdint.h>
#include <sys/types.h>

struct hcb_probes;
struct bpf_program;

struct hcb_uprobe {
	uint64_t off;           /* the probed instruction's offset in the file */
	uint64_t cookie;        /* what bpf_get_attach_cookie() gives the program */
	int retprobe;           /* on the function's return instead */
};

/* prog on the uprobe u in the file at path, for process pid; the link is
 * the session's (hcb_probes_own).  0 or -errno. */
int hcb_uprobe_attach(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
		      const char *path, const struct hcb_uprobe *u);
/* A link its caller keeps, to take off before the session ends (the
 * text probe: textproof.c): a uprobe_multi link's fd, or libbpf's link. */
struct bpf_link;
struct hcb_uprobe_link {
	struct bpf_link *link;
	int fd;                 /* -1: none */
};
#define HCB_UPROBE_LINK_NONE ((struct hcb_uprobe_link){ .link = NULL, .fd = -1 })
/* As hcb_uprobe_attach, the link into *out instead of the session's. */
int hcb_uprobe_attach_apart(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
			    const char *path, const struct hcb_uprobe *u,
			    struct hcb_uprobe_link *out);
/* Whether l is on. */
int hcb_uprobe_link_on(const struct hcb_uprobe_link *l);
/* Take l off (the kernel waits for a grace period: a tenth of a second). */
void hcb_uprobe_link_destroy(struct hcb_uprobe_link *l);
/* prog on every site of the USDT probe provider:name in the file at
 * path, for process pid, its semaphore raised while attached.  0 or
 * -errno (-ENOENT: the file has no such probe). */
int hcb_usdt_attach(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
		    const char *path, const char *provider, const char *name);

#endif
