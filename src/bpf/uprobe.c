/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "features.h"
#include "probes.h"
#include "uprobe.h"
#include "usdt.h"

/* A provider's USDT probe has a site or two; libbpf's own limit on a
 * probe's specs is the map's. */
#define MAX_SITES 64

/* A uprobe_multi link of prog on n offsets of path, each with its
 * semaphore (ref_ctr_offs: NULL, none) and cookie: its fd, or -errno. */
static int link_multi(struct bpf_program *prog, pid_t pid, const char *path, unsigned int n,
		      const uint64_t *offs, const uint64_t *ref_ctr_offs, const uint64_t *cookies,
		      uint32_t flags)
{
	struct hcb_uprobe_multi_attr um = {
		.prog_fd = (uint32_t)bpf_program__fd(prog),
		.attach_type = HCB_UPROBE_MULTI_ATTACH,
		.path = (uint64_t)(uintptr_t)path,
		.offsets = (uint64_t)(uintptr_t)offs,
		.ref_ctr_offsets = (uint64_t)(uintptr_t)ref_ctr_offs,
		.cookies = (uint64_t)(uintptr_t)cookies,
		.cnt = n,
		.multi_flags = flags,
		.pid = (uint32_t)pid,
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, &um, sizeof(um) < sizeof(attr) ? sizeof(um) : sizeof(attr));
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

int hcb_uprobe_attach(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
		      const char *path, const struct hcb_uprobe *u)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = u->cookie, .retprobe = u->retprobe);
	struct bpf_link *link;
	int fd;

	if (hcb_probes_multi(p)) {
		fd = link_multi(prog, pid, path, 1, &u->off, NULL, &u->cookie,
				u->retprobe ? HCB_UPROBE_MULTI_RETURN : 0);
		return fd < 0 ? fd : hcb_probes_own_fd(p, fd);
	}
	link = bpf_program__attach_uprobe_opts(prog, pid, path, u->off, &opts);
	return link ? hcb_probes_own(p, link) : (errno ? -errno : -EINVAL);
}

int hcb_uprobe_attach_apart(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
			    const char *path, const struct hcb_uprobe *u,
			    struct hcb_uprobe_link *out)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = u->cookie, .retprobe = u->retprobe);
	int fd;

	*out = HCB_UPROBE_LINK_NONE;
	if (hcb_probes_multi(p)) {
		fd = link_multi(prog, pid, path, 1, &u->off, NULL, &u->cookie,
				u->retprobe ? HCB_UPROBE_MULTI_RETURN : 0);
		if (fd < 0)
			return fd;
		out->fd = fd;
		return 0;
	}
	out->link = bpf_program__attach_uprobe_opts(prog, pid, path, u->off, &opts);
	return out->link ? 0 : (errno ? -errno : -EINVAL);
}

int hcb_uprobe_link_on(const struct hcb_uprobe_link *l)
{
	return l->link || l->fd >= 0;
}

void hcb_uprobe_link_destroy(struct hcb_uprobe_link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	bpf_link__destroy(l->link);
	*l = HCB_UPROBE_LINK_NONE;
}

/* The sites' specs into usdt.bpf.h's map, under ids of their own, and
 * those ids as the cookies its __bpf_usdt_spec_id() gives back. */
static int put_specs(struct hcb_probes *p, const struct hcb_usdt_site *sites, unsigned int n,
		     uint64_t *cookies)
{
	struct bpf_map *map = hcb_probes_skel(p)->maps.__bpf_usdt_specs;
	int first;

	if (bpf_map__value_size(map) != sizeof(sites[0].spec))
		return -EINVAL;
	first = hcb_probes_take_ids(p, n, bpf_map__max_entries(map));
	if (first < 0)
		return first;
	for (unsigned int i = 0; i < n; i++) {
		int id = first + (int)i;

		if (bpf_map_update_elem(bpf_map__fd(map), &id, &sites[i].spec, BPF_ANY))
			return -errno;
		cookies[i] = (uint64_t)id;
	}
	return 0;
}

static int usdt_multi(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
		      const char *path, const char *provider, const char *name)
{
	struct hcb_usdt_site *sites = calloc(MAX_SITES, sizeof(*sites));
	uint64_t offs[MAX_SITES], semas[MAX_SITES], cookies[MAX_SITES];
	int n = sites ? hcb_usdt_sites(path, provider, name, sites, MAX_SITES) : -ENOMEM;
	int err = n < 0 ? n : n == 0 ? -ENOENT : 0, fd;

	for (int i = 0; !err && i < n; i++) {
		offs[i] = sites[i].off;
		semas[i] = sites[i].sema_off;
	}
	if (!err)
		err = put_specs(p, sites, (unsigned int)n, cookies);
	free(sites);
	if (err)
		return err;
	fd = link_multi(prog, pid, path, (unsigned int)n, offs, semas, cookies, 0);
	return fd < 0 ? fd : hcb_probes_own_fd(p, fd);
}

int hcb_usdt_attach(struct hcb_probes *p, struct bpf_program *prog, pid_t pid,
		    const char *path, const char *provider, const char *name)
{
	struct bpf_link *link;

	if (hcb_probes_multi(p))
		return usdt_multi(p, prog, pid, path, provider, name);
	link = bpf_program__attach_usdt(prog, pid, path, provider, name, NULL);
	return link ? hcb_probes_own(p, link) : (errno ? -errno : -EINVAL);
}
