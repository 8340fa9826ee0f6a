# SPDX-License-Identifier: MIT
"""A small jitted training loop whose loss goes NaN at a step the test
chooses: the target of the flight recorder's JAX test (tests/bats/flight.bats).

    python nan_loss.py STEP STEPS [PROGRESS]

Each step calls jax.debug.callback on (step, loss, w): step an int32
scalar, loss a float32 scalar, w float32[256].  The loss is NaN at step
STEP and finite at every other.  Each step is waited for, so that the
callbacks come in step order.  Prints "done STEPS" at the end.
PROGRESS: a file that holds the step being taken (8 bytes, little-endian,
written before the step): how far it ran past a tap, read while stopped.
"""
import os
import struct
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def seen(step, loss, w):
    pass


def main():
    bad, steps = int(sys.argv[1]), int(sys.argv[2])
    progress = os.open(sys.argv[3], os.O_RDWR | os.O_CREAT | os.O_TRUNC) if len(sys.argv) > 3 else -1

    @jax.jit
    def train_step(step, w):
        loss = jnp.sum(w * w) / w.size + step.astype(jnp.float32)
        loss = jnp.where(step == bad, jnp.nan, loss)
        jax.debug.callback(seen, step, loss, w)
        return w * 0.999

    w = jnp.arange(256, dtype=jnp.float32) / 256
    for s in range(steps):
        if progress >= 0:
            os.pwrite(progress, struct.pack("<q", s), 0)
        w = train_step(jnp.int32(s), w)
        w.block_until_ready()
    print("done", steps, flush=True)


if __name__ == "__main__":
    main()
