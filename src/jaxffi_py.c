/* SPDX-License-Identifier: MIT */
/*
 * jaxffi_py.c - the jax-callback decoder's namer (jaxffi.h) over the
 * CPython walker (pysite.h): call sites named by the user's code, read
 * from the traced process's own objects.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jaxffi.h"
#include "pysite.h"
#include "pyver.h"

static int lookup(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	return hcb_pysite_lookup(ctx, callable, out);
}

static void release(void *ctx)
{
	hcb_pysites_free(ctx);
}

int hcb_jaxffi_name_by_python(struct hcb_jaxffi *x, pid_t pid, char *why, size_t cap)
{
	struct hcb_pysites *s;
	struct hcb_pyver v;
	int err = hcb_pysites_open(&s, pid);

	snprintf(why, cap, "%s", "");
	if (!err) {
		hcb_jaxffi_set_namer(x, lookup, release, s);
		return 0;
	}
	if (err == -ENOTSUP) {
		int found = hcb_pyver_find(pid, &v);

		snprintf(why, cap, "the Python of process %d (%u.%u%s) is not one hcbtrace reads "
			 "(3.10 to 3.13, with the GIL%s): call sites keep XLA's names", (int)pid,
			 v.major, v.minor, v.free_threaded ? ", free-threaded" : "",
			 found == -ENOTSUP ? "" : "; its offsets disagree with _Py_DebugOffsets");
	}
	return err;
}
