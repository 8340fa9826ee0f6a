/* SPDX-License-Identifier: MIT */
/*
 * pyprint.c - a jax.debug.print site's print options and mode, read from
 * its functools.partial (pysite.c found it): what formats/text/pyformat.h
 * needs to make the line without the text probe.  jax up to 0.9 binds
 * (fmt, np.get_printoptions()); 0.10 on (fmt, dict(np_printoptions),
 * has_placeholders, logging_record): the line is fmt.format(...) only
 * with placeholders and without a logging record.  Every option pyformat
 * does not take must be numpy's default, or the site is not formatted.
 */
#include <errno.h>
#include <string.h>

#include "process/pydict.h"
#include "pysite.h"

/* get_printoptions()'s keys that are read, in one pass over the dict */
enum opt { THRESHOLD, PRECISION, LINEWIDTH, EDGEITEMS, SUPPRESS, LEGACY, FLOATMODE, SIGN,
	   NANSTR, INFSTR, FORMATTER, OVERRIDE_REPR, NOPTS };
static const char *const opt_names[NOPTS] = {
	[THRESHOLD] = "threshold", [PRECISION] = "precision", [LINEWIDTH] = "linewidth",
	[EDGEITEMS] = "edgeitems", [SUPPRESS] = "suppress", [LEGACY] = "legacy",
	[FLOATMODE] = "floatmode", [SIGN] = "sign", [NANSTR] = "nanstr", [INFSTR] = "infstr",
	[FORMATTER] = "formatter", [OVERRIDE_REPR] = "override_repr",
};

/* The int option at obj (0: missing), up to max. */
static int opt_int(struct hcb_pyreader *r, uint64_t obj, uint64_t max, uint64_t *v)
{
	return obj ? hcb_pyobj_int(r, obj, max, v) : -ENOENT;
}

/* The bool option at obj (0: missing). */
static int opt_bool(struct hcb_pyreader *r, uint64_t obj, int *v)
{
	return obj ? hcb_pyobj_bool(r, obj, v) : -ENOENT;
}

/* The str option at obj (0: missing) is want. */
static int opt_str(struct hcb_pyreader *r, uint64_t obj, const char *want)
{
	char s[16];
	long len;

	if (!obj)
		return -ENOENT;
	len = hcb_pyobj_str(r, obj, s, sizeof(s));
	if (len < 0)
		return (int)len;
	return strcmp(s, want) ? -ENOTSUP : 0;
}

/* The option at obj is None (missing: may_miss says whether that is too). */
static int opt_none(struct hcb_pyreader *r, uint64_t obj, int may_miss)
{
	if (!obj)
		return may_miss ? 0 : -ENOENT;
	return hcb_pyobj_is(r, obj, "NoneType");
}

/* The options of get_printoptions() that pyformat takes, the others at
 * numpy's defaults: legacy False (numpy 2 says False for its default
 * too), override_repr None or absent (numpy before 2).  The dict's keys
 * are read once for all (a site's first call is named while the program
 * runs on: the fewer reads, the sooner). */
static int read_dict(struct hcb_pyreader *r, uint64_t dict, struct hcb_print_opts *o)
{
	uint64_t obj[NOPTS], v[4];
	int suppress, legacy;
	int err = hcb_pydict_get_many(r, dict, opt_names, NOPTS, obj);

	err = err ?: opt_int(r, obj[THRESHOLD], UINT64_MAX, &v[0]);
	err = err ?: opt_int(r, obj[PRECISION], 1000, &v[1]);
	err = err ?: opt_int(r, obj[LINEWIDTH], 1u << 20, &v[2]);
	err = err ?: opt_int(r, obj[EDGEITEMS], 1u << 20, &v[3]);
	err = err ?: opt_bool(r, obj[SUPPRESS], &suppress);
	err = err ?: opt_bool(r, obj[LEGACY], &legacy);
	err = err ?: opt_str(r, obj[FLOATMODE], "maxprec");
	err = err ?: opt_str(r, obj[SIGN], "-");
	err = err ?: opt_str(r, obj[NANSTR], "nan");
	err = err ?: opt_str(r, obj[INFSTR], "inf");
	err = err ?: opt_none(r, obj[FORMATTER], 0);
	err = err ?: opt_none(r, obj[OVERRIDE_REPR], 1);
	if (err || legacy)
		return err ? err : -ENOTSUP;
	*o = (struct hcb_print_opts){ .threshold = v[0], .precision = (int)v[1],
				      .linewidth = (int)v[2], .edgeitems = (int)v[3],
				      .suppress = suppress,
				      /* which numpy is not read: pyformat makes
				       * only the text both would */
				      .exp_cutoff_by_type = -1 };
	return 0;
}

int hcb_pysite_print_opts(struct hcb_pyreader *r, const uint64_t *items, int n,
			  struct hcb_print_opts *o)
{
	int placeholders;
	int err;

	if (n != 2 && n != 4)
		return -ENOTSUP;
	if (n == 4) {
		err = hcb_pyobj_bool(r, items[2], &placeholders);
		err = err ?: hcb_pyobj_is(r, items[3], "NoneType");
		if (err || !placeholders)
			return err ? err : -ENOTSUP;
	}
	return read_dict(r, items[1], o);
}
