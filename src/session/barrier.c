/* SPDX-License-Identifier: MIT */
/* barrier.c - a barrier from the asking side (barrier.h). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "barrier.h"

uint64_t hcb_barrier_missing(const volatile struct hcb_sess_shared *st, uint32_t d, uint64_t issued)
{
	uint64_t through = __atomic_load_n(&st->dev[d].through, __ATOMIC_ACQUIRE);
	uint64_t base = st->dev[d].base;

	if (through < base)
		through = base;
	return issued > through ? issued - through : 0;
}

int hcb_barrier_open(struct hcb_barrier *b, pid_t target, const uint64_t *issued)
{
	int err;

	*b = (struct hcb_barrier){ .target = target, .issued = issued };
	err = hcb_sess_list(target, &b->peers, &b->n);
	if (err)
		return err;
	b->result = calloc(b->n ? b->n : 1, sizeof(*b->result));
	if (!b->result) {
		hcb_barrier_free(b);
		return -ENOMEM;
	}
	return 0;
}

static enum hcb_barrier_peer peer_check(const struct hcb_barrier *b, const struct hcb_sess_peer *p)
{
	enum hcb_sess_answer a = hcb_sess_answer(p);

	if (a == HCB_SESS_ANSWERED)
		return HCB_BARRIER_DONE;
	if (a == HCB_SESS_GONE) {
		/* it ended: enough if it got everything before it did */
		for (uint32_t d = 0; b->issued && d < HCB_MAX_DEVICES; d++)
			if (hcb_barrier_missing(p->st, d, b->issued[d]))
				return HCB_BARRIER_FAILED;
		return HCB_BARRIER_DONE;
	}
	return HCB_BARRIER_WAITING;
}

/* One look at every session still waiting. */
static void check_all(struct hcb_barrier *b)
{
	for (size_t i = 0; i < b->n; i++) {
		if (b->result[i] != HCB_BARRIER_WAITING)
			continue;
		b->result[i] = peer_check(b, &b->peers[i]);
		if (b->result[i] != HCB_BARRIER_WAITING)
			b->pending--;
		if (b->result[i] == HCB_BARRIER_FAILED)
			b->failed++;
	}
}

int hcb_barrier_wait(struct hcb_barrier *b, uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	/* a session ending now is seen below; one that cannot answer by the
	 * deadline gives the barrier up then */
	for (size_t i = 0; i < b->n; i++)
		hcb_sess_request(b->target, &b->peers[i], deadline_ns);
	b->pending = b->n;
	for (;;) {
		check_all(b);
		if (!b->pending)
			return 0;
		if (stop && *stop)
			return -EINTR;
		if (deadline_ns != UINT64_MAX && hcb_clock_ns(CLOCK_MONOTONIC) >= deadline_ns)
			return -ETIMEDOUT;
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	}
}

void hcb_barrier_free(struct hcb_barrier *b)
{
	hcb_sess_peers_free(b->peers, b->n);
	free(b->result);
	*b = (struct hcb_barrier){ 0 };
}
