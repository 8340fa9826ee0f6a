/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"

#define WAYS 4u

struct entry {
	int used;
	uint64_t key, stamp;            /* stamp: when last used */
	unsigned char *bytes;           /* NULL: none kept */
	size_t len;
	char *note;
};

struct tui_cache {
	struct entry *e;
	unsigned char *items;           /* item_size each, entry k's at k */
	size_t nsets, item_size;
	uint64_t clock, bytes, max_bytes;
};

struct tui_cache *tui_cache_new(size_t entries, uint64_t bytes, size_t item_size)
{
	struct tui_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nsets = (entries ? entries : TUI_CACHE_ENTRIES) / WAYS;
	if (!c->nsets)
		c->nsets = 1;
	c->max_bytes = bytes ? bytes : TUI_CACHE_BYTES;
	c->item_size = item_size ? item_size : 1;
	c->e = calloc(c->nsets * WAYS, sizeof(*c->e));
	c->items = calloc(c->nsets * WAYS, c->item_size);
	if (!c->e || !c->items) {
		free(c->e);
		free(c->items);
		free(c);
		return NULL;
	}
	return c;
}

void tui_cache_free(struct tui_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsets * WAYS; i++) {
		free(c->e[i].bytes);
		free(c->e[i].note);
	}
	free(c->e);
	free(c->items);
	free(c);
}

static void *item_of(const struct tui_cache *c, const struct entry *e)
{
	return c->items + (size_t)(e - c->e) * c->item_size;
}

static struct entry *entry_of(const struct tui_cache *c, const void *item)
{
	return &c->e[(size_t)((const unsigned char *)item - c->items) / c->item_size];
}

void *tui_cache_find(struct tui_cache *c, uint64_t key)
{
	struct entry *set = &c->e[(key % c->nsets) * WAYS];

	for (unsigned int w = 0; w < WAYS; w++) {
		if (set[w].used && set[w].key == key) {
			set[w].stamp = ++c->clock;
			return item_of(c, &set[w]);
		}
	}
	return NULL;
}

static void drop_bytes(struct tui_cache *c, struct entry *e)
{
	c->bytes -= e->len;
	free(e->bytes);
	e->bytes = NULL;
	e->len = 0;
}

void *tui_cache_put(struct tui_cache *c, uint64_t key)
{
	struct entry *set = &c->e[(key % c->nsets) * WAYS], *v = &set[0];

	for (unsigned int w = 0; w < WAYS; w++) {
		if (set[w].used && set[w].key == key)
			return item_of(c, &set[w]);
		if (!set[w].used || (v->used && set[w].stamp < v->stamp))
			v = &set[w];
	}
	drop_bytes(c, v);
	free(v->note);
	memset(v, 0, sizeof(*v));
	memset(item_of(c, v), 0, c->item_size);
	v->used = 1;
	v->key = key;
	v->stamp = ++c->clock;
	return item_of(c, v);
}

const unsigned char *tui_cache_keep(struct tui_cache *c, void *item, const void *p, size_t len)
{
	struct entry *e = entry_of(c, item);

	if (e->bytes || len > c->max_bytes)
		return e->bytes;
	while (c->bytes + len > c->max_bytes) {
		struct entry *old = NULL;

		for (size_t k = 0; k < c->nsets * WAYS; k++)
			if (c->e[k].bytes && &c->e[k] != e && (!old || c->e[k].stamp < old->stamp))
				old = &c->e[k];
		if (!old)
			return NULL;
		drop_bytes(c, old);
	}
	e->bytes = malloc(len ? len : 1);
	if (!e->bytes)
		return NULL;
	memcpy(e->bytes, p, len);
	e->len = len;
	c->bytes += len;
	return e->bytes;
}

const unsigned char *tui_cache_bytes(const struct tui_cache *c, const void *item)
{
	return entry_of(c, item)->bytes;
}

int tui_cache_set_note(struct tui_cache *c, void *item, const char *text)
{
	struct entry *e = entry_of(c, item);
	char *copy = strdup(text);

	if (!copy)
		return -ENOMEM;
	free(e->note);
	e->note = copy;
	return 0;
}

const char *tui_cache_note(const struct tui_cache *c, const void *item)
{
	return entry_of(c, item)->note;
}
