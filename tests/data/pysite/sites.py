# SPDX-License-Identifier: MIT
"""A jax program with one call site of each kind, for test_pysite: after
one run it prints, as one JSON line, every callable jax registered for the
host (the _wrapped_callback functions, found with gc) and what Python's
own introspection says its site is; then it waits on stdin (the test reads
the process meanwhile, then closes stdin)."""
import functools
import gc
import json
import sys

import jax
import jax.numpy as jnp
from jax.experimental import io_callback


def user_cb(x):
    pass


def pure(x):
    return x


@jax.jit
def step(x):
    jax.debug.print("step {x} loss={l:.3f}", x=x, l=x.sum())
    jax.debug.print("caf\u00e9 \u20ac {}", x, ordered=True)
    jax.debug.callback(user_cb, x)
    jax.debug.callback(lambda v: None, x)
    io_callback(user_cb, None, x)
    return jax.pure_callback(pure, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


real_stdout, sys.stdout = sys.stdout, open("/dev/null", "w")   # the prints' lines
step(jnp.ones(3)).block_until_ready()
sys.stdout.close()
sys.stdout = real_stdout


def is_fn(o):
    return isinstance(o, type(is_fn))


def cells(f):
    return [c.cell_contents for c in (f.__closure__ or ())]


def terminal(o, seen_flat=False):
    """The site Python itself sees at the end of jax's wrappers."""
    if isinstance(o, functools.partial):
        if getattr(o.func, "__name__", "") == "_format_print_callback":
            return {"kind": 1, "fmt": o.args[0]}
        return terminal(o.func)
    if type(o).__name__ == "_FlatCallback":
        if not hasattr(type(o), "__slots__"):
            return {"err": "EPROTO"}   # an instance dict: not read
        return terminal(o.callback_func)
    if is_fn(o) and "/jax/_src/" in o.__code__.co_filename:
        nxt = [c for c in cells(o) if is_fn(c) or isinstance(c, functools.partial)
               or type(c).__name__ == "_FlatCallback"]
        return terminal(nxt[0])
    if is_fn(o):
        return {"kind": 2, "qualname": o.__qualname__, "file": o.__code__.co_filename,
                "line": o.__code__.co_firstlineno}
    return {"err": "EPROTO"}


out = []
for o in gc.get_objects():
    if is_fn(o) and o.__name__ == "_wrapped_callback":
        site = terminal(o)
        site["ordered"] = int(any(is_fn(c) and c.__name__ == "_wrapped_callback"
                                  for c in cells(o)))
        site["id"] = id(o)
        out.append(site)
out.append({"id": id(user_cb), "err": "EPROTO"})      # a user function: no root
out.append({"id": id("step"), "err": "EPROTO"})       # no function at all
print(json.dumps(out), flush=True)
sys.stdin.read()
