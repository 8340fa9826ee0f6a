/* SPDX-License-Identifier: MIT */
/*
 * capture_acct.c - the capture engine's losses, barriers and session
 * files: acct.h's rules applied to a live session, drop records written
 * where losses happened, `hcbtrace barrier` served, and the session's
 * figures kept current for the barrier command to read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_impl.h"
#include "clock.h"
#include "target.h"

/* What the counters say device d lost so far, by cause. */
static void loss_seen(void *ctx, uint32_t d, struct hcb_loss_seen *out)
{
	struct hcb_capture *c = ctx;
	const struct hcb_stream_stats *s = c->prov->stats(c->state, d);
	struct hcb_dev_stats b = { 0 };

	hcb_probes_dev_stats(c->probes, d, &b);
	out->n[HCB_LOSS_RING] = b.drops;
	out->n[HCB_LOSS_UNREADABLE] = b.read_errors;
	out->n[HCB_LOSS_MALFORMED] = 0;
	for (int i = 0; s && i < HCB_DECODE_PROBLEMS; i++)
		out->n[HCB_LOSS_MALFORMED] += s->problems[i];
}

/* Device d's figures into the session's shared status. */
static void publish_dev(struct hcb_capture *c, uint32_t d)
{
	const struct hcb_acct_dev *a = &c->acct.dev[d];
	struct hcb_sess_dev *s;

	if (!c->sess)
		return;
	s = &hcb_sess_status(c->sess)->dev[d];
	__atomic_store_n(&s->through, hcb_acct_next(&c->acct, d), __ATOMIC_RELAXED);
	__atomic_store_n(&s->delivered, a->delivered, __ATOMIC_RELAXED);
	__atomic_store_n(&s->written, a->written, __ATOMIC_RELAXED);
	__atomic_store_n(&s->dropped, a->dropped, __ATOMIC_RELAXED);
}

/* Drop records for the losses of device d (unless the filter leaves the
 * device out: its losses are still counted). */
static int write_losses(struct hcb_capture *c, uint32_t d, const struct hcb_loss *l, unsigned int n)
{
	publish_dev(c, d);
	if (c->o.filter && !hcb_filter_device(c->o.filter, d))
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		struct hcb_record rec = { .kind = HCB_REC_DROP };
		int err;

		rec.drop.device = d;
		rec.drop.count = l[i].count;
		snprintf(rec.drop.reason, sizeof(rec.drop.reason), "%s", hcb_loss_reason(l[i].cause));
		err = hcb_capture_emit(c, &rec);
		if (err)
			return err;
	}
	return 0;
}

int hcb_capture_account(struct hcb_capture *c, uint32_t d, uint64_t seq)
{
	struct hcb_loss_source src = { loss_seen, c };
	struct hcb_loss lost[HCB_LOSS_CAUSES];
	unsigned int n = hcb_acct_packet(&c->acct, d, seq, &src, lost);

	return write_losses(c, d, lost, n);
}

/* Every seq of device d below upto has gone through the probe. */
static int account_upto(struct hcb_capture *c, uint32_t d, uint64_t upto)
{
	struct hcb_loss_source src = { loss_seen, c };
	struct hcb_loss lost[HCB_LOSS_CAUSES];
	unsigned int n = hcb_acct_upto(&c->acct, d, upto, &src, lost);

	return n ? write_losses(c, d, lost, n) : 0;
}

void hcb_capture_count_written(struct hcb_capture *c, uint32_t d)
{
	hcb_acct_written(&c->acct, d);
	if (c->sess)
		__atomic_store_n(&hcb_sess_status(c->sess)->dev[d].written, c->acct.dev[d].written,
				 __ATOMIC_RELAXED);
}

void hcb_capture_publish(struct hcb_capture *c)
{
	struct hcb_sess_shared *st;
	int err;

	err = hcb_sess_open(&c->sess, c->ti.pid, c->o.what ? c->o.what : "hcbtrace",
			    c->o.output ? c->o.output : "");
	if (err) {
		struct hcb_warning w = { .kind = HCB_WARN_UNPUBLISHED, .err = err };

		c->sess = NULL;
		hcb_capture_warn(c, &w);
		return;
	}
	st = hcb_sess_status(c->sess);
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
		st->dev[d].base = st->dev[d].through = c->acct.dev[d].base;
}

void hcb_capture_unpublish(struct hcb_capture *c)
{
	for (uint32_t d = 0; c->sess && d < HCB_MAX_DEVICES; d++)
		publish_dev(c, d);
	hcb_sess_close(c->sess);
	c->sess = NULL;
}

/* ---- barriers ---- */

static uint64_t handled(void *ctx, uint32_t d)
{
	struct hcb_capture *c = ctx;
	struct hcb_dev_stats b = { 0 };

	if (hcb_probes_dev_stats(c->probes, d, &b))
		return 0;
	return b.handled;
}

static uint64_t ring_written(void *ctx)
{
	return hcb_probes_ring_written(((struct hcb_capture *)ctx)->probes);
}

static uint64_t ring_read(void *ctx)
{
	return hcb_probes_ring_read(((struct hcb_capture *)ctx)->probes);
}

/* A barrier is served where packets are numbered as the probe counts them
 * (so that what is missing can be known) and the session still looks. */
static int serves_barriers(const struct hcb_capture *c)
{
	return c->sess && (c->prov->flags & HCB_PROV_SEQ) && !c->rx_err &&
	       c->stop != HCB_STOP_COUNT;
}

int hcb_capture_barrier_pending(const struct hcb_capture *c)
{
	return c->bar.req != 0;
}

/* Take up the newest request, if one is new: 1 if a barrier is being served. */
static int take_request(struct hcb_capture *c)
{
	uint64_t issued[HCB_MAX_DEVICES], req;

	if (c->bar.req)
		return 1;
	req = hcb_sess_requested(c->sess);
	if (req <= c->bar.done)
		return 0;
	/* every request up to req was made before the counts are read here,
	 * so this one round answers them all; when the target cannot be read
	 * (it is gone), what passed its probe is all it will ever have issued */
	if (!c->ti.counters || c->prov->issued(&c->ti, issued))
		for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
			issued[d] = handled(c, d);
	hcb_barrier_begin(&c->bar, req, issued);
	return 1;
}

/* Losses up to the barrier's counts, the barrier record, on disk. */
static int barrier_complete(struct hcb_capture *c)
{
	struct hcb_record rec = { .kind = HCB_REC_BARRIER };
	int err;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		err = account_upto(c, d, c->bar.issued[d]);
		if (err)
			return err;
	}
	rec.barrier.ts_ns = hcb_clock_ns(CLOCK_REALTIME);
	rec.barrier.taps = c->written;
	err = hcb_capture_emit(c, &rec);
	if (!err && c->rx.ops->sync) {
		err = c->rx.ops->sync(c->rx.ctx);
		if (err)
			c->rx_err = err;
	}
	if (err)
		return err;
	hcb_sess_done(c->sess, c->bar.req);
	hcb_barrier_answered(&c->bar);
	return 0;
}

int hcb_capture_serve_barrier(struct hcb_capture *c)
{
	struct hcb_barrier_view v = { handled, ring_written, ring_read, c };

	if (!serves_barriers(c) || !take_request(c))
		return 0;
	if (!hcb_barrier_advance(&c->bar, &c->acct, &v))
		return 0;
	return barrier_complete(c);
}

/* ---- the tail ---- */

/* Every device: what passed the probe and never arrived is lost. */
static int account_all(struct hcb_capture *c)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		uint64_t h = handled(c, d);
		int err;

		if (!h)
			continue;
		err = account_upto(c, d, h);
		if (err)
			return err;
	}
	return 0;
}

/* Where packets are not numbered as the probe counts them, losses are
 * known only as the decoder's problems, per device. */
static int problems_as_losses(struct hcb_capture *c)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		struct hcb_loss_seen seen;
		struct hcb_loss l = { HCB_LOSS_MALFORMED, 0 };
		int err;

		loss_seen(c, d, &seen);
		l.count = seen.n[HCB_LOSS_MALFORMED];
		if (!l.count)
			continue;
		c->acct.dev[d].dropped += l.count;
		err = write_losses(c, d, &l, 1);
		if (err)
			return err;
	}
	return 0;
}

int hcb_capture_write_tail(struct hcb_capture *c)
{
	struct hcb_record rec = { .kind = HCB_REC_END };
	struct hcb_capture_dev f;
	int err = 0;

	/* after -c the session stopped looking: what came later is not lost */
	if (c->stop != HCB_STOP_COUNT && (c->prov->flags & HCB_PROV_SEQ)) {
		err = account_all(c);
		/* the ring is drained: a barrier owed is answered if nothing it
		 * waits for is still missing (the target exited), else never */
		if (!err && serves_barriers(c) && take_request(c) &&
		    hcb_barrier_reachable(&c->bar, &c->acct))
			err = barrier_complete(c);
	} else if (c->stop != HCB_STOP_COUNT) {
		err = problems_as_losses(c);
	}
	if (err)
		return err;
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		if (hcb_capture_device(c, d, &f))
			continue;
		rec.end.taps += f.taps;
		rec.end.drops += f.dropped;
	}
	rec.end.end_ns = hcb_clock_ns(CLOCK_REALTIME);
	return hcb_capture_emit(c, &rec);
}
