/* SPDX-License-Identifier: MIT */
/*
 * calls.c - the jax-callback decoder's calls in flight.  A call's
 * records all come from the thread that made it, one after the other, but
 * calls of one device may be under way on several threads at once: each
 * is found by (device, seq) in a hash, and by its thread in another (a
 * thread starting a new call has finished sending its last one).  What
 * they claim is held in the pool of providers/bounds.h (JX_MAX_INFLIGHT
 * calls, JX_CALL_BYTES): the oldest is given up, counted, to make room;
 * one that made no progress for a while is given up at a tick.  It hands
 * no call on itself (a whole one is decode.c's to hand on at a tick), so
 * that every file that holds calls can build on it.
 */
#include <errno.h>
#include <stdlib.h>

#include "decode_impl.h"

_Static_assert((JX_CALL_BUCKETS & (JX_CALL_BUCKETS - 1)) == 0, "a power of two");

static struct jcall **seq_bucket(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq)
{
	return &x->by_seq[hcb_bounds_bucket(seq, dev, JX_CALL_BUCKETS)];
}

static struct jcall **thread_bucket(struct hcb_jaxffi *x, uint32_t pid, uint32_t tid)
{
	return &x->by_thread[hcb_bounds_bucket(tid, pid, JX_CALL_BUCKETS)];
}

static void link_call(struct hcb_jaxffi *x, struct jcall *c)
{
	struct jcall **s = seq_bucket(x, c->h.device, c->h.seq);
	struct jcall **t = thread_bucket(x, c->h.pid, c->h.tid);

	c->older = x->newest;
	*(x->newest ? &x->newest->newer : &x->oldest) = c;
	x->newest = c;
	if ((c->snext = *s))
		c->snext->sprev = &c->snext;
	c->sprev = s;
	*s = c;
	if ((c->tnext = *t))
		c->tnext->tprev = &c->tnext;
	c->tprev = t;
	*t = c;
}

static void unlink_call(struct hcb_jaxffi *x, struct jcall *c)
{
	*(c->older ? &c->older->newer : &x->oldest) = c->newer;
	*(c->newer ? &c->newer->older : &x->newest) = c->older;
	if ((*c->sprev = c->snext))
		c->snext->sprev = c->sprev;
	if ((*c->tprev = c->tnext))
		c->tnext->tprev = c->tprev;
}

struct jcall *hcb_jx_call_find(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq)
{
	for (struct jcall *c = *seq_bucket(x, dev, seq); c; c = c->snext)
		if (c->h.device == dev && c->h.seq == seq)
			return c;
	return NULL;
}

struct jcall *hcb_jx_call_of(struct hcb_jaxffi *x, uint32_t pid, uint32_t tid)
{
	for (struct jcall *c = *thread_bucket(x, pid, tid); c; c = c->tnext)
		if (c->h.tid == tid && c->h.pid == pid)
			return c;
	return NULL;
}

struct jcall *hcb_jx_call_older(const struct jcall *c)
{
	for (struct jcall *o = c->tnext; o; o = o->tnext)
		if (o->h.tid == c->h.tid && o->h.pid == c->h.pid)
			return o;
	return NULL;
}

void hcb_jx_call_unthread(struct jcall *c)
{
	if ((*c->tprev = c->tnext))
		c->tnext->tprev = c->tprev;
	c->tnext = NULL;
	c->tprev = &c->tnext;
}

void hcb_jx_call_drop(struct hcb_jaxffi *x, struct jcall *c)
{
	unlink_call(x, c);
	if (c->parked)
		x->parked--;
	hcb_bounds_give(&x->b.packets, c->held);
	free(c->shapes);
	hcb_buf_free(&c->payload);
	hcb_buf_free(&c->text);
	free(c->py_site);
	free(c);
}

void hcb_jx_call_stopped(struct hcb_jaxffi *x, struct jcall *c, const char *why)
{
	hcb_bounds_problem(&x->b, HCB_INCOMPLETE, c->h.device, 0, "device %u: callback call "
			   "%llu (%s) stopped after %u of %u operands, %llu of %llu bytes: %s",
			   c->h.device_id, (unsigned long long)c->h.seq, c->h.op, c->nseen,
			   c->h.nargs, (unsigned long long)c->got,
			   (unsigned long long)c->h.total_bytes, why);
	hcb_jx_call_drop(x, c);
}

/* Room for need more bytes and one more call: the oldest calls given up,
 * counted, while the pool is full.  0, or -ENOBUFS when none is left. */
static int room(struct hcb_jaxffi *x, const struct hcb_ev_jcall *h, uint64_t need)
{
	while (hcb_bounds_take(&x->b.packets, need)) {
		struct jcall *old = x->oldest;

		if (!old)
			return -ENOBUFS;
		hcb_bounds_lose(&x->b, HCB_BOUND_PACKET_MEM, old->h.device, 0, "device %u: "
				"callback call %llu (%s) given up for call %llu of device %u: %u calls "
				"under way hold %llu bytes", old->h.device_id,
				(unsigned long long)old->h.seq, old->h.op, (unsigned long long)h->seq,
				h->device_id, x->b.packets.n, (unsigned long long)x->b.packets.bytes);
		hcb_jx_call_drop(x, old);
	}
	return 0;
}

struct jcall *hcb_jx_call_new(struct hcb_jaxffi *x, const struct hcb_ev_jcall *h, int *err)
{
	uint64_t need = h->total_bytes + sizeof(struct jcall) +
			(h->nargs + 1) * sizeof(struct hcb_xshape);
	struct jcall *c;

	*err = 0;
	/* one claim larger than the whole budget gives nothing else up */
	if (need > x->b.packets.limit || room(x, h, need)) {
		hcb_bounds_lose(&x->b, HCB_BOUND_PACKET_MEM, h->device, 0, "device %u: callback "
				"call %llu (%s): %llu bytes are more than calls under way may hold "
				"(%llu)", h->device_id, (unsigned long long)h->seq, h->op,
				(unsigned long long)h->total_bytes,
				(unsigned long long)x->b.packets.limit);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->shapes = calloc(h->nargs + 1, sizeof(*c->shapes)))) {
		free(c);
		hcb_bounds_give(&x->b.packets, need);
		*err = -ENOMEM;
		return NULL;
	}
	c->h = *h;
	c->last_arg = -1;
	c->held = need;
	c->touched_ns = x->b.now_ns;
	link_call(x, c);
	return c;
}

int hcb_jx_call_stale(struct hcb_jaxffi *x, struct jcall *c)
{
	/* made before the first tick: its wait starts at this one */
	if (!c->touched_ns)
		c->touched_ns = x->b.now_ns;
	return hcb_bounds_expired(&x->b, c->touched_ns);
}

void hcb_jx_call_expire(struct hcb_jaxffi *x, struct jcall *c)
{
	hcb_bounds_lose(&x->b, HCB_BOUND_EXPIRED, c->h.device, 0, "device %u: callback "
			"call %llu (%s) given up: %u of %u operands, %llu of %llu bytes came, "
			"then none for a while", c->h.device_id, (unsigned long long)c->h.seq,
			c->h.op, c->nseen, c->h.nargs, (unsigned long long)c->got,
			(unsigned long long)c->h.total_bytes);
	hcb_jx_call_drop(x, c);
}

void hcb_jx_calls_free(struct hcb_jaxffi *x)
{
	while (x->oldest)
		hcb_jx_call_drop(x, x->oldest);
}
