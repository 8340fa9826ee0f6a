/* SPDX-License-Identifier: MIT */
/*
 * streamkey.c - stream keys and their table (streamkey.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "streamkey.h"

const char *hcb_skey_name(const struct hcb_consumer *c)
{
	return c->name && c->name[0] ? c->name : NULL;
}

/* FNV-1a over the device and the name, or the id marked as one */
static uint64_t key_hash(uint32_t device, const char *name, uint32_t id)
{
	uint64_t h = 1469598103934665603ull;

	h = (h ^ device) * 1099511628211ull;
	if (name)
		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			h = (h ^ *p) * 1099511628211ull;
	else
		h = ((h ^ 0xff) ^ ((uint64_t)id << 8)) * 1099511628211ull;
	return h;
}

int hcb_skeys_init(struct hcb_skeys *t)
{
	t->n = 0;
	t->b = calloc(64, sizeof(*t->b));
	t->nb = t->b ? 64 : 0;
	return t->b ? 0 : -ENOMEM;
}

void hcb_skeys_release(struct hcb_skeys *t)
{
	free(t->b);
	t->b = NULL;
	t->nb = t->n = 0;
}

struct hcb_skey *hcb_skeys_find(const struct hcb_skeys *t, uint32_t device, const char *name,
				uint32_t id)
{
	uint64_t h = key_hash(device, name, id);

	for (struct hcb_skey *k = t->b[h & (t->nb - 1)]; k; k = k->hnext) {
		if (k->hash != h || k->device != device || !k->name != !name)
			continue;
		if (name ? !strcmp(k->name, name) : k->consumer_id == id)
			return k;
	}
	return NULL;
}

/* Twice the buckets, once there are as many keys as buckets. */
static int grow(struct hcb_skeys *t)
{
	size_t n = t->nb * 2;
	struct hcb_skey **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < t->nb; i++) {
		while (t->b[i]) {
			struct hcb_skey *k = t->b[i];

			t->b[i] = k->hnext;
			k->hnext = b[k->hash & (n - 1)];
			b[k->hash & (n - 1)] = k;
		}
	}
	free(t->b);
	t->b = b;
	t->nb = n;
	return 0;
}

int hcb_skeys_add(struct hcb_skeys *t, struct hcb_skey *k, uint32_t device, const char *name,
		  uint32_t id)
{
	if (t->n >= t->nb && grow(t))
		return -ENOMEM;
	k->name = NULL;
	if (name && !(k->name = strdup(name)))
		return -ENOMEM;
	k->hash = key_hash(device, name, id);
	k->device = device;
	k->consumer_id = id;
	k->hnext = t->b[k->hash & (t->nb - 1)];
	t->b[k->hash & (t->nb - 1)] = k;
	t->n++;
	return 0;
}

struct hcb_skey *hcb_skeys_take(struct hcb_skeys *t)
{
	for (size_t i = 0; i < t->nb && t->n; i++)
		if (t->b[i]) {
			struct hcb_skey *k = t->b[i];

			t->b[i] = k->hnext;
			t->n--;
			return k;
		}
	return NULL;
}

int hcb_skey_cmp(const struct hcb_skey *a, const struct hcb_skey *b)
{
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (!a->name != !b->name)
		return a->name ? -1 : 1;   /* named first */
	if (a->name)
		return strcmp(a->name, b->name);
	return a->consumer_id < b->consumer_id ? -1 : a->consumer_id > b->consumer_id;
}
