# SPDX-License-Identifier: MIT
"""An unmodified host_callback program for jaxlib 0.4.31's legacy outfeed
(run with JAX_HOST_CALLBACK_OUTFEED=1 and 2 CPU devices): the target of
tests/bats/legacy.bats, which attaches hcbtrace to it by pid.

    python legacy.py GO_FILE

Compiles and runs its taps once (printing them itself), says "ready", waits
for GO_FILE to exist, then taps under jit and pmap, printing every tap with
id_print to stdout as host_callback does, and says "done".
"""
import os
import sys
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import host_callback as hcb  # noqa: E402


def power3(x):
    y = x * x
    _, y = hcb.id_print((x, y), what="x,x^2", tap_with_device=True)
    return y * x


def matrix(x):
    return hcb.id_print(x.reshape(2, 3) * 2, what="matrix", tap_with_device=True)


def main():
    f, g, p = jax.jit(power3), jax.jit(matrix), jax.pmap(power3)
    f(3.)
    g(jnp.arange(6.))
    p(np.array([3., 4.]))
    hcb.barrier_wait()
    print("ready", flush=True)
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.02)
    for x in (3., 4., 5.):
        f(x)
    g(jnp.arange(6.))
    p(np.array([6., 7.]))
    hcb.barrier_wait()
    print("done", flush=True)
    time.sleep(0.3)


if __name__ == "__main__":
    main()
