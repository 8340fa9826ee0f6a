/* SPDX-License-Identifier: MIT */
/*
 * late.c - libraries a target maps after the session attached (late.h).
 *
 * While a slot waits, its provider is asked every LATE_FAST_MS for the
 * first LATE_FAST_S seconds (jax loads its plugins when it starts its
 * backends, early in a program, and what runs on the GPU before the probes
 * are in place is lost), then every LATE_SLOW_MS: each time is a read of
 * /proc/PID/maps, which a session on a program that never loads one pays
 * for as long as it runs.
 */
#include <errno.h>
#include <string.h>

#include "core/clock.h"
#include "capture_impl.h"
#include "late.h"
#include "out.h"

#define LATE_FAST_MS 100ull
#define LATE_FAST_S 10ull
#define LATE_SLOW_MS 1000ull

void hcb_late_init(struct hcb_late *l, const struct hcb_slots *slots, hcb_late_attach_fn attach,
		   void *ctx, const struct hcb_out *out)
{
	*l = (struct hcb_late){ .slots = slots, .attach = attach, .ctx = ctx, .out = out };
}

void hcb_late_attached(struct hcb_late *l)
{
	l->none_waits = 0;
}

/* Ask slot i's provider once; 1 if it waits on. */
static int ask(struct hcb_late *l, unsigned int i)
{
	const struct hcb_slot *s = &l->slots->at[i];
	struct hcb_target_info ti = { .pid = s->ti.pid, .provider = s->prov };
	struct hcb_warning w = { .kind = HCB_WARN_LATE_ATTACH, .target = &ti };
	unsigned int at = l->slots->n;
	int err;

	memcpy(ti.comm, s->ti.comm, sizeof(ti.comm));
	err = s->prov->find_late(&s->ti, &ti);
	if (err == -ENOENT)
		return 1;
	l->answered[i] = 1;
	/* -ESRCH: the target is gone, and the session ends on that */
	if (err == -EOPNOTSUPP || err == -ESRCH)
		return 0;
	if (!err)
		err = at < HCB_CAPTURE_SLOTS ? l->attach(l->ctx, &ti) : -ENOSPC;
	if (!err) {
		/* the new slot is the library taken up: it waits for none */
		l->answered[at] = 1;
		w.target = &l->slots->at[at].ti;
	}
	w.err = err;
	w.detail = err == -ENOEXEC && ti.why[0] ? ti.why : NULL;
	hcb_out_warn(l->out, &w);
	return 0;
}

void hcb_late_look(struct hcb_late *l)
{
	uint64_t now;
	unsigned int waiting = 0, n;

	if (l->none_waits)
		return;
	now = hcb_clock_ns(CLOCK_MONOTONIC);
	if (now < l->next_ns)
		return;
	if (!l->since_ns)
		l->since_ns = now;
	l->next_ns = now + (now - l->since_ns < LATE_FAST_S * 1000000000ull ?
			    LATE_FAST_MS : LATE_SLOW_MS) * 1000000ull;
	/* only the slots there now: one attached here waits for nothing */
	n = l->slots->n;
	for (unsigned int i = 0; i < n; i++) {
		const struct hcb_slot *s = &l->slots->at[i];

		if (s->prov->find_late && !l->answered[i])
			waiting += (unsigned int)ask(l, i);
	}
	l->none_waits = !waiting;
}
