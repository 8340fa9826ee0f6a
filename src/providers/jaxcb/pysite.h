/* SPDX-License-Identifier: MIT */
/*
 * pysite.h - a jax callback's call site named by the user's code: from the
 * Python callable jaxlib calls (callbacks[index] of its host callbacks), a
 * walk of CPython objects in the traced process to what the user wrote.
 *
 * jax wraps the user's callable in closures of its own; the walk follows
 * them by what each one is, never by position alone:
 *   emit_python_callback.<locals>._wrapped_callback   (jax/_src/callback.py;
 *       twice for an ordered callback: the token's wrapper around the other)
 *   -> debug_callback_lowering.<locals>._callback       (debugging.py), or
 *      io_callback_lowering / pure_callback_lowering.<locals>._callback
 *   -> _make_flat_callback.<locals>._flat_callback, or
 *      debug_callback.<locals>[_debug_callback.<locals>]._flat_callback
 *   -> functools.partial(_format_print_callback, fmt, ...)  jax.debug.print
 *      or the user's function                              debug.callback
 *   io/pure_callback: _callback -> a _FlatCallback whose __slots__ slot
 *   callback_func (jax 0.10+) is the user's function; buffer_callback:
 *   _buffer_callback_lowering.<locals>.wrapped_callback -> the user's.
 * Each jax function must be the one named, in the jax file named, and hold
 * exactly one closure cell that is a function, a partial or a
 * _FlatCallback (the next step); the user's function is the first one
 * whose code is in no jax/_src file.  What does not check out is -EPROTO:
 * the caller names the site as before.  Not read (-EPROTO): a
 * _FlatCallback keeping callback_func in an instance dict (jax before
 * 0.10), a user callable that is no Python function (a builtin, an object
 * with __call__).
 *
 * Results are cached per callable; a cached one is re-checked by reading
 * the callable's type, code and closure words again (not its refcount,
 * which moves) and walked afresh if they changed (the address reused).
 */
#ifndef HCB_PYSITE_H
#define HCB_PYSITE_H

#include <stdint.h>

#include "core/print_opts.h"
#include "process/pyobj.h"
#include "process/pyver.h"

enum { HCB_PYSITE_PRINT = 1, HCB_PYSITE_CALLBACK = 2 };

#define HCB_PYSITE_FMT 1024u        /* a format string longer is not read */
#define HCB_PYSITE_QUALNAME 256u
#define HCB_PYSITE_FILE 512u
#define HCB_PYSITE_CACHE 4096u      /* callables remembered; then forgotten all */

struct hcb_pysite {
	int kind;                       /* HCB_PYSITE_PRINT, HCB_PYSITE_CALLBACK */
	char fmt[HCB_PYSITE_FMT];       /* print: the format string, UTF-8 */
	char qualname[HCB_PYSITE_QUALNAME]; /* callback: the user's function's */
	char file[HCB_PYSITE_FILE];     /* callback: its co_filename */
	unsigned int line;              /* callback: its co_firstlineno */
	int ordered;                    /* ordered=True: jax's token wrapper seen */
	/* print: its np.printoptions, read; 0 where they were not, or where
	 * its line is not fmt.format(...) written (pyprint.c) */
	int opts_ok;
	struct hcb_print_opts opts;
};

struct hcb_pysites;

/*
 * One target's walker and cache.  -ENOTSUP: a Python this cannot read
 * (3.14+, free-threaded, before 3.10, a 3.13 whose _Py_DebugOffsets
 * disagree with the table); -ENOENT: no Python in it; -errno otherwise.
 */
int hcb_pysites_open(struct hcb_pysites **out, int pid);
/* The same with a table given (the tests feed wrong ones). */
int hcb_pysites_open_with(struct hcb_pysites **out, int pid, const struct hcb_pyoffsets *o);
/* 0 and *out filled; -EPROTO: the objects did not check out; -ESRCH,
 * -EFAULT, -ESTALE: the process or the callable is gone (a callable is
 * read after its call, when the tap is decoded: one freed since, as at
 * the program's exit, is not read; not remembered either). */
int hcb_pysite_lookup(struct hcb_pysites *s, uint64_t callable, struct hcb_pysite *out);
/* process_vm_readv calls made so far (what the walks cost). */
unsigned long hcb_pysites_reads(const struct hcb_pysites *s);
void hcb_pysites_free(struct hcb_pysites *s);

/* A print's partial's args (items[n]: fmt, its options, and from jax
 * 0.10 has_placeholders and logging_record): its options into *o, where
 * its line is fmt.format(...) under options pyformat.h takes (the others
 * numpy's defaults).  0; -ENOTSUP; -EPROTO and other reading errors. */
int hcb_pysite_print_opts(struct hcb_pyreader *r, const uint64_t *items, int n,
			  struct hcb_print_opts *o);

#endif
