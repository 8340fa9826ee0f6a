/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "capture.skel.h"
#include "probes.h"
#include "prov_hcbtap.h"
#include "target.h"

static int is_libhcbtap(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "libhcbtap.so", 12) == 0;
}

static int find(pid_t pid, struct hcb_target_info *ti)
{
	snprintf(ti->platform, sizeof(ti->platform), "cpu");
	return hcb_target_find_mapping(pid, is_libhcbtap, ti->path, sizeof(ti->path), &ti->base);
}

static int open_hcbtap(void **state, struct hcb_probes *probes, struct hcb_target_info *ti,
		       const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_wire_registry root;
	struct hcb_decoder *dec;
	struct bpf_link *link;
	int err;

	err = hcb_decoder_new(&dec, ops, ctx);
	if (err)
		return err;
	link = bpf_program__attach_usdt(hcb_probes_skel(probes)->progs.hcbtap_packet, ti->pid,
					ti->path, HCB_USDT_PROVIDER, HCB_USDT_PACKET, NULL);
	err = link ? hcb_probes_own(probes, link) : (errno ? -errno : -EINVAL);
	if (err) {
		hcb_decoder_free(dec);
		return err;
	}
	/* the platform only names devices; an old or odd registry keeps "cpu" */
	if (hcb_target_read_registry(ti->pid, ti->path, ti->base, &root, NULL) == 0 && root.platform[0])
		snprintf(ti->platform, sizeof(ti->platform), "%s", root.platform);
	if (hcb_target_registry_addr(ti->path, ti->base, &ti->counters))
		ti->counters = 0;
	*state = dec;
	return 0;
}

static int feed(void *state, const void *rec, size_t len)
{
	return hcb_decoder_feed(state, rec, len);
}

static unsigned int pending(const void *state)
{
	return hcb_decoder_pending(state);
}

static int finish(void *state)
{
	hcb_decoder_finish(state);
	return 0;
}

static int issued(const struct hcb_target_info *ti, uint64_t *out)
{
	uint64_t addr = ti->counters;
	int err = addr ? 0 : hcb_target_registry_addr(ti->path, ti->base, &addr);

	return err ? err : hcb_target_read_issued(ti->pid, addr, out);
}

static int describe(struct hcb_target_info *ti, uint64_t *device_mask, struct hcb_registry *reg)
{
	struct hcb_wire_registry root;
	int err = hcb_target_read_registry(ti->pid, ti->path, ti->base, &root, reg);

	if (err)
		return err;
	if (root.platform[0])
		snprintf(ti->platform, sizeof(ti->platform), "%s", root.platform);
	memset(device_mask, 0, HCB_MAX_DEVICES / 8);
	for (unsigned int d = 0; d < root.ndevices && d < HCB_MAX_DEVICES; d++)
		if (root.device_mask[d / 64] & (1ull << (d % 64)))
			device_mask[d / 64] |= 1ull << (d % 64);
	return 0;
}

static const struct hcb_stream_stats *stats(const void *state, uint32_t device)
{
	return hcb_decoder_stats(state, device);
}

static struct hcb_registry *registry(void *state)
{
	return hcb_decoder_registry(state);
}

static void close_hcbtap(void *state)
{
	hcb_decoder_free(state);
}

static const char *const programs[] = { "hcbtap_packet", NULL };

const struct hcb_provider hcb_prov_hcbtap = {
	.name = "hcbtap",
	.flags = HCB_PROV_ISSUED | HCB_PROV_SEQ,
	.programs = programs,
	.is_library = is_libhcbtap,
	.find = find,
	.open = open_hcbtap,
	.feed = feed,
	.pending = pending,
	.finish = finish,
	.issued = issued,
	.describe = describe,
	.stats = stats,
	.registry = registry,
	.close = close_hcbtap,
};
