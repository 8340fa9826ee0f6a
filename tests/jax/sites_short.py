# SPDX-License-Identifier: MIT
"""A program that ends right after its calls (issue 29): a jax.debug.print
and a debug.callback, three steps, then the interpreter exits at once, so
a tracer reading its ring late finds its callables gone.  Its sites must
still be named by its code (hcbtrace names a site at its first call's
entry, while the callable runs, and holds a program it started there
until it has).

    python sites_short.py"""
import jax
import jax.numpy as jnp


def log_x(v):
    pass


@jax.jit
def step(x):
    jax.debug.print("x {x}", x=x)
    jax.debug.callback(log_x, x * 2)
    return x + 1


x = jnp.arange(3.0)
for _ in range(3):
    x = step(x)
x.block_until_ready()
jax.effects_barrier()
