/* SPDX-License-Identifier: MIT */
/*
 * ffi_util.h - what the CPU and CUDA XLA FFI handlers of the tap share:
 * the metadata handshake, errors, and reading a tap call's attributes,
 * device and leaves from its call frame.
 */
#ifndef HCBTAP_FFI_UTIL_H
#define HCBTAP_FFI_UTIL_H

#include <stdint.h>

#include "xla/ffi/api/c_api.h"

/* Leaves a call frame holds without an allocation. */
#define HCB_FFI_SMALL 64

struct hcb_ffi_tap {
	uint32_t consumer;
	unsigned int device;
	int64_t ntap;              /* leaves: the first ntap non-token operands */
	const void **leaves;       /* their data, ntap of them */
	const void *small[HCB_FFI_SMALL];
};

XLA_FFI_Error *hcb_ffi_error(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *msg);

/* 1 if this call is XLA's metadata request (answered here), else 0. */
int hcb_ffi_metadata_request(XLA_FFI_CallFrame *call);

/*
 * Read the call's consumer and ntap attributes, its device ordinal and its
 * leaves' data pointers (operands of XLA's token type, which ordered taps
 * pass first, are skipped) into t.  NULL, or the error to return to XLA.
 * hcb_ffi_tap_done() frees what it allocated, either way.
 */
XLA_FFI_Error *hcb_ffi_tap_read(XLA_FFI_CallFrame *call, const char *who, struct hcb_ffi_tap *t);
void hcb_ffi_tap_done(struct hcb_ffi_tap *t);

#endif /* HCBTAP_FFI_UTIL_H */
