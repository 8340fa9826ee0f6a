/* SPDX-License-Identifier: MIT */
/* thunkprobe.c - the custom-call thunk's probe, off and on (thunkprobe.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "thunkprobe.h"

void hcb_jaxcb_thunk_init(struct hcb_jaxcb_thunk *t)
{
	*t = (struct hcb_jaxcb_thunk){ .link = HCB_UPROBE_LINK_NONE,
				       .going = HCB_UPROBE_LINK_NONE };
}

static int put_on(struct hcb_jaxcb_thunk *t)
{
	struct hcb_uprobe u = { .off = t->off };

	return hcb_uprobe_attach_apart(t->probes, hcb_probes_skel(t->probes)->progs.jaxffi_thunk,
				       t->pid, t->path, &u, &t->link);
}

int hcb_jaxcb_thunk_attach(struct hcb_jaxcb_thunk *t, struct hcb_probes *probes, pid_t pid,
			   const char *path, uint64_t off)
{
	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	t->probes = probes;
	t->pid = pid;
	t->off = off;
	return put_on(t);
}

static void *take_off(void *arg)
{
	hcb_uprobe_link_destroy(&((struct hcb_jaxcb_thunk *)arg)->going);
	return NULL;
}

/* The last taking off done with (its grace period over). */
static void join_off(struct hcb_jaxcb_thunk *t)
{
	if (t->taker_started)
		pthread_join(t->taker, NULL);
	t->taker_started = 0;
}

int hcb_jaxcb_thunk_set(void *ctx, int on)
{
	struct hcb_jaxcb_thunk *t = ctx;

	if (on == hcb_uprobe_link_on(&t->link))
		return 0;
	join_off(t);
	if (on) {
		t->attaches++;
		return put_on(t);
	}
	t->going = t->link;
	t->link = HCB_UPROBE_LINK_NONE;
	if (pthread_create(&t->taker, NULL, take_off, t) == 0)
		t->taker_started = 1;
	else
		take_off(t);
	return 0;
}

void hcb_jaxcb_thunk_close(struct hcb_jaxcb_thunk *t)
{
	join_off(t);
	hcb_uprobe_link_destroy(&t->link);
	free(t->path);
	t->path = NULL;
}
