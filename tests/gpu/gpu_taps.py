# SPDX-License-Identifier: MIT
"""The jax programs scripts/gpu-check runs on a GPU, with hcbtap's taps (or
JAX's own callbacks: gpu_callbacks.py) on CUDA devices.

    python gpu_taps.py jit TRUTH      taps under jit (and a scan in it)
    python gpu_taps.py pmap TRUTH     each device taps its own values
    python gpu_taps.py burst TRUTH    a burst of large taps beyond the
                                      staging memory, then a few more

TRUTH gets one JSON line per tap, in each device's program order, written
from the values the device computed and handed back (not from what the
program meant to tap): {"device": D, "kwargs": {...}, "arrays": [{"dtype",
"shape", "data" (flat)}]}.  tests/gpu/check_record.py compares a recording
with it.  At the end: "issued DEVICE COUNT" per device (libhcbtap's own
counters) on stderr, and "done" on stdout.  Everything runs on the GPU: a
program that finds no CUDA device says so and exits 3.
"""
import hashlib
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

ROUNDS = 20
BURST = 64                  # taps in the burst, each BURST_ELEMS float32
BURST_ELEMS = 1 << 16       # 256 KiB a tap: 16 MiB against gpu-check's 1 MiB of staging
MATMULS = 10                # 4096^2 float32 matmuls ahead of them (tens of ms)
AFTER = 5


def arr(a, digest=False):
    """A tapped array as the truth has it; large ones (digest) as the
    SHA-256 of their bytes, not 10 MB of JSON."""
    a = np.asarray(a)
    out = {"dtype": a.dtype.name, "shape": list(a.shape)}
    if digest:
        out["sha256"] = hashlib.sha256(a.tobytes()).hexdigest()
    else:
        out["data"] = a.ravel().tolist()
    return out


class Truth:
    def __init__(self, path):
        self.f = open(path, "w")

    def tap(self, device, kwargs, *arrays, digest=False):
        self.f.write(json.dumps({"device": device, "kwargs": kwargs,
                                 "arrays": [arr(a, digest) for a in arrays]}) + "\n")


def gpus():
    # HCB_GPU_TAPS_ANY=1: whatever devices jax has, so that this program
    # and check_record.py can be tried on a CPU (tests/bats/gpu_check.bats)
    if os.environ.get("HCB_GPU_TAPS_ANY") == "1":
        return jax.devices()
    try:
        devs = jax.devices("gpu")
    except RuntimeError:
        devs = []
    if not devs:
        print("gpu_taps.py: jax has no GPU device (%s)" % jax.devices(), file=sys.stderr)
        sys.exit(3)
    return devs


def step(i):
    """Three taps of three shapes and dtypes; returns what was tapped."""
    import hcbtap as hcb
    x = i.astype(jnp.float32) * 0.5
    v = jnp.arange(1000, dtype=jnp.float32) / 7 + i
    k = jnp.arange(7, dtype=jnp.int32) * i - 3
    hcb.id_print(x, what="x")
    hcb.id_print((v, k), what="v,k")

    def body(c, _):
        hcb.id_print(c, what="c")
        return c * 2 + 1, c
    _, cs = lax.scan(body, i, None, length=4)
    return x, v, k, cs


def jit_taps(truth):
    f = jax.jit(step)
    for r in range(ROUNDS):
        x, v, k, cs = jax.device_get(f(jnp.int32(r)))
        truth.tap(0, {"what": "x"}, x)
        truth.tap(0, {"what": "v,k"}, v, k)
        for c in cs:
            truth.tap(0, {"what": "c"}, c)


def pmap_taps(truth):
    n = len(gpus())
    f = jax.pmap(step)
    for r in range(ROUNDS):
        x, v, k, cs = jax.device_get(f(jnp.arange(n, dtype=jnp.int32) + 100 * r))
        for d in range(n):
            truth.tap(d, {"what": "x"}, x[d])
            truth.tap(d, {"what": "v,k"}, v[d], k[d])
            for c in cs[d]:
                truth.tap(d, {"what": "c"}, c)


def burst_taps(truth):
    """BURST taps of BURST_ELEMS float32 in one jitted function, queued
    behind a chain of large matmuls: the host runs every tap's handler
    (which takes its staging room) while the device is still busy, so with
    less staging than BURST taps need (gpu-check gives it 1 MiB) most find
    none and are lost, counted.  Then AFTER small taps, one call each: the
    staging memory has come back."""
    import hcbtap as hcb

    @jax.jit
    def burst(x, a):
        for _ in range(MATMULS):
            a = a @ a
        zero = (a[0, 0] > 1e30).astype(jnp.float32)   # 0, known only on the device
        for i in range(BURST):
            hcb.id_print(x + (i + zero), what="burst")
        return zero

    x = jnp.arange(BURST_ELEMS, dtype=jnp.float32)
    a = jnp.full((4096, 4096), 1 / 4096, jnp.float32)
    jax.block_until_ready(burst(x, a))
    for i in range(BURST):
        truth.tap(0, {"what": "burst"}, np.arange(BURST_ELEMS, dtype=np.float32) + np.float32(i), digest=True)
    after = jax.jit(lambda i: hcb.id_print(i * 3, what="after"))
    for i in range(AFTER):
        truth.tap(0, {"what": "after"}, jax.device_get(after(jnp.int32(i))))


def main():
    mode = sys.argv[1]
    devs = gpus()
    print("devices", [str(d) for d in devs], flush=True)
    import hcbtap as hcb
    from hcbtap import _native
    truth = Truth(sys.argv[2])
    {"jit": jit_taps, "pmap": pmap_taps, "burst": burst_taps}[mode](truth)
    truth.f.close()
    hcb.barrier_wait(timeout=60)
    for d in range(len(devs)):
        print("issued %d %d" % (d, _native.issued(d)), file=sys.stderr)
    print("done", flush=True)


if __name__ == "__main__":
    main()
