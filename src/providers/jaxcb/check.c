/* SPDX-License-Identifier: MIT */
/*
 * jaxffi_check.c - where XLA keeps what the jaxffi provider reads, and the
 * check that proves it on the running process (jaxffi_check.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype.h"
#include "check.h"
#include "ffi.h"
#include "ffi_abi.h"

/* xla::cpu::CustomCallThunk::Execute(const Thunk::ExecuteParams &) */
#define THUNK_EXECUTE "_ZN3xla3cpu15CustomCallThunk7ExecuteERKNS0_5Thunk13ExecuteParamsE"

/*
 * Read from the code of every jaxlib release from 0.6.0 to 0.12.0.1
 * (disassembly of libjax_common.so) and from running programs (bpftrace),
 * the same in all of them but where the target name is:
 *   - Execute returns tsl::AsyncValueRef by value, so `this` is its second
 *     argument (%rdi is the returned value's slot; the VLOG reads
 *     target_name_ at %rsi + its offset);
 *   - Thunk::Info {op_name, module_name} follows the vtable pointer and the
 *     kind: strings at 16 and 48 ("debug_print.1", "jit_step");
 *   - target_name_, CustomCallThunk's first field, follows the Thunk base:
 *     at 96 up to 0.7.0, whose Thunk had one more word, and at 88 from
 *     0.7.1 on; a word either side is read too, for the releases to come;
 *   - CallTypedFFI tests ExecuteParams + 48 (custom_call_params) for NULL,
 *     then copies its {RunId run_id; int32 device_ordinal} (ordinal at 8)
 *     into the execution context it hands the handler;
 *   - XLA_FFI_ExecutionContext {RunId run_id; int32 device_ordinal; ...}:
 *     ordinal at 8 (XLA_FFI_INTERNAL_DeviceOrdinal_Get reads it there).
 *
 * The legacy callbacks (jaxlib 0.4.26 to 0.5.3, jaxlegacy.h), read from
 * the code of each of those 14 releases (xla_extension.so: the copy
 * constructor of CpuCallback::Arg, the destructors of its vectors,
 * PrepareAndCall, CustomCallThunk::Execute) and checked on programs of
 * 0.4.26, 0.4.31 and 0.5.3, the same in all of them:
 *   - xla::CpuCallback {PyObject *callable_; std::vector<Arg> args_;
 *     std::vector<Result> results_; ...}: vectors at 8 and 32, Result 120
 *     bytes (the probe's constants);
 *   - Arg, 88 bytes: {PrimitiveType type; PyArray_Descr *dtype;
 *     absl::InlinedVector<int64_t, 4> dims (at 16: size << 1 | allocated,
 *     then 4 inline or {data, capacity}); std::vector<int64_t> strides (at
 *     56, bytes); size_t size_in_bytes (at 80)};
 *   - the thunk as above, target_name_ at 88 (0.4.31) or 96, its
 *     backend_config 144 bytes after it; ExecuteParams + 40 is the
 *     collective parameters, whose local device ordinal is at 8;
 *   - the custom call parameters keep the device ordinal first up to 0.5.0
 *     and after the run id from 0.5.1, as XLA_FFI_INTERNAL_DeviceOrdinal_Get
 *     reads it (its code gives the offset, src/providers/jaxcb/ffi.c); the run options'
 *     is where ExecutableRunOptions::device_ordinal reads it (8).
 * None of it is trusted for a version's sake: hcb_jaxffi_check_site, below,
 * proves it on the running process.
 */
static const struct hcb_jaxffi_layout layout = {
	.thunk_execute = THUNK_EXECUTE,
	.handler = "kXlaFfiPythonCpuCallback",
	.buffer_handler = "kXlaBufferPythonCpuCallback",
	.thunk_arg = 1, .op_off = 16, .module_off = 48, .target_offs = { 88, 96, 80, 104 },
	.params_ccp_off = 48, .ccp_device_off = 8, .ctx_device_off = 8,
	.params_coll_off = 40, .coll_device_off = 8, .run_device_off = 8, .legacy_arg_size = 88,
};

const struct hcb_jaxffi_layout *hcb_jaxffi_layout(void)
{
	return &layout;
}

const char *hcb_jaxffi_supported(void)
{
	return "0.4.26 and later, each proven on the running process by its first callback call";
}

int hcb_jaxffi_is_callback_target(const char *target)
{
	static const char *const targets[] = {
		"xla_ffi_python_cpu_callback",               /* most of them */
		"xla_ffi_partitioned_python_cpu_callback",   /* partitioned=True */
		"xla_buffer_python_cpu_callback",            /* buffer_callback */
		"xla_python_cpu_callback",                   /* jaxlib < 0.6 (jaxlegacy.h) */
	};

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (strcmp(target, targets[i]) == 0)
			return 1;
	return 0;
}

unsigned int hcb_jaxffi_dtype(uint32_t xla_dtype)
{
	static const unsigned char map[JAXFFI_XLA_NDTYPES] = {
		[JAXFFI_XLA_PRED] = HCB_DT_BOOL,
		[JAXFFI_XLA_S8] = HCB_DT_INT8,
		[JAXFFI_XLA_S16] = HCB_DT_INT16,
		[JAXFFI_XLA_S32] = HCB_DT_INT32,
		[JAXFFI_XLA_S64] = HCB_DT_INT64,
		[JAXFFI_XLA_U8] = HCB_DT_UINT8,
		[JAXFFI_XLA_U16] = HCB_DT_UINT16,
		[JAXFFI_XLA_U32] = HCB_DT_UINT32,
		[JAXFFI_XLA_U64] = HCB_DT_UINT64,
		[JAXFFI_XLA_F16] = HCB_DT_FLOAT16,
		[JAXFFI_XLA_BF16] = HCB_DT_BFLOAT16,
		[JAXFFI_XLA_F32] = HCB_DT_FLOAT32,
		[JAXFFI_XLA_F64] = HCB_DT_FLOAT64,
		[JAXFFI_XLA_C64] = HCB_DT_COMPLEX64,
		[JAXFFI_XLA_C128] = HCB_DT_COMPLEX128,
		[JAXFFI_XLA_F8E4M3FN] = HCB_DT_FLOAT8_E4M3FN,
		[JAXFFI_XLA_F8E5M2] = HCB_DT_FLOAT8_E5M2,
		[JAXFFI_XLA_F8E3M4] = HCB_DT_FLOAT8_E3M4,
		[JAXFFI_XLA_F8E4M3] = HCB_DT_FLOAT8_E4M3,
		[JAXFFI_XLA_F8E4M3FNUZ] = HCB_DT_FLOAT8_E4M3FNUZ,
		[JAXFFI_XLA_F8E4M3B11FNUZ] = HCB_DT_FLOAT8_E4M3B11FNUZ,
		[JAXFFI_XLA_F8E5M2FNUZ] = HCB_DT_FLOAT8_E5M2FNUZ,
		[JAXFFI_XLA_F8E8M0FNU] = HCB_DT_FLOAT8_E8M0FNU,
		[JAXFFI_XLA_F4E2M1FN] = HCB_DT_FLOAT4_E2M1FN,
		[JAXFFI_XLA_S2] = HCB_DT_INT2,
		[JAXFFI_XLA_S4] = HCB_DT_INT4,
		[JAXFFI_XLA_U2] = HCB_DT_UINT2,
		[JAXFFI_XLA_U4] = HCB_DT_UINT4,
	};

	return xla_dtype < JAXFFI_XLA_NDTYPES ? map[xla_dtype] : HCB_DT_INVALID;
}

/* A name from the target, NUL-terminated and printable ASCII whatever it
 * held (names are HLO's, ASCII; no byte of it reaches a terminal raw). */
static void clean_name(char *s, size_t size)
{
	s[size - 1] = '\0';
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
}

/* An HLO name, as XLA makes them: letters, digits, '_', '.', '-'. */
static bool hlo_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

/* Where the target name is a callback's, or -1. */
static int target_place(struct hcb_ev_jcall *h)
{
	int place = -1;

	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++) {
		clean_name(h->target[i], sizeof(h->target[i]));
		if (place < 0 && hcb_jaxffi_is_callback_target(h->target[i]))
			place = (int)i;
	}
	return place;
}

/* Why the site of a call whose target name is at place fails, or NULL. */
static const char *site_fails(const struct hcb_jaxffi_check *k, const struct hcb_ev_jcall *h,
			      int place, char *why, size_t cap)
{
	if (!hlo_name(h->op) || !hlo_name(h->module)) {
		snprintf(why, cap, "the thunk's op and module names read as \"%s\" and \"%s\", "
			 "which are no HLO names", h->op, h->module);
		return why;
	}
	if (h->thunk_device != UINT32_MAX && h->thunk_device != h->device) {
		snprintf(why, cap, "its device ordinal reads %u in the execution context and %u "
			 "in the thunk's execute parameters", h->device, h->thunk_device);
		return why;
	}
	if (k->state == HCB_JAXFFI_PROVEN && (unsigned int)place != k->place) {
		snprintf(why, cap, "its target name is at offset %u of the thunk, not %u as before",
			 hcb_jaxffi_layout()->target_offs[place],
			 hcb_jaxffi_layout()->target_offs[k->place]);
		return why;
	}
	return NULL;
}

/* The offsets the target name was looked for at: "88, 96, 80 or 104". */
static void places(char *s, size_t cap)
{
	const struct hcb_jaxffi_layout *l = hcb_jaxffi_layout();
	size_t n = 0;

	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES && n < cap; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s%u",
				      !i ? "" : i + 1 < HCB_JAXFFI_TARGET_PLACES ? ", " : " or ",
				      l->target_offs[i]);
}

/* What of a legacy descriptor did not read as an xla::CpuCallback. */
static const char *layout_words(uint32_t bad)
{
	if (bad & HCB_JAXLEGACY_BAD_DESC)
		return "its argument and result vectors are no whole arrays of Arg and Result";
	if (bad & HCB_JAXLEGACY_BAD_TOKEN)
		return "a token operand has a dtype, dims or bytes";
	if (bad & HCB_JAXLEGACY_BAD_TYPE)
		return "an operand has no XLA element type or no numpy dtype";
	if (bad & HCB_JAXLEGACY_BAD_DIMS)
		return "an operand's dims are inline for more than 4, or not for 4 or fewer";
	if (bad & HCB_JAXLEGACY_BAD_STRIDES)
		return "an operand's strides are not its row-major byte strides";
	return "an operand's size in bytes is not its elements'";
}

const char *hcb_jaxffi_check_strides(const struct hcb_ev_jarg *e)
{
	unsigned int dt = hcb_jaxffi_dtype(e->dtype);
	uint64_t want = dt == HCB_DT_INVALID ? 0 : hcb_dtype_size(dt);

	if (!want || e->rank > HCB_MAX_DIMS || hcb_dtype_bits(dt) < 8)
		return NULL;
	if (e->nstrides != e->rank)
		return "an operand's Arg holds another number of strides than dims";
	for (unsigned int k = e->rank; k-- > 0;) {
		if (e->strides[k] != want)
			return "an operand's strides are not its row-major byte strides";
		want *= e->dims[k];
	}
	return NULL;
}

/* Why a legacy call's thunk does not prove its site and device, or NULL. */
static const char *legacy_site_fails(const struct hcb_jaxffi_check *k, const struct hcb_ev_jcall *h,
				     int place, char *why, size_t cap)
{
	char desc[HCB_JAXLEGACY_CONFIG_MAX];
	const char *config = h->config[place];

	snprintf(desc, sizeof(desc), "%llu", (unsigned long long)h->desc);
	if (strncmp(config, desc, sizeof(desc))) {
		snprintf(why, cap, "the thunk's backend_config reads \"%.*s\", not the address of "
			 "the callback's descriptor (%s)", (int)HCB_JAXLEGACY_CONFIG_MAX - 1, config, desc);
		return why;
	}
	if (h->thunk_device != h->device) {
		snprintf(why, cap, "its device ordinal reads %u in the thunk's custom call "
			 "parameters and %u in its collective parameters", h->device,
			 h->thunk_device);
		return why;
	}
	if (!hlo_name(h->op) || !hlo_name(h->module)) {
		snprintf(why, cap, "the thunk's op and module names read as \"%s\" and \"%s\", "
			 "which are no HLO names", h->op, h->module);
		return why;
	}
	if (k->place_known && (unsigned int)place != k->place) {
		snprintf(why, cap, "its target name is at offset %u of the thunk, not %u as before",
			 hcb_jaxffi_layout()->target_offs[place],
			 hcb_jaxffi_layout()->target_offs[k->place]);
		return why;
	}
	return NULL;
}

/* The layout check of a legacy callback's call (jaxffi_check.h). */
static int check_legacy(struct hcb_jaxffi_check *k, struct hcb_ev_jcall *h, int place,
			char *msg, size_t cap)
{
	char why[320];
	int site = 1;

	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		clean_name(h->config[i], sizeof(h->config[i]));
	clean_name(h->pytype, sizeof(h->pytype));
	if (h->layout) {
		snprintf(why, sizeof(why), "the callback descriptor at 0x%llx does not read as "
			 "xla::CpuCallback: %s", (unsigned long long)h->desc, layout_words(h->layout));
		goto fails;
	}
	if (strcmp(h->pytype, "function")) {
		snprintf(why, sizeof(why), "the callback descriptor at 0x%llx holds a \"%s\" where "
			 "its Python function must be", (unsigned long long)h->desc, h->pytype);
		goto fails;
	}
	/* no device known: or the thread's thunk was another custom call's,
	 * whose device says nothing of this call's */
	if ((h->flags & HCB_JAXFFI_F_NODEV) || ((h->flags & HCB_JAXFFI_F_THUNK) && place < 0))
		return 2;
	if (h->flags & HCB_JAXFFI_F_THUNK) {
		if (legacy_site_fails(k, h, place, why, sizeof(why)))
			goto fails;
		k->place = (unsigned int)place;
		k->place_known = 1;
		if (place)
			memcpy(h->target[0], h->target[place], sizeof(h->target[0]));
		site = 0;
	}
	k->state = HCB_JAXFFI_PROVEN;
	return site;
fails:
	snprintf(msg, cap, "%s", why);
	if (k->state == HCB_JAXFFI_PROVEN)
		return -EINVAL;
	k->state = HCB_JAXFFI_REFUSED;
	return -EPROTO;
}

int hcb_jaxffi_check_site(struct hcb_jaxffi_check *k, struct hcb_ev_jcall *h, char *msg,
			  size_t cap)
{
	char why[320], at[64];
	int place;

	clean_name(h->op, sizeof(h->op));
	clean_name(h->module, sizeof(h->module));
	place = target_place(h);
	if (k->state == HCB_JAXFFI_REFUSED)
		return -EPROTO;
	if (h->flags & HCB_JAXFFI_F_LEGACY)
		return check_legacy(k, h, place, msg, cap);
	if (!(h->flags & HCB_JAXFFI_F_THUNK))
		return 1;
	if (place < 0) {
		if (k->state == HCB_JAXFFI_PROVEN)
			return 1;   /* the thread's custom call was another */
		places(at, sizeof(at));
		snprintf(why, sizeof(why), "the thunk that called it holds no callback target's "
			 "name at offset %s", at);
	} else if (!site_fails(k, h, place, why, sizeof(why))) {
		k->state = HCB_JAXFFI_PROVEN;
		k->place = (unsigned int)place;
		if (place)
			memcpy(h->target[0], h->target[place], sizeof(h->target[0]));
		return 0;
	}
	snprintf(msg, cap, "%s", why);
	if (k->state == HCB_JAXFFI_PROVEN)
		return -EINVAL;
	k->state = HCB_JAXFFI_REFUSED;
	return -EPROTO;
}
