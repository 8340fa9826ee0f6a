/* SPDX-License-Identifier: MIT */
/*
 * idprint.h - a tap as host_callback's id_print(arg, tap_with_device=True,
 * **kwargs) printed it: the sorted "key: value" kwargs line (device
 * included), then the value through JAX's pretty printer at width 80 with
 * arrays as numpy.array2string(arr, threshold=1024).
 */
#ifndef HCB_IDPRINT_H
#define HCB_IDPRINT_H

#include <stdint.h>

#include "core/buf.h"
#include "core/consumer.h"
#include "print_opts.h"

/* A device's name from its platform: "PLATFORM:N" ("cpu:0"), or, for a
 * platform with one "%u" in it, that pattern filled in ("TFRT_CPU_%u" gives
 * "TFRT_CPU_0", what str(device) is for JAX's CPU devices). */
int hcb_idprint_device(struct hcb_buf *out, const char *platform, uint32_t device);

/* A jax.debug.print's tap whose text is known: the same header line, then
 * the text as the program wrote it (len bytes, UTF-8, any lines) and the
 * '\n' it wrote after it. */
int hcb_idprint_text(struct hcb_buf *out, const struct hcb_consumer *c, const char *platform,
		     uint32_t device, const char *text, uint32_t len);
/* Append both lines (each ending in '\n') for one packet's payload. */
int hcb_idprint(struct hcb_buf *out, const struct hcb_consumer *c, const char *platform,
		uint32_t device, const unsigned char *payload, const struct hcb_print_opts *o);

#endif
