/* SPDX-License-Identifier: MIT */
/*
 * namepat.h - a recording's name made from a pattern, one name a process
 * (issue 36), as Nsight Systems names its reports:
 *
 *   %h      the process's host            %p   its pid
 *   %r      its index in its job          %%   a percent sign
 *   %q{VAR} VAR of its environment
 *
 * so that `srun hcbtrace record -o 'run/taps-%h-%r.hcbcap' -- python
 * train.py` writes one file a process on every node.  The values are the
 * target's to set (its host name, its environment): none may bring a '/'
 * (a directory of its choosing), a control character, or make a part of
 * the path "." or ".."; a part is at most 255 bytes and the whole fits its
 * room.  What is not known falls back, as documented: %h "unknown-host",
 * %r "pid" and the pid ("pid4242"), %q{VAR} of a VAR not set nothing.
 * Pure: tests/fuzz/fuzz_ident.c.
 */
#ifndef HCB_NAMEPAT_H
#define HCB_NAMEPAT_H

#include <stddef.h>
#include <stdint.h>

/* What the patterns take their values from. */
struct hcb_namepat_vals {
	const char *host;           /* NULL or "": not known */
	int32_t pid;
	int has_index;              /* 0: %r not known */
	uint32_t index;
	/* VAR's value in the target's environment: 0 and *val, *len (not
	 * NUL-terminated); -ENOENT: not set; another -errno: not read */
	int (*env)(void *ctx, const char *name, const char **val, size_t *len);
	void *ctx;
};

/* 1 if s holds a pattern: a '%' the expansion acts on. */
int hcb_namepat_has(const char *s);
/*
 * pattern with its patterns filled in, into out[cap]: 0.  -EINVAL: a '%'
 * that starts no pattern, or %q without {VAR}; -EPERM: a value that may
 * not be in a name ('/', a control character, a part "." or ".."); -EIO:
 * the environment was not read; -ENAMETOOLONG.  why[wcap] says which.
 */
int hcb_namepat_expand(const char *pattern, const struct hcb_namepat_vals *v, char *out,
		       size_t cap, char *why, size_t wcap);

#endif
