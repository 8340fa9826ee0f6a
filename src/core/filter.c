/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

int hcb_filter_add_device(struct hcb_filter *f, uint64_t d)
{
	if (d >= HCB_MAX_DEVICES)
		return -EINVAL;
	f->devices[d / 64] |= 1ull << (d % 64);
	f->device_filter = 1;
	return 0;
}

int hcb_filter_add_consumer(struct hcb_filter *f, const char *want)
{
	if (!*want)
		return -EINVAL;
	if (f->nconsumers == HCB_FILTER_MAX_CONSUMERS)
		return -E2BIG;
	f->consumers[f->nconsumers++] = want;
	return 0;
}

int hcb_filter_device(const struct hcb_filter *f, uint32_t d)
{
	return !f->device_filter ||
	       (d < HCB_MAX_DEVICES && (f->devices[d / 64] >> (d % 64) & 1));
}

int hcb_filter_names(const char *want, const struct hcb_consumer *c)
{
	char *end;
	unsigned long long id = strtoull(want, &end, 0);

	return !strcmp(want, c->name) || (*want && !*end && id == c->id);
}

int hcb_filter_match(const struct hcb_filter *f, uint32_t device, const struct hcb_consumer *c)
{
	if (!hcb_filter_device(f, device))
		return 0;
	if (!f->nconsumers)
		return 1;
	for (unsigned int i = 0; i < f->nconsumers; i++)
		if (hcb_filter_names(f->consumers[i], c))
			return 1;
	return 0;
}
