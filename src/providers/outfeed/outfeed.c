/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "bpf/uprobe.h"
#include "bpf/usdt.h"
#include "process/target.h"
#include "decode.h"
#include "outfeed.h"

/* jaxlib versions whose CPU runtime calls the outfeed entry point per leaf,
 * and where their ExecutableRunOptions keeps the device ordinal (read off
 * the disassembly of ExecutableRunOptions::device_ordinal()).  jaxlib
 * 0.4.34's thunk runtime no longer calls the entry point. */
static const struct { const char *version; unsigned int device_offset; } versions[] = {
	{ "0.4.31", 8 },
};

#define SUPPORTED "0.4.31"

/* A packet ends with its device's next header, or when the device has been
 * quiet this long: host_callback sends a packet's leaves back to back. */
#define QUIET_NS 20000000ull

/* For the refusal's "supported jaxlib versions: ...": what this provider
 * reads, and where JAX's own callbacks are read instead. */
static const char *supported(void)
{
	return SUPPORTED " (host_callback's outfeed); JAX's callbacks (jax.debug.print and its "
	       "kin): 0.4.26 and later";
}

static unsigned int device_offset(const char *version)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (!strcmp(version, versions[i].version))
			return versions[i].device_offset;
	return 0;
}

/* jaxlib's native library: .../jaxlib/xla_extension.so */
static int is_xla_extension(const char *path)
{
	size_t n = strlen(path);

	return n >= 24 && strcmp(path + n - 24, "/jaxlib/xla_extension.so") == 0;
}

static int find(pid_t pid, struct hcb_target_info *ti)
{
	int err = hcb_target_find_mapping(pid, is_xla_extension, ti->path, sizeof(ti->path), &ti->base);

	if (err)
		return err;
	hcb_target_version_py(ti->path, ti->version, sizeof(ti->version));
	/* jaxlib 0.4.31 names CPU devices so: str(device) is TFRT_CPU_0 */
	snprintf(ti->platform, sizeof(ti->platform), "TFRT_CPU_%%u");
	return device_offset(ti->version) ? 0 : -EPROTONOSUPPORT;
}

static int open_outfeed(void **state, struct hcb_probes *probes, struct hcb_target_info *ti,
			const struct hcb_decoder_ops *ops, void *ctx)
{
	struct hcb_capture_bpf *skel = hcb_probes_skel(probes);
	struct hcb_uprobe u = { 0 };
	struct hcb_outfeed *x;
	uint64_t addr;
	int err;

	err = hcb_outfeed_new(&x, ops, ctx);
	if (err)
		return err;
	skel->data->xla_device_offset = device_offset(ti->version);
	err = hcb_target_symbol_offset(ti->path, HCB_XLA_OUTFEED_SYMBOL, &addr);
	if (!err)
		err = hcb_elf_file_offset(ti->path, addr, &u.off);
	if (!err)
		err = hcb_uprobe_attach(probes, skel->progs.xla_outfeed_leaf, ti->pid, ti->path, &u);
	if (err) {
		hcb_outfeed_free(x);
		return err;
	}
	*state = x;
	return 0;
}

static int feed(void *state, const void *rec, size_t len)
{
	return hcb_outfeed_feed(state, rec, len);
}

static int tick(void *state, uint64_t now_ns)
{
	return hcb_outfeed_flush_idle(state, now_ns, QUIET_NS);
}

static unsigned int pending(const void *state)
{
	(void)state;
	return 0;   /* a leaf's chunks come with it: nothing is in flight after a drain */
}

static int finish(void *state)
{
	return hcb_outfeed_finish(state);
}

static const struct hcb_stream_stats *stats(const void *state, uint32_t device)
{
	return hcb_outfeed_stats(state, device);
}

static struct hcb_registry *registry(void *state)
{
	return hcb_outfeed_registry(state);
}

static void close_outfeed(void *state)
{
	hcb_outfeed_free(state);
}

static const char *const programs[] = { "xla_outfeed_leaf", NULL };
/* a leaf's bytes may be in pages not in memory */
static const char *const sleepable[] = { "xla_outfeed_leaf", NULL };

const struct hcb_provider hcb_prov_outfeed = {
	.name = "xla-outfeed",
	.flags = HCB_PROV_ON_MAP | HCB_PROV_DEVIDS,
	.supported = supported,
	.programs = programs,
	.sleepable = sleepable,
	.is_library = is_xla_extension,
	.find = find,
	.open = open_outfeed,
	.feed = feed,
	.tick = tick,
	.pending = pending,
	.finish = finish,
	.stats = stats,
	.registry = registry,
	.close = close_outfeed,
};
