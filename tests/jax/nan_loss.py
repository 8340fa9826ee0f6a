# SPDX-License-Identifier: MIT
"""A small jitted training loop whose loss goes NaN at a step the test
chooses: the target of the flight recorder's JAX tests (tests/bats/flight.bats).

    python nan_loss.py STEP STEPS [PROGRESS] [--devices N] [--size N]

Each step calls jax.debug.callback on (step, loss, w): step an int32
scalar, loss a float32 scalar, w float32[SIZE] (256 unless --size).  The
loss is NaN at step STEP and finite at every other.  Each step is waited
for, so that the callbacks come in step order.  Prints "done STEPS" at the
end.  PROGRESS: a file that holds the step being taken (8 bytes,
little-endian, written before the step): how far it ran past a tap, read
while stopped.

--pause S: sleep S seconds after each step (a loop that also loads data).

--devices N: the step runs under jax.pmap on N devices, each with its own
w (its own values) and its own loss, so each device calls back once a step
with its own (step, loss, w); on the CPU, N host devices are made with
XLA_FLAGS=--xla_force_host_platform_device_count=N (set here unless the
caller set it).  Every device's loss is NaN at step STEP.
"""
import argparse
import os
import struct
import time


def seen(step, loss, w):
    pass


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("bad", type=int)
    ap.add_argument("steps", type=int)
    ap.add_argument("progress", nargs="?")
    ap.add_argument("--devices", type=int, default=0)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--pause", type=float, default=0, help="seconds between steps")
    return ap.parse_args()


def main():
    a = parse()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if a.devices and "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_force_host_platform_device_count=%d" % a.devices)
    import jax
    import jax.numpy as jnp

    bad = a.bad
    progress = os.open(a.progress, os.O_RDWR | os.O_CREAT | os.O_TRUNC) if a.progress else -1

    def step_fn(step, w):
        loss = jnp.sum(w * w) / w.size + step.astype(jnp.float32)
        loss = jnp.where(step == bad, jnp.nan, loss)
        jax.debug.callback(seen, step, loss, w)
        return w * 0.999

    w = jnp.arange(a.size, dtype=jnp.float32) / a.size
    if a.devices:
        assert jax.local_device_count() >= a.devices, jax.devices()
        train_step = jax.pmap(step_fn, devices=jax.local_devices()[:a.devices])
        # each device its own parameters: device d's are w + d
        w = jnp.stack([w + d for d in range(a.devices)])
    else:
        train_step = jax.jit(step_fn)
    for s in range(a.steps):
        if progress >= 0:
            os.pwrite(progress, struct.pack("<q", s), 0)
        step = jnp.full((a.devices,), s, jnp.int32) if a.devices else jnp.int32(s)
        w = train_step(step, w)
        w.block_until_ready()
        if a.pause:
            time.sleep(a.pause)
    print("done", a.steps, flush=True)


if __name__ == "__main__":
    main()
