/* SPDX-License-Identifier: MIT */
/* capture.c - the capture engine's session life (capture.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_impl.h"
#include "clock.h"
#include "target.h"

int hcb_capture_emit(struct hcb_capture *c, const struct hcb_record *rec)
{
	int err = c->rx_err ? c->rx_err : c->rx.ops->record(c->rx.ctx, rec);

	if (err && err != -ENOMEM)
		c->rx_err = err;
	return err;
}

void hcb_capture_warn(struct hcb_capture *c, const struct hcb_warning *w)
{
	if (c->rx.ops->warn)
		c->rx.ops->warn(c->rx.ctx, w);
}

/* ---- what the provider's decoder delivers ---- */

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	struct hcb_capture *c = ctx;
	struct hcb_record rec = { .kind = HCB_REC_TAP, .tap = *p };
	int err;

	/* after -c the session stops looking */
	if (c->stop == HCB_STOP_COUNT)
		return 0;
	err = hcb_capture_account(c, p->device, p->seq);
	if (err)
		return err;
	if (c->o.filter && !hcb_filter_match(c->o.filter, p))
		return 0;
	rec.tap.ts_ns = p->ts_ns + c->mono_to_real;
	err = hcb_capture_emit(c, &rec);
	if (err)
		return err;
	c->written++;
	hcb_capture_count_written(c, p->device);
	if (c->o.max_taps && c->written >= c->o.max_taps)
		c->stop = HCB_STOP_COUNT;
	return 0;
}

/* A registration whose chunks were lost is read from the target itself. */
static int read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct hcb_capture *c = ctx;

	return hcb_target_read(c->ti.pid, addr, buf, len);
}

static void on_decode_problem(void *ctx, enum hcb_decode_problem what, uint32_t device,
			      uint32_t consumer_id, const char *detail)
{
	struct hcb_warning w = { .kind = HCB_WARN_DECODE, .problem = what, .device = device,
				 .consumer_id = consumer_id, .detail = detail };

	hcb_capture_warn(ctx, &w);
}

static const struct hcb_decoder_ops decoder_ops = {
	.packet = on_packet,
	.read_target = read_target,
	.warn = on_decode_problem,
};

static int on_ring_record(void *ctx, const void *data, size_t len)
{
	struct hcb_capture *c = ctx;

	return c->prov ? c->prov->feed(c->state, data, len) : 0;
}

/* ---- the session's life ---- */

int hcb_capture_new(struct hcb_capture **out, const struct hcb_capture_opts *o,
		    struct hcb_receiver rx)
{
	struct hcb_capture *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->o = *o;
	c->rx = rx;
	c->mono_to_real = hcb_clock_ns(CLOCK_REALTIME) - hcb_clock_ns(CLOCK_MONOTONIC);
	err = hcb_probes_new(&c->probes, o->ring_bytes, on_ring_record, c);
	if (err) {
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

/* Read after the probe is in place: every packet issued from here on
 * reaches this session, sent or counted lost.  That is where its
 * accounting and its barriers start. */
static void account_from_now(struct hcb_capture *c)
{
	uint64_t issued[HCB_MAX_DEVICES];

	if ((c->prov->flags & HCB_PROV_ISSUED) && c->ti.counters &&
	    c->prov->issued(&c->ti, issued) == 0) {
		hcb_acct_init(&c->acct, issued, 0);
		return;
	}
	c->ti.counters = 0;   /* a barrier then goes by what passed the probe */
	hcb_acct_init(&c->acct, NULL, !!(c->prov->flags & HCB_PROV_UNORDERED));
}

int hcb_capture_attach(struct hcb_capture *c, pid_t pid)
{
	int err = hcb_provider_find(pid, 0, &c->ti);

	if (err)
		return err;
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK) != 0)
		return -ENOSYS;
	if (c->ti.provider->prepare)
		err = c->ti.provider->prepare(c->probes, &c->ti);
	if (!err)
		err = hcb_probes_load(c->probes, c->ti.provider->programs);
	if (err)
		return err < 0 ? err : -EINVAL;
	err = c->ti.provider->open(&c->state, c->probes, &c->ti, &decoder_ops, c);
	if (err)
		return err;
	c->prov = c->ti.provider;
	hcb_probes_watch_exec(c->probes, pid);
	account_from_now(c);
	return 0;
}

const struct hcb_target_info *hcb_capture_target(const struct hcb_capture *c)
{
	return &c->ti;
}

int hcb_capture_begin(struct hcb_capture *c)
{
	struct hcb_record rec = { .kind = HCB_REC_SESSION };
	int err;

	rec.session.version = 1;
	rec.session.pid = c->ti.pid;
	snprintf(rec.session.provider, sizeof(rec.session.provider), "%s", c->prov->name);
	snprintf(rec.session.platform, sizeof(rec.session.platform), "%s", c->ti.platform);
	rec.session.start_ns = hcb_clock_ns(CLOCK_REALTIME);
	err = hcb_capture_emit(c, &rec);
	if (hcb_probes_exec_watch(c->probes)) {
		struct hcb_warning w = { .kind = HCB_WARN_EXEC_UNWATCHED,
					 .err = hcb_probes_exec_watch(c->probes) };

		hcb_capture_warn(c, &w);
	}
	/* every session shows in `hcbtrace list` from the moment its probes
	 * are in place; only those whose target counts what it issued serve
	 * barriers */
	if (!err && !c->o.unpublished)
		hcb_capture_publish(c);
	return err;
}

int hcb_capture_poll(struct hcb_capture *c, int timeout_ms)
{
	struct pollfd fds[2] = {
		{ .fd = hcb_probes_fd(c->probes), .events = POLLIN },
		{ .fd = c->sess ? hcb_sess_wake_fd(c->sess) : -1, .events = POLLIN },
	};
	int n;

	/* a barrier waiting on packets in flight looks again soon */
	if (hcb_capture_barrier_pending(c) && timeout_ms > 1)
		timeout_ms = 1;
	if (poll(fds, 2, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	n = hcb_probes_poll(c->probes, 0);
	if (n < 0)
		return n;
	if (c->prov->tick) {
		n = c->prov->tick(c->state, hcb_clock_ns(CLOCK_MONOTONIC));
		if (n < 0)
			return n;
	}
	if (c->stop == HCB_STOP_NONE && hcb_probes_exec_seen(c->probes))
		c->stop = HCB_STOP_EXEC;
	return hcb_capture_serve_barrier(c);
}

enum hcb_capture_stop hcb_capture_stopped(const struct hcb_capture *c)
{
	return c->stop;
}

/*
 * After the detach: a probe that fired just before may still be copying.
 * Everything it reserves is below the ring's written position, so read up
 * to there (and let a packet still being copied finish) before calling
 * anything lost or incomplete.
 */
static int drain_after_detach(struct hcb_capture *c)
{
	uint64_t mark = hcb_probes_ring_written(c->probes);
	int err = hcb_probes_drain(c->probes);

	for (int i = 0; !err && i < 200; i++) {
		if (hcb_probes_ring_read(c->probes) >= mark && !c->prov->pending(c->state))
			break;
		usleep(1000);
		err = hcb_probes_drain(c->probes);
		mark = hcb_probes_ring_written(c->probes);
	}
	return err;
}

int hcb_capture_end(struct hcb_capture *c)
{
	int err;

	/* detach first, so the target's probes go, then take what was copied */
	hcb_probes_detach(c->probes);
	err = drain_after_detach(c);
	/* after an output failure the decoding stopped mid-stream: what it
	 * left pending is not the target's fault, so no warnings about it */
	if (!c->rx_err) {
		int ferr = c->prov->finish(c->state);

		if (!err && ferr < 0)
			err = ferr;
	}
	if (!err)
		err = hcb_capture_write_tail(c);
	hcb_capture_unpublish(c);
	return err ? err : c->rx_err;
}

int hcb_capture_receiver_error(const struct hcb_capture *c)
{
	return c->rx_err;
}

int hcb_capture_device(const struct hcb_capture *c, uint32_t d, struct hcb_capture_dev *f)
{
	const struct hcb_stream_stats *s = c->prov ? c->prov->stats(c->state, d) : NULL;

	if (d >= HCB_MAX_DEVICES || (!s && !c->acct.dev[d].dropped))
		return -ENOENT;
	*f = (struct hcb_capture_dev){ .dropped = c->acct.dev[d].dropped };
	if (s) {
		f->taps = s->packets;
		f->bytes = s->bytes;
		f->gaps = hcb_stream_gaps(s);
		for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
			f->bad += s->problems[i];
	}
	return 0;
}

uint64_t hcb_capture_written(const struct hcb_capture *c)
{
	return c->written;
}

const struct hcb_registry *hcb_capture_consumers(const struct hcb_capture *c)
{
	return c->prov ? c->prov->registry(c->state) : NULL;
}

void hcb_capture_free(struct hcb_capture *c)
{
	if (!c)
		return;
	hcb_sess_close(c->sess);
	hcb_probes_close(c->probes);
	if (c->prov)
		c->prov->close(c->state);
	free(c);
}
