# SPDX-License-Identifier: MIT
"""An unmodified JAX program on the GPU, for scripts/gpu-check step 4:
io_callback, jax.debug.print and jax.debug.callback under jit, ordered and
fed by io_callback's result (so they run in program order), no hcbtap.

    python gpu_callbacks.py GO TRUTH

It starts jax on the GPU (which loads jax's CUDA plugin), prints "ready",
and waits until the file GO exists (meanwhile `record -- CMD`, attached on
jaxlib before jax loaded the CUDA plugin, takes the plugin up).
TRUTH gets, per call in the order they ran, what the callback was handed
(debug.callback and io_callback write their own arguments; jax.debug.print
formats inside jax, so the debug.callback after it writes the print's one
operand, which it was handed too, first), in the format of
gpu_taps.py's truth: tests/gpu/check_record.py --any-kwargs compares (the
CUDA calls have no call-site names).  At the end "issued 0 N" on stderr
and "done" on stdout.  Exits 3 on a machine where jax has no GPU.
"""
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

from gpu_taps import Truth, gpus

STEPS = 10


def main():
    go, truth = sys.argv[1], Truth(sys.argv[2])
    devs = gpus()
    n = [0]
    print("ready", [str(d) for d in devs], flush=True)
    deadline = time.monotonic() + 300
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.02)

    def io(y):
        truth.tap(0, {}, y)
        n[0] += 1
        return np.asarray(y * 2)

    def seen(i, a, m):
        # the print ran just before, on the same ordered chain, of a
        truth.tap(0, {}, a)
        truth.tap(0, {}, np.asarray(i), a, m)
        n[0] += 2

    @jax.jit
    def f(i, x):
        # io_callback's result feeds the rest: it runs first (ordered
        # effects of different kinds are not ordered among themselves)
        y = io_callback(io, jax.ShapeDtypeStruct((3,), jnp.float32), x + 1, ordered=True)
        jax.debug.print("y {}", y, ordered=True)
        m = jnp.outer(y, y).astype(jnp.int32)[:2, :2]
        jax.debug.callback(seen, i, y, m, ordered=True)
        return y

    for i in range(STEPS):
        x = jnp.arange(3, dtype=jnp.float32) + i
        jax.block_until_ready(f(i, jax.device_put(x, devs[0])))
    jax.effects_barrier()
    truth.f.close()
    print("issued 0 %d" % n[0], file=sys.stderr, flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
