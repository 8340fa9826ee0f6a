# SPDX-License-Identifier: MIT
"""A JAX program that outruns any JSONL writer: N jax.debug.callback calls
of a float32[SIZE] operand in one jitted loop, on one CPU device.

    python flood.py N SIZE

Prints "calls C" once the loop is done, C the calls its callback saw.
"""
import sys

import jax
import jax.numpy as jnp
from jax import lax

N, SIZE = int(sys.argv[1]), int(sys.argv[2])
calls = 0


def seen(x):
    global calls
    calls += 1


@jax.jit
def flood(x):
    def body(i, x):
        jax.debug.callback(seen, x + i)
        return x
    return lax.fori_loop(0, N, body, x)


flood(jnp.zeros(SIZE, jnp.float32)).block_until_ready()
print("calls", calls, flush=True)
