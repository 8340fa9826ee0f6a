/* SPDX-License-Identifier: MIT */
/*
 * capture_nfstop.c - record --on-trigger stop with --until nonfinite: tell
 * the hcbtap probe which consumers' small packets to check for NaN or
 * infinity itself (bpf/nonfinite.h, struct hcb_nf_layout), so that it
 * stops the target from the target's own thread at that very tap; and
 * tell the jax-callback FFI probe on which devices to check the small
 * float operands of every call (bpf/jaxffi_events.h, struct hcb_jaxffi_nf).
 */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/nonfinite.h"
#include "providers/hcbtap/events.h"
#include "providers/jaxcb/events.h"
#include "capture_impl.h"

/* The probe's kind for a float dtype it checks, or 0. */
static uint32_t nf_kind(unsigned int dtype)
{
	switch (dtype) {
	case HCB_DT_FLOAT16: return HCB_NF_F16;
	case HCB_DT_BFLOAT16: return HCB_NF_BF16;
	case HCB_DT_FLOAT32: return HCB_NF_F32;
	case HCB_DT_FLOAT64: return HCB_NF_F64;
	default: return 0;
	}
}

/* cons's float leaves as spans of whole elements.  0, or -E2BIG: not a
 * small packet, or more spans than the probe takes. */
static int layout(const struct hcb_consumer *cons, struct hcb_nf_layout *l)
{
	uint64_t off = 0;

	if (cons->total_bytes == 0 || cons->total_bytes > HCB_WIRE_INLINE_MAX)
		return -E2BIG;
	for (unsigned int i = 0; i < cons->nleaves; i++) {
		const struct hcb_leaf_shape *leaf = &cons->leaves[i];
		uint32_t kind = nf_kind(leaf->dtype);

		for (uint64_t at = 0; kind && at < leaf->nbytes; at += HCB_NF_SPAN) {
			uint64_t len = leaf->nbytes - at < HCB_NF_SPAN ? leaf->nbytes - at : HCB_NF_SPAN;

			if (l->nspans == HCB_NF_MAX_SPANS)
				return -E2BIG;
			l->span[l->nspans++] = (struct hcb_nf_span){ .off = (uint32_t)(off + at),
				.len = (uint32_t)len, .kind = kind };
		}
		off += leaf->nbytes;
	}
	return 0;
}

static struct hcb_capture_bpf *slot_skel(struct hcb_capture *c, const char *prov)
{
	for (unsigned int i = 0; i < c->nslots; i++)
		if (!strcmp(c->slot[i].prov->name, prov))
			return hcb_probes_skel(c->slot[i].probes);
	return NULL;
}

static struct hcb_capture_bpf *hcbtap_skel(struct hcb_capture *c)
{
	return slot_skel(c, "hcbtap");
}

static int put(struct bpf_map *m, const void *key, const void *v, size_t n)
{
	if (bpf_map__update_elem(m, key, sizeof(uint32_t), v, n, BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}

/* The jax-callback probe's setting: on (1), off (0), or only the devices
 * (on < 0: as it was).  -ENOENT: no such probe, or no device set yet. */
static int jax_set(struct hcb_capture *c, int on, const uint64_t *device_mask)
{
	struct hcb_capture_bpf *skel = slot_skel(c, "jax-callback");
	struct hcb_jaxffi_nf v;
	uint32_t zero = 0;
	int any = 0;

	if (!skel)
		return -ENOENT;
	if (bpf_map__lookup_elem(skel->maps.jaxffi_nf, &zero, sizeof(zero), &v, sizeof(v), 0))
		return errno ? -errno : -EIO;
	if (device_mask)
		memcpy(v.device_mask, device_mask, sizeof(v.device_mask));
	for (unsigned int i = 0; i < HCB_MAX_DEVICES / 64; i++)
		any |= v.device_mask[i] != 0;
	if (!any)
		return -ENOENT;
	if (on >= 0)
		v.on = (uint32_t)on;
	return put(skel->maps.jaxffi_nf, &zero, &v, sizeof(v));
}

int hcb_capture_nfstop_arm(struct hcb_capture *c, int on)
{
	struct hcb_capture_bpf *skel = hcbtap_skel(c);
	uint32_t zero = 0, v = !!on;
	int err = -ENOENT, jerr = jax_set(c, !!on, NULL);

	if (skel)
		err = put(skel->maps.nf_on, &zero, &v, sizeof(v));
	/* armed where either probe is */
	if (!err || !jerr)
		return 0;
	return skel ? err : jerr;
}

int hcb_capture_stop_nonfinite_jax(struct hcb_capture *c, const uint64_t *device_mask)
{
	return jax_set(c, -1, device_mask);
}

int hcb_capture_stop_nonfinite(struct hcb_capture *c, const struct hcb_consumer *cons,
			       const uint64_t *device_mask)
{
	struct hcb_capture_bpf *skel = hcbtap_skel(c);
	struct hcb_nf_layout l;
	int err;

	if (!skel)
		return -ENOENT;
	memset(&l, 0, sizeof(l));
	memcpy(l.device_mask, device_mask, sizeof(l.device_mask));
	err = layout(cons, &l);
	if (err || !l.nspans)
		return err ? err : -E2BIG;
	if (bpf_map__update_elem(skel->maps.nf_stop, &cons->id, sizeof(cons->id), &l, sizeof(l),
				 BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}
