/* SPDX-License-Identifier: MIT */
/*
 * late.c - libraries a target maps after the session attached.
 *
 * `record -- CMD` attaches to an unmodified JAX program as soon as it maps
 * jaxlib (launch.c), which is before jax starts its backends and, on a GPU
 * machine, loads its CUDA plugin: the CUDA callbacks' handler is then not
 * mapped yet.  A provider that can meet such a library later says so
 * (provider.h: find_late); while one of its slots waits, the session asks
 * it every LATE_FAST_MS for the first LATE_FAST_S seconds (jax loads its
 * plugins when it starts its backends, early in a program, and what runs
 * on the GPU before the probes are in place is lost), then every
 * LATE_SLOW_MS: each time is a read of /proc/PID/maps, which a session on
 * a program that never loads one pays for as long as it runs.  It takes
 * the library up in a slot of its own once, with the checks an attach
 * makes.  Whatever the new library handled before its probes came on was
 * not seen and is counted nowhere: the warning says when they came on.
 */
#include <errno.h>
#include <string.h>

#include "core/clock.h"
#include "capture_impl.h"

#define LATE_FAST_MS 100ull
#define LATE_FAST_S 10ull
#define LATE_SLOW_MS 1000ull

/* Ask slot s's provider once; 1 if it waits on. */
static int ask(struct hcb_capture *c, struct hcb_slot *s)
{
	struct hcb_target_info ti = { .pid = s->ti.pid, .provider = s->prov };
	struct hcb_warning w = { .kind = HCB_WARN_LATE_ATTACH, .target = &ti };
	unsigned int at = c->slots.n;
	int err;

	memcpy(ti.comm, s->ti.comm, sizeof(ti.comm));
	err = s->prov->find_late(&s->ti, &ti);
	if (err == -ENOENT)
		return 1;
	s->late_done = 1;
	/* -ESRCH: the target is gone, and the session ends on that */
	if (err == -EOPNOTSUPP || err == -ESRCH)
		return 0;
	if (!err)
		err = c->slots.n < HCB_CAPTURE_SLOTS ? hcb_capture_attach_slot(c, &ti) : -ENOSPC;
	if (!err) {
		/* the new slot is the library taken up: it waits for none */
		c->slots.at[at].late_done = 1;
		w.target = &c->slots.at[at].ti;
	}
	w.err = err;
	w.detail = err == -ENOEXEC && ti.why[0] ? ti.why : NULL;
	hcb_out_warn(&c->out, &w);
	return 0;
}

void hcb_capture_late(struct hcb_capture *c)
{
	uint64_t now;
	unsigned int waiting = 0, n;

	if (c->late_done)
		return;
	now = hcb_clock_ns(CLOCK_MONOTONIC);
	if (now < c->late_next_ns)
		return;
	if (!c->late_since_ns)
		c->late_since_ns = now;
	c->late_next_ns = now + (now - c->late_since_ns < LATE_FAST_S * 1000000000ull ?
				 LATE_FAST_MS : LATE_SLOW_MS) * 1000000ull;
	/* only the slots there now: one attached here waits for nothing */
	n = c->slots.n;
	for (unsigned int i = 0; i < n; i++) {
		struct hcb_slot *s = &c->slots.at[i];

		if (s->prov->find_late && !s->late_done)
			waiting += (unsigned int)ask(c, s);
	}
	c->late_done = !waiting;
}
