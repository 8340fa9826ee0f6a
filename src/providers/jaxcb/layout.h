/* SPDX-License-Identifier: MIT */
/*
 * layout.h - where XLA keeps what the jax-callback probes read, and what
 * the C API's values are to hcbtrace: one layout for every jaxlib from
 * 0.6 on (and the legacy callbacks' of 0.4.26 to 0.5.3), found by reading
 * each release's code.  None of it is trusted for a version's sake: the
 * first callback call must pass the layout check (check.h) or the
 * session refuses, in one line, and shows nothing.
 */
#ifndef HCB_JAXCB_LAYOUT_H
#define HCB_JAXCB_LAYOUT_H

#include <stdint.h>

#include "events.h"

/*
 * Where XLA keeps what the probes read.  All of it is XLA's internal C++
 * layout, not the FFI C API, so none of it is taken on trust: the layout
 * check (check.c) proves it on the first call of every session.
 */
struct hcb_jaxffi_layout {
	const char *thunk_execute;     /* xla::cpu::CustomCallThunk::Execute, mangled */
	const char *handler;           /* the Python callbacks' FFI handler */
	const char *buffer_handler;    /* buffer_callback's */
	uint32_t thunk_arg;            /* Execute's argument that is `this` (1: after
					* the returned AsyncValueRef's slot) */
	uint32_t op_off;               /* Thunk::info_.op_name, a std::string */
	uint32_t module_off;           /* Thunk::info_.module_name */
	/* CustomCallThunk::target_name_: the places it has been, or may be */
	uint32_t target_offs[HCB_JAXFFI_TARGET_PLACES];
	uint32_t params_ccp_off;       /* Thunk::ExecuteParams::custom_call_params */
	uint32_t ccp_device_off;       /* its device_ordinal (int32), after the run id */
	uint32_t ctx_device_off;       /* XLA_FFI_ExecutionContext::device_ordinal (int32) */
	/* the legacy callbacks' (legacy.h) */
	uint32_t params_coll_off;      /* Thunk::ExecuteParams::collective_params */
	uint32_t coll_device_off;      /* its local_device_ordinal (int64, read low half) */
	uint32_t run_device_off;       /* ExecutableRunOptions::device_ordinal_ (int32) */
	uint32_t legacy_arg_size;      /* sizeof(xla::CpuCallback::Arg) */
};

const struct hcb_jaxffi_layout *hcb_jaxffi_layout(void);
/* What the provider reads, for messages naming what is supported. */
const char *hcb_jaxffi_supported(void);

/* The custom call targets whose handlers the provider probes. */
int hcb_jaxffi_is_callback_target(const char *target);

/* XLA_FFI_DataType -> enum hcb_dtype; HCB_DT_INVALID for types hcbtrace
 * cannot show (S1 and U1, which JAX has no type for, token). */
unsigned int hcb_jaxffi_dtype(uint32_t xla_dtype);

#endif
