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

#include "jaxffi.h"
#include "jaxffi_check.h"

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
 * None of it is trusted for a version's sake: hcb_jaxffi_check_site, below,
 * proves it on the running process.
 */
static const struct hcb_jaxffi_layout layout = {
	.thunk_execute = THUNK_EXECUTE,
	.handler = "kXlaFfiPythonCpuCallback",
	.buffer_handler = "kXlaBufferPythonCpuCallback",
	.thunk_arg = 1, .op_off = 16, .module_off = 48, .target_offs = { 88, 96, 80, 104 },
	.params_ccp_off = 48, .ccp_device_off = 8, .ctx_device_off = 8,
};

const struct hcb_jaxffi_layout *hcb_jaxffi_layout(void)
{
	return &layout;
}

const char *hcb_jaxffi_supported(void)
{
	return "0.6.0 and later, each proven on the running process by its first callback call";
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
