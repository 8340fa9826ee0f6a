/* SPDX-License-Identifier: MIT */
/*
 * pyver.h - the traced process's Python, from its own binary, and where
 * CPython keeps the fields hcbtrace reads in that version's objects.
 *
 * The version comes from the libpython (or the python executable, for a
 * static build such as Debian's) mapped in /proc/PID/maps: the file's name
 * gives major.minor and free-threading ("t"), and on 3.11+ its exported
 * Py_Version (PY_VERSION_HEX) must say the same.  Only 3.10 .. 3.13 with the
 * GIL are known: free-threaded builds (another object head) and 3.14+
 * (other function, code and str layouts) are refused, -ENOTSUP, until
 * checked.
 *
 * The offsets (x86-64, 64-bit pointers, release builds) were taken from each
 * version's headers (Include/cpython/funcobject.h, code.h, unicodeobject.h,
 * cellobject.h, tupleobject.h, object.h, descrobject.h) and
 * Modules/_functoolsmodule.c (partialobject, not in any header); those of
 * the interpreter, dict, module and int from the internal headers
 * (pycore_runtime.h, pycore_interp.h, pycore_dict.h, pycore_moduleobject.h;
 * 3.10's dict-common.h and moduleobject.c).  They are
 * a claim, not a proof: every object read with them is still checked (its
 * type's tp_name, bounds) by the reader, and on 3.13 the ones CPython
 * publishes in _PyRuntime's _Py_DebugOffsets are compared on the running
 * process (hcb_pyver_check_debug).
 */
#ifndef HCB_PYVER_H
#define HCB_PYVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pystr_state.h"

/* Where one CPython minor version keeps what is read, in bytes from the
 * object's start (0: the version has no such field). */
struct hcb_pyoffsets {
	unsigned int minor;            /* 3.minor */
	/* PyObject / PyVarObject */
	uint16_t ob_type, ob_size;
	/* PyTypeObject */
	uint16_t tp_name, tp_basicsize, tp_flags, tp_members, tp_dictoffset;
	/* str (PyASCIIObject, PyCompactUnicodeObject) */
	uint16_t str_length, str_state;
	uint16_t str_ascii_data;       /* data of a compact ASCII str: sizeof(PyASCIIObject) */
	uint16_t str_compact_data;     /* of a compact non-ASCII one: sizeof(PyCompactUnicodeObject) */
	/* tuple, cell */
	uint16_t tuple_items, cell_ref;
	/* function (PyFunctionObject) */
	uint16_t func_globals, func_name, func_qualname, func_code, func_closure, func_module;
	/* code (PyCodeObject): firstlineno is an int */
	uint16_t code_firstlineno, code_filename, code_name, code_qualname;
	/* functools.partial */
	uint16_t partial_fn, partial_args, partial_kw;
	/* PyMemberDef (a __slots__ entry in tp_members): name, type (an int),
	 * offset; its size */
	uint16_t member_name, member_type, member_offset, member_size;
	/* an instance's dict: through tp_dictoffset (3.10), else CPython keeps
	 * it managed, before the object (3.11+: pydict.c reads it) */
	uint8_t managed_dict;
	/* the interpreter (pydist.h): _PyRuntime's main interpreter, and its
	 * modules (sys.modules) in it */
	uint16_t runtime_main, interp_modules;
	/* dict (PyDictObject): ma_used, ma_keys, ma_values; a split table's
	 * values start values_at bytes into its PyDictValues (3.13: past a
	 * head of four bytes and padding) */
	uint16_t dict_used, dict_keys, dict_values;
	uint8_t dict_values_at;
	/* a module's md_dict; a heap type's shared keys (ht_cached_keys) */
	uint16_t module_dict, ht_cached_keys;
	/* int: its size word (ob_size, signed digits; 3.12+: lv_tag, digits
	 * << 3 and a sign in its low bits) and its 30-bit digits */
	uint16_t long_size, long_digits;
	uint8_t long_tagged;
};

/* The str state word's bits: bpf/pystr_state.h */

/* The table of 3.minor, or NULL for a version not known. */
const struct hcb_pyoffsets *hcb_pyoffsets_get(unsigned int minor);

/* The traced process's Python. */
struct hcb_pyver {
	unsigned int major, minor, micro;
	int free_threaded;
	uint64_t hexversion;           /* Py_Version (3.11+), else from the name */
	char path[4096];               /* the file mapped: libpython or python */
	uint64_t base;                 /* its load base */
};

/*
 * What a mapped file's name says: 3.minor and free-threading ("t") from
 * libpython3.N[t].so* or python3.N[t].  -ENOENT: not a Python.
 */
int hcb_pyver_from_name(const char *path, unsigned int *major, unsigned int *minor, int *ft);

/*
 * Find pid's Python.  0: *v filled, a version with a table;
 * -ENOTSUP: a Python this does not read (3.14+, before 3.10,
 * free-threaded; *v still says which); -EPROTO: the file's Py_Version
 * disagrees with its name; -ENOENT: no Python mapped; -ESRCH: no process.
 */
int hcb_pyver_find(pid_t pid, struct hcb_pyver *v);

/*
 * pid's Python found and checked once, for every reader of its objects
 * (pysite.h's walker, pytext.h's probe): hcb_pyver_find, its table, and on
 * 3.13 that table compared with _Py_DebugOffsets.  0: *v and *o;
 * -ENOTSUP: a Python not read (why: which, and why not); -EPROTO: its
 * Py_Version disagrees with its name; -ENOENT: none; -errno.
 */
int hcb_pyver_open(pid_t pid, struct hcb_pyver *v, const struct hcb_pyoffsets **o, char *why,
		   size_t cap);

/*
 * On 3.13+: read _PyRuntime's _Py_DebugOffsets in pid (cookie "xdebugpy")
 * and compare what it publishes (object head, type's tp_name, tuple, str,
 * code's filename, name, qualname, firstlineno) with o.  0: all agree;
 * -EPROTO: one differs or the cookie is not there (msg: which);
 * -ENOENT: the version publishes none (before 3.13); -errno on a read.
 */
int hcb_pyver_check_debug(pid_t pid, const struct hcb_pyver *v, const struct hcb_pyoffsets *o,
			  char *msg, size_t cap);

/*
 * On 3.13+: the offsets of the interpreter, dict and int that CPython
 * publishes in _Py_DebugOffsets, into o (a copy of the table, for
 * pydist.h): the process's own word over the table's.  0; -ENOENT: before
 * 3.13 (the table's stand, proven by the walk); -EPROTO: no cookie, or an
 * offset that is none; -errno.
 */
int hcb_pyver_debug_interp(pid_t pid, const struct hcb_pyver *v, struct hcb_pyoffsets *o);

#endif
