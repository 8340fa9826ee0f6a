# SPDX-License-Identifier: MIT
"""An unmodified JAX program whose every jax.debug.print site hcbtrace can
make the line of itself (issue 39): scalars and arrays, named and
positional fields, format specs, a multi-line array, non-ASCII text, "{{"
and "}}", under jit, vmap and scan; then a Python loop of str
concatenations, which the text probe would trap on.

    python prints_provable.py GO_FILE [--reps N] [--concat N]

Compiles and runs the prints once, says "ready", waits for GO_FILE, says
"go", runs them REPS times (default 2), waits for their effects, says
"printed" on stderr, waits for GO_FILE.concat, runs N concatenations
(default 200000), says how long they took on stderr ("concat NS ns"), and
"done" on stdout.  Every stdout line between "go" and "done" is a print's.
"""
import os
import sys
import time

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402


@jax.jit
def named(x, step):
    jax.debug.print("step {i} loss={l:.3f}", i=step, l=jnp.sum(x * x))
    jax.debug.print("positional {} and {:>8.2e} {{braces}}", x[0], x[1])
    jax.debug.print("matrix:\n{m}", m=jnp.outer(x, x))
    jax.debug.print("non-ascii: \u03b1={a} \u20ac {e} \U0001f600", a=x[0], e=step)
    jax.debug.print("flags {f} {p:+.1%}", f=x > 1, p=x[2] / 10)
    return x + 1


@jax.jit
def mapped(xs):
    def one(x):
        jax.debug.print("vmap {x:.2f}", x=x)
        return x * 2
    return jax.vmap(one)(xs)


@jax.jit
def scanned(x):
    def body(c, i):
        jax.debug.print("scan i={i} c={c}", i=i, c=c)
        return c + i, c
    return lax.scan(body, x, jnp.arange(3))[0]


def run_all(k):
    x = jnp.arange(4.0) + k
    named(x, jnp.int32(k))
    named(x / 7, jnp.int32(k))
    mapped(jnp.arange(3.0) / 3 + k)
    scanned(jnp.int32(k))
    jax.effects_barrier()


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.01)


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    go = sys.argv[1]
    run_all(0)
    print("ready", flush=True)
    wait_for(go)
    print("go", flush=True)
    for k in range(1, arg("--reps", 2) + 1):
        run_all(k)
    sys.stdout.flush()
    print("printed", file=sys.stderr, flush=True)
    wait_for(go + ".concat")
    # variables, not constants: the compiler folds "ab" + "x"
    a, b, t = "ab", "x", time.perf_counter_ns()
    for _ in range(arg("--concat", 200000)):
        s = a + b  # noqa: F841
    print("concat %d ns" % (time.perf_counter_ns() - t), file=sys.stderr, flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
