/* SPDX-License-Identifier: MIT */
/*
 * pyformat.h - jax.debug.print's line made in hcbtrace: what
 * `fmt.format(*args, **kwargs)` gives inside `np.printoptions(...)` when
 * every argument is one jax Array, so that the text needs no probe on the
 * target's str concatenation (which traps on every `a + b` it runs).
 *
 * Only what can be proven is made; anything else is -ENOTSUP, and the
 * caller keeps the probed text.  The subset:
 *  - literal text with "{{" and "}}";
 *  - fields "{}", "{N}", "{name}": no attribute or index, no !r/!s/!a, no
 *    nested "{}" in the spec, auto and manual numbering not mixed;
 *  - the fields map onto the leaves only when the positional indices used
 *    are 0..P-1 and P plus the distinct names is the number of leaves:
 *    leaf i is argument i, then the names in sorted order (jax flattens
 *    the kwargs dict by sorted key).  A pytree argument, an unused or a
 *    static one make the counts disagree, or (by chance) agree wrongly:
 *    the caller compares the line with the probed text before it trusts
 *    the site;
 *  - an n-d leaf with an empty spec: str(array), numpy's array2string
 *    under the options (bool, integers of 8 bits and more, float16/32/64,
 *    complex64/128); opts->exp_cutoff_by_type -1 (the target's numpy not
 *    known) makes only the arrays whose text both numpys agree on;
 *  - a 0-d leaf: jax's Array.__format__ formats the numpy scalar, which
 *    formats itself as a Python bool, int or float (the float32 0.1 is
 *    '0.10000000149011612').  Empty spec: str() of that.  Otherwise
 *    Python's `[[fill]align][sign][width][.precision][type]` with align
 *    one of < > ^ and type one of f e g d % or none (a float's none only
 *    without precision: its repr).  Refused: '=', 'z', '#', '0', grouping,
 *    other types, and what Python itself would refuse.
 *
 * fmt is the target's, untrusted: it is read only within fmt_len, and the
 * line is bounded (HCB_PYFMT_MAX_LINE: -E2BIG past it).
 */
#ifndef HCB_PYFORMAT_H
#define HCB_PYFORMAT_H

#include <stddef.h>

#include "core/buf.h"
#include "print_opts.h"

#define HCB_PYFMT_MAX_LINE (64u << 10)  /* bytes of a line made, at most */
#define HCB_PYFMT_MAX_FIELDS 256u       /* replacement fields in fmt */
#define HCB_PYFMT_MAX_WIDTH 1024        /* a spec's width */
#define HCB_PYFMT_MAX_PREC 100          /* a spec's precision */

/*
 * Append fmt.format(...) (no trailing newline) to out, the leaves in jax's
 * flatten order.  0; -ENOTSUP: not in the subset above (out may hold part
 * of the line); -E2BIG: longer than HCB_PYFMT_MAX_LINE; -EINVAL: a NULL
 * or a leaf without data; -ENOMEM.
 */
int hcb_pyformat(struct hcb_buf *out, const char *fmt, size_t fmt_len,
		 const struct hcb_print_opts *opts, const struct hcb_array *leaves,
		 unsigned int nleaves);

#endif
