/* SPDX-License-Identifier: MIT */
/*
 * cache.h - the taps of a recording browsed in place (tui/model.h,
 * indexed), as they are read back: what their list rows show, for many,
 * and the payloads of the few the detail pane shows, within a number of
 * entries (sets of four, the least recently used one going) and of payload
 * bytes.  tui_model_get() and tui_model_row() (cache.c) read through it; the
 * held taps of a live session need none.
 */
#ifndef HCB_TUI_CACHE_H
#define HCB_TUI_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define TUI_CACHE_ENTRIES 8192u           /* rows: about 1 MiB */
#define TUI_CACHE_BYTES (64ull << 20)     /* payloads */

struct tui_cache;

/* entries/bytes 0: the defaults.  NULL: no memory. */
struct tui_cache *tui_cache_new(size_t entries, uint64_t bytes);
void tui_cache_free(struct tui_cache *c);
/* Reads back so far (a test's count of the work done). */
uint64_t tui_cache_reads(const struct tui_cache *c);

#endif
