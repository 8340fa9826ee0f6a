/* SPDX-License-Identifier: MIT */
/*
 * pystr_state.h - the bits of a CPython str's state word (PyASCIIObject's
 * state, Include/cpython/unicodeobject.h), the same in 3.10 .. 3.13: what
 * the text probe (pycall.bpf.c) and the walker (pyobj.c) both check.
 */
#ifndef HCB_PYSTR_STATE_H
#define HCB_PYSTR_STATE_H

#define HCB_PYSTR_KIND_SHIFT 2u   /* kind: 1, 2 or 4 bytes a character */
#define HCB_PYSTR_KIND_MASK 7u
#define HCB_PYSTR_COMPACT 0x20u   /* the characters follow the head */
#define HCB_PYSTR_ASCII 0x40u     /* all ASCII: after a PyASCIIObject */

#endif
