/* SPDX-License-Identifier: MIT */
/*
 * testjaxffi.h - what the jax-callback decoder's unit tests share: a
 * receiver that keeps what it was handed, and the ring records
 * src/providers/jaxcb/ffi.bpf.c writes for a call (tests/unit/test_jaxffi.c,
 * test_jaxffi_layout.c, test_jaxffi_pycall.c, test_jaxgpu.c,
 * test_jaxlegacy.c).
 */
#ifndef HCB_TESTJAXFFI_H
#define HCB_TESTJAXFFI_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/packet.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/events.h"
#include "providers/jaxcb/ffi_abi.h"
#include "providers/jaxcb/pycall_events.h"
#include "text/idprint.h"

struct seen {
	int packets;
	struct hcb_packet last;
	const struct hcb_consumer *consumer;
	unsigned char payload[4096];
	char text[512];
	char ptext[512];            /* the packet's text, where it had one: last.text */
	int problems[HCB_DECODE_PROBLEMS];
	char warning[256];
	int refusals;
};

static inline int on_packet(void *ctx, const struct hcb_packet *p)
{
	static const struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct seen *s = ctx;
	struct hcb_buf b = HCB_BUF_INIT;

	s->packets++;
	s->last = *p;
	if (p->text) {
		assert_true(p->text_len < sizeof(s->ptext));
		memcpy(s->ptext, p->text, p->text_len);
		s->last.text = s->ptext;
	}
	s->consumer = p->consumer;
	if (p->consumer->total_bytes <= sizeof(s->payload))
		memcpy(s->payload, p->payload, p->consumer->total_bytes);
	assert_int_equal(hcb_idprint(&b, p->consumer, "cpu", p->device, p->payload, &o), 0);
	snprintf(s->text, sizeof(s->text), "%s", hcb_buf_str(&b));
	hcb_buf_free(&b);
	return 0;
}

static inline void on_warn(void *ctx, enum hcb_decode_problem what, uint32_t device, uint32_t consumer,
		    const char *detail)
{
	struct seen *s = ctx;

	(void)device;
	(void)consumer;
	s->problems[what]++;
	snprintf(s->warning, sizeof(s->warning), "%s", detail);
}

static const struct hcb_decoder_ops ops = { .packet = on_packet, .warn = on_warn };

static inline void on_refuse(void *ctx, const char *why)
{
	struct seen *s = ctx;

	s->refusals++;
	snprintf(s->warning, sizeof(s->warning), "%s", why);
}

/* ops, and the layout check's refusal counted */
static const struct hcb_decoder_ops refusing_ops = {
	.packet = on_packet, .warn = on_warn, .refuse = on_refuse,
};

/* A call record as ffi.bpf.c writes it after a thunk of jit_step. */
static inline struct hcb_ev_jcall jcall(uint32_t dev, uint64_t seq, uint32_t tid, const char *op,
				 uint32_t nargs, uint64_t total)
{
	struct hcb_ev_jcall e = {
		.type = HCB_EV_JCALL, .device = dev, .seq = seq, .ts_ns = 1000 + seq, .pid = 7,
		.tid = tid, .index = 3, .total_bytes = total, .nargs = nargs,
		.handler = HCB_JAXFFI_PYTHON, .thunk_device = dev, .device_id = dev,
		.flags = HCB_JAXFFI_F_THUNK | HCB_JAXFFI_F_INDEX,
	};

	snprintf(e.op, sizeof(e.op), "%s", op);
	snprintf(e.module, sizeof(e.module), "jit_step");
	snprintf(e.target[0], sizeof(e.target[0]), "xla_ffi_python_cpu_callback");
	e.op_len = (uint32_t)strlen(e.op);
	e.module_len = 8;
	e.target_len[0] = (uint32_t)strlen(e.target[0]);
	return e;
}

static inline void feed_call(struct hcb_jaxffi *x, const struct hcb_ev_jcall *e)
{
	assert_int_equal(hcb_jaxffi_feed(x, e, sizeof(*e)), 0);
}

static inline void feed_arg(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t arg,
		     uint32_t xla_dtype, uint32_t rank, const uint64_t *dims, uint64_t nbytes)
{
	struct hcb_ev_jarg e = { .type = HCB_EV_JARG, .device = dev, .seq = seq, .arg = arg,
				 .dtype = xla_dtype, .rank = rank, .nbytes = nbytes };

	memcpy(e.dims, dims, (rank < HCB_MAX_DIMS ? rank : HCB_MAX_DIMS) * sizeof(*dims));
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), 0);
}

static inline void feed_data(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t arg,
		      uint64_t offset, uint64_t total, const void *data, uint32_t len)
{
	unsigned char buf[sizeof(struct hcb_ev_chunk) + 256];
	struct hcb_ev_chunk c = { .type = HCB_EV_JDATA, .consumer_id = arg, .device = dev,
				  .len = len, .seq = seq, .offset = offset, .total = total };

	assert_true(len <= 256);
	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), data, len);
	/* padded to a size class, as the ring holds it */
	assert_int_equal(hcb_jaxffi_feed(x, buf, sizeof(c) + 64 > sizeof(c) + len ?
					 sizeof(c) + 64 : sizeof(c) + len), 0);
}

/* One float32[3] operand, whole. */
static inline void f32_call(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq, uint32_t tid,
		     const char *op, const float *v)
{
	static const uint64_t d3[] = { 3 };
	struct hcb_ev_jcall e = jcall(dev, seq, tid, op, 1, 12);

	feed_call(x, &e);
	feed_arg(x, dev, seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, dev, seq, 0, 0, 12, v, 12);
}

/* The Python side's entry of callable on thread tid (pid 7), with the
 * index the inner function was handed, as pycall.bpf.c sends it. */
static inline void py_entry(struct hcb_jaxffi *x, uint32_t tid, uint64_t callable, uint64_t index,
			    uint32_t flags)
{
	struct hcb_ev_jpycall e = { .type = HCB_EV_JPYCALL, .pid = 7, .tid = tid, .flags = flags,
				    .callable = callable, .index = index, .ts_ns = 5 };

	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), 0);
}

/* Its end. */
static inline void py_end(struct hcb_jaxffi *x, uint32_t tid)
{
	struct hcb_ev_jpyend e = { .type = HCB_EV_JPYEND, .pid = 7, .tid = tid, .ts_ns = 6 };

	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e)), 0);
}

static inline int no_problems(const struct seen *s)
{
	for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
		if (s->problems[i])
			return 0;
	return 1;
}

#endif
