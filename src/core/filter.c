/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

int hcb_devset_add(struct hcb_devset *s, uint32_t id)
{
	if (hcb_devset_has(s, id))
		return 0;
	if (s->n >= HCB_DEVSET_MAX)
		return -E2BIG;
	s->ids[s->n++] = id;
	return 0;
}

int hcb_devset_has(const struct hcb_devset *s, uint32_t id)
{
	if (s->all)
		return 1;
	for (unsigned int i = 0; i < s->n && i < HCB_DEVSET_MAX; i++)
		if (s->ids[i] == id)
			return 1;
	return 0;
}

int hcb_filter_add_device(struct hcb_filter *f, uint64_t d)
{
	int err;

	if (d > UINT32_MAX)
		return -EINVAL;
	err = hcb_devset_add(&f->devices, (uint32_t)d);
	if (!err)
		f->device_filter = 1;
	return err;
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
	return !f->device_filter || hcb_devset_has(&f->devices, d);
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
