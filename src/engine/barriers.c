/* SPDX-License-Identifier: MIT */
/* barriers.c - `hcbtrace barrier` served by a live session (barriers.h). */
#include "core/clock.h"
#include "session/session.h"
#include "barriers.h"
#include "capture_impl.h"
#include "losses.h"
#include "out.h"
#include "publish.h"

/* How long a barrier asked without a deadline (an older client) may wait. */
#define BARRIER_DEFAULT_NS (60ull * 1000000000u)

void hcb_barriers_init(struct hcb_barriers *b, struct hcb_slots *slots,
		       const struct hcb_losses *losses, struct hcb_pub *pub, struct hcb_out *out)
{
	*b = (struct hcb_barriers){ .slots = slots, .losses = losses, .pub = pub, .out = out };
}

static uint64_t handled(void *ctx, uint32_t d)
{
	return hcb_losses_handled(ctx, d);
}

static uint64_t ring_written(void *ctx)
{
	return hcb_probes_ring_written(((struct hcb_slot *)ctx)->probes);
}

static uint64_t ring_read(void *ctx)
{
	return hcb_probes_ring_read(((struct hcb_slot *)ctx)->probes);
}

/* A barrier is served where the target counts what it issued (so that
 * what is missing can be known) and the session still looks. */
static int serves_barriers(const struct hcb_barriers *b, int looking)
{
	return b->pub->sess && b->slots->issuer && !b->out->err && looking;
}

int hcb_barriers_pending(const struct hcb_barriers *b)
{
	return b->bar.req != 0;
}

/* Take up the newest request, if one is new: 1 if a barrier is being served. */
static int take_request(struct hcb_barriers *b)
{
	struct hcb_slot *s = b->slots->issuer;
	uint64_t issued[HCB_MAX_DEVICES], req;

	if (b->bar.req)
		return 1;
	req = hcb_sess_requested(b->pub->sess);
	if (req <= b->bar.done)
		return 0;
	/* every request up to req was made before the counts are read here,
	 * so this one round answers them all; when the target cannot be read
	 * (it is gone), what passed its probe is all it will ever have issued */
	if (!s->ti.counters || s->prov->issued(&s->ti, issued))
		for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
			issued[d] = hcb_losses_handled(s, d);
	hcb_barrier_begin(&b->bar, req, issued);
	return 1;
}

/* Losses up to the barrier's counts, the barrier record, on disk. */
static int barrier_complete(struct hcb_barriers *b, uint64_t written)
{
	struct hcb_record rec = { .kind = HCB_REC_BARRIER };
	int err;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		err = hcb_losses_upto(b->losses, b->slots->issuer, d, b->bar.issued[d]);
		if (err)
			return err;
	}
	rec.barrier.wall_ns = hcb_clock_ns(CLOCK_REALTIME);
	rec.barrier.taps = written;
	err = hcb_out_emit(b->out, &rec);
	if (!err)
		err = hcb_out_sync(b->out);
	if (err)
		return err;
	hcb_sess_done(b->pub->sess, b->bar.req);
	hcb_barrier_answered(&b->bar);
	return 0;
}

/* A barrier that every barrier that asked for it stopped waiting for
 * (barriers.h): given up, unanswered. */
static void give_up(struct hcb_barriers *b)
{
	struct hcb_warning w = { .kind = HCB_WARN_BARRIER_GIVEN_UP };
	struct hcb_slot *issuer = b->slots->issuer;
	uint64_t now;

	if (!b->bar.req || !b->pub->sess)
		return;
	now = hcb_clock_ns(CLOCK_MONOTONIC);
	if (b->bar.req != b->taken) {
		uint64_t d = hcb_sess_deadline(b->pub->sess);

		b->taken = b->bar.req;
		b->deadline = d ? d : now + BARRIER_DEFAULT_NS;
	}
	if (now < b->deadline)
		return;
	for (w.device = 0; w.device < HCB_MAX_DEVICES - 1; w.device++)
		if (issuer && b->bar.issued[w.device] > hcb_acct_next(&issuer->acct, w.device))
			break;
	hcb_barrier_answered(&b->bar);
	hcb_out_warn(b->out, &w);
}

int hcb_barriers_serve(struct hcb_barriers *b, uint64_t written, int looking)
{
	struct hcb_barrier_view v = { handled, ring_written, ring_read, b->slots->issuer };
	int err = 0;

	if (serves_barriers(b, looking) && take_request(b) &&
	    hcb_barrier_advance(&b->bar, &b->slots->issuer->acct, &v))
		err = barrier_complete(b, written);
	if (!err)
		give_up(b);
	return err;
}

int hcb_barriers_end(struct hcb_barriers *b, uint64_t written, int looking)
{
	if (serves_barriers(b, looking) && take_request(b) &&
	    hcb_barrier_reachable(&b->bar, &b->slots->issuer->acct))
		return barrier_complete(b, written);
	return 0;
}
