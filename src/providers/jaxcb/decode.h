/* SPDX-License-Identifier: MIT */
/*
 * decode.h - the jax-callback decoder: the ring records of ffi.bpf.c,
 * legacy.bpf.c, gpu.bpf.c (events.h) and pycall.bpf.c (pycall_events.h)
 * back into packets.  Each call site gets a consumer made up from what
 * the calls say: named by the user's code where the namer reads it
 * (names.h), else after the HLO op ("debug_print.1"), with the kwargs
 * callback: NAME and module: MODULE, one leaf per operand (a tuple if
 * several, as id_print printed them).  Malformed or incomplete records
 * are counted per device and reported through ops->warn, never trusted.
 * libc only: the unit tests and the fuzzer drive it directly.
 */
#ifndef HCB_JAXCB_DECODE_H
#define HCB_JAXCB_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/packet.h"
#include "core/print_opts.h"

struct hcb_jaxffi;

int hcb_jaxffi_new(struct hcb_jaxffi **out, const struct hcb_decoder_ops *ops, void *ctx);
/* The execution context's device ordinal is read where the library's own
 * code reads it (ffi.h: t->ctx_device_off): calls with no thunk to prove
 * the layout are shown before one does. */
void hcb_jaxffi_device_proven(struct hcb_jaxffi *x);
/* The inner function that calls the Python callable is probed
 * (pycall.bpf.c): a Python callback's tap is held until its end. */
void hcb_jaxffi_inner_probed(struct hcb_jaxffi *x);
/* The text probe was left off on purpose (--no-text): a print's tap is
 * its operands, with no notice that its text was not seen. */
void hcb_jaxffi_text_off(struct hcb_jaxffi *x);
/* The inner function's return is not probed (no text probe: nothing to
 * wait for): a Python callback's tap is handed on at its entry, named. */
void hcb_jaxffi_no_ends(struct hcb_jaxffi *x);
/* The return probe goes off with the text probe (probe_off, textprobe.h):
 * from then on as hcb_jaxffi_no_ends. */
void hcb_jaxffi_ends_with_text(struct hcb_jaxffi *x);

/*
 * A jax.debug.print's line made by hcbtrace from its fmt, print options
 * and operands (formats/text/pyformat.h's hcb_pyformat, a floor above
 * this one: the program that links both hands it here once).  0, or
 * -ENOTSUP where the line cannot be proven.
 */
typedef int (*hcb_jaxffi_formatter)(struct hcb_buf *out, const char *fmt, size_t fmt_len,
				    const struct hcb_print_opts *opts,
				    const struct hcb_array *leaves, unsigned int nleaves);
void hcb_jaxffi_use_formatter(hcb_jaxffi_formatter f);

/*
 * Call sites learned once (events.h, thunks.c): learn(ctx, key, site)
 * hands the probe a thunk whose call the layout check proved, to send
 * its later calls without their names; 0 if taken, else -errno (not kept
 * here either).  Without it the decoder keeps them alone (tests, fuzzer).
 */
struct hcb_jaxffi_site_key;
struct hcb_jaxffi_site;
typedef int (*hcb_jaxffi_learn)(void *ctx, const struct hcb_jaxffi_site_key *key,
				const struct hcb_jaxffi_site *site);
void hcb_jaxffi_site_cache(struct hcb_jaxffi *x, hcb_jaxffi_learn learn, void *ctx);
/* Calls that came without their names, their site known (F_KNOWN). */
uint64_t hcb_jaxffi_known_calls(const struct hcb_jaxffi *x);

/*
 * The probe on XLA's custom-call thunks (thunkoff.c): set(ctx, 0) takes it
 * off once every call site seen is named by its Python callable and none
 * was new for quiet_ns (of the calls' times); set(ctx, 1) puts it on again
 * for a call whose callable names no site.  Each returns 0 or -errno.
 * Without it the probe stays on.
 */
void hcb_jaxffi_thunk_switch(struct hcb_jaxffi *x, int (*set)(void *ctx, int on), void *ctx,
			     uint64_t quiet_ns);

/* Where a print's text comes from (text.c, textproof.c). */
enum hcb_jaxffi_text_mode {
	/* the probe on the target's str concatenation until every print
	 * site's made line was proven equal to its probed text, then the
	 * made lines alone, the probe off (probe_off) */
	HCB_JAXFFI_TEXT_AUTO,
	HCB_JAXFFI_TEXT_PROBE,    /* --text-probe: the probe's text alone */
	HCB_JAXFFI_TEXT_FORMAT,   /* tests: the made line alone, no probe */
};
/* The mode, and how to take the concatenation probe off (AUTO; NULL: it
 * was not attached) with its ctx. */
void hcb_jaxffi_text_mode(struct hcb_jaxffi *x, enum hcb_jaxffi_text_mode mode,
			  void (*probe_off)(void *ctx), void *ctx);
void hcb_jaxffi_free(struct hcb_jaxffi *x);
/* One ring-buffer record of type HCB_EV_JCALL, HCB_EV_JARG, HCB_EV_JDATA,
 * HCB_EV_JARG_BYTES, HCB_EV_JCALL_ARG or one of pycall_events.h.  0 (malformed records included: they are
 * counted), the packet callback's negative value, -ENOMEM, or -EPROTO
 * from the call that failed the layout check (check.h; ops->refuse was
 * told why) on: nothing more is read. */
int hcb_jaxffi_feed(struct hcb_jaxffi *x, const void *rec, size_t len);
/* Calls whose records are still coming. */
unsigned int hcb_jaxffi_pending(const struct hcb_jaxffi *x);
/* End of input: calls still incomplete are counted as HCB_INCOMPLETE. */
void hcb_jaxffi_finish(struct hcb_jaxffi *x);
/* Per-device figures (first_seq/last_seq: the lowest and highest seq
 * delivered: calls of a device may end out of order); NULL for a device
 * never seen; device HCB_MAX_DEVICES: every device out of range together
 * (and records that name none). */
const struct hcb_stream_stats *hcb_jaxffi_stats(const struct hcb_jaxffi *x, uint32_t device);
/* Time passes (a tick): calls that made no progress for a while are
 * given up, counted (providers/bounds.h).  0, or the packet callback's
 * negative value. */
int hcb_jaxffi_tick(struct hcb_jaxffi *x, uint64_t now_ns);
/* Its bounds and what passed them, for tests. */
struct hcb_bounds;
const struct hcb_bounds *hcb_jaxffi_bounds(const struct hcb_jaxffi *x);
struct hcb_registry;
struct hcb_registry *hcb_jaxffi_registry(struct hcb_jaxffi *x);

#endif
