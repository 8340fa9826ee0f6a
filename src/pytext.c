/* SPDX-License-Identifier: MIT */
/*
 * pytext.c - the traced process's CPython, for the text probe (pytext.h):
 * its version from the name of the file mapped (libpython3.N.so, else the
 * executable python3.N; "t" after N is a free-threaded build, not read),
 * its concatenation function and PyUnicode_Type from that file's symbols,
 * and its str layout from the version (Include/cpython/unicodeobject.h):
 * 3.10 and 3.11 keep a wstr pointer in PyASCIIObject (and wstr_length in
 * PyCompactUnicodeObject), 3.12 and 3.13 do not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pytext.h"
#include "target.h"

/* "3.N" after prefix in the base name of path, with what follows; -1 if
 * the name is not one. */
static int minor_after(const char *path, const char *prefix, const char **rest)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(prefix);
	char *end;
	unsigned long minor;

	base = base ? base + 1 : path;
	if (strncmp(base, prefix, n) || strncmp(base + n, "3.", 2))
		return -1;
	minor = strtoul(base + n + 2, &end, 10);
	if (end == base + n + 2 || minor > 99)
		return -1;
	*rest = end;
	return (int)minor;
}

static int is_libpython(const char *path)
{
	const char *rest;

	return minor_after(path, "libpython", &rest) >= 0 &&
	       (!strncmp(rest, ".so", 3) || !strncmp(rest, "t.so", 4));
}

static int is_python_exe(const char *path)
{
	const char *rest;

	return minor_after(path, "python", &rest) >= 0 && (!*rest || !strcmp(rest, "t"));
}

static void set_layout(struct hcb_pytext_target *t)
{
	int wstr = t->minor <= 11;

	/* ob_refcnt, ob_type, length, hash, state (4 bytes, padded to 8) */
	t->length_off = 16;
	t->state_off = 32;
	t->ascii_data = wstr ? 48 : 40;     /* + wstr */
	t->compact_data = wstr ? 72 : 56;   /* + utf8_length, utf8 (+ wstr_length) */
}

static int find_file(pid_t pid, struct hcb_pytext_target *t, char *why, size_t cap)
{
	uint64_t base;
	const char *rest;
	int err = hcb_target_find_mapping(pid, is_libpython, t->path, sizeof(t->path), &base);

	if (err == -ENOENT)
		err = hcb_target_find_mapping(pid, is_python_exe, t->path, sizeof(t->path), &base);
	if (err)
		return err;
	err = minor_after(t->path, is_libpython(t->path) ? "libpython" : "python", &rest);
	if (!strncmp(rest, "t", 1) || err < 10 || err > 13) {
		snprintf(why, cap, "Python 3.%d%s is not one hcbtrace reads strings of (3.10 to "
			 "3.13, with the GIL)", err, *rest == 't' ? " (free-threaded)" : "");
		return -ENOTSUP;
	}
	t->minor = (unsigned int)err;
	t->str_type = base;
	return 0;
}

int hcb_pytext_find(pid_t pid, struct hcb_pytext_target *t, char *why, size_t cap)
{
	const char *names[1];
	uint64_t off = 0;
	int err;

	memset(t, 0, sizeof(*t));
	why[0] = '\0';
	err = find_file(pid, t, why, cap);
	if (err)
		return err;
	t->append = t->minor == 10;
	names[0] = t->append ? "PyUnicode_Append" : "PyUnicode_Concat";
	err = hcb_target_elf_funcs(t->path, names, 1, &t->concat_off);
	if (err && err != -ENODATA)
		return err;
	if (!t->concat_off || hcb_target_symbol_offset(t->path, "PyUnicode_Type", &off)) {
		snprintf(why, cap, "%s has no %s or PyUnicode_Type", t->path, names[0]);
		return -ENODATA;
	}
	t->str_type += off;
	set_layout(t);
	return 0;
}
