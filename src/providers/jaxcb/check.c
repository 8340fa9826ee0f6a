/* SPDX-License-Identifier: MIT */
/*
 * check.c - the layout check (check.h): what layout.h says of XLA's
 * internals proven on the running process by what the probes read with
 * it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype.h"
#include "check.h"
#include "layout.h"

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
	if (h->thunk_device != UINT32_MAX && h->thunk_device != h->device_id) {
		snprintf(why, cap, "its device ordinal reads %u in the execution context and %u "
			 "in the thunk's execute parameters", h->device_id, h->thunk_device);
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
	if (h->thunk_device != h->device_id) {
		snprintf(why, cap, "its device ordinal reads %u in the thunk's custom call "
			 "parameters and %u in its collective parameters", h->device_id,
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

/* The layout check of a legacy callback's call (check.h). */
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
