/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sitecache.bpf.h - call sites learned once, ffi.bpf.c's side: user space
 * (sitecache.c) writes a thunk to jaxffi_sites once it has proven its
 * site, with the heads of its op and module strings as read then; a later
 * call of that thunk reads the two heads again (one read) and, for a name
 * not held inline, its first characters, and, all alike, goes without its
 * names (HCB_JAXFFI_F_KNOWN).  Needs call.bpf.h's copy and offsets.
 */
#ifndef HCB_SITECACHE_BPF_H
#define HCB_SITECACHE_BPF_H

#include "call.bpf.h"
#include "events.h"

/* Call sites learned once (events.h): written by user space
 * (sitecache.c) once it has proven one, read by each call of its thunk. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, HCB_JAXFFI_SITES);
	__type(key, struct hcb_jaxffi_site_key);
	__type(value, struct hcb_jaxffi_site);
} jaxffi_sites SEC(".maps");

/* The heads of the thunk's op and module strings into head (events.h):
 * one read where they are side by side.  0, or -1. */
static __always_inline int read_heads(__u64 thunk, __u64 *head)
{
	if (jaxffi_module_off == jaxffi_op_off + 32)
		return copy_user(head, 64, (void *)(thunk + jaxffi_op_off)) ? -1 : 0;
	if (copy_user(head, 32, (void *)(thunk + jaxffi_op_off)) ||
	    copy_user(head + 4, 32, (void *)(thunk + jaxffi_module_off)))
		return -1;
	return 0;
}

/* A name string whose head says ptr (at inline_at: its characters are in
 * the head, already compared) and len: its first characters, read into
 * prefix (the run's, HCB_JAXFFI_SITE_PREFIX bytes), are kept's (zero past
 * the name).  1 if so. */
static __noinline int same_prefix(__u64 *prefix, __u64 ptr, __u64 len, __u64 inline_at,
				  const __u64 *kept)
{
	__u32 n = len < HCB_JAXFFI_SITE_PREFIX ? (__u32)len : HCB_JAXFFI_SITE_PREFIX;

	if (ptr == inline_at)
		return 1;
	__builtin_memset(prefix, 0, HCB_JAXFFI_SITE_PREFIX);
	barrier_var(n);
	if (n > HCB_JAXFFI_SITE_PREFIX)
		n = HCB_JAXFFI_SITE_PREFIX;
	if (n && copy_user(prefix, n, (void *)ptr))
		return 0;
	for (__u32 i = 0; i < HCB_JAXFFI_SITE_PREFIX / 8; i++)
		if (prefix[i] != kept[i])
			return 0;
	return 1;
}

/* The call's thunk (e->thunk, its heads in e->head) is a site user space
 * proved, and its names read as they did then (prefix: same_prefix's):
 * its index is the one kept, its names are not read again (F_KNOWN).  1
 * if so. */
static __noinline int site_known(__u64 *prefix, struct hcb_ev_jcall *e)
{
	struct hcb_jaxffi_site_key k = { .pid = e->pid, .thunk = e->thunk };
	struct hcb_jaxffi_site *s = bpf_map_lookup_elem(&jaxffi_sites, &k);

	if (!s)
		return 0;
	for (__u32 i = 0; i < HCB_JAXFFI_HEAD_WORDS; i++)
		if (e->head[i] != s->head[i])
			return 0;
	if (!same_prefix(prefix, e->head[0], e->head[1], e->thunk + jaxffi_op_off + 16,
			 (const __u64 *)s->op) ||
	    !same_prefix(prefix, e->head[4], e->head[5], e->thunk + jaxffi_module_off + 16,
			 (const __u64 *)s->module))
		return 0;
	e->index = s->index;
	e->flags |= HCB_JAXFFI_F_KNOWN | (s->has_index ? HCB_JAXFFI_F_INDEX : 0);
	__sync_fetch_and_add(&s->hits, 1);
	return 1;
}

#endif
