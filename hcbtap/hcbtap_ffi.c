/* SPDX-License-Identifier: MIT */
/*
 * hcbtap_ffi.c - the XLA FFI custom call behind the Python hcbtap package's
 * id_tap / id_print (python/hcbtap) on CPU devices: one packet per call, of
 * the consumer the call's "consumer" attribute names, on the device the
 * call runs on, with the first "ntap" array operands as the leaves (an
 * ordered tap passes XLA's token first; it is skipped).  Written against
 * XLA's plain C FFI API (xla/ffi/api/c_api.h, shipped in the jaxlib wheel),
 * so it is built by the Python package's build, where that header is at
 * hand; the rest of libhcbtap needs only libc.  hcbtap_cuda.c is the same
 * call on CUDA devices.
 *
 * The operands are aliased to the results: the call copies nothing and
 * writes nothing.  While no tracer is attached it returns after one load.
 */
#include <errno.h>

#include "ffi_util.h"
#include "hcbtap.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT XLA_FFI_Error *hcbtap_ffi_tap(XLA_FFI_CallFrame *call)
{
	struct hcb_ffi_tap t;
	XLA_FFI_Error *err;
	int64_t seq;

	if (hcb_ffi_metadata_request(call))
		return NULL;
	if (call->stage != XLA_FFI_ExecutionStage_EXECUTE || !hcbtap_attached())
		return NULL;

	err = hcb_ffi_tap_read(call, "hcbtap_tap", &t);
	if (err) {
		hcb_ffi_tap_done(&t);
		return err;
	}
	seq = hcbtap_emit_attached(t.consumer, t.device, t.leaves);
	hcb_ffi_tap_done(&t);
	if (seq == -ENOENT)
		return hcb_ffi_error(call->api, XLA_FFI_Error_Code_NOT_FOUND,
				     "hcbtap_tap: the consumer was never registered in this process");
	/* -EINVAL: a device beyond HCB_MAX_DEVICES; the tap is lost, not the run */
	return NULL;
}
