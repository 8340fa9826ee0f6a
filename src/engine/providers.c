/* SPDX-License-Identifier: MIT */
/* providers.c - matching a process against the table of providers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "process/target.h"
#include "providers/provider.h"

/* hcb_providers[] is made by the build (src/providers/meson.build). */

/* Which failure says most about a process no provider could take. */
static int telling(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT: return 4;
	case -EACCES: return 3;
	case -ESRCH: return 2;
	case -ENOENT: return 0;
	default: return 1;
	}
}

int hcb_provider_find(pid_t pid, unsigned int only, struct hcb_target_info *ti)
{
	int best = -ENOENT;

	*ti = (struct hcb_target_info){ .pid = pid };
	if (hcb_target_exists(pid))
		return -ESRCH;
	if (hcb_target_comm(pid, ti->comm, sizeof(ti->comm)) || !ti->comm[0])
		snprintf(ti->comm, sizeof(ti->comm), "?");
	for (size_t i = 0; hcb_providers[i]; i++) {
		const struct hcb_provider *p = hcb_providers[i];
		struct hcb_target_info t = { .pid = pid, .provider = p };
		int err;

		if (only && !(only >> i & 1))
			continue;
		err = p->find(pid, &t);
		if (err == -ESRCH)
			return err;
		if (err && telling(err) <= telling(best))
			continue;
		best = err;
		memcpy(t.comm, ti->comm, sizeof(t.comm));
		*ti = t;
		if (!err)
			break;
	}
	/* probed, the process would be read too (its counters, registry,
	 * Python objects, identity): where that is refused, so is it */
	if (!best && hcb_target_memory_readable(pid) == -EPERM)
		best = -EACCES;
	return best;
}

int hcb_provider_issued(struct hcb_target_info *ti, uint64_t *issued)
{
	uint64_t mask[HCB_MAX_DEVICES / 64];
	int err;

	if (!ti->provider || !(ti->provider->flags & HCB_PROV_ISSUED))
		return -EOPNOTSUPP;
	/* its declaration first: the counters, checked, and the platform into ti */
	err = ti->provider->describe(ti, mask, NULL);
	return err ? err : ti->provider->issued(ti, issued);
}

unsigned int hcb_provider_mask(unsigned int flags)
{
	unsigned int mask = 0;

	for (size_t i = 0; hcb_providers[i]; i++)
		if ((hcb_providers[i]->flags & flags) == flags)
			mask |= 1u << i;
	return mask;
}

int hcb_provider_index(const char *name)
{
	for (size_t i = 0; hcb_providers[i]; i++)
		if (!strcmp(hcb_providers[i]->name, name))
			return (int)i;
	return -ENOENT;
}

static int any_library(const char *path)
{
	for (size_t i = 0; hcb_providers[i]; i++)
		if (hcb_providers[i]->is_library(path))
			return 1;
	return 0;
}

static int maps_any(pid_t pid, void *ctx)
{
	char path[4096];
	uint64_t base;

	(void)ctx;
	return hcb_target_find_mapping(pid, any_library, path, sizeof(path), &base) == 0;
}

int hcb_provider_list(pid_t **pids, size_t *n)
{
	return hcb_target_list_matching(maps_any, NULL, pids, n);
}
