/* SPDX-License-Identifier: MIT */
/*
 * jaxcb.h - the JAX callback provider: unmodified JAX programs on CPU
 * (jaxlib 0.4.26 and later) that tap their values with jax.debug.print,
 * jax.debug.callback, io_callback, pure_callback or buffer_callback.
 * Uprobes on the XLA FFI handlers those calls end in (jaxlib 0.6 on), or
 * on the legacy custom call's function (before), and on the custom-call
 * thunk that runs each (for the call site's names and device): see
 * ffi.bpf.c, legacy.bpf.c, gpu.bpf.c, ffi.h and legacy.h.  Each call site
 * is a consumer named by the user's code where its Python callable reads
 * (pysite.h), else by its HLO op ("debug_print.1"), with kwargs op and
 * module.  Nothing counts what the target issued: no barrier.
 */
#ifndef HCB_PROVIDERS_JAXCB_H
#define HCB_PROVIDERS_JAXCB_H

#include "providers/provider.h"

extern const struct hcb_provider hcb_prov_jaxcb;

#endif
