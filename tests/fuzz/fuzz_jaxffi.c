/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the jaxffi provider's decoder (src/providers/jaxcb/decode.c).
 * The input is a stream of operations, each a 4-byte header {kind, device,
 * a, b} and, for some, bytes after it.  The low two bits of kind pick a
 * record: a call, an operand, a chunk of operand bytes, or raw bytes taken
 * as a record.  By default the fields agree with what came before on that
 * device (sequence, offsets, sizes), as the BPF side writes them, so the
 * fuzzer reaches whole calls; the high bits of kind make one field wrong.
 * The decoder must only ever deliver packets whose payload matches the
 * consumer it made up for them.  Bit 0x04 of a call's kind makes it a
 * legacy callback's (jaxlib before 0.6, src/providers/jaxcb/legacy.h): its device from
 * a thunk, a classic run or none, its descriptor's checks passed or not.
 * The records carry a device's slot; the ids the probes gave the four
 * slots are odd ones (jax's 2048, 2^31 - 1, 2^32 - 1), in the records'
 * device_id and through the ops' device_id, as a live session has them.
 * Bit 0x20 of a call's kind leaves its thunk out: it is named by its
 * callable (a namer answers for a few).  Raw records whose kind has bit
 * 0x04 or 0x08 set are the Python side's instead (pycall_events.h): an
 * entry, a text or an end on one of the threads, of one of the callables.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype.h"
#include "bpf/ring.h"
#include "providers/jaxcb/events.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/ffi_abi.h"
#include "providers/jaxcb/layout.h"
#include "providers/jaxcb/names.h"
#include "providers/jaxcb/pycall_events.h"
#include "providers/jaxcb/pysite.h"
#include "text/idprint.h"

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	static const struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_buf b = HCB_BUF_INIT;
	uint64_t sum = 0;

	(void)ctx;
	assert(p->consumer && p->payload);
	for (unsigned int i = 0; i < p->consumer->nleaves; i++)
		sum += p->consumer->leaves[i].nbytes;
	assert(sum == p->consumer->total_bytes);
	if (p->consumer->total_bytes <= 4096)
		assert(hcb_idprint(&b, p->consumer, "cpu", p->device, p->payload, &o) == 0);
	hcb_buf_free(&b);
	return 0;
}

/* The id of each of the four slots the input speaks of. */
static const uint32_t ids[4] = { 0, 2048, 0x7fffffffu, 0xffffffffu };

static uint32_t device_id(void *ctx, uint32_t slot)
{
	(void)ctx;
	assert(slot < HCB_MAX_DEVICES);
	return slot < 4 ? ids[slot] : slot;
}

static const struct hcb_decoder_ops ops = { .packet = on_packet, .device_id = device_id };

/* The callables' sites: two prints, a callback, one whose objects are not
 * jax's, one whose process is gone. */
static int namer(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	switch (callable) {
	case 0x1000: case 0x2000:
		out->kind = HCB_PYSITE_PRINT;
		snprintf(out->fmt, sizeof(out->fmt), "x={} %u", (unsigned int)(callable >> 12));
		return 0;
	case 0x3000:
		out->kind = HCB_PYSITE_CALLBACK;
		snprintf(out->qualname, sizeof(out->qualname), "log");
		return 0;
	case 0x4000:
		return -EPROTO;
	}
	return -ESRCH;
}

/* A record of the Python side (kind's bits 0x0c: entry, text, end). */
static void py(struct hcb_jaxffi *x, unsigned int kind, unsigned int a, unsigned int b)
{
	union {
		struct hcb_ev_jpycall entry;
		struct hcb_ev_jpyend end;
		struct { struct hcb_ev_jpytext h; char d[8]; } text;
	} r;

	memset(&r, 0, sizeof(r));
	if ((kind & 0x0c) == 0x04) {
		r.entry = (struct hcb_ev_jpycall){ .type = HCB_EV_JPYCALL, .pid = 1, .tid = b % 3,
						   .flags = kind & 0x80 ? HCB_JPY_F_NOCALLABLE : 0,
						   .callable = 0x1000ull * (a % 6), .index = a >> 4 };
		hcb_jaxffi_feed(x, &r.entry, sizeof(r.entry));
	} else if ((kind & 0x0c) == 0x08) {
		r.end = (struct hcb_ev_jpyend){ .type = HCB_EV_JPYEND, .pid = 1, .tid = b % 3 };
		hcb_jaxffi_feed(x, &r.end, sizeof(r.end));
	} else {
		r.text.h = (struct hcb_ev_jpytext){ .type = HCB_EV_JPYTEXT, .pid = 1, .tid = b % 3,
						    .kind = 1, .ascii = !(kind & 0x80),
						    .length = a % 9, .nbytes = a % 9 };
		memset(r.text.d, kind & 0x40 ? 0xe9 : 'x', sizeof(r.text.d));
		hcb_jaxffi_feed(x, &r.text, sizeof(r.text));
	}
}

/* What the BPF side would write next on a device. */
struct dev {
	uint64_t seq, total, got;
	uint32_t arg;
};

static const uint32_t dtypes[] = {
	JAXFFI_XLA_PRED, JAXFFI_XLA_S8, JAXFFI_XLA_S16, JAXFFI_XLA_S32, JAXFFI_XLA_S64,
	JAXFFI_XLA_U8, JAXFFI_XLA_U16, JAXFFI_XLA_U32, JAXFFI_XLA_U64, JAXFFI_XLA_F16,
	JAXFFI_XLA_BF16, JAXFFI_XLA_F32, JAXFFI_XLA_F64, JAXFFI_XLA_C64, JAXFFI_XLA_C128,
	JAXFFI_XLA_F8E4M3FN, JAXFFI_XLA_F8E5M2, JAXFFI_XLA_TOKEN, JAXFFI_XLA_S4, 200,
};

/* A legacy callback's call record: its device found three ways (or
 * none), its descriptor passing the probe's checks or failing one. */
static void legacy(struct hcb_ev_jcall *e, unsigned int kind, unsigned int a, unsigned int b)
{
	static const uint32_t how[] = { HCB_JAXFFI_F_THUNK, HCB_JAXFFI_F_RUN, HCB_JAXFFI_F_NODEV,
					HCB_JAXFFI_F_THUNK | HCB_JAXFFI_F_RUN };

	e->flags = HCB_JAXFFI_F_LEGACY | how[b % 4];
	e->desc = 0x1000ull * (a % 5);
	e->layout = kind & 0x08 ? 1u << (a % 7) : 0;
	snprintf(e->pytype, sizeof(e->pytype), "%s", b & 0x80 ? "fun\nction" : "function");
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++) {
		snprintf(e->target[i], sizeof(e->target[i]), "%s",
			 i == (a >> 2) % 4 ? "xla_python_cpu_callback" : "\x90");
		snprintf(e->config[i], sizeof(e->config[i]), "%llu",
			 (unsigned long long)(b & 0x40 ? e->desc + 1 : e->desc));
	}
}

/* Call e with one operand in the one record (HCB_EV_JCALL_ARG): its
 * dtype, dims and bytes from a and b, its size told right or not (0x02 of
 * b), of the call or the next one (0x01), its callable's entry or none
 * (0x80 of a: of the call's thread or another, 0x04 of b; a callable from
 * a), the record whole or cut short (0x40 of a). */
static void small_call(struct hcb_jaxffi *x, struct dev *d, struct hcb_ev_jcall *e,
		       unsigned int a, unsigned int b)
{
	struct hcb_ev_jcall_arg r;
	uint32_t dtype = dtypes[a % 20], n;

	memset(&r, b, sizeof(r));
	r.op.a = (struct hcb_ev_jarg){ .type = HCB_EV_JARG_BYTES, .device = e->device,
				       .seq = e->seq + (b & 0x01), .dtype = dtype, .rank = 1,
				       .dims = { b % 17 } };
	n = (uint32_t)(r.op.a.dims[0] * hcb_dtype_size(hcb_jaxffi_dtype(dtype)));
	r.op.a.nbytes = b & 0x02 ? (uint32_t)b % 80 : n;
	/* as the probe sends it: one operand, the call's bytes its own */
	e->type = HCB_EV_JCALL_ARG;
	e->nargs = 1;
	e->total_bytes = r.op.a.nbytes;
	d->total = e->total_bytes;
	memcpy(r.head, e, HCB_JAXFFI_CALL_HEAD);
	n = n < HCB_JAXFFI_ARG_BYTES_MAX ? n : HCB_JAXFFI_ARG_BYTES_MAX;
	r.op.h = (struct hcb_ev_chunk){ .type = HCB_EV_JDATA, .device = e->device, .len = n,
					.seq = r.op.a.seq, .total = e->total_bytes };
	d->got = n;
	memset(&r.entry, 0, sizeof(r.entry));
	if (a & 0x80)
		r.entry = (struct hcb_ev_jpycall){ .type = HCB_EV_JPYCALL, .pid = e->pid,
						   .tid = e->tid + (b & 0x04 ? 1 : 0),
						   .callable = 0x1000ull * (a % 6), .index = e->index };
	hcb_jaxffi_feed(x, &r, sizeof(r) - (a & 0x40 ? 1 + a % 64 : 0));
}

static void call(struct hcb_jaxffi *x, struct dev *d, unsigned int kind, uint32_t dev,
		 unsigned int a, unsigned int b)
{
	static const char *const ops_[] = { "debug_print.1", "pure_callback.2", "", "io\001x" };
	struct hcb_ev_jcall e = {
		.type = HCB_EV_JCALL, .device = kind & 0x80 ? 300 : dev, .seq = d->seq++,
		.tid = b % 3, .pid = 1, .nargs = a % 4, .total_bytes = (uint64_t)(b >> 2) * 2,
		.thunk_device = kind & 0x40 ? ids[dev % 4] + 1 : ids[dev % 4],
		.device_id = ids[dev % 4],
		.flags = (kind & 0x20 ? 0 : HCB_JAXFFI_F_THUNK) | HCB_JAXFFI_F_INDEX,
		.index = a,
	};

	if (kind & 0x10)
		d->seq++;   /* a call dropped by the BPF side */
	snprintf(e.op, sizeof(e.op), "%s", ops_[b % 4]);
	snprintf(e.module, sizeof(e.module), "jit_f%u", a % 3);
	/* the target name at one of the places read (the layout check takes
	 * the first place it meets, and holds every later call to it), or
	 * another custom call's; the other places hold input bytes */
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		snprintf(e.target[i], sizeof(e.target[i]), "%s", i != (a >> 2) % 4 ? "jit\033x" :
			 kind & 0x08 ? "other_target" : "xla_ffi_python_cpu_callback");
	if (kind & 0x04)
		legacy(&e, kind, a, b);
	d->total = e.total_bytes;
	d->got = 0;
	d->arg = 0;
	/* with no thunk, the record's head alone, as ffi.bpf.c sends it,
	 * or (0x40 of a) cut shorter than its head; or (0x80 of a) with its
	 * operand */
	if ((kind & 0x20) && (a & 0x80))
		small_call(x, d, &e, a, b);
	else
		hcb_jaxffi_feed(x, &e, !(kind & 0x20) ? sizeof(e) :
				       HCB_JAXFFI_CALL_HEAD - (a & 0x40 ? 4 : 0));
}

/* An operand with its bytes in the one record (HCB_EV_JARG_BYTES): up
 * to HCB_JAXFFI_ARG_BYTES_MAX of them from p, its chunk's length told
 * or cut short (0x04).  The input bytes it took. */
static size_t arg_bytes(struct hcb_jaxffi *x, struct dev *d, unsigned int kind,
			struct hcb_ev_jarg *e, const uint8_t *p, size_t n)
{
	unsigned char buf[sizeof(*e) + sizeof(struct hcb_ev_chunk) + HCB_JAXFFI_ARG_BYTES_MAX];
	size_t len = e->nbytes < n ? e->nbytes : n;
	struct hcb_ev_chunk c = {
		.type = HCB_EV_JDATA, .consumer_id = e->arg, .device = e->device, .seq = e->seq,
		.offset = d->got, .total = d->total,
	};

	if (len > HCB_JAXFFI_ARG_BYTES_MAX)
		len = HCB_JAXFFI_ARG_BYTES_MAX;
	c.len = (uint32_t)len;
	e->type = HCB_EV_JARG_BYTES;
	memcpy(buf, e, sizeof(*e));
	memcpy(buf + sizeof(*e), &c, sizeof(c));
	memcpy(buf + sizeof(*e) + sizeof(c), p, len);
	d->got += len;
	hcb_jaxffi_feed(x, buf, sizeof(*e) + sizeof(c) + (kind & 0x04 ? len / 2 : len));
	return len;
}

/* An operand; its dims from the bytes after the header (rank of them). */
static size_t arg(struct hcb_jaxffi *x, struct dev *d, unsigned int kind, uint32_t dev,
		  unsigned int a, unsigned int b, const uint8_t *p, size_t n)
{
	struct hcb_ev_jarg e = {
		.type = HCB_EV_JARG, .device = dev, .seq = d->seq - 1,
		.arg = kind & 0x40 ? 0 : ++d->arg, .dtype = dtypes[a % 20],
		.rank = kind & 0x20 ? 9 : b % 4,
	};
	uint64_t elems = 1;
	size_t used = 0;

	for (unsigned int k = 0; k < e.rank && k < HCB_MAX_DIMS; k++, used++) {
		e.dims[k] = used < n ? p[used] % 5 : 1;
		elems *= e.dims[k];
	}
	e.nbytes = kind & 0x80 ? b : elems * hcb_dtype_size(hcb_jaxffi_dtype(e.dtype));
	/* a legacy operand's strides: row-major, or one too many */
	e.nstrides = kind & 0x10 ? e.rank + 1 : e.rank;
	for (unsigned int k = e.rank < HCB_MAX_DIMS ? e.rank : HCB_MAX_DIMS, st = 1; k-- > 0;) {
		e.strides[k] = st * hcb_dtype_size(hcb_jaxffi_dtype(e.dtype));
		st *= (unsigned int)e.dims[k];
	}
	used = used < n ? used : n;
	if (kind & 0x08)
		return used + arg_bytes(x, d, kind, &e, p + used, n - used);
	hcb_jaxffi_feed(x, &e, sizeof(e));
	return used;
}

/* A chunk of len bytes (from p) of the operand under way. */
static void data(struct hcb_jaxffi *x, struct dev *d, unsigned int kind, uint32_t dev,
		 const uint8_t *p, size_t len)
{
	unsigned char buf[sizeof(struct hcb_ev_chunk) + 256];
	struct hcb_ev_chunk c = {
		.type = HCB_EV_JDATA, .consumer_id = kind & 0x80 ? 7 : d->arg, .device = dev,
		.len = (uint32_t)len, .seq = d->seq - 1,
		.offset = kind & 0x40 ? 1 : d->got, .total = kind & 0x20 ? 1 : d->total,
	};

	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), p, len);
	d->got += len;
	hcb_jaxffi_feed(x, buf, sizeof(c) + (kind & 0x10 ? len / 2 : len));
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	struct dev devs[4] = { 0 };
	struct hcb_jaxffi *x;

	if (hcb_jaxffi_new(&x, &ops, NULL))
		return 0;
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_set_namer(x, namer, NULL, NULL);
	/* the input's first call proves the layout or refuses it: past a
	 * refusal every record is -EPROTO, so most inputs prove it */
	while (size >= 4) {
		unsigned int kind = in[0], dev = in[1] % 4, a = in[2], b = in[3];
		size_t n;

		in += 4;
		size -= 4;
		switch (kind & 3) {
		case 0:
			call(x, &devs[dev], kind, dev, a, b);
			break;
		case 1:
			n = arg(x, &devs[dev], kind, dev, a, b, in, size);
			in += n;
			size -= n;
			break;
		case 2:
			n = a < size ? a : size;
			data(x, &devs[dev], kind, dev, in, n);
			in += n;
			size -= n;
			break;
		default:
			if (kind & 0x0c) {
				py(x, kind, a, b);
				break;
			}
			n = a < size ? a : size;
			hcb_jaxffi_feed(x, in, n);
			in += n;
			size -= n;
		}
	}
	assert(hcb_jaxffi_pending(x) <= 256);
	hcb_jaxffi_finish(x);
	assert(hcb_jaxffi_pending(x) == 0);
	hcb_jaxffi_free(x);
	return 0;
}
