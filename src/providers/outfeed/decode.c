/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/dtype.h"
#include "core/grow.h"
#include "providers/bounds.h"
#include "providers/xshape.h"
#include "events.h"
#include "shapeproto.h"
#include "decode.h"

#define MAX_PAYLOAD (UINT64_C(4) << 30)   /* as hcbtap_decode.c: a packet is held whole */

/* A consumer made up for (id, leaf shapes): what the packets say of it. */
struct synth {
	struct synth *next;
	uint32_t consumer;               /* the id in the packets */
	unsigned int nleaves;
	struct hcb_xshape *shapes;
	const struct hcb_consumer *c;    /* in the registry */
};

struct xdev {
	bool seen, have_seq;
	uint64_t next_seq;               /* of the next leaf */
	/* the leaf being received */
	bool in_leaf, leaf_bad;
	uint64_t leaf_seq, leaf_len, leaf_got;
	struct hcb_xshape leaf_shape;
	struct hcb_buf leaf;
	/* the packet being put together */
	bool in_packet, packet_bad;
	uint32_t consumer;
	unsigned int nleaves;
	size_t cap;
	struct hcb_xshape *shapes;
	struct hcb_buf payload;
	uint64_t mono_ns, last_ns;
	uint32_t pid, tid;
	uint64_t packets;                /* delivered: the next packet's seq */
};

struct hcb_outfeed {
	struct hcb_bounds b;             /* ops, figures and problems per device */
	/* the longest wait seen between a packet's leaves, any device (the
	 * probe's clock): a slow machine's packets are waited for longer */
	uint64_t max_gap_ns;
	struct hcb_registry *reg;
	struct synth *synths;
	struct xdev *dev[HCB_MAX_DEVICES];
};

int hcb_outfeed_new(struct hcb_outfeed **out, const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_outfeed *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->reg = hcb_registry_new();
	if (!x->reg) {
		free(x);
		return -ENOMEM;
	}
	hcb_bounds_init(&x->b, ops, ctx);
	*out = x;
	return 0;
}

void hcb_outfeed_free(struct hcb_outfeed *x)
{
	if (!x)
		return;
	for (unsigned int d = 0; d < HCB_MAX_DEVICES; d++) {
		if (!x->dev[d])
			continue;
		hcb_buf_free(&x->dev[d]->leaf);
		hcb_buf_free(&x->dev[d]->payload);
		free(x->dev[d]->shapes);
		free(x->dev[d]);
	}
	while (x->synths) {
		struct synth *s = x->synths;

		x->synths = s->next;
		free(s->shapes);
		free(s);
	}
	hcb_registry_free(x->reg);
	free(x);
}

/* Device d's state (its figures are in x->b); NULL out of range. */
static struct xdev *xdev_of(struct hcb_outfeed *x, uint32_t d)
{
	if (!hcb_bounds_device_ok(d))
		return NULL;
	if (!x->dev[d]) {
		/* zeroed buffers are empty ones (HCB_BUF_INIT) */
		x->dev[d] = calloc(1, sizeof(*x->dev[d]));
	}
	return x->dev[d];
}

static bool same_shapes(const struct synth *s, const struct xdev *d)
{
	return s->nleaves == d->nleaves &&
	       (!d->nleaves || !memcmp(s->shapes, d->shapes, d->nleaves * sizeof(*d->shapes)));
}

/* The made-up consumer for the packet in d, registered on first sight. */
static const struct hcb_consumer *consumer_for(struct hcb_outfeed *x, const struct xdev *d)
{
	struct hcb_leaf_spec *leaves = NULL;
	struct hcb_consumer *c = NULL;
	char name[32], idtext[16];
	const char *kwargs[] = { "consumer", idtext, NULL };
	struct hcb_consumer_spec spec = {
		.name = name, .kwargs = kwargs, .nleaves = d->nleaves,
		.tree = d->nleaves ? NULL : "( )",
	};
	struct synth *s;
	void *blob = NULL;
	size_t len;
	uint32_t id;
	int err;

	for (s = x->synths; s; s = s->next)
		if (s->consumer == d->consumer && same_shapes(s, d))
			return s->c;
	snprintf(name, sizeof(name), "consumer-%u", d->consumer);
	snprintf(idtext, sizeof(idtext), "%u", d->consumer);
	leaves = calloc(d->nleaves + 1, sizeof(*leaves));
	s = calloc(1, sizeof(*s));
	if (!leaves || !s)
		goto out;
	s->shapes = calloc(d->nleaves + 1, sizeof(*s->shapes));
	if (!s->shapes)
		goto out;
	hcb_xshape_specs(d->shapes, d->nleaves, leaves);
	spec.leaves = leaves;
	/* the packets' id, unless another shape took it: then one of its own */
	id = d->consumer;
	err = hcb_reg_build(&spec, id, &blob, &len);
	if (!err && hcb_registry_get(x->reg, id)) {
		for (id = hcb_reg_hash(blob, len); !id || hcb_registry_get(x->reg, id); id++)
			;
		free(blob);
		blob = NULL;
		err = hcb_reg_build(&spec, id, &blob, &len);
	}
	if (!err)
		err = hcb_consumer_from_reg(blob, len, &c);
	if (!err && hcb_registry_add(x->reg, c)) {
		hcb_consumer_free(c);
		c = NULL;
	}
	if (!c)
		goto out;
	s->consumer = d->consumer;
	s->nleaves = d->nleaves;
	memcpy(s->shapes, d->shapes, d->nleaves * sizeof(*d->shapes));
	s->c = c;
	s->next = x->synths;
	x->synths = s;
	s = NULL;
out:
	if (s)
		free(s->shapes);
	free(s);
	free(blob);
	free(leaves);
	return c;
}

static void packet_reset(struct xdev *d)
{
	d->in_packet = d->packet_bad = false;
	d->nleaves = 0;
	hcb_buf_reset(&d->payload);
}

/* The packet in d is whole: hand it on (or count it, if it was broken). */
static int deliver(struct hcb_outfeed *x, struct xdev *d, uint32_t dev)
{
	const struct hcb_consumer *c;
	struct hcb_packet p;
	int err = 0;

	if (!d->in_packet)
		return 0;
	if (d->packet_bad) {
		packet_reset(d);
		return 0;
	}
	c = consumer_for(x, d);
	if (!c) {
		packet_reset(d);
		return -ENOMEM;
	}
	p = (struct hcb_packet){
		.device = dev, .seq = d->packets, .mono_ns = d->mono_ns, .pid = d->pid, .tid = d->tid,
		.consumer = c, .payload = (const unsigned char *)d->payload.data,
	};
	hcb_bounds_delivered(&x->b, dev, p.seq, c->total_bytes);
	d->packets++;
	err = x->b.ops->packet(x->b.ctx, &p);
	packet_reset(d);
	return err;
}

static bool is_header(const struct xdev *d)
{
	const struct hcb_xshape *s = &d->leaf_shape;
	uint32_t magic;

	if (s->dtype != HCB_DT_UINT32 || s->ndim != 1 || s->dims[0] != 2 || d->leaf.len != 8)
		return false;
	memcpy(&magic, d->leaf.data, 4);
	return magic == HCB_OUTFEED_MAGIC;
}

/* The leaf in d has all its bytes. */
static int leaf_done(struct hcb_outfeed *x, struct xdev *d, uint32_t dev)
{
	int err = 0;

	d->in_leaf = false;
	if (d->leaf_bad)
		return 0;
	if (is_header(d)) {
		uint32_t consumer;

		/* the previous packet had all the leaves it will get */
		err = deliver(x, d, dev);
		memcpy(&consumer, d->leaf.data + 4, 4);
		if (consumer == HCB_CONSUMER_RESERVED)
			return err;   /* the receiver's shutdown header, no tap */
		packet_reset(d);
		d->in_packet = true;
		d->consumer = consumer;
		return err;
	}
	if (!d->in_packet) {
		hcb_bounds_problem(&x->b, HCB_BAD_CHUNK, dev, d->consumer,
			"device %u: an outfeed leaf (%s) outside a packet, "
			"before any header: out of order or its header was lost", hcb_bounds_id(&x->b, dev),
			hcb_dtype_name(d->leaf_shape.dtype));
		return 0;
	}
	if (d->packet_bad)
		return 0;
	if (d->nleaves >= HCB_MAX_LEAVES || d->payload.len + d->leaf.len > MAX_PAYLOAD) {
		hcb_bounds_problem(&x->b, HCB_SHORT_PAYLOAD, dev, d->consumer,
			"device %u: consumer %u: a packet of more than "
			"%u leaves or 4 GiB", hcb_bounds_id(&x->b, dev), d->consumer, HCB_MAX_LEAVES);
		d->packet_bad = true;
		return 0;
	}
	if (hcb_grow(&d->shapes, &d->cap, d->nleaves + 1, sizeof(*d->shapes)))
		return -ENOMEM;
	d->shapes[d->nleaves++] = d->leaf_shape;
	return hcb_buf_add(&d->payload, d->leaf.data, d->leaf.len);
}

static int on_leaf(struct hcb_outfeed *x, const struct hcb_ev_xleaf *e)
{
	struct xdev *d = xdev_of(x, e->device);
	char why[128];
	int err = 0;

	if (!hcb_bounds_device_ok(e->device)) {
		hcb_bounds_lose(&x->b, HCB_BOUND_DEVICE, e->device, 0, "an outfeed leaf for device "
				"slot %u; slots go up to %u", e->device, HCB_MAX_DEVICES - 1);
		return 0;
	}
	if (!d)
		return -ENOMEM;
	if (d->in_leaf) {
		hcb_bounds_problem(&x->b, HCB_INCOMPLETE, e->device, d->consumer,
			"device %u: an outfeed leaf of %llu bytes "
			"stopped after %llu (ring buffer full)", hcb_bounds_id(&x->b, e->device),
			(unsigned long long)d->leaf_len, (unsigned long long)d->leaf_got);
		d->packet_bad = d->in_packet;
	}
	if (d->have_seq && e->seq != d->next_seq) {
		/* leaves went missing: the packet they belonged to is broken */
		hcb_bounds_problem(&x->b, HCB_INCOMPLETE, e->device, d->consumer,
			"device %u: %llu outfeed leaves lost "
			"(ring buffer full)", hcb_bounds_id(&x->b, e->device),
			(unsigned long long)(e->seq - d->next_seq));
		d->packet_bad = d->in_packet;
	}
	d->seen = d->have_seq = true;
	d->next_seq = e->seq + 1;
	d->in_leaf = true;
	d->leaf_bad = false;
	d->leaf_seq = e->seq;
	d->leaf_len = e->len;
	d->leaf_got = 0;
	if (d->in_packet && e->ts_ns > d->last_ns && e->ts_ns - d->last_ns > x->max_gap_ns)
		x->max_gap_ns = e->ts_ns - d->last_ns;
	d->last_ns = e->ts_ns;
	hcb_buf_reset(&d->leaf);
	if (e->shape_len > HCB_XSHAPE_MAX ||
	    hcb_shapeproto_decode(e->shape, e->shape_len, &d->leaf_shape, why, sizeof(why))) {
		if (e->shape_len > HCB_XSHAPE_MAX)
			snprintf(why, sizeof(why), "too long or unreadable");
		hcb_bounds_problem(&x->b, HCB_BAD_REGISTRATION, e->device, d->consumer,
			"device %u: outfeed leaf with a "
			"malformed or unsupported ShapeProto: %s", hcb_bounds_id(&x->b, e->device), why);
		d->leaf_bad = true;
	} else if (d->leaf_shape.nbytes != e->len) {
		hcb_bounds_problem(&x->b, HCB_SHORT_PAYLOAD, e->device, d->consumer,
			"device %u: outfeed leaf of %u bytes for "
			"a shape of %llu", hcb_bounds_id(&x->b, e->device), e->len,
			(unsigned long long)d->leaf_shape.nbytes);
		d->leaf_bad = true;
	}
	if (d->leaf_bad)
		d->packet_bad = d->in_packet;
	else if (!d->in_packet || !d->nleaves) {
		d->mono_ns = e->ts_ns;
		d->pid = e->pid;
		d->tid = e->tid;
	}
	if (e->len == 0)
		err = leaf_done(x, d, e->device);
	return err;
}

static int on_chunk(struct hcb_outfeed *x, const struct hcb_ev_chunk *c, size_t len)
{
	struct xdev *d = c->device < HCB_MAX_DEVICES ? x->dev[c->device] : NULL;

	if (!d || !d->in_leaf || c->seq != d->leaf_seq)
		return 0;   /* of a leaf already counted as broken */
	if (c->len > len - sizeof(*c) || c->offset != d->leaf_got || c->total != d->leaf_len ||
	    c->len > d->leaf_len - d->leaf_got) {
		hcb_bounds_problem(&x->b, HCB_BAD_CHUNK, c->device, d->consumer,
			"device %u: outfeed leaf chunk out of order",
			hcb_bounds_id(&x->b, c->device));
		d->leaf_bad = true;
		d->packet_bad = d->in_packet;
		d->in_leaf = false;
		return 0;
	}
	d->leaf_got += c->len;
	if (!d->leaf_bad && hcb_buf_add(&d->leaf, (const char *)(c + 1), c->len))
		return -ENOMEM;
	if (d->leaf_got == d->leaf_len)
		return leaf_done(x, d, c->device);
	return 0;
}

int hcb_outfeed_feed(struct hcb_outfeed *x, const void *rec, size_t len)
{
	uint32_t type;

	if (len < sizeof(type))
		goto bad;
	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_XLEAF && len >= sizeof(struct hcb_ev_xleaf)) {
		struct hcb_ev_xleaf e;

		memcpy(&e, rec, sizeof(e));
		return on_leaf(x, &e);
	}
	if (type == HCB_EV_XDATA && len >= sizeof(struct hcb_ev_chunk))
		return on_chunk(x, rec, len);
bad:
	/* counted apart from every device: it names none that can be trusted */
	hcb_bounds_problem(&x->b, HCB_BAD_RECORD, HCB_MAX_DEVICES, 0, "an outfeed record of %zu "
			   "bytes that is none", len);
	return 0;
}

/*
 * How long a packet of device d is waited for before it is taken as whole:
 * quiet_ns, or four times the longest wait seen between a packet's leaves
 * if longer (a machine slow enough to leave more than quiet_ns between
 * two leaves of one packet, as a guest under software emulation does);
 * a packet that has no data leaf yet, ten times that.  At most
 * HCB_OUTFEED_MAX_QUIET_NS.
 */
static uint64_t quiet_for(const struct hcb_outfeed *x, const struct xdev *d, uint64_t quiet_ns)
{
	uint64_t wait = quiet_ns;

	if (x->max_gap_ns < HCB_OUTFEED_MAX_QUIET_NS / 4 && 4 * x->max_gap_ns > wait)
		wait = 4 * x->max_gap_ns;
	if (!d->nleaves)
		wait = wait < HCB_OUTFEED_MAX_QUIET_NS / 10 ? 10 * wait : HCB_OUTFEED_MAX_QUIET_NS;
	return wait < HCB_OUTFEED_MAX_QUIET_NS ? wait : HCB_OUTFEED_MAX_QUIET_NS;
}

int hcb_outfeed_flush_idle(struct hcb_outfeed *x, uint64_t now_ns, uint64_t quiet_ns)
{
	for (uint32_t dev = 0; dev < HCB_MAX_DEVICES; dev++) {
		struct xdev *d = x->dev[dev];
		int err;

		if (!d || !d->in_packet || d->in_leaf ||
		    d->last_ns + quiet_for(x, d, quiet_ns) > now_ns)
			continue;
		err = deliver(x, d, dev);
		if (err)
			return err;
	}
	return 0;
}

int hcb_outfeed_finish(struct hcb_outfeed *x)
{
	for (uint32_t dev = 0; dev < HCB_MAX_DEVICES; dev++) {
		struct xdev *d = x->dev[dev];
		int err;

		if (!d)
			continue;
		if (d->in_leaf) {
			hcb_bounds_problem(&x->b, HCB_INCOMPLETE, dev, d->consumer,
				"device %u: the last outfeed leaf stopped "
				"after %llu of %llu bytes", hcb_bounds_id(&x->b, dev), (unsigned long long)d->leaf_got,
				(unsigned long long)d->leaf_len);
			d->in_leaf = false;
			d->packet_bad = d->in_packet;
		}
		err = deliver(x, d, dev);
		if (err)
			return err;
	}
	return 0;
}

const struct hcb_stream_stats *hcb_outfeed_stats(const struct hcb_outfeed *x, uint32_t device)
{
	if (device == HCB_MAX_DEVICES)
		return hcb_bounds_stray(&x->b);
	/* a device is shown from its first leaf on, delivered or not */
	return hcb_bounds_device_ok(device) && x->dev[device] && x->dev[device]->seen ?
	       &x->b.dev[device].st : NULL;
}

struct hcb_registry *hcb_outfeed_registry(struct hcb_outfeed *x)
{
	return x->reg;
}
