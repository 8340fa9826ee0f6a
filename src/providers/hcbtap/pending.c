/* SPDX-License-Identifier: MIT */
/*
 * pending.c - the hcbtap decoder's pending packets: payloads whose chunks
 * are coming, and packets held in their device's order behind one that
 * waits for its registration (another thread's copy of it still in the
 * ring when the packet came: the target may be gone before it could be
 * read there).  All of it within the packet pool of providers/bounds.h:
 * the oldest is given up, counted, to make room; what made no progress for
 * a while is given up at a tick.  Packets are delivered here, since every
 * change to a queue may free what waited at its head.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_impl.h"

/* no ring buffer holds more than 4 GiB: a larger packet cannot come */
#define MAX_PACKET (UINT64_C(4) << 30)

static int whole(const struct pending *p)
{
	return p->received == p->total;
}

static void devset_add(struct devset *s, uint32_t dev)
{
	if (hcb_bounds_device_ok(dev))
		s->bit[dev / 64] |= UINT64_C(1) << (dev % 64);
}

int hcb_hcbtap_drain_set(struct hcb_hcbtap *d, const struct devset *s)
{
	for (uint32_t dev = 0; dev < HCB_MAX_DEVICES; dev++) {
		int err;

		if (!(s->bit[dev / 64] >> (dev % 64) & 1))
			continue;
		err = hcb_hcbtap_drain(d, dev);
		if (err)
			return err;
	}
	return 0;
}

static void queue_remove(struct hcb_hcbtap *d, struct pending *p)
{
	struct pending *prev = NULL;

	for (struct pending *q = d->qhead[p->device]; q; prev = q, q = q->qnext) {
		if (q != p)
			continue;
		*(prev ? &prev->qnext : &d->qhead[p->device]) = p->qnext;
		if (d->qtail[p->device] == p)
			d->qtail[p->device] = prev;
		break;
	}
	p->queued = 0;
}

/* ---- the indexes: a chunk finds its packet, a thread its unfinished
 * ones, without a walk of every packet held ---- */

_Static_assert((PENDING_BUCKETS & (PENDING_BUCKETS - 1)) == 0, "a power of two");

static struct pending **seq_bucket(struct hcb_hcbtap *d, uint32_t device, uint64_t seq)
{
	return &d->by_seq[hcb_bounds_bucket(seq, device, PENDING_BUCKETS)];
}

static struct pending **thread_bucket(struct hcb_hcbtap *d, uint32_t pid, uint32_t tid)
{
	return &d->by_thread[hcb_bounds_bucket(tid, pid, PENDING_BUCKETS)];
}

static void index_add(struct hcb_hcbtap *d, struct pending *p)
{
	struct pending **s = seq_bucket(d, p->device, p->seq);
	struct pending **t = thread_bucket(d, p->pid, p->tid);

	if ((p->snext = *s))
		p->snext->sprev = &p->snext;
	p->sprev = s;
	*s = p;
	if ((p->tnext = *t))
		p->tnext->tprev = &p->tnext;
	p->tprev = t;
	*t = p;
}

static void index_remove(struct pending *p)
{
	if ((*p->sprev = p->snext))
		p->snext->sprev = p->sprev;
	if ((*p->tprev = p->tnext))
		p->tnext->tprev = p->tprev;
}

struct pending *hcb_hcbtap_pending_find(struct hcb_hcbtap *d, uint32_t device, uint64_t seq,
					uint32_t cid)
{
	for (struct pending *p = *seq_bucket(d, device, seq); p; p = p->snext)
		if (p->device == device && p->seq == seq && p->consumer_id == cid)
			return p;
	return NULL;
}

void hcb_hcbtap_pending_free(struct hcb_hcbtap *d, struct pending *p)
{
	if (p->queued)
		queue_remove(d, p);
	index_remove(p);
	*(p->prev ? &p->prev->next : &d->pending) = p->next;
	*(p->next ? &p->next->prev : &d->oldest) = p->prev;
	hcb_bounds_give(&d->b.packets, p->held);
	free(p->buf);
	free(p);
}

/* Room for need more bytes: the oldest packets given up, counted, while
 * the pool is full.  0, or -ENOBUFS when nothing is left to give up. */
static int room(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e, uint64_t need)
{
	struct devset touched = { { 0 } };

	while (hcb_bounds_take(&d->b.packets, need)) {
		struct pending *old = d->oldest;

		if (!old) {
			hcb_hcbtap_drain_set(d, &touched);
			return -ENOBUFS;
		}
		hcb_bounds_lose(&d->b, HCB_BOUND_PACKET_MEM, old->device, old->consumer_id,
				"packet %llu of device %u given up for packet %llu of device %u: %u "
				"unfinished packets hold %llu bytes", (unsigned long long)old->seq,
				old->device, (unsigned long long)e->seq, e->device, d->b.packets.n,
				(unsigned long long)d->b.packets.bytes);
		devset_add(&touched, old->device);
		hcb_hcbtap_pending_free(d, old);
	}
	/* what waited behind those goes on (errors are the callback's: the
	 * next delivery sees them again) */
	hcb_hcbtap_drain_set(d, &touched);
	return 0;
}

struct pending *hcb_hcbtap_pending_new(struct hcb_hcbtap *d, const struct hcb_ev_pkt *e,
				       const struct hcb_consumer *c)
{
	uint64_t total = c ? c->total_bytes : e->total_bytes;
	uint64_t need = total + sizeof(struct pending);
	struct pending *p;

	/* one claim larger than the whole budget gives nothing else up */
	if (total > MAX_PACKET || need > d->b.packets.limit || room(d, e, need)) {
		hcb_bounds_lose(&d->b, HCB_BOUND_PACKET_MEM, e->device, e->consumer_id,
				"packet %llu of device %u: %llu bytes are more than unfinished packets "
				"may hold (%llu)", (unsigned long long)e->seq, e->device,
				(unsigned long long)total, (unsigned long long)d->b.packets.limit);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p && !(p->buf = malloc(total ? total : 1))) {
		free(p);
		p = NULL;
	}
	if (!p) {
		/* a shape too large for this machine must not end the session */
		hcb_bounds_give(&d->b.packets, need);
		hcb_bounds_problem(&d->b, HCB_SHORT_PAYLOAD, e->device, e->consumer_id,
				   "packet %llu of device %u: cannot hold %llu bytes for consumer %u",
				   (unsigned long long)e->seq, e->device, (unsigned long long)total,
				   e->consumer_id);
		return NULL;
	}
	*p = (struct pending){ .device = e->device, .consumer_id = e->consumer_id,
			       .nleaves = e->nleaves, .seq = e->seq, .mono_ns = e->ts_ns,
			       .total = total, .reg_addr = e->reg_addr, .reg_len = e->reg_len,
			       .pid = e->pid, .tid = e->tid, .consumer = c,
			       .touched_ns = d->b.now_ns, .buf = p->buf, .held = need };
	p->next = d->pending;
	*(d->pending ? &d->pending->prev : &d->oldest) = p;
	d->pending = p;
	index_add(d, p);
	return p;
}

int hcb_hcbtap_deliver(struct hcb_hcbtap *d, struct pending *p)
{
	struct hcb_packet pkt = {
		.device = p->device, .seq = p->seq, .mono_ns = p->mono_ns,
		.pid = p->pid, .tid = p->tid, .consumer = p->consumer,
		.payload = p->buf,
	};

	hcb_bounds_delivered(&d->b, p->device, p->seq, p->consumer->total_bytes);
	return d->ops->packet(d->ctx, &pkt);
}

int hcb_hcbtap_queued(const struct hcb_hcbtap *d, uint32_t device)
{
	return hcb_bounds_device_ok(device) && d->qhead[device];
}

void hcb_hcbtap_enqueue(struct hcb_hcbtap *d, struct pending *p)
{
	*(d->qtail[p->device] ? &d->qtail[p->device]->qnext : &d->qhead[p->device]) = p;
	d->qtail[p->device] = p;
	p->qnext = NULL;
	p->queued = 1;
}

int hcb_hcbtap_drain(struct hcb_hcbtap *d, uint32_t device)
{
	struct pending *p;

	while ((p = d->qhead[device]) && p->consumer && whole(p)) {
		int err = hcb_hcbtap_deliver(d, p);

		hcb_hcbtap_pending_free(d, p);
		if (err)
			return err;
	}
	return 0;
}

/* The first packet that waits for consumer cid's registration. */
static struct pending *first_waiting(struct hcb_hcbtap *d, uint32_t cid)
{
	for (struct pending *p = d->oldest; p; p = p->prev)
		if (!p->consumer && p->consumer_id == cid)
			return p;
	return NULL;
}

int hcb_hcbtap_resolve(struct hcb_hcbtap *d, uint32_t cid, const struct hcb_consumer *c)
{
	struct pending *w = first_waiting(d, cid);
	struct devset touched = { { 0 } };

	if (!w)
		return 0;
	/* no copy brought it: the target itself, once, if it is still there */
	if (!c)
		c = hcb_hcbtap_consumer_read(d, w->device, cid, w->reg_addr, w->reg_len);
	for (struct pending *p = d->oldest, *prev; p; p = prev) {
		prev = p->prev;
		if (p->consumer || p->consumer_id != cid)
			continue;
		devset_add(&touched, p->device);
		if (!c)
			hcb_bounds_problem(&d->b, HCB_UNKNOWN_CONSUMER, p->device, cid,
					   "packet %llu of device %u is for unknown consumer %u",
					   (unsigned long long)p->seq, p->device, cid);
		else if (p->total != c->total_bytes || p->nleaves != c->nleaves)
			hcb_bounds_problem(&d->b, HCB_SHORT_PAYLOAD, p->device, cid,
					   "packet %llu of device %u has %llu bytes in %u leaves; "
					   "consumer %u registered %llu in %u", (unsigned long long)p->seq,
					   p->device, (unsigned long long)p->total, p->nleaves, cid,
					   (unsigned long long)c->total_bytes, c->nleaves);
		else {
			p->consumer = c;
			continue;
		}
		hcb_hcbtap_pending_free(d, p);
	}
	return hcb_hcbtap_drain_set(d, &touched);
}

int hcb_hcbtap_cut_short(struct hcb_hcbtap *d, uint32_t pid, uint32_t tid)
{
	struct devset touched = { { 0 } };

	for (struct pending *q = *thread_bucket(d, pid, tid), *next; q; q = next) {
		next = q->tnext;
		if (q->tid != tid || q->pid != pid || whole(q))
			continue;
		hcb_bounds_problem(&d->b, HCB_INCOMPLETE, q->device, q->consumer_id,
				   "packet %llu of device %u was cut short (%llu of %llu bytes)",
				   (unsigned long long)q->seq, q->device, (unsigned long long)q->received,
				   (unsigned long long)q->total);
		devset_add(&touched, q->device);
		hcb_hcbtap_pending_free(d, q);
	}
	return hcb_hcbtap_drain_set(d, &touched);
}

void hcb_hcbtap_pending_expire(struct hcb_hcbtap *d, struct devset *touched)
{
	for (struct pending *q = d->oldest, *prev; q; q = prev) {
		prev = q->prev;
		if (!q->touched_ns)
			q->touched_ns = d->b.now_ns;
		/* a waiting packet goes with its registration (registration.c) */
		if (!q->consumer || !hcb_bounds_expired(&d->b, q->touched_ns))
			continue;
		hcb_bounds_lose(&d->b, HCB_BOUND_EXPIRED, q->device, q->consumer_id,
				"packet %llu of device %u given up: %llu of %llu bytes came, then none "
				"for a while", (unsigned long long)q->seq, q->device,
				(unsigned long long)q->received, (unsigned long long)q->total);
		devset_add(touched, q->device);
		hcb_hcbtap_pending_free(d, q);
	}
}
