/* SPDX-License-Identifier: MIT */
/*
 * names.h - the jax-callback decoder's namer (issue 29): how call sites
 * come to be named by the user's code.  The decoder asks a namer it is
 * handed for the site of each call whose Python callable is known; what
 * the namer reads is its own (namer.h: the CPython walker of pysite.h).
 */
#ifndef HCB_JAXCB_NAMES_H
#define HCB_JAXCB_NAMES_H

#include <stdint.h>

struct hcb_jaxffi;
struct hcb_pysite;

/*
 * name(ctx, callable, out) reads the site of a call whose Python callable
 * is known (pysite.h's hcb_pysite_lookup): 0 and *out filled, or the site
 * keeps its op's name and ops->notice says why, once for the site.
 */
typedef int (*hcb_jaxffi_namer)(void *ctx, uint64_t callable, struct hcb_pysite *out);
/* x's namer; release(ctx), if set, when x is freed. */
void hcb_jaxffi_set_namer(struct hcb_jaxffi *x, hcb_jaxffi_namer name, void (*release)(void *),
			  void *ctx);

#endif
