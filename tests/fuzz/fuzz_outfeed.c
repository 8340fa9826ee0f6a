/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the legacy XLA outfeed path (src/providers/outfeed/outfeed.h).  The input is
 * a serialized xla.ShapeProto (first byte: its length) followed by a stream
 * of outfeed leaf records, each a 1-byte kind, a 1-byte device, a 2-byte
 * length and that many bytes: the shape decoder must accept or refuse
 * whatever it gets, and the outfeed decoder must only ever deliver packets
 * whose payload matches the consumer it made up for them.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "providers/outfeed/events.h"
#include "providers/outfeed/decode.h"
#include "providers/outfeed/shapeproto.h"
#include "text/idprint.h"

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	static const struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_buf b = HCB_BUF_INIT;

	(void)ctx;
	assert(p->consumer && (p->payload || !p->consumer->total_bytes));
	if (p->consumer->total_bytes <= 4096)
		assert(hcb_idprint(&b, p->consumer, "TFRT_CPU_%u", p->device, p->payload, &o) == 0);
	hcb_buf_free(&b);
	return 0;
}

/* The probes' slots stand for devices of any id: a slot's id is a hostile
 * one, as the engine gives its words one. */
static uint32_t device_id(void *ctx, uint32_t slot)
{
	(void)ctx;
	assert(slot < HCB_MAX_DEVICES);
	return slot % 2 ? 0xffffffffu - slot : slot + 2048;
}

static const struct hcb_decoder_ops ops = { .packet = on_packet, .device_id = device_id };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcb_xshape s;
	struct hcb_outfeed *x;
	uint64_t seq[4] = { 0 };
	size_t n;

	if (size < 1)
		return 0;
	n = data[0] < size - 1 ? data[0] : size - 1;
	if (hcb_shapeproto_decode(data + 1, n, &s, NULL, 0) == 0)
		assert(s.ndim <= HCB_MAX_DIMS);
	data += 1 + n;
	size -= 1 + n;
	if (hcb_outfeed_new(&x, &ops, NULL))
		return 0;
	while (size >= 4) {
		unsigned int kind = data[0], dev = data[1] % 4;
		size_t len = data[2] | (size_t)data[3] << 8;

		data += 4;
		size -= 4;
		if (len > size)
			len = size;
		if (kind % 2 == 0) {
			/* a leaf: the bytes are its ShapeProto; its data length follows it */
			struct hcb_ev_xleaf e = { .type = HCB_EV_XLEAF, .device = dev, .seq = seq[dev]++ };

			e.shape_len = len > HCB_XSHAPE_MAX ? HCB_XSHAPE_MAX : (uint32_t)len;
			memcpy(e.shape, data, e.shape_len);
			e.len = kind & 0x80 ? 8 : (kind >> 1) * 4;
			if (kind & 0x40)
				seq[dev]++;   /* a lost leaf */
			if (hcb_outfeed_feed(x, &e, sizeof(e)) == -ENOMEM)
				break;
		} else {
			unsigned char buf[sizeof(struct hcb_ev_chunk) + 512];
			struct hcb_ev_chunk c = { .type = HCB_EV_XDATA, .device = dev,
						  .seq = seq[dev] ? seq[dev] - 1 : 0 };
			size_t k = len > 512 ? 512 : len;

			c.len = (uint32_t)k;
			c.offset = kind & 2 ? 0 : 4;
			c.total = kind & 4 ? 8 : k;
			memcpy(buf, &c, sizeof(c));
			memcpy(buf + sizeof(c), data, k);
			if (hcb_outfeed_feed(x, buf, sizeof(c) + k) == -ENOMEM)
				break;
		}
		data += len;
		size -= len;
	}
	hcb_outfeed_flush_idle(x, UINT64_MAX, 0);
	hcb_outfeed_finish(x);
	hcb_outfeed_free(x);
	return 0;
}
