/* SPDX-License-Identifier: MIT */
/*
 * thunkprobe.h - the probe on xla::cpu::CustomCallThunk::Execute
 * (ffi.bpf.c's jaxffi_thunk), which every custom call of every executable
 * traps on (LAPACK's too), and which a callback's call needs only until
 * its site is named: from then on the call is named by its Python
 * callable (sites.c).  Attached apart from the session's links, taken off
 * and put on again as the decoder asks (thunkoff.c).  Taking a uprobe off
 * waits for the kernel's grace period (0.12 to 0.14 s, textprobe.h), so
 * it is done beside the session; putting one on is not waited for.
 */
#ifndef HCB_JAXCB_THUNKPROBE_H
#define HCB_JAXCB_THUNKPROBE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/uprobe.h"

struct hcb_probes;

struct hcb_jaxcb_thunk {
	struct hcb_probes *probes;
	pid_t pid;
	char *path;                       /* the library probed */
	uint64_t off;                     /* the thunk's Execute in it */
	struct hcb_uprobe_link link;      /* the probe, while it is on */
	struct hcb_uprobe_link going;     /* being taken off */
	pthread_t taker;                  /* the thread taking it off */
	int taker_started;
	unsigned int attaches;            /* times put on again */
};

void hcb_jaxcb_thunk_init(struct hcb_jaxcb_thunk *t);
/* The probe on at file offset off of the library at path, for process
 * pid.  0 or -errno. */
int hcb_jaxcb_thunk_attach(struct hcb_jaxcb_thunk *t, struct hcb_probes *probes, pid_t pid,
			   const char *path, uint64_t off);
/* The decoder's switch (thunkoff.c; ctx is t): on (1) or off (0).  0 or
 * -errno (on: it could not be attached again, and stays off). */
int hcb_jaxcb_thunk_set(void *ctx, int on);
/* The probe off, if on, and the thread that took it off joined. */
void hcb_jaxcb_thunk_close(struct hcb_jaxcb_thunk *t);

#endif
