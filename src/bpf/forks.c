/* SPDX-License-Identifier: MIT */
/* forks.c - record --follow's watch, user side (forks.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture.skel.h"
#include "forks.h"
#include "probes.h"

/* Forks a poll may fall behind by: a launcher starting thousands at once
 * loses some (counted), which a look through /proc makes up. */
#define FORKS_RING_BYTES (256u << 10)

struct hcb_forks {
	struct hcb_probes *probes;
	hcb_forks_fn fn;
	hcb_forks_exit_fn exit_fn;
	void *ctx;
};

static int take(void *ctx, const void *data, size_t len)
{
	struct hcb_forks *f = ctx;
	struct hcb_ev_fork e;

	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.type == HCB_EV_FORK && e.ppid)
		f->fn(f->ctx, (pid_t)e.pid, (pid_t)e.ppid);
	else if (e.type == HCB_EV_FOLLOW_EXEC)
		f->fn(f->ctx, (pid_t)e.pid, 0);
	else if (e.type == HCB_EV_FOLLOW_EXIT && f->exit_fn)
		f->exit_fn(f->ctx, (pid_t)e.pid, (int)e.pad);
	return 0;
}

/* The watch's programs (fork, exec, exit), loaded, this process followed,
 * each attached. */
static int start(struct hcb_forks *f)
{
	static const char *const programs[] = { "hcb_fork", "hcb_follow_exec",
						"hcb_follow_exit", NULL };
	struct hcb_capture_bpf *skel;
	struct bpf_link *link;
	__u32 self = (__u32)getpid();
	__u8 yes = 1;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return -ENOENT;
	err = hcb_probes_new(&f->probes, FORKS_RING_BYTES, take, f);
	if (!err)
		err = hcb_probes_load(f->probes, programs, NULL);
	if (err)
		return err;
	skel = hcb_probes_skel(f->probes);
	if (bpf_map__update_elem(skel->maps.follow_tgids, &self, sizeof(self), &yes, sizeof(yes),
				 BPF_ANY))
		return -errno;
	link = bpf_program__attach(skel->progs.hcb_fork);
	if (!link)
		return errno ? -errno : -EINVAL;
	err = hcb_probes_own(f->probes, link);
	if (err)
		return err;
	link = bpf_program__attach(skel->progs.hcb_follow_exec);
	if (!link)
		return errno ? -errno : -EINVAL;
	err = hcb_probes_own(f->probes, link);
	if (err)
		return err;
	link = bpf_program__attach(skel->progs.hcb_follow_exit);
	if (!link)
		return errno ? -errno : -EINVAL;
	return hcb_probes_own(f->probes, link);
}

int hcb_forks_new(struct hcb_forks **out, hcb_forks_fn fn, void *ctx)
{
	struct hcb_forks *f = calloc(1, sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	f->fn = fn;
	f->ctx = ctx;
	err = start(f);
	if (err) {
		hcb_forks_free(f);
		return err;
	}
	*out = f;
	return 0;
}

void hcb_forks_on_exit(struct hcb_forks *f, hcb_forks_exit_fn fn)
{
	f->exit_fn = fn;
}

int hcb_forks_follow(struct hcb_forks *f, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u8 yes = 1;

	if (bpf_map__update_elem(hcb_probes_skel(f->probes)->maps.follow_tgids, &tgid,
				 sizeof(tgid), &yes, sizeof(yes), BPF_ANY))
		return -errno;
	return 0;
}

int hcb_forks_fd(struct hcb_forks *f)
{
	return hcb_probes_fd(f->probes);
}

int hcb_forks_poll(struct hcb_forks *f)
{
	int n;

	/* a poll takes a batch at most: until none are left */
	do {
		n = hcb_probes_poll(f->probes, 0);
	} while (n > 0);
	return n < 0 ? n : 0;
}

void hcb_forks_forget(struct hcb_forks *f, pid_t pid)
{
	__u32 tgid = (__u32)pid;

	bpf_map__delete_elem(hcb_probes_skel(f->probes)->maps.follow_tgids, &tgid, sizeof(tgid), 0);
}

int hcb_forks_lost(struct hcb_forks *f)
{
	struct hcb_capture_bpf *skel = hcb_probes_skel(f->probes);
	int lost = skel->bss->follow_lost != 0;

	skel->bss->follow_lost = 0;
	return lost;
}

void hcb_forks_free(struct hcb_forks *f)
{
	if (!f)
		return;
	if (f->probes) {
		hcb_probes_detach(f->probes);
		hcb_probes_close(f->probes);
	}
	free(f);
}
