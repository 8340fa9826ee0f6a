/* SPDX-License-Identifier: MIT */
/*
 * cache.h - a bounded cache of items by key, each with the bytes kept
 * beside it: within a number of entries (sets of four, the least recently
 * used one going) and of bytes (the least recently used bytes going, their
 * items staying).  The items are the caller's, of one size, opaque here;
 * an item may carry a note instead of bytes (why it has none).
 *
 * The viewer keeps what it read back of a recording browsed in place here
 * (tui/model_read.c): the rows of many taps, the payloads of a few.
 */
#ifndef HCB_TUI_CACHE_H
#define HCB_TUI_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define TUI_CACHE_ENTRIES 8192u           /* items: rows, about 1 MiB */
#define TUI_CACHE_BYTES (64ull << 20)     /* bytes kept: payloads */

struct tui_cache;

/* Items of item_size bytes; entries/bytes 0: the defaults.  NULL: no memory. */
struct tui_cache *tui_cache_new(size_t entries, uint64_t bytes, size_t item_size);
void tui_cache_free(struct tui_cache *c);

/* The item of key, or NULL; found, it becomes the most recently used. */
void *tui_cache_find(struct tui_cache *c, uint64_t key);
/* The item for key: its own as it is, or else a new one, zeroed, in place of
 * its set's least recently used (whose bytes and note go with it). */
void *tui_cache_put(struct tui_cache *c, uint64_t key);

/* Keep a copy of len bytes at p with item (unless it has bytes already),
 * letting the least recently used others' go to stay within the bytes;
 * more than all of them are not kept.  Returns the item's bytes, or NULL. */
const unsigned char *tui_cache_keep(struct tui_cache *c, void *item, const void *p, size_t len);
/* The bytes kept with item, or NULL. */
const unsigned char *tui_cache_bytes(const struct tui_cache *c, const void *item);

/* A copy of text as item's note: 0 or -ENOMEM.  Its note, or NULL. */
int tui_cache_set_note(struct tui_cache *c, void *item, const char *text);
const char *tui_cache_note(const struct tui_cache *c, const void *item);

#endif
