/* SPDX-License-Identifier: MIT */
/* nfstop.c - the jax-callback FFI probe's own NaN check (nfstop.h). */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "events.h"
#include "nfstop.h"

/* The probe's setting: on (1), off (0), or as it was (on < 0); its devices
 * (device_mask, or as they were if NULL).  -ENOENT: no device set. */
static int set(struct hcb_probes *probes, int on, const uint64_t *device_mask)
{
	struct bpf_map *map = hcb_probes_skel(probes)->maps.jaxffi_nf;
	struct hcb_jaxffi_nf v;
	uint32_t zero = 0;
	int any = 0;

	if (bpf_map__lookup_elem(map, &zero, sizeof(zero), &v, sizeof(v), 0))
		return errno ? -errno : -EIO;
	if (device_mask)
		memcpy(v.device_mask, device_mask, sizeof(v.device_mask));
	for (unsigned int i = 0; i < HCB_MAX_DEVICES / 64; i++)
		any |= v.device_mask[i] != 0;
	if (!any)
		return -ENOENT;
	if (on >= 0)
		v.on = (uint32_t)on;
	if (bpf_map__update_elem(map, &zero, sizeof(zero), &v, sizeof(v), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}

int hcb_jaxcb_stop_nonfinite(struct hcb_probes *probes, const uint64_t *device_mask)
{
	return set(probes, -1, device_mask);
}

int hcb_jaxcb_stop_arm(struct hcb_probes *probes, int on)
{
	return set(probes, !!on, NULL);
}
