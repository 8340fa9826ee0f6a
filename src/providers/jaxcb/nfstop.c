/* SPDX-License-Identifier: MIT */
/* nfstop.c - the jax-callback FFI probe's own NaN check (nfstop.h). */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "events.h"
#include "nfstop.h"

_Static_assert(HCB_JAXFFI_NF_DEVICES == HCB_DEVSET_MAX, "the probe holds a set whole");

/* The probe's setting: on (1), off (0), or as it was (on < 0); its devices
 * (the set, or as they were if NULL).  -ENOENT: no device set. */
static int set(struct hcb_probes *probes, int on, const struct hcb_devset *devices)
{
	struct bpf_map *map = hcb_probes_skel(probes)->maps.jaxffi_nf;
	struct hcb_jaxffi_nf v;
	uint32_t zero = 0;

	if (bpf_map__lookup_elem(map, &zero, sizeof(zero), &v, sizeof(v), 0))
		return errno ? -errno : -EIO;
	if (devices) {
		v.all = !!devices->all;
		v.n = devices->n < HCB_JAXFFI_NF_DEVICES ? devices->n : HCB_JAXFFI_NF_DEVICES;
		memcpy(v.ids, devices->ids, v.n * sizeof(v.ids[0]));
	}
	if (!v.all && !v.n)
		return -ENOENT;
	if (on >= 0)
		v.on = (uint32_t)on;
	if (bpf_map__update_elem(map, &zero, sizeof(zero), &v, sizeof(v), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}

int hcb_jaxcb_stop_nonfinite(struct hcb_probes *probes, const struct hcb_devset *devices)
{
	return set(probes, -1, devices);
}

int hcb_jaxcb_stop_arm(struct hcb_probes *probes, int on)
{
	return set(probes, !!on, NULL);
}
