/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bounds.h"

void hcb_bounds_init(struct hcb_bounds *b, const struct hcb_decoder_ops *ops, void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->ctx = ctx;
	b->packets = (struct hcb_bounds_pool){ .limit = HCB_BOUNDS_PACKET_BYTES,
					       .max_n = HCB_BOUNDS_PACKETS };
	b->regs = (struct hcb_bounds_pool){ .limit = HCB_BOUNDS_REG_BYTES, .max_n = HCB_BOUNDS_REGS };
}

uint32_t hcb_bounds_id(const struct hcb_bounds *b, uint32_t dev)
{
	/* out of range is no slot: the number the record claimed */
	if (!hcb_bounds_device_ok(dev) || !b->ops || !b->ops->device_id)
		return dev;
	return b->ops->device_id(b->ctx, dev);
}

struct hcb_bounds_dev *hcb_bounds_dev(struct hcb_bounds *b, uint32_t dev)
{
	return &b->dev[hcb_bounds_device_ok(dev) ? dev : HCB_MAX_DEVICES];
}

/* Figures of slot ds, if anything was ever counted there. */
static const struct hcb_stream_stats *heard_of(const struct hcb_bounds_dev *ds)
{
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		if (ds->st.problems[i])
			return &ds->st;
	for (int i = 0; i < HCB_LOST_REASONS; i++)
		if (ds->st.lost[i])
			return &ds->st;
	return ds->seen ? &ds->st : NULL;
}

const struct hcb_stream_stats *hcb_bounds_stats(const struct hcb_bounds *b, uint32_t dev)
{
	return hcb_bounds_device_ok(dev) ? heard_of(&b->dev[dev]) : NULL;
}

const struct hcb_stream_stats *hcb_bounds_stray(const struct hcb_bounds *b)
{
	return heard_of(&b->dev[HCB_MAX_DEVICES]);
}

static void tell(struct hcb_bounds *b, enum hcb_decode_problem what, uint32_t dev, uint32_t cid,
		 const char *fmt, va_list ap)
{
	char detail[256];

	if (!b->ops || !b->ops->warn)
		return;
	/* the detail is bounded whatever the target's strings are */
	vsnprintf(detail, sizeof(detail), fmt, ap);
	b->ops->warn(b->ctx, what, dev, cid, detail);
}

void hcb_bounds_problem(struct hcb_bounds *b, enum hcb_decode_problem what, uint32_t dev,
			uint32_t cid, const char *fmt, ...)
{
	va_list ap;

	hcb_bounds_dev(b, dev)->st.problems[what < HCB_DECODE_PROBLEMS ? what : HCB_BAD_RECORD]++;
	va_start(ap, fmt);
	tell(b, what, dev, cid, fmt, ap);
	va_end(ap);
}

void hcb_bounds_note(struct hcb_bounds *b, enum hcb_bound kind, uint32_t dev, uint32_t cid,
		     const char *fmt, ...)
{
	va_list ap;

	b->passed[kind < HCB_BOUNDS ? kind : HCB_BOUND_EXPIRED]++;
	va_start(ap, fmt);
	tell(b, HCB_OVER_BOUND, dev, cid, fmt, ap);
	va_end(ap);
}

void hcb_bounds_lose(struct hcb_bounds *b, enum hcb_bound kind, uint32_t dev, uint32_t cid,
		     const char *fmt, ...)
{
	va_list ap;

	b->passed[kind < HCB_BOUNDS ? kind : HCB_BOUND_EXPIRED]++;
	hcb_bounds_dev(b, dev)->st.problems[kind == HCB_BOUND_DEVICE ? HCB_BAD_DEVICE : HCB_OVER_BOUND]++;
	va_start(ap, fmt);
	tell(b, kind == HCB_BOUND_DEVICE ? HCB_BAD_DEVICE : HCB_OVER_BOUND, dev, cid, fmt, ap);
	va_end(ap);
}

void hcb_bounds_delivered(struct hcb_bounds *b, uint32_t dev, uint64_t seq, uint64_t n)
{
	struct hcb_bounds_dev *ds = hcb_bounds_dev(b, dev);

	if (!ds->seen || seq < ds->st.first_seq)
		ds->st.first_seq = seq;
	if (!ds->seen || seq > ds->st.last_seq)
		ds->st.last_seq = seq;
	ds->seen = 1;
	ds->st.packets++;
	ds->st.bytes += n;
}

int hcb_bounds_take(struct hcb_bounds_pool *p, uint64_t n)
{
	if (p->n >= p->max_n || n > p->limit || p->bytes > p->limit - n)
		return -ENOBUFS;
	p->n++;
	p->bytes += n;
	if (p->bytes > p->peak)
		p->peak = p->bytes;
	return 0;
}

void hcb_bounds_give(struct hcb_bounds_pool *p, uint64_t n)
{
	p->n -= p->n ? 1 : 0;
	p->bytes -= n < p->bytes ? n : p->bytes;
}

int hcb_bounds_expired(const struct hcb_bounds *b, uint64_t since_ns)
{
	return b->now_ns && since_ns && b->now_ns - since_ns > HCB_BOUNDS_EXPIRY_NS;
}

const char *hcb_bound_name(enum hcb_bound kind)
{
	static const char *const names[HCB_BOUNDS] = {
		[HCB_BOUND_DEVICE] = "device out of range",
		[HCB_BOUND_PACKET_MEM] = "unfinished packets over their budget",
		[HCB_BOUND_REG_MEM] = "unfinished registrations over their budget",
		[HCB_BOUND_CONSUMERS] = "too many consumers",
		[HCB_BOUND_EXPIRED] = "unfinished past its time",
	};

	return kind < HCB_BOUNDS ? names[kind] : "?";
}
