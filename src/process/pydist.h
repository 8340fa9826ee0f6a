/* SPDX-License-Identifier: MIT */
/*
 * pydist.h - what a process's jax says of the job it is in, read from
 * outside: jax._src.distributed.global_state, the State that
 * jax.distributed.initialize() fills (process_id, num_processes, and the
 * client it connects), which is what jax.process_index() and
 * jax.process_count() answer from once it is up.
 *
 * The way there, every step an object whose type is checked (pyobj.h)
 * before a field of it is trusted: _PyRuntime (the libpython's symbol),
 * its main interpreter, the interpreter's modules (a dict, sys.modules),
 * the module "jax._src.distributed" (a module whose own __name__ says so),
 * its global "global_state" (an instance of a class State), that
 * instance's attributes (a dict, or the values its class's shared keys
 * index), two ints.  The offsets are pyver.h's table, and on 3.13 the ones
 * CPython publishes are compared too.  A step that does not check out is
 * -EPROTO and one line; nothing is ever guessed.
 */
#ifndef HCB_PYDIST_H
#define HCB_PYDIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/record.h"
#include "pyobj.h"

/*
 * pid's jax's word: 0 and *p (source "jax") once its distributed client is
 * up; -ENOENT: jax._src.distributed is not imported, or no client (jax
 * says nothing of a job: a process alone, or not initialized yet);
 * -ENOTSUP: a Python not read; -EPROTO: a step did not check out; why[cap]
 * says which, for the last two.  -ESRCH: gone.
 */
int hcb_pydist_read(pid_t pid, struct hcb_process_id *p, char *why, size_t cap);

/* The walk alone, from the interpreter's _PyRuntime at runtime, through
 * r (its table and its reads): for the tests and the fuzzer.  As above. */
int hcb_pydist_walk(struct hcb_pyreader *r, uint64_t runtime, struct hcb_process_id *p,
		    char *why, size_t cap);

#endif
