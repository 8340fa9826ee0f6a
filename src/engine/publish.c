/* SPDX-License-Identifier: MIT */
/* publish.c - a live session in the session files (publish.h). */
#include "session/session.h"
#include "capture_impl.h"
#include "out.h"
#include "publish.h"

void hcb_pub_init(struct hcb_pub *p, const struct hcb_slots *slots)
{
	*p = (struct hcb_pub){ .slots = slots };
}

void hcb_pub_open(struct hcb_pub *p, const char *what, const char *output, uint64_t flight_ring,
		  const struct hcb_out *out)
{
	const struct hcb_slot *s = hcb_slots_main(p->slots);
	struct hcb_sess_shared *st;
	int err;

	err = hcb_sess_open(&p->sess, s->ti.pid, what ? what : "hcbtrace", output ? output : "");
	if (err) {
		struct hcb_warning w = { .kind = HCB_WARN_UNPUBLISHED, .err = err };

		p->sess = NULL;
		hcb_out_warn(out, &w);
		return;
	}
	st = hcb_sess_status(p->sess);
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
		st->dev[d].base = st->dev[d].through = s->acct.dev[d].base;
	st->flight_ring = flight_ring;
}

/* The session files' devices are ids, as `hcbtrace barrier` compares them
 * with the target's issued counters: a slot's devices are there only
 * where its slots are the ids (libhcbtap's, whose targets count what they
 * issued; provider.h, HCB_PROV_DEVIDS). */
static int published(const struct hcb_pub *p, const struct hcb_slot *s, uint32_t d)
{
	return d < HCB_MAX_DEVICES && p->sess && s == hcb_slots_main(p->slots) &&
	       !(s->prov->flags & HCB_PROV_DEVIDS);
}

void hcb_pub_dev(struct hcb_pub *p, const struct hcb_slot *s, uint32_t d)
{
	const struct hcb_acct_dev *a;
	struct hcb_sess_dev *st;

	if (!published(p, s, d))
		return;
	a = &s->acct.dev[d];
	st = &hcb_sess_status(p->sess)->dev[d];
	__atomic_store_n(&st->through, hcb_acct_next(&s->acct, d), __ATOMIC_RELAXED);
	__atomic_store_n(&st->delivered, a->delivered, __ATOMIC_RELAXED);
	__atomic_store_n(&st->written, a->written, __ATOMIC_RELAXED);
	__atomic_store_n(&st->dropped, a->dropped, __ATOMIC_RELAXED);
}

void hcb_pub_written(struct hcb_pub *p, const struct hcb_slot *s, uint32_t d)
{
	if (published(p, s, d))
		__atomic_store_n(&hcb_sess_status(p->sess)->dev[d].written, s->acct.dev[d].written,
				 __ATOMIC_RELAXED);
}

void hcb_pub_firings(struct hcb_pub *p, uint64_t n)
{
	if (p->sess)
		__atomic_store_n(&hcb_sess_status(p->sess)->flight_firings, n, __ATOMIC_RELEASE);
}

void hcb_pub_close(struct hcb_pub *p)
{
	for (uint32_t d = 0; p->sess && d < HCB_MAX_DEVICES; d++)
		hcb_pub_dev(p, hcb_slots_main(p->slots), d);
	hcb_pub_free(p);
}

void hcb_pub_free(struct hcb_pub *p)
{
	hcb_sess_close(p->sess);
	p->sess = NULL;
}
