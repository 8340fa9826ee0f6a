/* SPDX-License-Identifier: MIT */
/*
 * decode.c - the hcbtap decoder's records and packets (decode.h), the top
 * of its files (decode_impl.h).  Every figure it keeps and every byte it
 * holds for the target is within providers/bounds.h; registrations are
 * registration.c's, consumers consumers.c's, packets not delivered yet
 * pending.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_impl.h"

int hcb_hcbtap_new(struct hcb_hcbtap **out, const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_hcbtap *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->reg = hcb_registry_new();
	if (!d->reg) {
		free(d);
		return -ENOMEM;
	}
	d->ops = ops;
	d->ctx = ctx;
	hcb_bounds_init(&d->b, ops, ctx);
	*out = d;
	return 0;
}

void hcb_hcbtap_set_budget(struct hcb_hcbtap *d, uint64_t packet_bytes)
{
	if (packet_bytes > d->b.packets.limit)
		d->b.packets.limit = packet_bytes;
}

void hcb_hcbtap_free(struct hcb_hcbtap *d)
{
	if (!d)
		return;
	while (d->pending)
		hcb_hcbtap_pending_free(d, d->pending);
	hcb_hcbtap_regs_free(d);
	hcb_registry_free(d->reg);
	free(d);
}

/* A packet the emitter could not send: it took its seq, nothing is
 * delivered, and the device's count of such losses says why. */
static int on_lost(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e)
{
	hcb_bounds_dev(&d->b, e->device)->st.lost[e->lost_reason < HCB_LOST_REASONS ? e->lost_reason : 0]++;
	return 0;
}

/* Whether packet e's header can be taken at all: a device hcbtrace keeps
 * figures for (past HCB_MAX_DEVICES nothing downstream has room for it),
 * and the magic.  Else a problem counted, 0. */
static int pkt_ok(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e)
{
	if (!hcb_bounds_device_ok(e->device)) {
		hcb_bounds_lose(&d->b, HCB_BOUND_DEVICE, e->device, e->consumer_id,
				"packet %llu of consumer %u is for device %u; devices go up to %u",
				(unsigned long long)e->seq, e->consumer_id, e->device,
				HCB_MAX_DEVICES - 1);
		return 0;
	}
	if (e->magic != HCB_OUTFEED_MAGIC) {
		hcb_bounds_problem(&d->b, HCB_BAD_MAGIC, e->device, e->consumer_id,
				   "packet %llu of device %u has magic %u, not %u", (unsigned long long)e->seq,
				   e->device, e->magic, HCB_OUTFEED_MAGIC);
		return 0;
	}
	return 1;
}

/* The consumer of packet e, checked against it; NULL (a problem counted)
 * if it has none or does not match. */
static const struct hcb_consumer *pkt_consumer(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e)
{
	const struct hcb_consumer *c = hcb_registry_get(d->reg, e->consumer_id);

	/* its registration chunks were lost: read it from the target */
	if (!c)
		c = hcb_hcbtap_consumer_read(d, e->device, e->consumer_id, e->reg_addr, e->reg_len);
	if (!c) {
		hcb_bounds_problem(&d->b, HCB_UNKNOWN_CONSUMER, e->device, e->consumer_id,
				   "packet %llu of device %u is for unknown consumer %u",
				   (unsigned long long)e->seq, e->device, e->consumer_id);
		return NULL;
	}
	if (e->total_bytes != c->total_bytes || e->nleaves != c->nleaves) {
		hcb_bounds_problem(&d->b, HCB_SHORT_PAYLOAD, e->device, e->consumer_id,
				   "packet %llu of device %u has %llu bytes in %u leaves; consumer %u (%s) "
				   "registered %llu in %u", (unsigned long long)e->seq, e->device,
				   (unsigned long long)e->total_bytes, e->nleaves, c->id, c->name,
				   (unsigned long long)c->total_bytes, c->nleaves);
		return NULL;
	}
	return c;
}

/*
 * What every packet header goes through first: a device and magic that
 * can be taken, the end of its thread's last packet (what that left
 * unfinished was cut short), the end of the registration copy it sent.
 * 1 and *c its consumer, or NULL when it waits for another thread's copy
 * of the registration still arriving; 0 when it is not to be had (counted);
 * or the callback's error.
 */
static int pkt_begin(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e, const struct hcb_consumer **c)
{
	int wait, err;

	if (!pkt_ok(d, e)) {
		err = hcb_hcbtap_reg_copy_over(d, e->consumer_id, e->device, e->seq);
		return err < 0 ? err : 0;
	}
	err = hcb_hcbtap_cut_short(d, e->pid, e->tid);
	if (err)
		return err;
	wait = hcb_hcbtap_reg_copy_over(d, e->consumer_id, e->device, e->seq);
	if (wait < 0)
		return wait;
	*c = hcb_registry_get(d->reg, e->consumer_id);
	if (!*c && wait)
		return 1;
	*c = pkt_consumer(d, e);
	return *c ? 1 : 0;
}

/* Packet p is whole: out now, or in its turn behind what waits. */
static int pkt_whole(struct hcb_hcbtap *d, struct pending *p)
{
	int err;

	if (p->queued)
		return hcb_hcbtap_drain(d, p->device);
	err = hcb_hcbtap_deliver(d, p);
	hcb_hcbtap_pending_free(d, p);
	return err;
}

static int on_pkt(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e)
{
	const struct hcb_consumer *c = NULL;
	struct pending *p;
	int ok;

	if (e->magic == HCB_LOST_MAGIC)
		return on_lost(d, e);
	ok = pkt_begin(d, e, &c);
	if (ok <= 0)
		return ok;
	p = hcb_hcbtap_pending_new(d, e, c);
	if (!p)
		return 0;
	/* waiting, or behind one that waits: in the device's order */
	if (!c || hcb_hcbtap_queued(d, e->device))
		hcb_hcbtap_enqueue(d, p);
	return p->total == 0 ? pkt_whole(d, p) : 0;
}

/* A small packet whose payload came with it: delivered from the record,
 * or a copy of it held in its device's order. */
static int on_pkt_inline(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e, const void *payload,
			 size_t len)
{
	const struct hcb_consumer *c = NULL;
	struct pending *p, now = { 0 };
	int ok = pkt_begin(d, e, &c);

	if (ok <= 0)
		return ok;
	if (len < e->total_bytes) {
		hcb_bounds_problem(&d->b, HCB_SHORT_PAYLOAD, e->device, e->consumer_id,
				   "packet %llu of device %u holds %zu bytes of %llu",
				   (unsigned long long)e->seq, e->device, len,
				   (unsigned long long)e->total_bytes);
		return 0;
	}
	if (c && !hcb_hcbtap_queued(d, e->device)) {
		now = (struct pending){ .device = e->device, .seq = e->seq, .mono_ns = e->ts_ns,
					.pid = e->pid, .tid = e->tid, .consumer = c,
					.buf = (unsigned char *)payload };
		return hcb_hcbtap_deliver(d, &now);
	}
	p = hcb_hcbtap_pending_new(d, e, c);
	if (!p)
		return 0;
	memcpy(p->buf, payload, p->total);
	p->received = p->total;
	hcb_hcbtap_enqueue(d, p);
	return hcb_hcbtap_drain(d, e->device);
}

/* A small packet as libhcbtap laid it out: its header as the other packet
 * records carry it, and the payload after it. */
static int on_pkt_wire(struct hcb_hcbtap *d, const void *rec, size_t len)
{
	struct hcb_ev_pkt_wire w;
	struct hcb_ev_pkt e;

	if (len < sizeof(w)) {
		hcb_bounds_problem(&d->b, HCB_BAD_RECORD, 0, 0, "packet record of %zu bytes", len);
		return 0;
	}
	memcpy(&w, rec, sizeof(w));
	e = (struct hcb_ev_pkt){
		.type = HCB_EV_PKT_WIRE, .consumer_id = w.pkt.consumer_id,
		.device = w.pkt.device, .nleaves = w.pkt.nleaves, .seq = w.pkt.seq,
		.total_bytes = w.pkt.total_bytes, .ts_ns = w.in.ts_ns, .reg_addr = w.pkt.reg_addr,
		.reg_len = w.pkt.reg_len, .pid = w.pid, .tid = w.tid, .magic = w.pkt.magic,
	};
	return on_pkt_inline(d, &e, (const unsigned char *)rec + sizeof(w), len - sizeof(w));
}

static int on_data_chunk(struct hcb_hcbtap *d, const struct hcb_ev_chunk *h, const unsigned char *data)
{
	struct pending *p = hcb_hcbtap_pending_find(d, h->device, h->seq, h->consumer_id);

	if (!p) {
		/* its PKT record was rejected (counted there) or never came */
		return 0;
	}
	if (h->total != p->total || h->offset != p->received || h->len > h->total - h->offset) {
		uint32_t dev = p->device;

		hcb_bounds_problem(&d->b, HCB_BAD_CHUNK, h->device, h->consumer_id,
				   "chunk at %llu of packet %llu of device %u out of order or bounds",
				   (unsigned long long)h->offset, (unsigned long long)h->seq, h->device);
		hcb_hcbtap_pending_free(d, p);
		return hcb_hcbtap_drain(d, dev);
	}
	memcpy(p->buf + h->offset, data, h->len);
	p->received += h->len;
	p->touched_ns = d->b.now_ns;
	return p->received < p->total ? 0 : pkt_whole(d, p);
}

int hcb_hcbtap_feed(struct hcb_hcbtap *d, const void *rec, size_t len)
{
	struct hcb_ev_chunk h;
	uint32_t type;

	if (len < sizeof(type)) {
		hcb_bounds_problem(&d->b, HCB_BAD_RECORD, 0, 0, "record of %zu bytes", len);
		return 0;
	}
	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_PKT_WIRE)
		return on_pkt_wire(d, rec, len);
	if (type == HCB_EV_PKT) {
		struct hcb_ev_pkt e;

		if (len < sizeof(e)) {
			hcb_bounds_problem(&d->b, HCB_BAD_RECORD, 0, 0, "packet record of %zu bytes", len);
			return 0;
		}
		memcpy(&e, rec, sizeof(e));
		return on_pkt(d, &e);
	}
	if ((type != HCB_EV_REG && type != HCB_EV_DATA) || len < sizeof(h)) {
		hcb_bounds_problem(&d->b, HCB_BAD_RECORD, 0, 0, "record of type %u and %zu bytes", type, len);
		return 0;
	}
	memcpy(&h, rec, sizeof(h));
	if (h.len > len - sizeof(h)) {
		hcb_bounds_problem(&d->b, HCB_BAD_RECORD, h.device, h.consumer_id,
				   "chunk claims %u bytes in a record of %zu", h.len, len);
		return 0;
	}
	if (type == HCB_EV_REG)
		return hcb_hcbtap_reg_chunk(d, &h, (const unsigned char *)rec + sizeof(h));
	return on_data_chunk(d, &h, (const unsigned char *)rec + sizeof(h));
}

int hcb_hcbtap_tick(struct hcb_hcbtap *d, uint64_t now_ns)
{
	struct devset touched = { { 0 } };

	d->b.now_ns = now_ns ? now_ns : 1;
	hcb_hcbtap_pending_expire(d, &touched);
	/* registrations given up, and what waited for them resolved, before
	 * the devices of the expired packets go on: the order of deliveries
	 * across devices the decoder has always had */
	hcb_hcbtap_regs_expire(d);
	return hcb_hcbtap_drain_set(d, &touched);
}

unsigned int hcb_hcbtap_pending(const struct hcb_hcbtap *d)
{
	return d->b.packets.n;
}

/* The oldest packet that never got whole. */
static struct pending *unfinished(struct hcb_hcbtap *d)
{
	for (struct pending *p = d->oldest; p; p = p->prev)
		if (p->received < p->total)
			return p;
	return NULL;
}

int hcb_hcbtap_finish(struct hcb_hcbtap *d)
{
	struct pending *p;
	int err = 0;

	/* no copy will come now: what waited for one goes without it */
	err = hcb_hcbtap_regs_finish(d);
	while (!err && (p = unfinished(d))) {
		uint32_t dev = p->device;

		hcb_bounds_problem(&d->b, HCB_INCOMPLETE, p->device, p->consumer_id,
				   "packet %llu of device %u was cut short (%llu of %llu bytes)",
				   (unsigned long long)p->seq, p->device, (unsigned long long)p->received,
				   (unsigned long long)p->total);
		hcb_hcbtap_pending_free(d, p);
		err = hcb_hcbtap_drain(d, dev);
	}
	return err;
}

const struct hcb_stream_stats *hcb_hcbtap_stats(const struct hcb_hcbtap *d, uint32_t dev)
{
	return hcb_bounds_stats(&d->b, dev);
}

const struct hcb_stream_stats *hcb_hcbtap_stray(const struct hcb_hcbtap *d)
{
	return hcb_bounds_stray(&d->b);
}

const struct hcb_bounds *hcb_hcbtap_bounds(const struct hcb_hcbtap *d)
{
	return &d->b;
}

struct hcb_registry *hcb_hcbtap_registry(struct hcb_hcbtap *d)
{
	return d->reg;
}
