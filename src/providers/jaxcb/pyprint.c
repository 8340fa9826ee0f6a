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

/* The int option name of the dict, up to max. */
static int opt_int(struct hcb_pyreader *r, uint64_t dict, const char *name, uint64_t max,
		   uint64_t *v)
{
	uint64_t obj;
	int err = hcb_pydict_get(r, dict, name, &obj);

	return err ? err : hcb_pyobj_int(r, obj, max, v);
}

/* The str option name is want. */
static int opt_str(struct hcb_pyreader *r, uint64_t dict, const char *name, const char *want)
{
	char s[16];
	uint64_t obj;
	long len;
	int err = hcb_pydict_get(r, dict, name, &obj);

	if (err)
		return err;
	len = hcb_pyobj_str(r, obj, s, sizeof(s));
	if (len < 0)
		return (int)len;
	return strcmp(s, want) ? -ENOTSUP : 0;
}

/* The option name is None (missing: may_miss says whether that is too). */
static int opt_none(struct hcb_pyreader *r, uint64_t dict, const char *name, int may_miss)
{
	uint64_t obj;
	int err = hcb_pydict_get(r, dict, name, &obj);

	if (err == -ENOENT && may_miss)
		return 0;
	return err ? err : hcb_pyobj_is(r, obj, "NoneType");
}

/* The options of get_printoptions() that pyformat takes, the others at
 * numpy's defaults: legacy False (numpy 2 says False for its default
 * too), override_repr None or absent (numpy before 2). */
static int read_dict(struct hcb_pyreader *r, uint64_t dict, struct hcb_print_opts *o)
{
	uint64_t v[4];
	uint64_t obj;
	int suppress, legacy, err;

	err = opt_int(r, dict, "threshold", UINT64_MAX, &v[0]);
	err = err ?: opt_int(r, dict, "precision", 1000, &v[1]);
	err = err ?: opt_int(r, dict, "linewidth", 1u << 20, &v[2]);
	err = err ?: opt_int(r, dict, "edgeitems", 1u << 20, &v[3]);
	err = err ?: hcb_pydict_get(r, dict, "suppress", &obj);
	err = err ?: hcb_pyobj_bool(r, obj, &suppress);
	err = err ?: hcb_pydict_get(r, dict, "legacy", &obj);
	err = err ?: hcb_pyobj_bool(r, obj, &legacy);
	err = err ?: opt_str(r, dict, "floatmode", "maxprec");
	err = err ?: opt_str(r, dict, "sign", "-");
	err = err ?: opt_str(r, dict, "nanstr", "nan");
	err = err ?: opt_str(r, dict, "infstr", "inf");
	err = err ?: opt_none(r, dict, "formatter", 0);
	err = err ?: opt_none(r, dict, "override_repr", 1);
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
