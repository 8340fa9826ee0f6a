/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/hcbtap_events.h"
#include "decode.h"

/* A packet being reassembled.  One per (device, seq); a device normally has
 * one in flight, several when several threads tap for it. */
struct pending {
	struct pending *next;
	uint32_t device, consumer_id;
	uint64_t seq, ts_ns, received;
	uint32_t pid, tid;
	const struct hcb_consumer *consumer;
	unsigned char *buf;
};

/* A registration blob being reassembled, per consumer id.  Several threads
 * may send copies at once, their chunks interleaved; the copies are the
 * same bytes, so a chunk of any copy fills its place, and a bitmap of the
 * bytes already there keeps the count honest. */
struct pending_reg {
	struct pending_reg *next;
	uint32_t consumer_id;
	uint64_t total, received;
	unsigned char *buf;
	unsigned char *have;   /* a bit per byte of buf */
};

struct device_state {
	int seen;
	struct hcb_stream_stats st;
};

struct hcb_decoder {
	const struct hcb_decoder_ops *ops;
	void *ctx;
	struct hcb_registry *reg;
	struct pending *pending;
	struct pending_reg *regs;
	/* one more: where devices out of range are counted, apart from real ones */
	struct device_state dev[HCB_MAX_DEVICES + 1];
};

static const char *const problem_names[HCB_DECODE_PROBLEMS] = {
	[HCB_BAD_MAGIC] = "bad magic",
	[HCB_UNKNOWN_CONSUMER] = "unknown consumer",
	[HCB_BAD_REGISTRATION] = "bad registration",
	[HCB_SHORT_PAYLOAD] = "short payload",
	[HCB_BAD_CHUNK] = "bad chunk",
	[HCB_BAD_RECORD] = "bad record",
	[HCB_INCOMPLETE] = "incomplete",
};

const char *hcb_decode_problem_name(enum hcb_decode_problem what)
{
	return what < HCB_DECODE_PROBLEMS ? problem_names[what] : "?";
}

int hcb_decoder_new(struct hcb_decoder **out, const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->reg = hcb_registry_new();
	if (!d->reg) {
		free(d);
		return -ENOMEM;
	}
	d->ops = ops;
	d->ctx = ctx;
	*out = d;
	return 0;
}

void hcb_decoder_free(struct hcb_decoder *d)
{
	if (!d)
		return;
	while (d->pending) {
		struct pending *p = d->pending;

		d->pending = p->next;
		free(p->buf);
		free(p);
	}
	while (d->regs) {
		struct pending_reg *r = d->regs;

		d->regs = r->next;
		free(r->buf);
		free(r->have);
		free(r);
	}
	hcb_registry_free(d->reg);
	free(d);
}

static struct device_state *device(struct hcb_decoder *d, uint32_t dev)
{
	return &d->dev[dev < HCB_MAX_DEVICES ? dev : HCB_MAX_DEVICES];
}

static void problem(struct hcb_decoder *d, enum hcb_decode_problem what, uint32_t dev,
		    uint32_t cid, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void problem(struct hcb_decoder *d, enum hcb_decode_problem what, uint32_t dev,
		    uint32_t cid, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	device(d, dev)->st.problems[what]++;
	if (!d->ops->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	d->ops->warn(d->ctx, what, dev, cid, detail);
}

static int add_registration(struct hcb_decoder *d, uint32_t dev, uint32_t cid,
			    const void *blob, size_t len)
{
	struct hcb_consumer *c;
	int err;

	if (hcb_registry_get(d->reg, cid))
		return 0;
	err = hcb_consumer_from_reg(blob, len, &c);
	if (err == -ENOMEM)
		return err;
	if (err || c->id != cid) {
		if (!err)
			hcb_consumer_free(c);
		problem(d, HCB_BAD_REGISTRATION, dev, cid, "registration of consumer %u is malformed", cid);
		return 0;
	}
	err = hcb_registry_add(d->reg, c);
	return err == -EEXIST ? 0 : err;
}

static int on_reg_chunk(struct hcb_decoder *d, const struct hcb_ev_chunk *h, const unsigned char *data)
{
	struct pending_reg **pp, *r;
	int err;

	if (hcb_registry_get(d->reg, h->consumer_id))
		return 0;   /* another thread's copy got here first */
	for (pp = &d->regs; *pp && (*pp)->consumer_id != h->consumer_id; pp = &(*pp)->next)
		;
	r = *pp;
	if (h->total == 0 || h->total > HCB_MAX_REG_BYTES || h->offset > h->total ||
	    h->len > h->total - h->offset || (r && r->total != h->total)) {
		problem(d, HCB_BAD_CHUNK, h->device, h->consumer_id,
			"registration chunk of consumer %u out of bounds", h->consumer_id);
		return 0;
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r || !(r->buf = malloc(h->total)) || !(r->have = calloc(h->total / 8 + 1, 1))) {
			if (r)
				free(r->buf);
			free(r);
			return -ENOMEM;
		}
		r->consumer_id = h->consumer_id;
		r->total = h->total;
		r->next = d->regs;
		d->regs = r;
		pp = &d->regs;
	}
	memcpy(r->buf + h->offset, data, h->len);
	for (uint64_t i = h->offset; i < h->offset + h->len; i++)
		if (!(r->have[i / 8] & (1u << (i % 8)))) {
			r->have[i / 8] |= (unsigned char)(1u << (i % 8));
			r->received++;
		}
	if (r->received < r->total)
		return 0;
	*pp = r->next;
	err = add_registration(d, h->device, h->consumer_id, r->buf, r->total);
	free(r->buf);
	free(r->have);
	free(r);
	return err;
}

static const struct hcb_consumer *lookup_consumer(struct hcb_decoder *d, const struct hcb_ev_pkt *e)
{
	const struct hcb_consumer *c = hcb_registry_get(d->reg, e->consumer_id);
	void *blob;

	if (c || !d->ops->read_target || e->reg_len == 0 || e->reg_len > HCB_MAX_REG_BYTES)
		return c;
	/* its registration chunks were lost: read it from the target */
	blob = malloc(e->reg_len);
	if (!blob)
		return NULL;
	if (d->ops->read_target(d->ctx, e->reg_addr, blob, e->reg_len) == 0)
		add_registration(d, e->device, e->consumer_id, blob, e->reg_len);
	free(blob);
	return hcb_registry_get(d->reg, e->consumer_id);
}

static int deliver(struct hcb_decoder *d, struct pending *p)
{
	struct device_state *ds = device(d, p->device);
	struct hcb_packet pkt = {
		.device = p->device, .seq = p->seq, .ts_ns = p->ts_ns,
		.pid = p->pid, .tid = p->tid, .consumer = p->consumer,
		.payload = p->buf,
	};

	if (!ds->seen || p->seq < ds->st.first_seq)
		ds->st.first_seq = p->seq;
	if (!ds->seen || p->seq > ds->st.last_seq)
		ds->st.last_seq = p->seq;
	ds->seen = 1;
	ds->st.packets++;
	ds->st.bytes += p->consumer->total_bytes;
	return d->ops->packet(d->ctx, &pkt);
}

static void unlink_pending(struct hcb_decoder *d, struct pending *p)
{
	for (struct pending **pp = &d->pending; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	free(p->buf);
	free(p);
}

/* A packet the emitter could not send: it took its seq, nothing is
 * delivered, and the device's count of such losses says why. */
static int on_lost(struct hcb_decoder *d, const struct hcb_ev_pkt *e)
{
	device(d, e->device)->st.lost[e->lost_reason < HCB_LOST_REASONS ? e->lost_reason : 0]++;
	return 0;
}

/* The consumer of packet e, checked against it; NULL (a problem counted)
 * if it has none or does not match. */
static const struct hcb_consumer *pkt_consumer(struct hcb_decoder *d, const struct hcb_ev_pkt *e)
{
	const struct hcb_consumer *c;

	if (e->magic != HCB_OUTFEED_MAGIC) {
		problem(d, HCB_BAD_MAGIC, e->device, e->consumer_id,
			"packet %llu of device %u has magic %u, not %u", (unsigned long long)e->seq,
			e->device, e->magic, HCB_OUTFEED_MAGIC);
		return NULL;
	}
	c = lookup_consumer(d, e);
	if (!c) {
		problem(d, HCB_UNKNOWN_CONSUMER, e->device, e->consumer_id,
			"packet %llu of device %u is for unknown consumer %u",
			(unsigned long long)e->seq, e->device, e->consumer_id);
		return NULL;
	}
	if (e->total_bytes != c->total_bytes || e->nleaves != c->nleaves) {
		problem(d, HCB_SHORT_PAYLOAD, e->device, e->consumer_id,
			"packet %llu of device %u has %llu bytes in %u leaves; consumer %u (%s) registered %llu in %u",
			(unsigned long long)e->seq, e->device, (unsigned long long)e->total_bytes,
			e->nleaves, c->id, c->name, (unsigned long long)c->total_bytes, c->nleaves);
		return NULL;
	}
	return c;
}

/* A thread emits its packets one after the other: whatever it left
 * pending when its next packet starts was cut short (ring full mid-packet). */
static void cut_short(struct hcb_decoder *d, const struct hcb_ev_pkt *e)
{
	for (struct pending *q = d->pending, *next; q; q = next) {
		next = q->next;
		if (q->tid == e->tid && q->pid == e->pid) {
			problem(d, HCB_INCOMPLETE, q->device, q->consumer_id,
				"packet %llu of device %u was cut short (%llu of %llu bytes)",
				(unsigned long long)q->seq, q->device, (unsigned long long)q->received,
				(unsigned long long)q->consumer->total_bytes);
			unlink_pending(d, q);
		}
	}
}

static void pending_from(struct pending *p, const struct hcb_ev_pkt *e, const struct hcb_consumer *c)
{
	p->device = e->device;
	p->consumer_id = e->consumer_id;
	p->seq = e->seq;
	p->ts_ns = e->ts_ns;
	p->pid = e->pid;
	p->tid = e->tid;
	p->consumer = c;
}

static int on_pkt(struct hcb_decoder *d, const struct hcb_ev_pkt *e)
{
	const struct hcb_consumer *c;
	struct pending *p;

	if (e->magic == HCB_LOST_MAGIC)
		return on_lost(d, e);
	c = pkt_consumer(d, e);
	if (!c)
		return 0;
	cut_short(d, e);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* no ring buffer holds more than 4 GiB: a larger packet cannot come */
	p->buf = c->total_bytes <= (UINT64_C(4) << 30) ? malloc(c->total_bytes ? c->total_bytes : 1) : NULL;
	if (!p->buf) {
		/* a shape too large for this machine must not end the session */
		free(p);
		problem(d, HCB_SHORT_PAYLOAD, e->device, e->consumer_id,
			"packet %llu of device %u: cannot hold %llu bytes for consumer %u (%s)",
			(unsigned long long)e->seq, e->device, (unsigned long long)c->total_bytes,
			c->id, c->name);
		return 0;
	}
	pending_from(p, e, c);
	p->next = d->pending;
	d->pending = p;
	if (c->total_bytes == 0) {
		int err = deliver(d, p);

		unlink_pending(d, p);
		return err;
	}
	return 0;
}

/* A small packet whose payload came with it: delivered from the record. */
static int on_pkt_inline(struct hcb_decoder *d, const struct hcb_ev_pkt *e, const void *payload,
			 size_t len)
{
	const struct hcb_consumer *c = pkt_consumer(d, e);
	struct pending p = { 0 };

	if (!c)
		return 0;
	cut_short(d, e);
	if (len < c->total_bytes) {
		problem(d, HCB_SHORT_PAYLOAD, e->device, e->consumer_id,
			"packet %llu of device %u holds %zu bytes of %llu", (unsigned long long)e->seq,
			e->device, len, (unsigned long long)c->total_bytes);
		return 0;
	}
	pending_from(&p, e, c);
	p.buf = (unsigned char *)payload;
	return deliver(d, &p);
}

/* A small packet as libhcbtap laid it out: its header as the other packet
 * records carry it, and the payload after it. */
static int on_pkt_wire(struct hcb_decoder *d, const void *rec, size_t len)
{
	struct hcb_ev_pkt_wire w;
	struct hcb_ev_pkt e;

	if (len < sizeof(w)) {
		problem(d, HCB_BAD_RECORD, 0, 0, "packet record of %zu bytes", len);
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

static int on_data_chunk(struct hcb_decoder *d, const struct hcb_ev_chunk *h, const unsigned char *data)
{
	struct pending *p;
	int err;

	for (p = d->pending; p; p = p->next)
		if (p->device == h->device && p->seq == h->seq && p->consumer_id == h->consumer_id)
			break;
	if (!p) {
		/* its PKT record was rejected (counted there) or never came */
		return 0;
	}
	if (h->total != p->consumer->total_bytes || h->offset != p->received ||
	    h->len > h->total - h->offset) {
		problem(d, HCB_BAD_CHUNK, h->device, h->consumer_id,
			"chunk at %llu of packet %llu of device %u out of order or bounds",
			(unsigned long long)h->offset, (unsigned long long)h->seq, h->device);
		unlink_pending(d, p);
		return 0;
	}
	memcpy(p->buf + h->offset, data, h->len);
	p->received += h->len;
	if (p->received < h->total)
		return 0;
	err = deliver(d, p);
	unlink_pending(d, p);
	return err;
}

int hcb_decoder_feed(struct hcb_decoder *d, const void *rec, size_t len)
{
	struct hcb_ev_chunk h;
	uint32_t type;

	if (len < sizeof(type)) {
		problem(d, HCB_BAD_RECORD, 0, 0, "record of %zu bytes", len);
		return 0;
	}
	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_PKT_WIRE)
		return on_pkt_wire(d, rec, len);
	if (type == HCB_EV_PKT) {
		struct hcb_ev_pkt e;

		if (len < sizeof(e)) {
			problem(d, HCB_BAD_RECORD, 0, 0, "packet record of %zu bytes", len);
			return 0;
		}
		memcpy(&e, rec, sizeof(e));
		return on_pkt(d, &e);
	}
	if ((type != HCB_EV_REG && type != HCB_EV_DATA) || len < sizeof(h)) {
		problem(d, HCB_BAD_RECORD, 0, 0, "record of type %u and %zu bytes", type, len);
		return 0;
	}
	memcpy(&h, rec, sizeof(h));
	if (h.len > len - sizeof(h)) {
		problem(d, HCB_BAD_RECORD, h.device, h.consumer_id,
			"chunk claims %u bytes in a record of %zu", h.len, len);
		return 0;
	}
	if (type == HCB_EV_REG)
		return on_reg_chunk(d, &h, (const unsigned char *)rec + sizeof(h));
	return on_data_chunk(d, &h, (const unsigned char *)rec + sizeof(h));
}

unsigned int hcb_decoder_pending(const struct hcb_decoder *d)
{
	unsigned int n = 0;

	for (const struct pending *p = d->pending; p; p = p->next)
		n++;
	return n;
}

void hcb_decoder_finish(struct hcb_decoder *d)
{
	while (d->pending) {
		struct pending *p = d->pending;

		problem(d, HCB_INCOMPLETE, p->device, p->consumer_id,
			"packet %llu of device %u was cut short (%llu of %llu bytes)",
			(unsigned long long)p->seq, p->device, (unsigned long long)p->received,
			(unsigned long long)p->consumer->total_bytes);
		unlink_pending(d, p);
	}
}

const struct hcb_stream_stats *hcb_decoder_stats(const struct hcb_decoder *d, uint32_t dev)
{
	const struct device_state *ds;

	if (dev >= HCB_MAX_DEVICES)
		return NULL;
	ds = &d->dev[dev];
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		if (ds->st.problems[i])
			return &ds->st;
	for (int i = 0; i < HCB_LOST_REASONS; i++)
		if (ds->st.lost[i])
			return &ds->st;
	return ds->seen ? &ds->st : NULL;
}

uint64_t hcb_stream_gaps(const struct hcb_stream_stats *s)
{
	uint64_t span;

	if (!s->packets)
		return 0;
	/* a seq seen twice (a confused target) must not make it wrap */
	span = s->last_seq - s->first_seq + 1;
	return span > s->packets ? span - s->packets : 0;
}

struct hcb_registry *hcb_decoder_registry(struct hcb_decoder *d)
{
	return d->reg;
}
