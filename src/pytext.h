/* SPDX-License-Identifier: MIT */
/*
 * pytext.h - where the traced process's CPython concatenates strings, and
 * how its str objects are laid out: what bpf/pycall.bpf.c's text probe
 * needs to take jax.debug.print's line whole (PyUnicode_Concat on 3.11+,
 * PyUnicode_Append on 3.10, in the libpython mapped, else the python
 * executable).  Versions 3.10 .. 3.13 with the GIL; others, free-threaded
 * builds included, are not read (-ENOTSUP).  The offsets are a claim the
 * probe proves on each string it reads (type, state, the NUL after).
 */
#ifndef HCB_PYTEXT_H
#define HCB_PYTEXT_H

#include <stdint.h>
#include <sys/types.h>

struct hcb_pytext_target {
	char path[4096];            /* libpython, or the python executable */
	unsigned int minor;         /* 3.minor */
	uint64_t concat_off;        /* file offset of the probed function */
	int append;                 /* 1: it is PyUnicode_Append (3.10) */
	uint64_t str_type;          /* &PyUnicode_Type in the process */
	/* PyASCIIObject's length and state; the characters of a compact
	 * ASCII str and of a compact other one */
	uint32_t length_off, state_off, ascii_data, compact_data;
};

/*
 * Find pid's Python and what the text probe needs.  0, or -ENOENT (no
 * Python mapped), -ENOTSUP (a version or build not read: why says which),
 * -ENODATA (the functions or PyUnicode_Type not found), -errno.
 */
int hcb_pytext_find(pid_t pid, struct hcb_pytext_target *t, char *why, size_t cap);

#endif
