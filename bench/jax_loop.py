# SPDX-License-Identifier: MIT
"""bench/jax_loop.py - what bench/callback_kernel.py and bench/callback_floor.py
share: their command line and the JAX program they measure.

The program runs a jitted fori_loop of 1,000 calls (KIND callback:
jax.debug.callback on a float32[4]; print: jax.debug.print("x={x}")), prints
"ready" once it has compiled and run it, then runs it over and over, writing
the calls made so far to its one argument (a file replaced whole) after each
loop, until that file's name with ".end" added exists.
"""
import os
import sys

CALL = {"callback": "jax.debug.callback(keep, x)", "print": 'jax.debug.print("x={x}", x=x)'}

LOOP = """
import os, sys, jax, jax.numpy as jnp
N = 1000
def keep(x):
    pass
def body(i, x):
    x = x * 1.0001 + 1.0
    CALL
    return x
f = jax.jit(lambda x: jax.lax.fori_loop(0, N, body, x))
x = jnp.zeros(4, jnp.float32)
f(x).block_until_ready(); jax.effects_barrier()
out, n = sys.argv[1], 0
print("ready", flush=True)
while not os.path.exists(out + ".end"):
    f(x).block_until_ready(); jax.effects_barrier()
    n += N
    with open(out + ".tmp", "w") as fh:
        fh.write(str(n))
    os.replace(out + ".tmp", out)
"""


def program(kind):
    """The program's source for KIND (python -c)."""
    return LOOP.replace("CALL", CALL[kind])


def option(name, default):
    """--name's value, of default's type, or default."""
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def arguments(script, doc, rounds, seconds):
    """(HCB, PY, ROUNDS, SECONDS, KIND, AGAINST) from sys.argv for the
    benchmark script (its doc's first line the usage); one line and exit
    for a missing or bad one."""
    if len(sys.argv) < 3 or sys.argv[1].startswith("-"):
        sys.exit("usage: " + doc.split("\n")[0])
    kind = option("--kind", "callback")
    if kind not in CALL:
        sys.exit("%s: --kind is callback or print, not %r" % (script, kind))
    against = option("--against", "")
    if against and not os.access(against, os.X_OK):
        sys.exit("%s: --against %s: not an executable hcbtrace" % (script, against))
    return (sys.argv[1], sys.argv[2], option("--rounds", rounds), option("--seconds", seconds),
            kind, against)
