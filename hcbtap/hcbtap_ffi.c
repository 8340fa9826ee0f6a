/* SPDX-License-Identifier: MIT */
/*
 * hcbtap_ffi.c - the XLA FFI custom call behind the Python hcbtap package's
 * id_tap / id_print (python/hcbtap): one packet per call, of the consumer
 * the call's "consumer" attribute names, on the device the call runs on,
 * with the first "ntap" operands as the leaves.  Written against XLA's
 * plain C FFI API (xla/ffi/api/c_api.h, shipped in the jaxlib wheel), so it
 * is built by the Python package's build, where that header is at hand;
 * the rest of libhcbtap needs only libc.
 *
 * The operands are aliased to the results: the call copies nothing and
 * writes nothing.  While no tracer is attached it returns after one load.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xla/ffi/api/c_api.h"

#include "hcbtap.h"

#define EXPORT __attribute__((visibility("default")))

static XLA_FFI_Error *ffi_error(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *msg)
{
	XLA_FFI_Error_Create_Args args = {
		.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE,
		.message = msg,
		.errc = code,
	};

	return api->XLA_FFI_Error_Create(&args);
}

/* The int64 scalar attribute called name, or -1. */
static int64_t attr_i64(const XLA_FFI_CallFrame *call, const char *name)
{
	size_t len = strlen(name);

	for (int64_t i = 0; i < call->attrs.size; i++) {
		const XLA_FFI_ByteSpan *n = call->attrs.names[i];
		const XLA_FFI_Scalar *s = call->attrs.attrs[i];

		if (n->len != len || memcmp(n->ptr, name, len) != 0)
			continue;
		if (call->attrs.types[i] != XLA_FFI_AttrType_SCALAR || s->dtype != XLA_FFI_DataType_S64)
			return -1;
		return *(const int64_t *)s->value;
	}
	return -1;
}

/* XLA asks, before first use, which API version the handler speaks. */
static int metadata_request(XLA_FFI_CallFrame *call)
{
	for (XLA_FFI_Extension_Base *ext = call->extension_start; ext; ext = ext->next) {
		XLA_FFI_Metadata_Extension *m = (XLA_FFI_Metadata_Extension *)ext;

		if (ext->type != XLA_FFI_Extension_Metadata)
			continue;
		m->metadata->api_version.major_version = XLA_FFI_API_MAJOR;
		m->metadata->api_version.minor_version = XLA_FFI_API_MINOR;
		m->metadata->traits = 0;
		return 1;
	}
	return 0;
}

EXPORT XLA_FFI_Error *hcbtap_ffi_tap(XLA_FFI_CallFrame *call)
{
	const void *small[64], **leaves = small;
	XLA_FFI_DeviceOrdinal_Get_Args dev = {
		.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE,
	};
	XLA_FFI_Error *err;
	int64_t consumer, ntap;
	int64_t seq;

	if (metadata_request(call))
		return NULL;
	if (call->stage != XLA_FFI_ExecutionStage_EXECUTE || !hcbtap_attached())
		return NULL;

	consumer = attr_i64(call, "consumer");
	ntap = attr_i64(call, "ntap");
	if (consumer <= 0 || consumer > UINT32_MAX || ntap < 0 || ntap > call->args.size)
		return ffi_error(call->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
				 "hcbtap_tap: the call lacks its consumer and ntap int64 attributes");
	dev.ctx = call->ctx;
	err = call->api->XLA_FFI_DeviceOrdinal_Get(&dev);
	if (err)
		return err;
	if (ntap > (int64_t)(sizeof(small) / sizeof(small[0]))) {
		leaves = malloc((size_t)ntap * sizeof(*leaves));
		if (!leaves)
			return ffi_error(call->api, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
					 "hcbtap_tap: out of memory");
	}
	for (int64_t i = 0; i < ntap; i++)
		leaves[i] = ((const XLA_FFI_Buffer *)call->args.args[i])->data;
	seq = hcbtap_emit_attached((uint32_t)consumer, (unsigned int)dev.device_ordinal, leaves);
	if (leaves != small)
		free(leaves);
	if (seq == -ENOENT)
		return ffi_error(call->api, XLA_FFI_Error_Code_NOT_FOUND,
				 "hcbtap_tap: the consumer was never registered in this process");
	/* -EINVAL: a device beyond HCB_MAX_DEVICES; the tap is lost, not the run */
	return NULL;
}
