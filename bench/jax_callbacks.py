#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/jax_callbacks.py HCBTRACE [--json] - what hcbtrace costs an
unmodified JAX program's own callbacks (the jax-callback provider).

One jitted loop of N steps, each step handing a float32[4] to
jax.debug.callback (a Python function that keeps it), timed in the same
run: the loop without the callback (baseline), with the callback and no
tracer, and with the callback while `hcbtrace record` is attached to this
process.  Per callback: (time - baseline) / N, best of 5 runs.  Needs a
venv with jax >= 0.4.26 and no hcbtap (scripts/lib.sh: make_venv_jax12;
an older one: scripts/jax-matrix makes one per release).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp

HCB = sys.argv[1]
N = 500
kept = []


def keep(x):
    kept.append(x)


def loop(callback):
    def body(i, x):
        x = x * 1.0001 + 1.0
        if callback:
            jax.debug.callback(keep, x)
        return x
    return jax.jit(lambda x: jax.lax.fori_loop(0, N, body, x))


def best(f, runs=5):
    x = jnp.zeros(4, jnp.float32)
    f(x).block_until_ready()
    t = []
    for _ in range(runs):
        kept.clear()
        t0 = time.perf_counter()
        f(x).block_until_ready()
        jax.effects_barrier()
        t.append(time.perf_counter() - t0)
    return min(t)


def attached(path, f):
    """Record this process to path; return once its first callback is in."""
    # the callbacks' provider: on jaxlib 0.4.31 the outfeed one answers first
    rec = subprocess.Popen([HCB, "record", "-q", "--provider", "jax-callback",
                            "-p", str(os.getpid()), "-o", path],
                           stderr=subprocess.DEVNULL)
    for _ in range(1000):
        f(jnp.zeros(4, jnp.float32)).block_until_ready()
        jax.effects_barrier()
        if os.path.exists(path) and b'"type":"tap"' in open(path, "rb").read():
            return rec
        if rec.poll() is not None:
            sys.exit("bench/jax_callbacks.py: hcbtrace record exited (%d)" % rec.returncode)
        time.sleep(0.01)
    sys.exit("bench/jax_callbacks.py: hcbtrace never saw a callback")


def main():
    base, cb = loop(False), loop(True)
    t_base = best(base)
    t_detached = best(cb)
    with tempfile.TemporaryDirectory() as d:
        rec = attached(os.path.join(d, "taps.jsonl"), cb)
        t_attached = best(cb)
        rec.send_signal(2)
        rec.wait()
    per = lambda t: max(0.0, (t - t_base) / N * 1e9)
    res = {
        "jax_callback_step_baseline_ns": round(t_base / N * 1e9, 1),
        "jax_callback_detached_ns": round(per(t_detached), 1),
        "jax_callback_attached_ns": round(per(t_attached), 1),
    }
    res["jax_callback_attached_added_ns"] = round(
        res["jax_callback_attached_ns"] - res["jax_callback_detached_ns"], 1)
    res["jax_callback_attached_ratio"] = round(
        res["jax_callback_attached_ns"] / max(res["jax_callback_detached_ns"], 1.0), 3)
    if "--json" in sys.argv:
        print(json.dumps(res))
        return
    print("JAX's own callbacks, per jax.debug.callback of a float32[4] in a jitted fori_loop "
          "of %d steps (best of 5), jax %s:" % (N, jax.__version__))
    print("  loop step, no callback             %10.1f ns" % res["jax_callback_step_baseline_ns"])
    print("  jax.debug.callback, no tracer      %10.1f ns" % res["jax_callback_detached_ns"])
    print("  jax.debug.callback, hcbtrace on it %10.1f ns  (+%.1f ns, %.3fx)"
          % (res["jax_callback_attached_ns"], res["jax_callback_attached_added_ns"],
             res["jax_callback_attached_ratio"]))


if __name__ == "__main__":
    main()
