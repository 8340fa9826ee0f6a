/* SPDX-License-Identifier: MIT */
/*
 * pytext.h - where the traced process's CPython concatenates strings, and
 * how its str objects are laid out: what bpf/pycall.bpf.c's text probe
 * needs to take jax.debug.print's line whole (PyUnicode_Concat on 3.11+,
 * PyUnicode_Append on 3.10, in the libpython mapped, else the python
 * executable).  The str offsets are pyver.h's table's: a claim the probe
 * proves on each string it reads (type, state, the NUL after).
 */
#ifndef HCB_PYTEXT_H
#define HCB_PYTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "pyver.h"

struct hcb_pytext_target {
	uint64_t concat_off;        /* file offset of the probed function in v->path */
	int append;                 /* 1: it is PyUnicode_Append (3.10) */
	uint64_t str_type;          /* &PyUnicode_Type in the process */
};

/*
 * What the text probe needs in the process whose Python is v (found and
 * checked by hcb_pyver_open; its str layout is that table's).  0, or
 * -ENODATA (the function or PyUnicode_Type not found: why says which),
 * -errno.
 */
int hcb_pytext_find(const struct hcb_pyver *v, struct hcb_pytext_target *t, char *why,
		    size_t cap);

#endif
