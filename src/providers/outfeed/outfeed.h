/* SPDX-License-Identifier: MIT */
/*
 * outfeed.h - the legacy XLA outfeed provider: unmodified programs
 * that use jax.experimental.host_callback with a jaxlib whose CPU runtime
 * still has host_callback's outfeed (run with JAX_HOST_CALLBACK_OUTFEED=1).
 * An uprobe on the runtime's outfeed entry point sees each leaf with its
 * serialized xla.ShapeProto; decode.c puts the packets back together.
 * The kwargs of such taps live in Python only: they print with their
 * consumer id.  Nothing counts what the target issued: no barrier.
 */
#ifndef HCB_PROVIDERS_OUTFEED_H
#define HCB_PROVIDERS_OUTFEED_H

#include "providers/provider.h"

/* Where XLA hands a leaf of an outfeed to the host (a local symbol of
 * jaxlib's xla_extension.so, found in its .symtab). */
#define HCB_XLA_OUTFEED_SYMBOL "__xla_cpu_runtime_ReleaseOutfeedBufferAfterPopulation"

extern const struct hcb_provider hcb_prov_outfeed;

#endif
