/* SPDX-License-Identifier: MIT */
/*
 * decode.c - the jax-callback provider's records (events.h) back into
 * calls, and whole calls on to deliver.c.  A call's records all come from
 * the thread that made the call, one after the other, but calls of one
 * device may be under way on several threads at once: each call in flight
 * is found by (device, seq), and a thread starting a new call has
 * finished sending its last one (calls.c).  The Python side's records are
 * pycall.c's.  Figures and problems go through providers/bounds.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/registry.h"
#include "bpf/ring.h"
#include "decode_impl.h"
#include "ffi_abi.h"
#include "layout.h"

int hcb_jaxffi_new(struct hcb_jaxffi **out, const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_jaxffi *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->reg = hcb_registry_new();
	if (!x->reg) {
		free(x);
		return -ENOMEM;
	}
	hcb_bounds_init(&x->b, ops, ctx);
	x->b.packets = (struct hcb_bounds_pool){ .limit = JX_CALL_BYTES, .max_n = JX_MAX_INFLIGHT };
	*out = x;
	return 0;
}

void hcb_jaxffi_device_proven(struct hcb_jaxffi *x)
{
	x->check.device_proven = 1;
}

void hcb_jaxffi_free(struct hcb_jaxffi *x)
{
	if (!x)
		return;
	hcb_jx_calls_free(x);
	hcb_jx_proofs_free(x);
	hcb_jx_names_free(x);
	hcb_jx_sites_free(x);
	hcb_jx_thunks_free(x);
	hcb_registry_free(x->reg);
	free(x);
}

void hcb_jaxffi_inner_probed(struct hcb_jaxffi *x)
{
	x->inner = 1;
}

void hcb_jaxffi_text_off(struct hcb_jaxffi *x)
{
	x->no_text = 1;
}

void hcb_jaxffi_no_ends(struct hcb_jaxffi *x)
{
	x->no_ends = 1;
}

void hcb_jaxffi_ends_with_text(struct hcb_jaxffi *x)
{
	x->ends_with_text = 1;
}

/* A Python callback's call, whole, waits for its end (pycall.c). */
static int maybe_done(struct hcb_jaxffi *x, struct jcall *c)
{
	if (c->nseen != c->h.nargs || c->arg_left)
		return 0;
	if (c->await_end) {
		c->whole = 1;
		return 0;
	}
	return hcb_jx_deliver(x, c);
}

/* A CUDA callback (gpu.h): no thunk holds its names there, and the
 * probe sits on xla_ffi_python_gpu_callback's handler alone. */
static void name_gpu(struct hcb_ev_jcall *h)
{
	hcb_jx_name_unknown(h, "xla_ffi_python_gpu_callback");
}

/* A call of the Python handler whose Python side is read: one without a
 * site can be named by its callable (sites.c). */
static int by_callable(const struct hcb_jaxffi *x, const struct hcb_ev_jcall *h)
{
	return x->inner && x->namer && h->handler == HCB_JAXFFI_PYTHON &&
	       !(h->flags & (HCB_JAXFFI_F_LEGACY | HCB_JAXFFI_F_GPU));
}

/*
 * The call site the thunk gave, if it gave one, proven by the layout check
 * (check.h).  A thread that ran no callback's CustomCallThunk first says
 * nothing of this call (it began before the probe was in place, or the
 * thread's thunk was another custom call's): 1, it is named by its
 * callable once that is proven (sites.c), or else after its index.  0;
 * -1 for a call not shown (counted); -EPROTO once the layout is refused
 * (said once, through ops->refuse).
 */
static int check_site(struct hcb_jaxffi *x, struct hcb_ev_jcall *h)
{
	char why[384];
	int n;

	/* a site known: its names, and the same check as read whole */
	if (h->flags & HCB_JAXFFI_F_KNOWN)
		hcb_jx_thunk_names(x, h);
	n = hcb_jaxffi_check_site(&x->check, h, why, sizeof(why));

	if (n == -EPROTO) {
		if (x->check.state == HCB_JAXFFI_REFUSED && why[0] && x->b.ops->refuse)
			x->b.ops->refuse(x->b.ctx, why);
		return n;
	}
	if (n == -EINVAL) {
		hcb_bounds_problem(&x->b, HCB_BAD_RECORD, h->device, 0, "device %u: callback call "
				   "%llu (%s): the layout check failed: %s", h->device_id,
				   (unsigned long long)h->seq, h->op, why);
		return -1;
	}
	if (n == 0) {
		/* named by its thunk: learned once (no memory: read whole, as before) */
		if (!(h->flags & HCB_JAXFFI_F_LEGACY))
			(void)hcb_jx_thunk_learn(x, h);
		return 0;
	}
	if (n == 2) {
		hcb_bounds_problem(&x->b, HCB_UNKNOWN_CONSUMER, h->device, 0, "callback call %llu on "
				   "thread %u: its device is not known (it was under way when "
				   "hcbtrace attached, or XLA ran it where hcbtrace does not look): "
				   "not shown", (unsigned long long)h->seq, h->tid);
		return -1;
	}
	if (h->flags & HCB_JAXFFI_F_LEGACY) {
		hcb_jx_name_legacy(x, h);
		return 0;
	}
	if ((h->flags & HCB_JAXFFI_F_GPU) && x->check.device_proven) {
		name_gpu(h);   /* no thunk on a GPU: expected, not a problem */
		return 0;
	}
	if (by_callable(x, h))
		return 1;
	if (x->check.state != HCB_JAXFFI_PROVEN && !x->check.device_proven) {
		/* its device is the execution context's, which only a call with
		 * a thunk proves here */
		hcb_bounds_problem(&x->b, HCB_UNKNOWN_CONSUMER, h->device, 0, "device %u: callback "
				   "call %llu: no call site, and the layout not yet proven (no thunk "
				   "ran on thread %u): not shown", h->device_id,
				   (unsigned long long)h->seq, h->tid);
		return -1;
	}
	hcb_bounds_problem(&x->b, HCB_UNKNOWN_CONSUMER, h->device, 0, "device %u: callback call "
			   "%llu: no call site (%s on thread %u), named after its index", h->device_id,
			   (unsigned long long)h->seq, h->flags & HCB_JAXFFI_F_THUNK ?
			   "the thread's custom call was another" : "no custom call thunk ran",
			   h->tid);
	hcb_jx_name_unknown(h, "unknown");
	return 0;
}

/* Thread (pid, tid) makes a new call: what its calls in flight got is all
 * they get, but one whose Python side runs still: the new call is made
 * from inside it (a callback that runs jax), and it waits for its end,
 * where ends are still probed. */
static int thread_goes_on(struct hcb_jaxffi *x, uint32_t pid, uint32_t tid)
{
	struct jcall *c = hcb_jx_call_of(x, pid, tid);

	/* its end probed no more (the probe went as it ran): it is done */
	if (c && c->whole && c->py_seen && x->no_ends) {
		c->await_end = 0;
		return hcb_jx_deliver(x, c);
	}
	if (!c || (c->whole && c->py_seen))
		return 0;
	if (!c->whole) {
		hcb_jx_call_stopped(x, c, "its thread went on (ring buffer full, or memory "
				    "unreadable)");
		return 0;
	}
	/* its Python side's entry did not come (a ring full) */
	return hcb_jx_deliver_unended(x, c, "its thread's next call came first");
}

/* At the bound of calls under way, the oldest whole ones (they waited
 * for their name or their end only: the calls a reader finds in the ring
 * after a program's end, its callables gone) go as they are, their values
 * kept, before calls.c gives up the oldest for room. */
static int room_of_whole(struct hcb_jaxffi *x)
{
	int err = 0;

	while (!err && x->b.packets.n >= x->b.packets.max_n && x->oldest && x->oldest->whole)
		err = hcb_jx_deliver_final(x, x->oldest, "calls under way were at their bound");
	return err;
}

/* A call record of len bytes, at least its head: one sent as its head
 * alone (events.h, HCB_JAXFFI_CALL_HEAD) is the whole one zero past it. */
static int on_call(struct hcb_jaxffi *x, const void *rec, size_t len)
{
	struct hcb_ev_jcall h = { 0 };
	struct jcall *c;
	int n, unsited;

	memcpy(&h, rec, len < sizeof(h) ? len : sizeof(h));
	if (!hcb_bounds_device_ok(h.device)) {
		hcb_bounds_problem(&x->b, HCB_BAD_RECORD, h.device, 0, "a callback call on device slot "
				   "%u, past the last one hcbtrace can hold", h.device);
		return 0;
	}
	n = thread_goes_on(x, h.pid, h.tid);
	if (n)
		return n;
	unsited = check_site(x, &h);
	if (unsited < 0)
		return unsited == -EPROTO ? unsited : 0;
	if (h.nargs > HCB_MAX_LEAVES || h.total_bytes > JX_MAX_PAYLOAD) {
		hcb_bounds_problem(&x->b, HCB_SHORT_PAYLOAD, h.device, 0, "device %u: callback call "
				   "%llu (%s) of %u operands, %llu bytes: more than hcbtrace holds",
				   h.device_id, (unsigned long long)h.seq, h.op, h.nargs,
				   (unsigned long long)h.total_bytes);
		return 0;
	}
	n = room_of_whole(x);
	if (n)
		return n;
	c = hcb_jx_call_new(x, &h, &n);
	if (!c)
		return n;
	c->unsited = unsited == 1;
	c->await_end = x->inner && h.handler == HCB_JAXFFI_PYTHON &&
		       !(h.flags & HCB_JAXFFI_F_LEGACY);
	return maybe_done(x, c);
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
	if (hcb_shape_elems(s->ndim, s->dims, &n) || n > JX_MAX_PAYLOAD)
		return "more elements than hcbtrace holds";
	s->nbytes = n * hcb_dtype_size(s->dtype);
	*wire = hcb_packed_bytes(s->dtype, n);
	return NULL;
}

/* A legacy call's operand whose Arg does not read as one: the layout is
 * refused if no call has proven it yet (this call was to), else the call
 * is one malformed call. */
static int legacy_arg_fails(struct hcb_jaxffi *x, struct jcall *c, const struct hcb_ev_jarg *e,
			    const char *why)
{
	char msg[384];

	if (x->delivered) {
		hcb_bounds_problem(&x->b, HCB_BAD_RECORD, e->device, 0, "device %u: callback call "
				   "%llu (%s): the layout check failed: %s", c->h.device_id,
				   (unsigned long long)e->seq, c->h.op, why);
		hcb_jx_call_drop(x, c);
		return 0;
	}
	snprintf(msg, sizeof(msg), "the callback descriptor at 0x%llx does not read as "
		 "xla::CpuCallback: %s", (unsigned long long)c->h.desc, why);
	x->check.state = HCB_JAXFFI_REFUSED;
	if (x->b.ops->refuse)
		x->b.ops->refuse(x->b.ctx, msg);
	return -EPROTO;
}

static int on_arg(struct hcb_jaxffi *x, const void *rec)
{
	struct hcb_ev_jarg e;
	struct hcb_xshape s;
	struct jcall *c;
	const char *why;
	uint64_t wire;

	memcpy(&e, rec, sizeof(e));
	c = hcb_jx_call_find(x, e.device, e.seq);
	if (!c)
		return 0;   /* of a call already counted as broken */
	c->touched_ns = x->b.now_ns;
	if (c->arg_left || c->nseen >= c->h.nargs || (int64_t)e.arg <= c->last_arg) {
		hcb_bounds_problem(&x->b, HCB_BAD_CHUNK, e.device, 0, "device %u: callback call %llu "
				   "(%s): operand %u out of order", c->h.device_id,
				   (unsigned long long)e.seq, c->h.op, e.arg);
		hcb_jx_call_drop(x, c);
		return 0;
	}
	why = arg_shape(&e, &s, &wire);
	if (!why && (c->h.flags & HCB_JAXFFI_F_LEGACY) && (why = hcb_jaxffi_check_strides(&e)))
		return legacy_arg_fails(x, c, &e, why);
	if (why) {
		hcb_bounds_problem(&x->b, HCB_BAD_REGISTRATION, e.device, 0, "device %u: callback "
				   "call %llu (%s): operand %u (XLA type %u, rank %u): %s", c->h.device_id,
				   (unsigned long long)e.seq, c->h.op, e.arg, e.dtype, e.rank, why);
		hcb_jx_call_drop(x, c);
		return 0;
	}
	if (wire != e.nbytes || e.nbytes > c->h.total_bytes - c->got) {
		hcb_bounds_problem(&x->b, HCB_SHORT_PAYLOAD, e.device, 0, "device %u: callback call "
				   "%llu (%s): operand %u of %llu bytes for a shape of %llu, with %llu "
				   "of the call's left", c->h.device_id, (unsigned long long)e.seq, c->h.op,
				   e.arg, (unsigned long long)e.nbytes, (unsigned long long)wire,
				   (unsigned long long)(c->h.total_bytes - c->got));
		hcb_jx_call_drop(x, c);
		return 0;
	}
	c->shapes[c->nseen++] = s;
	c->last_arg = e.arg;
	c->arg_left = e.nbytes;
	return maybe_done(x, c);
}

/* A chunk ch (its header) of an operand's bytes, data its ch->len bytes. */
static int on_data(struct hcb_jaxffi *x, const struct hcb_ev_chunk *ch, const void *data)
{
	struct jcall *c = hcb_jx_call_find(x, ch->device, ch->seq);

	if (!c)
		return 0;   /* of a call already counted as broken */
	c->touched_ns = x->b.now_ns;
	if (!c->arg_left || (int64_t)ch->consumer_id != c->last_arg ||
	    ch->offset != c->got || ch->total != c->h.total_bytes || ch->len > c->arg_left) {
		hcb_bounds_problem(&x->b, HCB_BAD_CHUNK, ch->device, 0, "device %u: callback call "
				   "%llu (%s): operand bytes out of order", c->h.device_id,
				   (unsigned long long)ch->seq, c->h.op);
		hcb_jx_call_drop(x, c);
		return 0;
	}
	if (hcb_buf_add(&c->payload, data, ch->len))
		return -ENOMEM;
	c->got += ch->len;
	c->arg_left -= ch->len;
	return maybe_done(x, c);
}

/* HCB_EV_JARG_BYTES (events.h): its chunk's header into *ch, if the
 * record holds the operand and its chunk whole.  1 if so. */
static int arg_bytes_whole(const void *rec, size_t len, struct hcb_ev_chunk *ch)
{
	size_t head = sizeof(struct hcb_ev_jarg) + sizeof(*ch);

	if (len < head)
		return 0;
	memcpy(ch, (const char *)rec + sizeof(struct hcb_ev_jarg), sizeof(*ch));
	return ch->type == HCB_EV_JDATA && ch->len <= len - head;
}

/* HCB_EV_JARG_BYTES (rec, len bytes): the operand, then its bytes. */
static int on_arg_bytes(struct hcb_jaxffi *x, const void *rec, const struct hcb_ev_chunk *ch)
{
	int err = on_arg(x, rec);

	return err ? err : on_data(x, ch, (const char *)rec + sizeof(struct hcb_ev_jarg) +
				   sizeof(*ch));
}

/* Where a small call's record (HCB_EV_JCALL_ARG) holds its operand and
 * its entry: the record may sit at any byte, so it is never read as the
 * struct, only copied from. */
#define CALL_ARG_OP(rec) ((const char *)(rec) + offsetof(struct hcb_ev_jcall_arg, op))
#define CALL_ARG_ENTRY(rec) ((const char *)(rec) + offsetof(struct hcb_ev_jcall_arg, entry))

/* HCB_EV_JCALL_ARG (events.h): 1 if the record (len bytes) holds a call's
 * head, then, whole, an HCB_EV_JARG_BYTES record of that call (its
 * chunk's header into *ch), then none or an entry of its callable on its
 * thread (into *entry: type 0 if none). */
static int call_arg_whole(const void *rec, size_t len, struct hcb_ev_chunk *ch,
			  struct hcb_ev_jpycall *entry)
{
	struct hcb_ev_jcall h;
	struct hcb_ev_jarg a;

	if (len < sizeof(struct hcb_ev_jcall_arg) ||
	    !arg_bytes_whole(CALL_ARG_OP(rec), sizeof(struct hcb_ev_jarg_bytes), ch))
		return 0;
	memcpy(&h, rec, HCB_JAXFFI_CALL_HEAD);
	memcpy(&a, CALL_ARG_OP(rec), sizeof(a));
	memcpy(entry, CALL_ARG_ENTRY(rec), sizeof(*entry));
	if (entry->type != 0 && (entry->type != HCB_EV_JPYCALL || entry->pid != h.pid ||
				 entry->tid != h.tid))
		return 0;
	return a.type == HCB_EV_JARG_BYTES && a.device == h.device && a.seq == h.seq;
}

/* HCB_EV_JCALL_ARG, whole (call_arg_whole): the records it holds, in
 * their order. */
static int on_call_arg(struct hcb_jaxffi *x, const void *rec, const struct hcb_ev_chunk *ch,
		       const struct hcb_ev_jpycall *entry)
{
	int err = on_call(x, rec, HCB_JAXFFI_CALL_HEAD);

	if (!err)
		err = on_arg_bytes(x, CALL_ARG_OP(rec), ch);
	if (!err && entry->type)
		err = hcb_jx_on_pycall(x, entry, sizeof(*entry));
	return err;
}

int hcb_jaxffi_feed(struct hcb_jaxffi *x, const void *rec, size_t len)
{
	struct hcb_ev_jpycall entry;
	struct hcb_ev_chunk ch;
	uint32_t type;

	if (x->check.state == HCB_JAXFFI_REFUSED)
		return -EPROTO;
	if (len < sizeof(type))
		goto bad;
	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_JCALL && len >= HCB_JAXFFI_CALL_HEAD)
		return on_call(x, rec, len);
	if (type == HCB_EV_JARG && len >= sizeof(struct hcb_ev_jarg))
		return on_arg(x, rec);
	if (type == HCB_EV_JARG_BYTES && arg_bytes_whole(rec, len, &ch))
		return on_arg_bytes(x, rec, &ch);
	if (type == HCB_EV_JCALL_ARG && call_arg_whole(rec, len, &ch, &entry))
		return on_call_arg(x, rec, &ch, &entry);
	if (type >= HCB_EV_JPYCALL && type <= HCB_EV_JPYTEXT)
		return hcb_jx_on_pycall(x, rec, len);
	if (type == HCB_EV_JDATA && len >= sizeof(struct hcb_ev_chunk)) {
		memcpy(&ch, rec, sizeof(ch));
		if (ch.len > len - sizeof(ch))
			goto bad;
		return on_data(x, &ch, (const char *)rec + sizeof(ch));
	}
bad:
	/* counted apart from every device: it names none that can be trusted */
	hcb_bounds_problem(&x->b, HCB_BAD_RECORD, HCB_MAX_DEVICES, 0, "a callback record of %zu "
			   "bytes that is none", len);
	return 0;
}

int hcb_jaxffi_tick(struct hcb_jaxffi *x, uint64_t now_ns)
{
	int err = 0;

	x->b.now_ns = now_ns ? now_ns : 1;
	for (struct jcall *c = x->oldest, *next; c && !err; c = next) {
		next = c->newer;
		if (!hcb_jx_call_stale(x, c))
			continue;
		/* whole, it only waits for its end or its name: shown as it is */
		if (c->whole)
			err = hcb_jx_deliver_final(x, c, "its callback still ran after a while");
		else
			hcb_jx_call_expire(x, c);
		/* what it let go may be calls met later in this walk */
		next = x->oldest;
	}
	return err;
}

unsigned int hcb_jaxffi_pending(const struct hcb_jaxffi *x)
{
	return x->b.packets.n;
}

void hcb_jaxffi_finish(struct hcb_jaxffi *x)
{
	/* those a thunk named first: they name the others' callables */
	for (struct jcall *c = x->oldest, *next; c; c = next) {
		next = c->newer;
		if (!c->whole || c->unsited)
			continue;
		hcb_jx_deliver_final(x, c, "the end of the input came first");
		/* what it let go may be calls met later in this walk */
		next = x->oldest;
	}
	while (x->oldest) {
		if (x->oldest->whole)
			hcb_jx_deliver_final(x, x->oldest, "the end of the input came first");
		else
			hcb_jx_call_stopped(x, x->oldest, "the end of the input came first");
	}
}

const struct hcb_stream_stats *hcb_jaxffi_stats(const struct hcb_jaxffi *x, uint32_t device)
{
	return device == HCB_MAX_DEVICES ? hcb_bounds_stray(&x->b) : hcb_bounds_stats(&x->b, device);
}

const struct hcb_bounds *hcb_jaxffi_bounds(const struct hcb_jaxffi *x)
{
	return &x->b;
}

struct hcb_registry *hcb_jaxffi_registry(struct hcb_jaxffi *x)
{
	return x->reg;
}
