# SPDX-License-Identifier: MIT
"""A JAX program that outruns any JSONL writer: rounds of N
jax.debug.callback calls of a float32[SIZE] operand, each round one jitted
loop, on one CPU device.  Call k (counted over all rounds) passes k + 0.0
in every element, so a reader can tell each call from the others.

    python flood.py N SIZE [UNTIL]

One round; or, with UNTIL (a path), rounds until that file exists, so a
test can keep the pressure on until what it waits for has happened,
however fast the machine, each round but the last saying "round R" as it
ends.  Prints "calls C" at the end, C the calls its callback saw.
"""
import os
import sys

import jax
import jax.numpy as jnp
from jax import lax

N, SIZE = int(sys.argv[1]), int(sys.argv[2])
UNTIL = sys.argv[3] if len(sys.argv) > 3 else None
calls = 0


def seen(x):
    global calls
    calls += 1


@jax.jit
def flood(x, base):
    def body(i, x):
        jax.debug.callback(seen, x + (base + i).astype(jnp.float32))
        return x
    return lax.fori_loop(0, N, body, x)


x = jnp.zeros(SIZE, jnp.float32)
base = 0
while True:
    flood(x, jnp.int32(base)).block_until_ready()
    base += N
    if UNTIL is None or os.path.exists(UNTIL):
        break
    print("round", base // N, flush=True)
print("calls", calls, flush=True)
