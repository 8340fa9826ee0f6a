/* SPDX-License-Identifier: MIT */
/*
 * hcbtap.h - the hcbtap provider: programs that link libhcbtap (C,
 * C++, and JAX through the hcbtap Python package).  Its packets cross at
 * the hcbtap:packet USDT probe, with their consumer's registration, a
 * per-device sequence number and the target's own issued counters, so
 * every loss is known and barriers can be served.
 */
#ifndef HCB_PROVIDERS_HCBTAP_H
#define HCB_PROVIDERS_HCBTAP_H

#include "providers/provider.h"

extern const struct hcb_provider hcb_prov_hcbtap;

#endif
