/* SPDX-License-Identifier: MIT */
/*
 * capture_nfstop.c - record --on-trigger stop with --until nonfinite: tell
 * the hcbtap probe which consumers' small packets to check for NaN or
 * infinity itself (bpf/hcbtap_events.h, struct hcb_nf_layout), so that it
 * stops the target from the target's own thread at that very tap.
 */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/hcbtap_events.h"
#include "capture.skel.h"
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

static struct hcb_capture_bpf *hcbtap_skel(struct hcb_capture *c)
{
	for (unsigned int i = 0; i < c->nslots; i++)
		if (!strcmp(c->slot[i].prov->name, "hcbtap"))
			return hcb_probes_skel(c->slot[i].probes);
	return NULL;
}

int hcb_capture_nfstop_arm(struct hcb_capture *c, int on)
{
	struct hcb_capture_bpf *skel = hcbtap_skel(c);
	uint32_t zero = 0, v = !!on;

	if (!skel)
		return -ENOENT;
	if (bpf_map__update_elem(skel->maps.nf_on, &zero, sizeof(zero), &v, sizeof(v), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
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
