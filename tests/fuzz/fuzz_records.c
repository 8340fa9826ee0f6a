/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a stream of ring-buffer records as the BPF side writes
 * them (src/providers/hcbtap/events.h), each prefixed here by a 2-byte length.
 * Every packet the decoder delivers must match its consumer's shape, and
 * every delivered payload is printed as id_print would, to exercise the
 * printers on whatever shapes and bytes got through.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "jsonl.h"
#include "providers/hcbtap/decode.h"
#include "text/idprint.h"

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	static const struct hcb_print_opts o = HCB_PRINT_OPTS_IDPRINT;
	struct hcb_buf b = HCB_BUF_INIT;

	(void)ctx;
	assert(p->consumer && p->payload);
	/* keep huge (but valid) shapes from making a fuzz run slow */
	if (p->consumer->total_bytes <= 4096) {
		assert(hcb_idprint(&b, p->consumer, "cpu", p->device, p->payload, &o) == 0);
		assert(hcb_jsonl_tap(&b, p->consumer, p->device, (int64_t)p->seq, p->mono_ns, p->payload) == 0);
	}
	hcb_buf_free(&b);
	return 0;
}

static const struct hcb_decoder_ops ops = { .packet = on_packet };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcb_hcbtap *d;

	if (hcb_hcbtap_new(&d, &ops, NULL))
		return 0;
	while (size >= 2) {
		size_t n = (size_t)data[0] | (size_t)data[1] << 8;

		data += 2;
		size -= 2;
		if (n > size)
			n = size;
		assert(hcb_hcbtap_feed(d, data, n) == 0);
		data += n;
		size -= n;
	}
	hcb_hcbtap_finish(d);
	hcb_hcbtap_free(d);
	return 0;
}
