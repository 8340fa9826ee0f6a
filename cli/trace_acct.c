/* SPDX-License-Identifier: MIT */
/*
 * trace_acct.c - a session's loss accounting and barriers (DESIGN 7).
 *
 * libhcbtap fires a device's packets in seq order and publishes how many
 * it issued; the BPF side counts, per device, the packets that went through
 * the probe (sent or lost).  So from the issued count read at attach (base)
 * on, every seq is either decoded here or lost, and a lost one shows as a
 * jump in seq (or, at the tail, as handled > the next seq expected).  Each
 * loss becomes a drop record at its place in the stream: a recording says
 * exactly what it lacks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "target.h"
#include "trace_impl.h"

void trace_count_written(struct trace *t, uint32_t d)
{
	t->acct[d].written++;
	if (t->sess)
		__atomic_store_n(&hcb_sess_status(t->sess)->dev[d].written, t->acct[d].written,
				 __ATOMIC_RELAXED);
}

/* The seq the device's next packet should have: from the attach's base on. */
static uint64_t next_seq(const struct dev_acct *a)
{
	return a->started ? a->through : a->base;
}

static void publish_dev(struct trace *t, uint32_t d)
{
	struct hcb_sess_dev *s;
	const struct dev_acct *a = &t->acct[d];

	if (!t->sess)
		return;
	s = &hcb_sess_status(t->sess)->dev[d];
	__atomic_store_n(&s->through, next_seq(a), __ATOMIC_RELAXED);
	__atomic_store_n(&s->delivered, a->delivered, __ATOMIC_RELAXED);
	__atomic_store_n(&s->written, a->written, __ATOMIC_RELAXED);
	__atomic_store_n(&s->dropped, a->dropped, __ATOMIC_RELAXED);
}

static int device_wanted(const struct trace *t, uint32_t d)
{
	const struct tap_filter *f = &t->o->filter;

	return !f->device_filter || (f->devices[d / 64] >> (d % 64) & 1);
}

static int write_drop(struct trace *t, uint32_t d, uint64_t n, const char *why)
{
	struct hcb_record rec = { .kind = HCB_REC_DROP };

	if (!n || !device_wanted(t, d))
		return 0;
	rec.drop.device = d;
	rec.drop.count = n;
	snprintf(rec.drop.reason, sizeof(rec.drop.reason), "%s", why);
	return trace_write_record(t, &rec);
}

static uint64_t avail(uint64_t seen, uint64_t told)
{
	return seen > told ? seen - told : 0;
}

/* n packets of device d are lost: say why, as far as the counters tell. */
static int record_loss(struct trace *t, uint32_t d, uint64_t n)
{
	const struct hcb_stream_stats *s = hcb_decoder_stats(t->dec, d);
	struct dev_acct *a = &t->acct[d];
	struct hcb_dev_stats b = { 0 };
	uint64_t bad = 0, k;
	int err;

	hcb_live_dev_stats(t->live, d, &b);
	for (int i = 0; s && i < HCB_DECODE_PROBLEMS; i++)
		bad += s->problems[i];
	a->dropped += n;

	struct { uint64_t *told; uint64_t seen; const char *why; } causes[] = {
		{ &a->told_ring, b.drops, "ring buffer full" },
		{ &a->told_read, b.read_errors, "target memory unreadable" },
		{ &a->told_bad, bad, "malformed or incomplete packet" },
	};

	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]) && n; i++) {
		k = avail(causes[i].seen, *causes[i].told);
		if (k > n)
			k = n;
		if (!k)
			continue;
		*causes[i].told += k;
		n -= k;
		err = write_drop(t, d, k, causes[i].why);
		if (err)
			return err;
	}
	return write_drop(t, d, n, "not delivered");
}

int trace_account(struct trace *t, uint32_t d, uint64_t seq)
{
	struct dev_acct *a = &t->acct[d];
	uint64_t expect = next_seq(a);
	int err = 0;

	/* a packet below base came while the attach was finishing: a bonus */
	if (seq > expect)
		err = record_loss(t, d, seq - expect);
	if (!a->started || seq + 1 > a->through)
		a->through = seq + 1;
	a->started = 1;
	a->delivered++;
	publish_dev(t, d);
	return err;
}

int trace_account_upto(struct trace *t, uint32_t d, uint64_t upto)
{
	struct dev_acct *a = &t->acct[d];
	uint64_t expect = next_seq(a);
	int err = 0;

	if (upto > expect) {
		err = record_loss(t, d, upto - expect);
		a->through = upto;
		a->started = 1;
		publish_dev(t, d);
	}
	return err;
}

int trace_account_all(struct trace *t)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		struct hcb_dev_stats b = { 0 };
		int err;

		if (hcb_live_dev_stats(t->live, d, &b) || !b.handled)
			continue;
		err = trace_account_upto(t, d, b.handled);
		if (err)
			return err;
	}
	return 0;
}

void trace_publish(struct trace *t)
{
	char what[256] = "hcbtrace";
	struct hcb_sess_shared *st;
	int err;

	hcb_target_comm(getpid(), what, sizeof(what));
	err = hcb_sess_open(&t->sess, t->pid, what, t->wname);
	if (err) {
		t->sess = NULL;
		cli_warn("cannot publish this session in %s (%s): 'hcbtrace barrier' will not see it",
			 hcb_sess_dir(), strerror(-err));
		return;
	}
	st = hcb_sess_status(t->sess);
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
		st->dev[d].base = st->dev[d].through = t->acct[d].base;
}

void trace_unpublish(struct trace *t)
{
	for (uint32_t d = 0; t->sess && d < HCB_MAX_DEVICES; d++)
		publish_dev(t, d);
	hcb_sess_close(t->sess);
	t->sess = NULL;
}

int trace_barrier_pending(const struct trace *t)
{
	return t->bar.req != 0;
}

/* The issued counts a barrier waits for; when the target cannot be read
 * (it is gone), what passed its probe is all it will ever have issued. */
static void barrier_targets(struct trace *t)
{
	if (t->reg_addr && hcb_target_read_issued(t->pid, t->reg_addr, t->bar.issued) == 0)
		return;
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		struct hcb_dev_stats b = { 0 };

		hcb_live_dev_stats(t->live, d, &b);
		t->bar.issued[d] = b.handled;
	}
}

/* 1 if every packet the barrier waits for has gone through the probe. */
static int barrier_passed_probe(struct trace *t)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		const struct dev_acct *a = &t->acct[d];
		struct hcb_dev_stats b = { 0 };
		uint64_t want = t->bar.issued[d];

		if (want <= next_seq(a))
			continue;
		if (hcb_live_dev_stats(t->live, d, &b) || b.handled < want)
			return 0;
	}
	return 1;
}

static int barrier_complete(struct trace *t)
{
	struct hcb_record rec = { .kind = HCB_REC_BARRIER };
	int err;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		err = trace_account_upto(t, d, t->bar.issued[d]);
		if (err)
			return err;
	}
	rec.barrier.ts_ns = trace_clock_ns(CLOCK_REALTIME);
	rec.barrier.taps = t->printed;
	err = trace_write_record(t, &rec);
	if (!err) {
		err = hcb_writer_sync(t->w);
		if (err)
			t->write_err = err;
	}
	if (err)
		return err;
	hcb_sess_done(t->sess, t->bar.req);
	t->bar.done = t->bar.req;
	t->bar.req = 0;
	return 0;
}

int trace_serve_barrier(struct trace *t)
{
	uint64_t req;

	if (!t->sess || t->xdec || t->write_err || t->done)
		return 0;
	req = hcb_sess_requested(t->sess);
	if (!t->bar.req) {
		if (req <= t->bar.done)
			return 0;
		/* every request up to req was made before the counts are read
		 * here, so this one round answers them all */
		t->bar.req = req;
		t->bar.stage = 1;
		barrier_targets(t);
	}
	if (t->bar.stage == 1) {
		if (!barrier_passed_probe(t))
			return 0;
		/* their records are all in the ring, up to here at most */
		t->bar.ring_mark = hcb_live_ring_written(t->live);
		t->bar.stage = 2;
	}
	if (hcb_live_ring_read(t->live) < t->bar.ring_mark)
		return 0;
	return barrier_complete(t);
}

int trace_serve_barrier_final(struct trace *t)
{
	if (!t->sess || t->write_err || t->done)
		return 0;
	if (!t->bar.req) {
		uint64_t req = hcb_sess_requested(t->sess);

		if (req <= t->bar.done)
			return 0;
		t->bar.req = req;
		barrier_targets(t);
	}
	/* the ring is drained: whatever is not through now never will be */
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		const struct dev_acct *a = &t->acct[d];

		if (t->bar.issued[d] > next_seq(a))
			return 0;
	}
	return barrier_complete(t);
}
