/* SPDX-License-Identifier: MIT */
/* nfstop.c - the hcbtap probe's own NaN check (nfstop.h). */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/nonfinite.h"
#include "bpf/probes.h"
#include "nfstop.h"

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

/* The devices of the set the probe's mask can name: libhcbtap's, below
 * HCB_MAX_DEVICES.  0, or -ENOENT if none. */
static int mask_of(const struct hcb_devset *devices, uint64_t *mask)
{
	int any = 0;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		if (!hcb_devset_has(devices, d))
			continue;
		mask[d / 64] |= 1ull << (d % 64);
		any = 1;
	}
	return any ? 0 : -ENOENT;
}

int hcb_hcbtap_stop_nonfinite(struct hcb_probes *probes, const struct hcb_consumer *cons,
			      const struct hcb_devset *devices)
{
	struct hcb_nf_layout l;
	int err;

	memset(&l, 0, sizeof(l));
	err = mask_of(devices, l.device_mask);
	if (err)
		return err;
	err = layout(cons, &l);
	if (err || !l.nspans)
		return err ? err : -E2BIG;
	if (bpf_map__update_elem(hcb_probes_skel(probes)->maps.nf_stop, &cons->id, sizeof(cons->id),
				 &l, sizeof(l), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}

int hcb_hcbtap_stop_arm(struct hcb_probes *probes, int on)
{
	uint32_t zero = 0, v = !!on;

	if (bpf_map__update_elem(hcb_probes_skel(probes)->maps.nf_on, &zero, sizeof(zero), &v,
				 sizeof(v), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}
