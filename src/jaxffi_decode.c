/* SPDX-License-Identifier: MIT */
/*
 * jaxffi_decode.c - the jaxffi provider's records (bpf/jaxffi_events.h) back
 * into packets.  A call's records all come from the thread that made the
 * call, one after the other, but calls of one device may be under way on
 * several threads at once: each call in flight is found by (device, seq),
 * and a thread starting a new call has finished sending its last one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/hcbtap_events.h"
#include "bpf/jaxffi_abi.h"
#include "bpf/jaxffi_events.h"
#include "buf.h"
#include "dtype.h"
#include "jaxffi.h"
#include "jaxffi_check.h"
#include "shapeproto.h"

#define MAX_PAYLOAD (UINT64_C(4) << 30)   /* as decode.c: a call is held whole */
#define MAX_INFLIGHT 256u                  /* calls under way at once, all threads */
#define MAX_LEGACY_SITES 1024u             /* legacy descriptors numbered, beyond: one name */

/* A call site seen, and the consumer made up for it. */
struct site {
	struct site *next;
	char op[HCB_JAXFFI_OP_MAX], module[HCB_JAXFFI_MODULE_MAX];
	char target[HCB_JAXFFI_TARGET_MAX];
	unsigned int nleaves;
	struct hcb_xshape *shapes;
	const struct hcb_consumer *c;      /* in the registry */
};

/* A call whose records are still coming. */
struct jcall {
	struct hcb_ev_jcall h;             /* its call record; names made printable */
	uint32_t nseen;                    /* operands so far */
	int64_t last_arg;                  /* arg of the last one, -1 before any */
	uint64_t arg_left;                 /* bytes of the last one still to come */
	uint64_t got;                      /* payload bytes so far */
	struct hcb_xshape *shapes;         /* h.nargs */
	struct hcb_buf payload;
};

struct jdev {
	struct hcb_stream_stats stats;
};

struct hcb_jaxffi {
	const struct hcb_decoder_ops *ops;
	void *ctx;
	struct hcb_registry *reg;
	struct site *sites;
	struct jcall **calls;              /* in flight, oldest first */
	unsigned int ncalls;
	struct jdev *dev[HCB_MAX_DEVICES];
	struct hcb_jaxffi_check check;     /* the layout, proven or refused */
	/* legacy calls without a thunk (XLA's classic runtime) have no names:
	 * their sites are numbered by their descriptors, in order of first
	 * sight (a descriptor lives as long as its executable) */
	uint64_t legacy_desc[MAX_LEGACY_SITES];
	unsigned int nlegacy;
	uint64_t delivered;                /* calls handed on: the layout held for them */
};

int hcb_jaxffi_new(struct hcb_jaxffi **out, const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_jaxffi *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->reg = hcb_registry_new();
	x->calls = calloc(MAX_INFLIGHT, sizeof(*x->calls));
	if (!x->reg || !x->calls) {
		hcb_registry_free(x->reg);
		free(x->calls);
		free(x);
		return -ENOMEM;
	}
	x->ops = ops;
	x->ctx = ctx;
	*out = x;
	return 0;
}

void hcb_jaxffi_device_proven(struct hcb_jaxffi *x)
{
	x->check.device_proven = 1;
}

static void call_free(struct jcall *c)
{
	if (!c)
		return;
	free(c->shapes);
	hcb_buf_free(&c->payload);
	free(c);
}

void hcb_jaxffi_free(struct hcb_jaxffi *x)
{
	if (!x)
		return;
	for (unsigned int i = 0; i < x->ncalls; i++)
		call_free(x->calls[i]);
	free(x->calls);
	for (unsigned int d = 0; d < HCB_MAX_DEVICES; d++)
		free(x->dev[d]);
	while (x->sites) {
		struct site *s = x->sites;

		x->sites = s->next;
		free(s->shapes);
		free(s);
	}
	hcb_registry_free(x->reg);
	free(x);
}

static struct jdev *device(struct hcb_jaxffi *x, uint32_t d)
{
	if (d >= HCB_MAX_DEVICES)
		return NULL;
	if (!x->dev[d])
		x->dev[d] = calloc(1, sizeof(*x->dev[d]));
	return x->dev[d];
}

/* A problem with device's stream: counted on it (if it can be), and told. */
__attribute__((format(printf, 4, 5)))
static void problem(struct hcb_jaxffi *x, uint32_t dev, enum hcb_decode_problem what,
		    const char *fmt, ...)
{
	struct jdev *d = device(x, dev);
	char msg[256];
	va_list ap;

	if (d)
		d->stats.problems[what]++;
	if (!x->ops->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	x->ops->warn(x->ctx, what, dev, 0, msg);
}

static int call_find(const struct hcb_jaxffi *x, uint32_t dev, uint64_t seq)
{
	for (unsigned int i = 0; i < x->ncalls; i++)
		if (x->calls[i]->h.device == dev && x->calls[i]->h.seq == seq)
			return (int)i;
	return -1;
}

/* The call is done with (delivered, broken or given up): its later records,
 * if any, find no call and are passed over. */
static void call_drop(struct hcb_jaxffi *x, unsigned int i)
{
	call_free(x->calls[i]);
	memmove(&x->calls[i], &x->calls[i + 1], (x->ncalls - i - 1) * sizeof(*x->calls));
	x->ncalls--;
}

static void call_stopped(struct hcb_jaxffi *x, unsigned int i, const char *why)
{
	const struct jcall *c = x->calls[i];

	problem(x, c->h.device, HCB_INCOMPLETE, "device %u: callback call %llu (%s) stopped "
		"after %u of %u operands, %llu of %llu bytes: %s", c->h.device,
		(unsigned long long)c->h.seq, c->h.op, c->nseen, c->h.nargs,
		(unsigned long long)c->got, (unsigned long long)c->h.total_bytes, why);
	call_drop(x, i);
}

static bool same_site(const struct site *s, const struct jcall *c)
{
	return !strcmp(s->op, c->h.op) && !strcmp(s->module, c->h.module) &&
	       !strcmp(s->target, c->h.target[0]) && s->nleaves == c->h.nargs &&
	       (!s->nleaves || !memcmp(s->shapes, c->shapes, s->nleaves * sizeof(*s->shapes)));
}

/* The consumer for spec, under an id of its own: the hash of what it says,
 * or the next free one if another site's consumer has that. */
static const struct hcb_consumer *register_spec(struct hcb_jaxffi *x,
						const struct hcb_consumer_spec *spec)
{
	struct hcb_consumer *c = NULL;
	void *blob = NULL;
	uint32_t id;
	size_t len;
	int err;

	err = hcb_reg_build(spec, 0, &blob, &len);
	if (err)
		return NULL;
	for (id = hcb_reg_hash(blob, len); !id || hcb_registry_get(x->reg, id); id++)
		;
	free(blob);
	err = hcb_reg_build(spec, id, &blob, &len);
	if (!err)
		err = hcb_consumer_from_reg(blob, len, &c);
	free(blob);
	if (!err && hcb_registry_add(x->reg, c))
		c = NULL;
	return err ? NULL : c;
}

/* The made-up consumer of the call's site, registered on first sight. */
static const struct hcb_consumer *consumer_for(struct hcb_jaxffi *x, const struct jcall *c)
{
	const char *kwargs[] = { "callback", c->h.op, "module", c->h.module, NULL };
	struct hcb_consumer_spec spec = {
		.name = c->h.op, .kwargs = kwargs, .nleaves = c->h.nargs,
		.tree = c->h.nargs ? NULL : "( )",
	};
	struct hcb_leaf_spec *leaves;
	struct site *s;

	for (s = x->sites; s; s = s->next)
		if (same_site(s, c))
			return s->c;
	leaves = calloc(c->h.nargs + 1, sizeof(*leaves));
	s = calloc(1, sizeof(*s));
	if (s)
		s->shapes = calloc(c->h.nargs + 1, sizeof(*s->shapes));
	if (leaves && s && s->shapes) {
		hcb_xshape_specs(c->shapes, c->h.nargs, leaves);
		spec.leaves = leaves;
		s->c = register_spec(x, &spec);
	}
	free(leaves);
	if (!s || !s->c) {
		if (s)
			free(s->shapes);
		free(s);
		return NULL;
	}
	memcpy(s->op, c->h.op, sizeof(s->op));
	memcpy(s->module, c->h.module, sizeof(s->module));
	memcpy(s->target, c->h.target[0], sizeof(s->target));
	s->nleaves = c->h.nargs;
	if (c->h.nargs)
		memcpy(s->shapes, c->shapes, c->h.nargs * sizeof(*s->shapes));
	s->next = x->sites;
	x->sites = s;
	return s->c;
}

/* Call i has all its records: hand it on, then let it go. */
static int deliver(struct hcb_jaxffi *x, unsigned int i)
{
	struct jcall *c = x->calls[i];
	struct jdev *d = device(x, c->h.device);
	const struct hcb_consumer *con;
	struct hcb_packet p;
	int err;

	if (c->got != c->h.total_bytes) {
		problem(x, c->h.device, HCB_SHORT_PAYLOAD, "device %u: callback call %llu (%s): "
			"operands of %llu bytes, the call said %llu", c->h.device,
			(unsigned long long)c->h.seq, c->h.op, (unsigned long long)c->got,
			(unsigned long long)c->h.total_bytes);
		call_drop(x, i);
		return 0;
	}
	/* sub-byte operands come packed: one element a byte in a tap */
	err = d ? hcb_xshape_unpack(c->shapes, c->h.nargs, &c->payload) : 0;
	con = d && !err ? consumer_for(x, c) : NULL;
	if (!con) {
		call_drop(x, i);
		return -ENOMEM;
	}
	p = (struct hcb_packet){
		.device = c->h.device, .seq = c->h.seq, .ts_ns = c->h.ts_ns,
		.pid = c->h.pid, .tid = c->h.tid, .consumer = con,
		.payload = (const unsigned char *)(c->payload.data ? c->payload.data : ""),
	};
	if (!d->stats.packets || p.seq < d->stats.first_seq)
		d->stats.first_seq = p.seq;
	if (!d->stats.packets || p.seq > d->stats.last_seq)
		d->stats.last_seq = p.seq;
	d->stats.packets++;
	d->stats.bytes += con->total_bytes;
	x->delivered++;
	err = x->ops->packet(x->ctx, &p);
	call_drop(x, i);
	return err;
}

static int maybe_done(struct hcb_jaxffi *x, unsigned int i)
{
	const struct jcall *c = x->calls[i];

	return c->nseen == c->h.nargs && !c->arg_left ? deliver(x, i) : 0;
}

/* A legacy call without a thunk: named after its descriptor's number. */
static void name_legacy(struct hcb_jaxffi *x, struct hcb_ev_jcall *h)
{
	unsigned int i;

	for (i = 0; i < x->nlegacy && x->legacy_desc[i] != h->desc; i++)
		;
	if (i == x->nlegacy && i < MAX_LEGACY_SITES)
		x->legacy_desc[x->nlegacy++] = h->desc;
	if (i < MAX_LEGACY_SITES)
		snprintf(h->op, sizeof(h->op), "callback.%u", i + 1);
	else
		snprintf(h->op, sizeof(h->op), "callback");
	snprintf(h->module, sizeof(h->module), "unknown");
	snprintf(h->target[0], sizeof(h->target[0]), "xla_python_cpu_callback");
}

/*
 * The call site the thunk gave, if it gave one, proven by the layout check
 * (jaxffi_check.h): a thread that ran no callback's CustomCallThunk first
 * says nothing of this call, which is then named after its index.  0; -1
 * for a call that disagrees with the layout proven before (counted);
 * -EPROTO once the layout is refused (said once, through ops->refuse).
 */
static int check_site(struct hcb_jaxffi *x, struct hcb_ev_jcall *h)
{
	char why[384];
	int n = hcb_jaxffi_check_site(&x->check, h, why, sizeof(why));

	if (n == -EPROTO) {
		if (x->check.state == HCB_JAXFFI_REFUSED && why[0] && x->ops->refuse)
			x->ops->refuse(x->ctx, why);
		return n;
	}
	if (n == -EINVAL) {
		problem(x, h->device, HCB_BAD_RECORD, "device %u: callback call %llu (%s): the "
			"layout check failed: %s", h->device, (unsigned long long)h->seq, h->op, why);
		return -1;
	}
	if (n == 0)
		return 0;
	if (n == 2) {
		problem(x, h->device, HCB_UNKNOWN_CONSUMER, "callback call %llu on thread %u: its "
			"device is not known (it was under way when hcbtrace attached, or XLA ran "
			"it where hcbtrace does not look): not shown", (unsigned long long)h->seq,
			h->tid);
		return -1;
	}
	if (h->flags & HCB_JAXFFI_F_LEGACY) {
		name_legacy(x, h);
		return 0;
	}
	if (x->check.state != HCB_JAXFFI_PROVEN && !x->check.device_proven) {
		/* its device is the execution context's, which only a call with
		 * a thunk proves here */
		problem(x, h->device, HCB_UNKNOWN_CONSUMER, "device %u: callback call %llu: no call "
			"site, and the layout not yet proven (no thunk ran on thread %u): not "
			"shown", h->device, (unsigned long long)h->seq, h->tid);
		return -1;
	}
	problem(x, h->device, HCB_UNKNOWN_CONSUMER, "device %u: callback call %llu: no call "
		"site (%s on thread %u), named after its index", h->device,
		(unsigned long long)h->seq, h->flags & HCB_JAXFFI_F_THUNK ?
		"the thread's custom call was another" : "no custom call thunk ran", h->tid);
	if (h->flags & HCB_JAXFFI_F_INDEX)
		snprintf(h->op, sizeof(h->op), "callback-%llu", (unsigned long long)h->index);
	else
		snprintf(h->op, sizeof(h->op), "callback");
	snprintf(h->module, sizeof(h->module), "unknown");
	snprintf(h->target[0], sizeof(h->target[0]), "unknown");
	return 0;
}

static int on_call(struct hcb_jaxffi *x, const void *rec)
{
	struct jcall *c;
	struct hcb_ev_jcall h;
	int n;

	memcpy(&h, rec, sizeof(h));
	if (h.device >= HCB_MAX_DEVICES) {
		problem(x, HCB_MAX_DEVICES, HCB_BAD_RECORD, "a callback call on device %u, past "
			"the last one hcbtrace can hold", h.device);
		return 0;
	}
	/* this thread is on to its next call: its last one got what it will */
	for (unsigned int i = 0; i < x->ncalls; i++)
		if (x->calls[i]->h.tid == h.tid && x->calls[i]->h.pid == h.pid) {
			call_stopped(x, i, "its thread went on (ring buffer full, or memory "
				     "unreadable)");
			break;
		}
	if (x->ncalls == MAX_INFLIGHT)
		call_stopped(x, 0, "too many calls under way");
	n = check_site(x, &h);
	if (n)
		return n == -EPROTO ? n : 0;
	if (h.nargs > HCB_MAX_LEAVES || h.total_bytes > MAX_PAYLOAD) {
		problem(x, h.device, HCB_SHORT_PAYLOAD, "device %u: callback call %llu (%s) of %u "
			"operands, %llu bytes: more than hcbtrace holds", h.device,
			(unsigned long long)h.seq, h.op, h.nargs, (unsigned long long)h.total_bytes);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->shapes = calloc(h.nargs + 1, sizeof(*c->shapes)))) {
		free(c);
		return -ENOMEM;
	}
	c->h = h;
	c->last_arg = -1;
	x->calls[x->ncalls++] = c;
	if (!device(x, h.device))
		return -ENOMEM;
	return maybe_done(x, x->ncalls - 1);
}

/* The operand's shape and the bytes the probe sends of it (*wire: packed,
 * for the sub-byte types), or why it is none hcbtrace can show. */
static const char *arg_shape(const struct hcb_ev_jarg *e, struct hcb_xshape *s, uint64_t *wire)
{
	uint64_t n;

	memset(s, 0, sizeof(*s));
	s->dtype = hcb_jaxffi_dtype(e->dtype);
	if (s->dtype == HCB_DT_INVALID)
		return "an element type hcbtrace cannot show";
	if (e->rank > HCB_MAX_DIMS)
		return "more dimensions than hcbtrace shows";
	s->ndim = e->rank;
	memcpy(s->dims, e->dims, e->rank * sizeof(s->dims[0]));
	if (hcb_shape_elems(s->ndim, s->dims, &n) || n > MAX_PAYLOAD)
		return "more elements than hcbtrace holds";
	s->nbytes = n * hcb_dtype_size(s->dtype);
	*wire = hcb_packed_bytes(s->dtype, n);
	return NULL;
}

/* A legacy call's operand whose Arg does not read as one: the layout is
 * refused if no call has proven it yet (this call was to), else the call
 * is one malformed call. */
static int legacy_arg_fails(struct hcb_jaxffi *x, unsigned int i, const struct hcb_ev_jarg *e,
			    const char *why)
{
	char msg[384];

	if (x->delivered) {
		problem(x, e->device, HCB_BAD_RECORD, "device %u: callback call %llu (%s): the "
			"layout check failed: %s", e->device, (unsigned long long)e->seq,
			x->calls[i]->h.op, why);
		call_drop(x, i);
		return 0;
	}
	snprintf(msg, sizeof(msg), "the callback descriptor at 0x%llx does not read as "
		 "xla::CpuCallback: %s", (unsigned long long)x->calls[i]->h.desc, why);
	x->check.state = HCB_JAXFFI_REFUSED;
	if (x->ops->refuse)
		x->ops->refuse(x->ctx, msg);
	return -EPROTO;
}

static int on_arg(struct hcb_jaxffi *x, const void *rec)
{
	struct hcb_ev_jarg e;
	struct hcb_xshape s;
	struct jcall *c;
	const char *why;
	uint64_t wire;
	int i;

	memcpy(&e, rec, sizeof(e));
	i = call_find(x, e.device, e.seq);
	if (i < 0)
		return 0;   /* of a call already counted as broken */
	c = x->calls[i];
	if (c->arg_left || c->nseen >= c->h.nargs || (int64_t)e.arg <= c->last_arg) {
		problem(x, e.device, HCB_BAD_CHUNK, "device %u: callback call %llu (%s): operand "
			"%u out of order", e.device, (unsigned long long)e.seq, c->h.op, e.arg);
		call_drop(x, (unsigned int)i);
		return 0;
	}
	why = arg_shape(&e, &s, &wire);
	if (!why && (c->h.flags & HCB_JAXFFI_F_LEGACY) && (why = hcb_jaxffi_check_strides(&e)))
		return legacy_arg_fails(x, (unsigned int)i, &e, why);
	if (why) {
		problem(x, e.device, HCB_BAD_REGISTRATION, "device %u: callback call %llu (%s): "
			"operand %u (XLA type %u, rank %u): %s", e.device, (unsigned long long)e.seq,
			c->h.op, e.arg, e.dtype, e.rank, why);
		call_drop(x, (unsigned int)i);
		return 0;
	}
	if (wire != e.nbytes || e.nbytes > c->h.total_bytes - c->got) {
		problem(x, e.device, HCB_SHORT_PAYLOAD, "device %u: callback call %llu (%s): operand "
			"%u of %llu bytes for a shape of %llu, with %llu of the call's left", e.device,
			(unsigned long long)e.seq, c->h.op, e.arg, (unsigned long long)e.nbytes,
			(unsigned long long)wire, (unsigned long long)(c->h.total_bytes - c->got));
		call_drop(x, (unsigned int)i);
		return 0;
	}
	c->shapes[c->nseen++] = s;
	c->last_arg = e.arg;
	c->arg_left = e.nbytes;
	return maybe_done(x, (unsigned int)i);
}

/* A chunk ch (its header) of an operand's bytes, data its ch->len bytes. */
static int on_data(struct hcb_jaxffi *x, const struct hcb_ev_chunk *ch, const void *data)
{
	int i = call_find(x, ch->device, ch->seq);
	struct jcall *c;

	if (i < 0)
		return 0;   /* of a call already counted as broken */
	c = x->calls[i];
	if (!c->arg_left || (int64_t)ch->consumer_id != c->last_arg ||
	    ch->offset != c->got || ch->total != c->h.total_bytes || ch->len > c->arg_left) {
		problem(x, ch->device, HCB_BAD_CHUNK, "device %u: callback call %llu (%s): operand "
			"bytes out of order", ch->device, (unsigned long long)ch->seq, c->h.op);
		call_drop(x, (unsigned int)i);
		return 0;
	}
	if (hcb_buf_add(&c->payload, data, ch->len))
		return -ENOMEM;
	c->got += ch->len;
	c->arg_left -= ch->len;
	return maybe_done(x, (unsigned int)i);
}

int hcb_jaxffi_feed(struct hcb_jaxffi *x, const void *rec, size_t len)
{
	uint32_t type;

	if (x->check.state == HCB_JAXFFI_REFUSED)
		return -EPROTO;
	if (len < sizeof(type))
		goto bad;
	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_JCALL && len >= sizeof(struct hcb_ev_jcall))
		return on_call(x, rec);
	if (type == HCB_EV_JARG && len >= sizeof(struct hcb_ev_jarg))
		return on_arg(x, rec);
	if (type == HCB_EV_JDATA && len >= sizeof(struct hcb_ev_chunk)) {
		struct hcb_ev_chunk ch;

		memcpy(&ch, rec, sizeof(ch));
		if (ch.len > len - sizeof(ch))
			goto bad;
		return on_data(x, &ch, (const char *)rec + sizeof(ch));
	}
bad:
	problem(x, HCB_MAX_DEVICES, HCB_BAD_RECORD, "a callback record of %zu bytes that is none",
		len);
	return 0;
}

unsigned int hcb_jaxffi_pending(const struct hcb_jaxffi *x)
{
	return x->ncalls;
}

void hcb_jaxffi_finish(struct hcb_jaxffi *x)
{
	while (x->ncalls)
		call_stopped(x, 0, "the end of the input came first");
}

const struct hcb_stream_stats *hcb_jaxffi_stats(const struct hcb_jaxffi *x, uint32_t device)
{
	return device < HCB_MAX_DEVICES && x->dev[device] ? &x->dev[device]->stats : NULL;
}

struct hcb_registry *hcb_jaxffi_registry(struct hcb_jaxffi *x)
{
	return x->reg;
}
