/* SPDX-License-Identifier: MIT */
/*
 * pyobj.h - CPython objects read from outside the traced process, each
 * read bounded and each object checked before a field of it is trusted.
 *
 * The process is not paused and not trusted: an address may be stale, a
 * table (pyver.h) may not be the process's.  So every object is read only
 * after its type is: its ob_type's tp_name must be the name expected, and
 * the builtin types (str, tuple, cell, function, code) must be static types
 * (no class a program defines can pass as one).  Sizes are bounded (a tuple
 * of at most HCB_PYOBJ_MAX_ITEMS, a str of at most the caller's room), a str
 * must be compact with a kind its characters agree with.  Anything that
 * does not check out is -EPROTO; a read the kernel refuses is -EFAULT (or
 * -ESRCH once the process is gone).
 */
#ifndef HCB_PYOBJ_H
#define HCB_PYOBJ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pyver.h"

#define HCB_PYOBJ_MAX_ITEMS 16u   /* a closure or partial's args read, at most */
#define HCB_PYOBJ_TYPES 32u       /* types whose names are remembered */

struct hcb_pyreader {
	pid_t pid;
	const struct hcb_pyoffsets *o;
	struct { uint64_t addr; char name[40]; } types[HCB_PYOBJ_TYPES];
	unsigned int ntypes;
	unsigned long reads;     /* process_vm_readv calls made: what a walk costs */
};

void hcb_pyreader_init(struct hcb_pyreader *r, pid_t pid, const struct hcb_pyoffsets *o);

/* len bytes at addr (a user-space address) */
int hcb_pyobj_read(struct hcb_pyreader *r, uint64_t addr, void *buf, size_t len);
/* The name of addr's type (tp_name, at most 39 bytes), into name[40];
 * "!name" for a heap type (a class); -EPROTO: addr is no object's. */
int hcb_pyobj_type(struct hcb_pyreader *r, uint64_t addr, char name[40]);
/* 0 if addr's type is named type (a builtin one: a static type), else -EPROTO. */
int hcb_pyobj_is(struct hcb_pyreader *r, uint64_t addr, const char *type);
/* The str at addr as UTF-8, NUL-terminated in out[cap]: its length in
 * bytes; -E2BIG where it does not fit, -EPROTO for what is no compact str
 * (or holds a NUL or a lone surrogate). */
long hcb_pyobj_str(struct hcb_pyreader *r, uint64_t addr, char *out, size_t cap);
/* The items of the tuple at addr, at most max: their number, else -EPROTO. */
int hcb_pyobj_tuple(struct hcb_pyreader *r, uint64_t addr, uint64_t *items, unsigned int max);
/* What the cell at addr holds (0: empty). */
int hcb_pyobj_cell(struct hcb_pyreader *r, uint64_t addr, uint64_t *ref);

struct hcb_pyfunc {
	uint64_t qualname, code, closure;   /* closure 0: none */
};
int hcb_pyobj_func(struct hcb_pyreader *r, uint64_t addr, struct hcb_pyfunc *f);

struct hcb_pycode {
	uint64_t filename, name;
	int firstlineno;
};
int hcb_pyobj_code(struct hcb_pyreader *r, uint64_t addr, struct hcb_pycode *c);

/* A functools.partial's function and its positional args' tuple. */
int hcb_pyobj_partial(struct hcb_pyreader *r, uint64_t addr, uint64_t *fn, uint64_t *args);
/*
 * The object an instance of a class with __slots__ keeps in slot name:
 * the slot's offset from its type's tp_members (a PyMemberDef of an object
 * slot, inside tp_basicsize), then the word there.
 */
int hcb_pyobj_slot(struct hcb_pyreader *r, uint64_t addr, const char *name, uint64_t *val);

#endif
