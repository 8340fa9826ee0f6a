/* SPDX-License-Identifier: MIT */
/*
 * pytext.c - where the traced process's CPython (found by pyver.h)
 * concatenates strings, for the text probe (pytext.h): PyUnicode_Append on
 * 3.10, PyUnicode_Concat after, and PyUnicode_Type, from the symbols of the
 * file mapped.  The str layout is pyver.h's table's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pytext.h"
#include "target.h"

int hcb_pytext_find(const struct hcb_pyver *v, struct hcb_pytext_target *t, char *why,
		    size_t cap)
{
	const char *names[1];
	uint64_t off = 0;
	int err;

	memset(t, 0, sizeof(*t));
	why[0] = '\0';
	t->append = v->minor == 10;
	names[0] = t->append ? "PyUnicode_Append" : "PyUnicode_Concat";
	err = hcb_target_elf_funcs(v->path, names, 1, &t->concat_off);
	if (err && err != -ENODATA)
		return err;
	if (!t->concat_off || hcb_target_symbol_offset(v->path, "PyUnicode_Type", &off)) {
		snprintf(why, cap, "%.200s has no %s or PyUnicode_Type", v->path, names[0]);
		return -ENODATA;
	}
	t->str_type = v->base + off;
	return 0;
}
