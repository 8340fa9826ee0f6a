# SPDX-License-Identifier: MIT
"""bench/jax_loop.py - what bench/callback_kernel.py and bench/callback_floor.py
share: their command line and the JAX program they measure.

The program runs a jitted fori_loop of 1,000 calls (KIND callback:
jax.debug.callback on a float32[4]; print: jax.debug.print("x={x}")), prints
"ready" once it has compiled and run it, then runs it over and over, writing
the calls made so far and its CPU time then (time.process_time_ns(): all its
threads, user and kernel) to its one argument, a file replaced whole, after
each loop, until that file's name with ".end" added exists.  A window
between two such writes (next_progress) has its calls and its CPU time
exact.  One that read the CPU time at moments of its own counted the calls
by the thousand: a print's 3 s window (16,000 to 18,000 calls) came out 6%
(11 us a print) high or low by where the loop was at its ends.
"""
import os
import sys
import time

CALL = {"callback": "jax.debug.callback(keep, x)", "print": 'jax.debug.print("x={x}", x=x)'}

LOOP = """
import os, sys, time, jax, jax.numpy as jnp
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
        fh.write("%d %d" % (n, time.process_time_ns()))
    os.replace(out + ".tmp", out)
"""


def program(kind):
    """The program's source for KIND (python -c)."""
    return LOOP.replace("CALL", CALL[kind])


def progress(count):
    """(calls, CPU ns) of the program's last write of its count file, or
    None before its first."""
    try:
        calls, cpu = open(count).read().split()
        return int(calls), int(cpu)
    except (OSError, ValueError):
        return None    # not written yet (it is replaced whole, never torn)


def next_progress(count, prog, script, timeout=60.0):
    """The program's next write of its count file, waited for (a loop of
    prints takes some 0.2 s): a window begins and ends on one, so that its
    calls and CPU time are the program's own at the same moment.  One line
    and exit if the program ends or makes no call for timeout s."""
    last = progress(count)
    end = time.monotonic() + timeout
    while True:
        now = progress(count)
        if now and now != last:
            return now
        if prog.poll() is not None or time.monotonic() > end:
            sys.exit("%s: the program made no call for %g s" % (script, timeout))
        time.sleep(0.001)


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
