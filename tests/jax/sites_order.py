# SPDX-License-Identifier: MIT
"""Two versions of one jax program for diff's pairing of call sites (issue
29): the same call sites, each with values of its own, in the order ORDER
gives ("ab": as written; "ba": the callbacks and prints the other way
round, so XLA numbers them the other way: debug_print.1 is another print).

    python sites_order.py ORDER GO_FILE END_FILE

Compiles and runs once, says "ready", waits for GO_FILE, runs 3 steps,
says "done", and lives on until END_FILE exists (its callables alive while
a tracer reads them)."""
import os
import sys
import time

import jax
import jax.numpy as jnp


def wait_file(path):
    while not os.path.exists(path):
        time.sleep(0.02)


def log_loss(v):
    pass


def log_grad(v):
    pass


ORDER, GO, END = sys.argv[1], sys.argv[2], sys.argv[3]


def site_a(x):
    jax.debug.print("loss {l:.3f}", l=x.sum())
    jax.debug.callback(log_loss, x * 10)


def site_b(x):
    jax.debug.print("grad {g}", g=x * 100)
    jax.debug.callback(log_grad, x * 1000)


@jax.jit
def step(x):
    for site in (site_a, site_b) if ORDER == "ab" else (site_b, site_a):
        site(x)
    return x + 1


x = step(jnp.arange(3.0))
x.block_until_ready()
print("ready", flush=True)
wait_file(GO)
for _ in range(3):
    x = step(x)
x.block_until_ready()
print("done", flush=True)
wait_file(END)
