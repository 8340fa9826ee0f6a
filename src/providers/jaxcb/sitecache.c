/* SPDX-License-Identifier: MIT */
/* sitecache.c - call sites learned once, written for the probe (sitecache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "decode.h"
#include "events.h"
#include "sitecache.h"

/* ctx: the session's probes */
static int learn(void *ctx, const struct hcb_jaxffi_site_key *key,
		 const struct hcb_jaxffi_site *site)
{
	struct bpf_map *map = hcb_probes_skel(ctx)->maps.jaxffi_sites;

	if (bpf_map__update_elem(map, key, sizeof(*key), site, sizeof(*site), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}

/* HCBTRACE_TEST_SITES=stale: a length no std::string has */
static int learn_stale(void *ctx, const struct hcb_jaxffi_site_key *key,
		       const struct hcb_jaxffi_site *site)
{
	struct hcb_jaxffi_site v = *site;

	v.head[1] = ~0ull;
	return learn(ctx, key, &v);
}

void hcb_jaxcb_sitecache_open(struct hcb_jaxffi *dec, struct hcb_probes *probes)
{
	const char *test = getenv("HCBTRACE_TEST_SITES");

	if (test && !strcmp(test, "off"))
		return;
	hcb_jaxffi_site_cache(dec, test && !strcmp(test, "stale") ? learn_stale : learn, probes);
}
