/* SPDX-License-Identifier: MIT */
/*
 * ffi_frame.h - XLA's side of an FFI call, built by hand for the tests of
 * hcbtap's tap handlers: an API with the three functions they call (errors,
 * device ordinal, stream), a context holding the device and stream, and
 * call frames with the tap's attributes and operands.  Header only; include
 * it once per program, after xla/ffi/api/c_api.h.
 */
#ifndef HCB_TEST_FFI_FRAME_H
#define HCB_TEST_FFI_FRAME_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_error {
	XLA_FFI_Error_Code code;
	char msg[256];
};

struct test_ctx {
	int device;
	void *stream;
};

static XLA_FFI_Error *error_create(XLA_FFI_Error_Create_Args *a)
{
	struct test_error *e = calloc(1, sizeof(*e));

	e->code = a->errc;
	snprintf(e->msg, sizeof(e->msg), "%s", a->message);
	return (XLA_FFI_Error *)e;
}

static XLA_FFI_Error *device_ordinal(XLA_FFI_DeviceOrdinal_Get_Args *a)
{
	a->device_ordinal = ((struct test_ctx *)a->ctx)->device;
	return NULL;
}

static XLA_FFI_Error *stream_get(XLA_FFI_Stream_Get_Args *a)
{
	a->stream = ((struct test_ctx *)a->ctx)->stream;
	return NULL;
}

static XLA_FFI_Api api = {
	.struct_size = XLA_FFI_Api_STRUCT_SIZE,
	.XLA_FFI_Error_Create = error_create,
	.XLA_FFI_DeviceOrdinal_Get = device_ordinal,
	.XLA_FFI_Stream_Get = stream_get,
};

#define MAXARGS 8

struct frame {
	XLA_FFI_CallFrame call;
	struct test_ctx ctx;
	XLA_FFI_Buffer bufs[MAXARGS];
	XLA_FFI_ArgType types[MAXARGS];
	void *args[MAXARGS];
	XLA_FFI_AttrType attr_types[2];
	XLA_FFI_ByteSpan name_spans[2];
	XLA_FFI_ByteSpan *names[2];
	XLA_FFI_Scalar scalars[2];
	int64_t values[2];
	void *attrs[2];
};

/*
 * A tap call on device with stream, consumer and ntap attributes (nattrs
 * of them: 2, or fewer to leave them out), and nargs operands: data[i], or
 * an XLA token where data[i] is NULL.
 */
static XLA_FFI_CallFrame *frame(struct frame *f, int device, void *stream, int64_t consumer,
				int64_t ntap, int nattrs, int nargs, void *const *data)
{
	static const char *attr_names[] = { "consumer", "ntap" };

	memset(f, 0, sizeof(*f));
	f->ctx = (struct test_ctx){ .device = device, .stream = stream };
	f->values[0] = consumer;
	f->values[1] = ntap;
	for (int i = 0; i < nattrs; i++) {
		f->attr_types[i] = XLA_FFI_AttrType_SCALAR;
		f->name_spans[i] = (XLA_FFI_ByteSpan){ attr_names[i], strlen(attr_names[i]) };
		f->names[i] = &f->name_spans[i];
		f->scalars[i] = (XLA_FFI_Scalar){ .dtype = XLA_FFI_DataType_S64, .value = &f->values[i] };
		f->attrs[i] = &f->scalars[i];
	}
	for (int i = 0; i < nargs; i++) {
		f->bufs[i] = (XLA_FFI_Buffer){
			.struct_size = XLA_FFI_Buffer_STRUCT_SIZE,
			.dtype = data[i] ? XLA_FFI_DataType_F32 : XLA_FFI_DataType_TOKEN,
			.data = data[i],
		};
		f->types[i] = XLA_FFI_ArgType_BUFFER;
		f->args[i] = &f->bufs[i];
	}
	f->call = (XLA_FFI_CallFrame){
		.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE,
		.api = &api,
		.ctx = (XLA_FFI_ExecutionContext *)&f->ctx,
		.stage = XLA_FFI_ExecutionStage_EXECUTE,
		.args = { .struct_size = XLA_FFI_Args_STRUCT_SIZE, .size = nargs,
			  .types = f->types, .args = f->args },
		.attrs = { .struct_size = XLA_FFI_Attrs_STRUCT_SIZE, .size = nattrs,
			   .types = f->attr_types, .names = f->names, .attrs = f->attrs },
	};
	return &f->call;
}

/* The error's code and message, freed; -1 and "" for none. */
static int take_error(XLA_FFI_Error *err, char *msg, size_t len)
{
	struct test_error *e = (struct test_error *)err;
	int code;

	if (!e) {
		snprintf(msg, len, "%s", "");
		return -1;
	}
	code = e->code;
	snprintf(msg, len, "%s", e->msg);
	free(e);
	return code;
}

#endif /* HCB_TEST_FFI_FRAME_H */
