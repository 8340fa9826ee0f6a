/* SPDX-License-Identifier: MIT */
/*
 * late.h - libraries a target maps after the session attached.
 *
 * `record -- CMD` attaches to an unmodified JAX program as soon as it maps
 * jaxlib (cli/launch.c), which is before jax starts its backends and, on a GPU
 * machine, loads its CUDA plugin: the CUDA callbacks' handler is then not
 * mapped yet.  A provider that can meet such a library later says so
 * (provider.h: find_late); while one of its slots waits, the session asks
 * it now and then (late.c says how often), and takes the library up in a
 * slot of its own once, with the checks an attach makes.  Whatever the new
 * library handled before its probes came on was not seen and is counted
 * nowhere: the warning says when they came on.
 */
#ifndef HCB_ENGINE_LATE_H
#define HCB_ENGINE_LATE_H

#include <stdint.h>

#include "providers/provider.h"
#include "capture.h"

struct hcb_out;
struct hcb_slots;

/* Attach the provider ti found in the next slot of the table (the
 * session's own attach, with its checks).  0 or -errno. */
typedef int (*hcb_late_attach_fn)(void *ctx, const struct hcb_target_info *ti);

struct hcb_late {
	const struct hcb_slots *slots;   /* whose providers are asked */
	hcb_late_attach_fn attach;       /* how a library found is taken up */
	void *ctx;
	const struct hcb_out *out;       /* who hears what came of it */
	uint64_t next_ns;                /* CLOCK_MONOTONIC: when to look again */
	uint64_t since_ns;               /* when it first looked */
	int none_waits;                  /* no slot waits for a library: look no more */
	unsigned char answered[HCB_CAPTURE_SLOTS];   /* slot i's provider gave its
						      * answer for good: asked no more */
};

/* Ask slots's providers, take up what they find through attach(ctx),
 * and tell out's warner. */
void hcb_late_init(struct hcb_late *l, const struct hcb_slots *slots, hcb_late_attach_fn attach,
		   void *ctx, const struct hcb_out *out);
/* A slot was attached: it may wait for a library of its own. */
void hcb_late_attached(struct hcb_late *l);
/* After every poll: ask, if it is time to. */
void hcb_late_look(struct hcb_late *l);

#endif
