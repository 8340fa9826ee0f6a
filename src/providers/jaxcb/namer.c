/* SPDX-License-Identifier: MIT */
/*
 * namer.c - the jax-callback decoder's namer (names.h) over the CPython
 * walker (pysite.h): call sites named by the user's code, read from the
 * traced process's own objects.
 */
#include "process/pyver.h"
#include "namer.h"
#include "names.h"
#include "pysite.h"

static int lookup(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	return hcb_pysite_lookup(ctx, callable, out);
}

static void release(void *ctx)
{
	hcb_pysites_free(ctx);
}

int hcb_jaxffi_name_by_python(struct hcb_jaxffi *x, pid_t pid, const struct hcb_pyoffsets *o)
{
	struct hcb_pysites *s;
	int err = hcb_pysites_open_with(&s, pid, o);

	if (!err)
		hcb_jaxffi_set_namer(x, lookup, release, s);
	return err;
}
