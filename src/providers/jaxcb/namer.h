/* SPDX-License-Identifier: MIT */
/*
 * namer.h - the jax-callback decoder's namer (names.h) over the CPython
 * walker (pysite.h): call sites named by the user's code, read from the
 * traced process's own objects.
 */
#ifndef HCB_JAXCB_NAMER_H
#define HCB_JAXCB_NAMER_H

#include <sys/types.h>

struct hcb_jaxffi;
struct hcb_pyoffsets;

/* x's sites named by process pid's Python objects, laid out as o says
 * (o from target/pyver.h's hcb_pyver_open): 0 or -ENOMEM. */
int hcb_jaxffi_name_by_python(struct hcb_jaxffi *x, pid_t pid, const struct hcb_pyoffsets *o);

#endif
