/* SPDX-License-Identifier: MIT */
/*
 * ffi_util.c - the call-frame side of the tap's XLA FFI handlers, against
 * XLA's plain C FFI API (xla/ffi/api/c_api.h from the jaxlib wheel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi_util.h"

/*
 * The call frame's extension chain: XLA_FFI_Extension_Base in jaxlib up to
 * 0.11, XLA_FFI_InternalExtension from 0.12 on, with the same members.  The
 * type is taken from the header being compiled against rather than named,
 * so one source builds against either.
 */
typedef __typeof__(*((XLA_FFI_CallFrame *)0)->extension_start) ffi_extension;

XLA_FFI_Error *hcb_ffi_error(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *msg)
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
int hcb_ffi_metadata_request(XLA_FFI_CallFrame *call)
{
	for (ffi_extension *ext = call->extension_start; ext; ext = ext->next) {
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

XLA_FFI_Error *hcb_ffi_tap_read(XLA_FFI_CallFrame *call, const char *who, struct hcb_ffi_tap *t)
{
	XLA_FFI_DeviceOrdinal_Get_Args dev = {
		.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE,
		.ctx = call->ctx,
	};
	int64_t consumer = attr_i64(call, "consumer"), ntap = attr_i64(call, "ntap"), k = 0;
	XLA_FFI_Error *err;
	char msg[160];

	t->leaves = t->small;
	if (consumer <= 0 || consumer > UINT32_MAX || ntap < 0 || ntap > call->args.size) {
		snprintf(msg, sizeof(msg), "%s: the call lacks its consumer and ntap int64 attributes", who);
		return hcb_ffi_error(call->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);
	}
	t->consumer = (uint32_t)consumer;
	t->ntap = ntap;
	err = call->api->XLA_FFI_DeviceOrdinal_Get(&dev);
	if (err)
		return err;
	t->device = (unsigned int)dev.device_ordinal;
	if (ntap > HCB_FFI_SMALL) {
		t->leaves = malloc((size_t)ntap * sizeof(*t->leaves));
		if (!t->leaves) {
			t->leaves = t->small;
			snprintf(msg, sizeof(msg), "%s: out of memory", who);
			return hcb_ffi_error(call->api, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, msg);
		}
	}
	for (int64_t i = 0; i < call->args.size && k < ntap; i++) {
		const XLA_FFI_Buffer *b = call->args.args[i];

		if (call->args.types[i] == XLA_FFI_ArgType_BUFFER && b->dtype != XLA_FFI_DataType_TOKEN)
			t->leaves[k++] = b->data;
	}
	if (k < ntap) {
		snprintf(msg, sizeof(msg), "%s: %lld leaves promised, %lld array operands",
			 who, (long long)ntap, (long long)k);
		return hcb_ffi_error(call->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);
	}
	return NULL;
}

void hcb_ffi_tap_done(struct hcb_ffi_tap *t)
{
	if (t->leaves != t->small)
		free(t->leaves);
	t->leaves = t->small;
}
