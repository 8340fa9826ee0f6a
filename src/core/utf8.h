/* SPDX-License-Identifier: MIT */
/*
 * pystr.h - a CPython str's characters as UTF-8, shared by what reads one
 * from the traced process: the walker's names (pyobj.c) and the text the
 * probe took (jaxffi_pycall.c).  A compact str keeps its characters in
 * one of three kinds, 1, 2 or 4 bytes each, little-endian on x86-64.
 */
#ifndef HCB_PYSTR_H
#define HCB_PYSTR_H

#include <stddef.h>
#include <stdint.h>

/* Character i of d, kept in kind (1, 2 or 4) bytes a character. */
static inline uint32_t hcb_pystr_char(const unsigned char *d, unsigned int kind, uint64_t i)
{
	if (kind == 1)
		return d[i];
	if (kind == 2)
		return (uint32_t)d[2 * i] | (uint32_t)d[2 * i + 1] << 8;
	return (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 | (uint32_t)d[4 * i + 2] << 16 |
	       (uint32_t)d[4 * i + 3] << 24;
}

/* Code point cp as UTF-8 into o: its length (1 to 4), 0 past U+10FFFF.
 * A lone surrogate, which a Python str may hold, is written as its three
 * bytes (as Python's surrogatepass would): a caller that wants none
 * refuses them itself. */
unsigned int hcb_utf8_put(uint32_t cp, unsigned char o[4]);
/* 1 if s[0..n) is valid UTF-8 (no overlong form, no surrogate, nothing
 * past U+10FFFF), else 0. */
int hcb_utf8_valid(const char *s, size_t n);

#endif
