/* SPDX-License-Identifier: MIT */
/*
 * sitecache.h - call sites learned once (events.h): the decoder's proven
 * thunks written where the FFI probe looks them up (jaxffi_sites), so
 * that their later calls are sent without their names.
 *
 * For tests: HCBTRACE_TEST_SITES=off learns none (every call read whole,
 * as before); =stale writes each with a head that no thunk has, as if
 * every thunk had been freed and another put at its address since: each
 * call is then read whole, and named as that.
 */
#ifndef HCB_JAXCB_SITECACHE_H
#define HCB_JAXCB_SITECACHE_H

struct hcb_jaxffi;
struct hcb_probes;

/* The decoder dec hands its proven thunks to probes' map. */
void hcb_jaxcb_sitecache_open(struct hcb_jaxffi *dec, struct hcb_probes *probes);

#endif
