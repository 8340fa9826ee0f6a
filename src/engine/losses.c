/* SPDX-License-Identifier: MIT */
/*
 * losses.c - the capture engine's losses, barriers and session
 * files: acct.h's rules applied to each attached provider (slot), drop
 * records written where losses happened, `hcbtrace barrier` served through
 * the slot whose target counts what it issued, and the session's figures
 * kept current for the barrier command to read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "target/target.h"
#include "capture_impl.h"

/* What the counters say device d of the slot lost so far, by cause. */
static void loss_seen(void *ctx, uint32_t d, struct hcb_loss_seen *out)
{
	struct hcb_slot *s = ctx;
	const struct hcb_stream_stats *st = s->prov->stats(s->state, d);
	struct hcb_dev_stats b = { 0 };

	hcb_probes_dev_stats(s->probes, d, &b);
	out->n[HCB_LOSS_RING] = b.drops;
	out->n[HCB_LOSS_UNREADABLE] = b.read_errors;
	out->n[HCB_LOSS_LAG] = b.lag_drops;
	out->n[HCB_LOSS_MALFORMED] = 0;
	for (int i = 0; st && i < HCB_DECODE_PROBLEMS; i++)
		out->n[HCB_LOSS_MALFORMED] += st->problems[i];
	/* what the emitter itself said it lost (a reason it did not name is
	 * no known cause: left to "not delivered") */
	out->n[HCB_LOSS_STAGING] = st ? st->lost[HCB_LOST_NO_STAGING] : 0;
	out->n[HCB_LOSS_DEVICE_COPY] = st ? st->lost[HCB_LOST_DEVICE_ERROR] : 0;
	out->n[HCB_LOSS_NO_RUNTIME] = st ? st->lost[HCB_LOST_NO_RUNTIME] : 0;
}

/* What the probe counted firing on device d of the slot, sent or lost:
 * its own counts, whatever seqs the target gave (hcbtap's handled is the
 * highest seq, the target's word).  A sent packet whose bytes could not
 * all be read counts twice: an upper bound, as the cap needs. */
static uint64_t fired(void *ctx, uint32_t d)
{
	struct hcb_slot *s = ctx;
	struct hcb_dev_stats b = { 0 };

	if (hcb_probes_dev_stats(s->probes, d, &b))
		return 0;
	return b.packets + b.drops + b.read_errors + b.lag_drops;
}

/* Losses told by a seq past what the probe handled: a decoder problem of
 * device d each (the summary counts them as bad), never drops. */
static void tell_lies(struct hcb_slot *s, uint32_t d, uint64_t lies_before)
{
	const struct hcb_acct_dev *v = &s->acct.dev[d];
	struct hcb_warning w = { .kind = HCB_WARN_DECODE, .problem = HCB_BAD_RECORD,
				 .device = d };
	char detail[192];

	if (v->lies == lies_before)
		return;
	snprintf(detail, sizeof(detail), "device %u: a seq past what the probe handled (through "
		 "seq %llu, %llu more than it counted firing): not counted as lost", d,
		 (unsigned long long)hcb_acct_next(&s->acct, d),
		 (unsigned long long)v->lied);
	w.detail = detail;
	hcb_out_warn(&s->c->out, &w);
}

/* Device d's figures into the session's shared status. */
static void publish_dev(const struct hcb_slot *s, uint32_t d)
{
	const struct hcb_acct_dev *a;
	struct hcb_sess_dev *st;

	if (d >= HCB_MAX_DEVICES || !s->c->sess || s != hcb_slots_main(&s->c->slots))
		return;
	a = &s->acct.dev[d];
	st = &hcb_sess_status(s->c->sess)->dev[d];
	__atomic_store_n(&st->through, hcb_acct_next(&s->acct, d), __ATOMIC_RELAXED);
	__atomic_store_n(&st->delivered, a->delivered, __ATOMIC_RELAXED);
	__atomic_store_n(&st->written, a->written, __ATOMIC_RELAXED);
	__atomic_store_n(&st->dropped, a->dropped, __ATOMIC_RELAXED);
}

/* Drop records for the losses of device d, whatever --device keeps: a
 * filter selects taps, and a recording's drop records add up to its end
 * record's count (as replay and convert keep them, cli/playback.c). */
static int write_losses(struct hcb_slot *s, uint32_t d, const struct hcb_loss *l, unsigned int n)
{
	struct hcb_capture *c = s->c;

	publish_dev(s, d);
	for (unsigned int i = 0; i < n; i++) {
		struct hcb_record rec = { .kind = HCB_REC_DROP };
		int err;

		rec.drop.device = d;
		rec.drop.count = l[i].count;
		snprintf(rec.drop.reason, sizeof(rec.drop.reason), "%s", hcb_loss_reason(l[i].cause));
		err = hcb_out_emit(&c->out, &rec);
		if (err)
			return err;
	}
	return 0;
}

int hcb_capture_account(struct hcb_slot *s, uint32_t d, uint64_t seq)
{
	struct hcb_loss_source src = { loss_seen, s, fired };
	struct hcb_loss lost[HCB_LOSS_CAUSES];
	unsigned int n;
	uint64_t lies;

	/* decoders refuse such devices; should one not, the session files
	 * and the accounting have no room for it all the same */
	if (d >= HCB_MAX_DEVICES) {
		s->acct.stray++;
		return -ERANGE;
	}
	lies = s->acct.dev[d].lies;
	n = hcb_acct_packet(&s->acct, d, seq, &src, lost);
	tell_lies(s, d, lies);
	return write_losses(s, d, lost, n);
}

/* Every seq of device d below upto has gone through the slot's probe. */
static int account_upto(struct hcb_slot *s, uint32_t d, uint64_t upto)
{
	struct hcb_loss_source src = { loss_seen, s, fired };
	struct hcb_loss lost[HCB_LOSS_CAUSES];
	uint64_t lies = d < HCB_MAX_DEVICES ? s->acct.dev[d].lies : 0;
	unsigned int n = hcb_acct_upto(&s->acct, d, upto, &src, lost);

	if (d < HCB_MAX_DEVICES)
		tell_lies(s, d, lies);
	return n ? write_losses(s, d, lost, n) : 0;
}

void hcb_capture_count_written(struct hcb_slot *s, uint32_t d)
{
	if (d >= HCB_MAX_DEVICES)
		return;
	hcb_acct_written(&s->acct, d);
	if (s->c->sess && s == hcb_slots_main(&s->c->slots))
		__atomic_store_n(&hcb_sess_status(s->c->sess)->dev[d].written,
				 s->acct.dev[d].written, __ATOMIC_RELAXED);
}

void hcb_capture_publish(struct hcb_capture *c)
{
	const struct hcb_slot *s = hcb_slots_main(&c->slots);
	struct hcb_sess_shared *st;
	int err;

	err = hcb_sess_open(&c->sess, s->ti.pid, c->o.what ? c->o.what : "hcbtrace",
			    c->o.output ? c->o.output : "");
	if (err) {
		struct hcb_warning w = { .kind = HCB_WARN_UNPUBLISHED, .err = err };

		c->sess = NULL;
		hcb_out_warn(&c->out, &w);
		return;
	}
	st = hcb_sess_status(c->sess);
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
		st->dev[d].base = st->dev[d].through = s->acct.dev[d].base;
	st->flight_ring = c->o.flight_ring;
}

void hcb_capture_publish_firings(struct hcb_capture *c, uint64_t n)
{
	if (c->sess)
		__atomic_store_n(&hcb_sess_status(c->sess)->flight_firings, n, __ATOMIC_RELEASE);
}

void hcb_capture_unpublish(struct hcb_capture *c)
{
	for (uint32_t d = 0; c->sess && d < HCB_MAX_DEVICES; d++)
		publish_dev(hcb_slots_main(&c->slots), d);
	hcb_sess_close(c->sess);
	c->sess = NULL;
}

/* ---- barriers: served through the slot whose target counts what it issued ---- */

static uint64_t handled(void *ctx, uint32_t d)
{
	struct hcb_slot *s = ctx;
	struct hcb_dev_stats b = { 0 };

	if (hcb_probes_dev_stats(s->probes, d, &b))
		return 0;
	return b.handled;
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
static int serves_barriers(const struct hcb_capture *c)
{
	return c->sess && c->slots.issuer && !c->out.err && c->stop != HCB_STOP_COUNT;
}

int hcb_capture_barrier_pending(const struct hcb_capture *c)
{
	return c->bar.req != 0;
}

/* Take up the newest request, if one is new: 1 if a barrier is being served. */
static int take_request(struct hcb_capture *c)
{
	struct hcb_slot *s = c->slots.issuer;
	uint64_t issued[HCB_MAX_DEVICES], req;

	if (c->bar.req)
		return 1;
	req = hcb_sess_requested(c->sess);
	if (req <= c->bar.done)
		return 0;
	/* every request up to req was made before the counts are read here,
	 * so this one round answers them all; when the target cannot be read
	 * (it is gone), what passed its probe is all it will ever have issued */
	if (!s->ti.counters || s->prov->issued(&s->ti, issued))
		for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
			issued[d] = handled(s, d);
	hcb_barrier_begin(&c->bar, req, issued);
	return 1;
}

/* Losses up to the barrier's counts, the barrier record, on disk. */
static int barrier_complete(struct hcb_capture *c)
{
	struct hcb_record rec = { .kind = HCB_REC_BARRIER };
	int err;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		err = account_upto(c->slots.issuer, d, c->bar.issued[d]);
		if (err)
			return err;
	}
	rec.barrier.wall_ns = hcb_clock_ns(CLOCK_REALTIME);
	rec.barrier.taps = c->written;
	err = hcb_out_emit(&c->out, &rec);
	if (!err)
		err = hcb_out_sync(&c->out);
	if (err)
		return err;
	hcb_sess_done(c->sess, c->bar.req);
	hcb_barrier_answered(&c->bar);
	return 0;
}

int hcb_capture_serve_barrier(struct hcb_capture *c)
{
	struct hcb_barrier_view v = { handled, ring_written, ring_read, c->slots.issuer };

	if (!serves_barriers(c) || !take_request(c))
		return 0;
	if (!hcb_barrier_advance(&c->bar, &c->slots.issuer->acct, &v))
		return 0;
	return barrier_complete(c);
}

/* ---- the tail ---- */

/* Every device of the slot: what passed the probe and never arrived is lost. */
static int account_all(struct hcb_slot *s)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		uint64_t h = handled(s, d);
		int err;

		if (!h)
			continue;
		err = account_upto(s, d, h);
		if (err)
			return err;
	}
	return 0;
}

/* Where packets are not numbered as the probe counts them, losses are
 * known only as the decoder's problems, per device. */
static int problems_as_losses(struct hcb_slot *s)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		struct hcb_loss_seen seen;
		struct hcb_loss l = { HCB_LOSS_MALFORMED, 0 };
		int err;

		loss_seen(s, d, &seen);
		l.count = seen.n[HCB_LOSS_MALFORMED];
		if (!l.count)
			continue;
		s->acct.dev[d].dropped += l.count;
		err = write_losses(s, d, &l, 1);
		if (err)
			return err;
	}
	return 0;
}

/* Each slot's losses that no packet showed. */
static int tail_losses(struct hcb_capture *c)
{
	for (unsigned int i = 0; i < c->slots.n; i++) {
		struct hcb_slot *s = &c->slots.at[i];
		int err = s->prov->flags & HCB_PROV_SEQ ? account_all(s) : problems_as_losses(s);

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
	if (c->stop != HCB_STOP_COUNT)
		err = tail_losses(c);
	/* the rings are drained: a barrier owed is answered if nothing it
	 * waits for is still missing (the target exited), else never */
	if (!err && serves_barriers(c) && take_request(c) &&
	    hcb_barrier_reachable(&c->bar, &c->slots.issuer->acct))
		err = barrier_complete(c);
	if (err)
		return err;
	hcb_out_timing_notice(&c->out);
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		if (hcb_capture_device(c, d, &f))
			continue;
		rec.end.taps += f.taps;
		rec.end.drops += f.dropped;
	}
	rec.end.end_ns = hcb_clock_ns(CLOCK_REALTIME);
	return hcb_out_emit(&c->out, &rec);
}
