/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "grow.h"
#include "registry.h"

/* Consumers are few (tap sites of a program); a sorted id index would be
 * premature.  An open-addressed table keeps lookups O(1) on the hot path. */
struct hcb_registry {
	struct hcb_consumer **order;   /* registration order */
	unsigned int n;
	size_t cap;
	struct hcb_consumer **slots;   /* hash by id */
	unsigned int nslots;
};

struct hcb_registry *hcb_registry_new(void)
{
	return calloc(1, sizeof(struct hcb_registry));
}

void hcb_registry_free(struct hcb_registry *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->n; i++)
		hcb_consumer_free(r->order[i]);
	free(r->order);
	free(r->slots);
	free(r);
}

static void slot_put(struct hcb_consumer **slots, unsigned int nslots, struct hcb_consumer *c)
{
	unsigned int i = c->id & (nslots - 1);

	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = c;
}

const struct hcb_consumer *hcb_registry_get(const struct hcb_registry *r, uint32_t id)
{
	if (!r->nslots)
		return NULL;
	for (unsigned int i = id & (r->nslots - 1);; i = (i + 1) & (r->nslots - 1)) {
		if (!r->slots[i])
			return NULL;
		if (r->slots[i]->id == id)
			return r->slots[i];
	}
}

int hcb_registry_add(struct hcb_registry *r, struct hcb_consumer *c)
{
	if (hcb_registry_get(r, c->id)) {
		hcb_consumer_free(c);
		return -EEXIST;
	}
	if (hcb_grow(&r->order, &r->cap, (size_t)r->n + 1, sizeof(*r->order))) {
		hcb_consumer_free(c);
		return -ENOMEM;
	}
	if ((r->n + 1) * 2 > r->nslots) {
		unsigned int nslots = r->nslots ? r->nslots * 2 : 32;
		struct hcb_consumer **slots = calloc(nslots, sizeof(*slots));

		if (!slots) {
			hcb_consumer_free(c);
			return -ENOMEM;
		}
		for (unsigned int i = 0; i < r->n; i++)
			slot_put(slots, nslots, r->order[i]);
		free(r->slots);
		r->slots = slots;
		r->nslots = nslots;
	}
	r->order[r->n++] = c;
	slot_put(r->slots, r->nslots, c);
	return 0;
}

unsigned int hcb_registry_count(const struct hcb_registry *r)
{
	return r->n;
}

const struct hcb_consumer *hcb_registry_at(const struct hcb_registry *r, unsigned int i)
{
	return i < r->n ? r->order[i] : NULL;
}
