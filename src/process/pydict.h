/* SPDX-License-Identifier: MIT */
/*
 * pydict.h - CPython's dicts, instances' attributes and ints read from
 * outside (pyobj.h's rules: each object's type checked before a field of
 * it is trusted, every size bounded).
 *
 * A dict's keys table is checked as CPython builds one before an entry of
 * it is read: its size a power of two, its index bytes what that size
 * takes, its entries no more than the size allows, its kind one there is;
 * a key is compared only once it is a str (hcb_pyobj_str).  The layouts:
 * 3.10's PyDictKeysObject (dk_size, 24-byte entries), 3.11's on (log2
 * sizes, a kind, 16-byte entries for str keys); an instance's attributes
 * through tp_dictoffset (3.10), the values before the object or its dict
 * (3.11), a tagged word before it (3.12), values inline after it (3.13).
 */
#ifndef HCB_PYDICT_H
#define HCB_PYDICT_H

#include <stdint.h>

#include "pyobj.h"

/* A dict's entries read, at most: past it a dict is not read (-E2BIG). */
#define HCB_PYDICT_MAX_ENTRIES (1u << 17)

/* The value of the str key name in the dict at addr: 0 and *val (an
 * object's address); -ENOENT: no such key; -EPROTO: not a dict as one is
 * laid out; -E2BIG: more entries than are read. */
int hcb_pydict_get(struct hcb_pyreader *r, uint64_t dict, const char *name, uint64_t *val);
/* The values of the str keys names[0..n) (n at most HCB_PYDICT_MAX_NAMES)
 * in one pass over the dict's entries, each key's text read once: vals[i]
 * the object's address, 0 where names[i] is not in it.  0 or -errno, as
 * hcb_pydict_get. */
#define HCB_PYDICT_MAX_NAMES 32u
int hcb_pydict_get_many(struct hcb_pyreader *r, uint64_t dict, const char *const *names,
			unsigned int n, uint64_t *vals);
/* The attribute name of the object at addr, an instance of a class
 * without __slots__ (a heap type): 0 and *val; -ENOENT: not set on the
 * instance (its class's own may stand); -EPROTO. */
int hcb_pyobj_attr(struct hcb_pyreader *r, uint64_t obj, const char *name, uint64_t *val);
/* The int at addr (type int exactly: no bool), from 0 to max (at most 2**64 - 1): 0 and *v;
 * -ERANGE: an int out of that range; -EPROTO: no int. */
int hcb_pyobj_int(struct hcb_pyreader *r, uint64_t addr, uint64_t max, uint64_t *v);
/* The bool at addr: 0 and *v (0 or 1); -EPROTO: no bool. */
int hcb_pyobj_bool(struct hcb_pyreader *r, uint64_t addr, int *v);

#endif
