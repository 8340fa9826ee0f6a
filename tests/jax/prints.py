# SPDX-License-Identifier: MIT
"""An unmodified JAX program whose jax.debug.print calls hcbtrace must show
as the program printed them (issue 29): under jit, vmap, scan, ordered=True
and pmap (4 CPU devices), with named and positional fields, a format spec,
a pytree argument, a multi-line array, non-ASCII text and changed numpy
print options.

    python prints.py GO_FILE [--reps N]

Compiles and runs everything once, says "ready", waits for GO_FILE to
exist, says "go", runs everything REPS times (default 2), waits for its
effects and says "done".  Every line between "go" and "done" on stdout is a
jax.debug.print's; a pmap print says its device as "dev=D".
"""
import os
import sys
import time

flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in flags:
    os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=4").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402


@jax.jit
def named(x, step):
    jax.debug.print("step {i} loss={l:.3f}", i=step, l=jnp.sum(x * x))
    jax.debug.print("positional {} and {}", x[0], step)
    jax.debug.print("tree {t}", t={"a": x[:2], "b": (step, x[1] * 2)})
    jax.debug.print("matrix:\n{m}", m=jnp.outer(x, x))
    jax.debug.print("non-ascii: \u03b1={a} \u20ac {e} \U0001f600", a=x[0], e=step)
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


@jax.jit
def ordered(x):
    jax.debug.print("ordered first {}", x, ordered=True)
    jax.debug.print("ordered second {}", x + 1, ordered=True)
    return x


def per_device(x):
    d = lax.axis_index("i")
    jax.debug.print("pmap dev={d} x={x}", d=d, x=x)
    return x * 2


pmapped = jax.pmap(per_device, axis_name="i")


def run_all(k):
    x = jnp.arange(4.0) + k
    named(x, jnp.int32(k))
    mapped(jnp.arange(3.0) / 3 + k)
    scanned(jnp.int32(k))
    ordered(jnp.float32(k))
    pmapped(jnp.arange(4.0) + k)
    with np.printoptions(precision=2, suppress=True):
        named(x / 7, jnp.int32(k))
    np.set_printoptions(precision=3, floatmode="fixed")
    named(x / 3, jnp.int32(k))
    np.set_printoptions()
    jax.effects_barrier()


def main():
    go = sys.argv[1]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 2
    run_all(0)
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.01)
    print("go", flush=True)
    for k in range(1, reps + 1):
        run_all(k)
    sys.stdout.flush()
    print("done", flush=True)


if __name__ == "__main__":
    main()
