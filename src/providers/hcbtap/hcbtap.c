/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "bpf/uprobe.h"
#include "process/target.h"
#include "decode.h"
#include "events.h"
#include "hcbtap.h"
#include "nfstop.h"

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

/* The session's state: the decoder, and the CUPTI injection library when
 * the program runs with it (`run --cuda`). */
struct hcbtap_state {
	struct hcb_hcbtap *dec;
	struct hcb_probes *probes;       /* its programs' (the probe's own NaN check) */
	const struct hcb_decoder_ops *ops;
	void *ctx;
	pid_t pid;
	uint64_t cupti_status;           /* its status's address, 0: not there */
	int cupti_failed;                /* what it last said: FAILED */
	char cupti[4096];
};

static int is_cupti(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, HCB_CUPTI_LIBRARY);
}

/* Where the injection library is, and its probe of each tap's device
 * copy times: a session without it runs as well. */
static void attach_cupti(struct hcbtap_state *st, struct hcb_probes *probes)
{
	uint64_t base, off;

	if (hcb_target_find_mapping(st->pid, is_cupti, st->cupti, sizeof(st->cupti), &base) ||
	    hcb_target_symbol_offset(st->cupti, HCBTAP_CUPTI_STATUS_SYMBOL, &off))
		return;
	if (hcb_usdt_attach(probes, hcb_probes_skel(probes)->progs.hcbtap_copy_times, st->pid,
			    st->cupti, HCB_CUPTI_USDT_PROVIDER, HCB_CUPTI_USDT_COPY) == 0)
		st->cupti_status = base + off;
}

static int open_hcbtap(void **state, struct hcb_probes *probes, struct hcb_target_info *ti,
		       const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_wire_registry root;
	struct hcbtap_state *st = calloc(1, sizeof(*st));
	int err = st ? hcb_hcbtap_new(&st->dec, ops, ctx) : -ENOMEM;

	if (err) {
		free(st);
		return err;
	}
	st->ops = ops;
	st->ctx = ctx;
	st->pid = ti->pid;
	st->probes = probes;
	err = hcb_usdt_attach(probes, hcb_probes_skel(probes)->progs.hcbtap_packet, ti->pid,
			      ti->path, HCB_USDT_PROVIDER, HCB_USDT_PACKET);
	if (err) {
		hcb_hcbtap_free(st->dec);
		free(st);
		return err;
	}
	/* an honest target never has more unfinished than its ring holds */
	hcb_hcbtap_set_budget(st->dec, hcb_probes_ring_size(probes));
	attach_cupti(st, probes);
	/* the platform only names devices; an old or odd registry keeps "cpu" */
	if (hcb_target_read_registry(ti->pid, ti->path, ti->base, &root, NULL) == 0 && root.platform[0])
		snprintf(ti->platform, sizeof(ti->platform), "%s", root.platform);
	if (hcb_target_registry_addr(ti->path, ti->base, &ti->counters))
		ti->counters = 0;
	*state = st;
	return 0;
}

static int feed(void *state, const void *rec, size_t len)
{
	struct hcbtap_state *st = state;
	const struct hcb_ev_copy *e = rec;

	if (len < sizeof(*e) || e->type != HCB_EV_COPY)
		return hcb_hcbtap_feed(st->dec, rec, len);
	if (st->ops->copy_times)
		st->ops->copy_times(st->ctx, e->device, e->seq, e->start_ns, e->end_ns);
	return 0;
}

static unsigned int pending(const void *state)
{
	return hcb_hcbtap_pending(((const struct hcbtap_state *)state)->dec);
}

static int tick(void *state, uint64_t now_ns)
{
	return hcb_hcbtap_tick(((struct hcbtap_state *)state)->dec, now_ns);
}

static int finish(void *state)
{
	return hcb_hcbtap_finish(((struct hcbtap_state *)state)->dec);
}

/* The probe checks a consumer's small packets by their float leaves: one
 * consumer at a time, never all alike. */
static int stop_nonfinite(void *state, const struct hcb_consumer *cons,
			  const struct hcb_devset *devices)
{
	struct hcbtap_state *st = state;

	return cons ? hcb_hcbtap_stop_nonfinite(st->probes, cons, devices) : -EOPNOTSUPP;
}

static int stop_arm(void *state, int on)
{
	return hcb_hcbtap_stop_arm(((struct hcbtap_state *)state)->probes, on);
}

/* Whether the injection library times the taps' device copies: 1, or 0
 * and why not, in its own words. */
static int timing(void *state, char *why, size_t size)
{
	struct hcbtap_state *st = state;
	struct hcbtap_cupti_status s;

	if (!st->cupti_status) {
		snprintf(why, size, "%s is not loaded in the program", HCB_CUPTI_LIBRARY);
		return 0;
	}
	if (hcb_target_read(st->pid, st->cupti_status, &s, sizeof(s)) || s.magic != HCBTAP_CUPTI_MAGIC) {
		/* gone, most likely, perhaps before it was seen to start: its
		 * taps still in the ring may have copy times after them, unless
		 * it said it failed.  What it said last stands as the why. */
		if (!why[0])
			snprintf(why, size, "cannot read the status of %s", st->cupti);
		return !st->cupti_failed;
	}
	s.message[sizeof(s.message) - 1] = '\0';
	st->cupti_failed = s.state == HCBTAP_CUPTI_FAILED;
	if (s.state == HCBTAP_CUPTI_ACTIVE)
		return 1;
	if (st->cupti_failed)
		snprintf(why, size, "CUPTI failed: %s (error %d)", s.message, s.error);
	else
		snprintf(why, size, "the program never started a CUDA device (no GPU?)");
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
	const struct hcb_hcbtap *dec = ((const struct hcbtap_state *)state)->dec;

	/* HCB_MAX_DEVICES: every device out of range, together */
	return device == HCB_MAX_DEVICES ? hcb_hcbtap_stray(dec) : hcb_hcbtap_stats(dec, device);
}

static struct hcb_registry *registry(void *state)
{
	return hcb_hcbtap_registry(((struct hcbtap_state *)state)->dec);
}

static void close_hcbtap(void *state)
{
	struct hcbtap_state *st = state;

	if (st)
		hcb_hcbtap_free(st->dec);
	free(st);
}

static const char *const programs[] = { "hcbtap_packet", "hcbtap_copy_times", NULL };
/* a packet's leaves and registration may be in pages not in memory */
static const char *const sleepable[] = { "hcbtap_packet", NULL };

const struct hcb_provider hcb_prov_hcbtap = {
	.name = "hcbtap",
	.flags = HCB_PROV_ISSUED | HCB_PROV_SEQ,
	.programs = programs,
	.sleepable = sleepable,
	.is_library = is_libhcbtap,
	.find = find,
	.open = open_hcbtap,
	.feed = feed,
	.tick = tick,
	.pending = pending,
	.finish = finish,
	.stop_nonfinite = stop_nonfinite,
	.stop_arm = stop_arm,
	.timing = timing,
	.issued = issued,
	.describe = describe,
	.stats = stats,
	.registry = registry,
	.close = close_hcbtap,
};
