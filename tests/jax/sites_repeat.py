# SPDX-License-Identifier: MIT
"""Two call sites, each in a jitted function of its own, called many times
(the probe learns a site's names once, then sends its calls without them).

    python sites_repeat.py STEPS GO_FILE END_FILE

Compiles and runs each once, says "ready", waits for GO_FILE, calls
step_a(i) and step_b(i) for i in 0 .. STEPS-1 (log_a gets i, log_b 2 * i),
says "done", and lives on until END_FILE exists."""
import os
import sys
import time

import jax
import jax.numpy as jnp


def wait_file(path):
    while not os.path.exists(path):
        time.sleep(0.02)


def log_a(v):
    pass


def log_b(v):
    pass


@jax.jit
def step_a(i):
    jax.debug.callback(log_a, i)
    return i + 1


@jax.jit
def step_b(i):
    jax.debug.callback(log_b, i * 2)
    return i + 1


STEPS, GO, END = int(sys.argv[1]), sys.argv[2], sys.argv[3]
step_a(jnp.int32(-1)).block_until_ready()
step_b(jnp.int32(-1)).block_until_ready()
print("ready", flush=True)
wait_file(GO)
for i in range(STEPS):
    step_a(jnp.int32(i)).block_until_ready()
    step_b(jnp.int32(i)).block_until_ready()
print("done", flush=True)
wait_file(END)
