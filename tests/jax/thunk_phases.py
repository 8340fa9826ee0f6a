# SPDX-License-Identifier: MIT
"""Call sites met in phases: the custom-call thunk's probe goes off once
the sites seen are named, and comes on again for a site first called
after that (tests/bats/thunkoff.bats).

    python thunk_phases.py STEPS DIR

Compiles and runs step_a (a debug.callback, log_a) and step_p (a
debug.print) once, says "ready", and waits for DIR/go1.  Each phase then
runs STEPS steps, says its name, and waits for the next file:
  1a  step_a(i), step_p(i)           for i in 0 .. STEPS-1     then DIR/go1b
  1b  the same                       for i in STEPS .. 2*STEPS-1   DIR/go2
  2   step_c(i) (compiled only now: log_c gets 3 * i), step_a(i)
                                     for i in 2*STEPS .. 3*STEPS-1 DIR/end
log_a gets i; the print writes "p=i".  With DIR/quit there when 1b
starts, the program ends right after 1b's last call: no barrier, no
wait, its objects freed as Python finalizes (what a job's end is)."""
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


def log_c(v):
    pass


@jax.jit
def step_a(i):
    jax.debug.callback(log_a, i)
    return i + 1


@jax.jit
def step_p(i):
    jax.debug.print("p={i}", i=i)
    return i + 1


def step_c(i):
    jax.debug.callback(log_c, i * 3)
    return i + 1


STEPS, DIR = int(sys.argv[1]), sys.argv[2]
step_a(jnp.int32(-1)).block_until_ready()
step_p(jnp.int32(-1)).block_until_ready()
jax.effects_barrier()
print("ready", flush=True)
wait_file(os.path.join(DIR, "go1"))
for phase, nxt in (("1a", "go1b"), ("1b", "go2")):
    first = 0 if phase == "1a" else STEPS
    for i in range(first, first + STEPS):
        step_a(jnp.int32(i)).block_until_ready()
        step_p(jnp.int32(i)).block_until_ready()
    if phase == "1b" and os.path.exists(os.path.join(DIR, "quit")):
        sys.exit(0)
    jax.effects_barrier()
    print(phase, flush=True)
    wait_file(os.path.join(DIR, nxt))
step_c = jax.jit(step_c)
for i in range(2 * STEPS, 3 * STEPS):
    step_c(jnp.int32(i)).block_until_ready()
    step_a(jnp.int32(i)).block_until_ready()
jax.effects_barrier()
print("2", flush=True)
wait_file(os.path.join(DIR, "end"))
