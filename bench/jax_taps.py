#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/jax_taps.py HCBTRACE [--json] - what a tap costs a JAX program.

One jitted loop of N steps, each step tapping a float32[4], timed four ways
in the same run: no tap (baseline); hcbtap.id_tap with no tracer attached;
hcbtap.id_tap while `hcbtrace record` is attached to this process; and
jax.debug.callback doing the same (handing the array to a Python function
that keeps it).  Per tap: (time - baseline) / N, best of 5 runs.
Needs the jax venv with hcbtap (scripts/lib.sh: make_venv_jax).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

import hcbtap
from hcbtap import _native

HCB = sys.argv[1]
N = 2000
kept = []


def keep(x):
    kept.append(x)


def loop(tap):
    def body(i, x):
        x = x * 1.0001 + 1.0
        if tap == "hcbtap":
            x = hcbtap.id_tap(x, what="bench")
        elif tap == "callback":
            jax.debug.callback(keep, x)
        return x
    return jax.jit(lambda x: jax.lax.fori_loop(0, N, body, x))


def best(f, runs=5):
    x = jnp.zeros(4, jnp.float32)
    f(x).block_until_ready()
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f(x).block_until_ready()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    base, tap, cb = loop(None), loop("hcbtap"), loop("callback")
    t_base = best(base)
    t_detached = best(tap)
    t_cb = best(cb)
    kept.clear()
    with tempfile.TemporaryDirectory() as d:
        # hcbtap alone: its cost, not that of watching jax.debug.callback too
        rec = subprocess.Popen([HCB, "record", "-q", "--provider", "hcbtap", "-p", str(os.getpid()), "-o",
                                os.path.join(d, "taps.hcbcap")], stderr=subprocess.DEVNULL)
        # attached once a tap is counted
        for _ in range(500):
            before = _native.issued(0)
            tap(jnp.zeros(4, jnp.float32)).block_until_ready()
            if _native.issued(0) > before:
                break
            time.sleep(0.01)
        t_attached = best(tap)
        rec.send_signal(2)
        rec.wait()
    per = lambda t: max(0.0, (t - t_base) / N * 1e9)
    res = {
        "jax_step_baseline_ns": round(t_base / N * 1e9, 1),
        "jax_tap_detached_ns": round(per(t_detached), 1),
        "jax_tap_attached_ns": round(per(t_attached), 1),
        "jax_debug_callback_ns": round(per(t_cb), 1),
    }
    res["jax_debug_callback_vs_tap_detached"] = round(
        res["jax_debug_callback_ns"] / max(res["jax_tap_detached_ns"], 1.0), 1)
    if "--json" in sys.argv:
        print(json.dumps(res))
    else:
        print("JAX, per tap of a float32[4] in a jitted fori_loop of %d steps (best of 5), jax %s:"
              % (N, jax.__version__))
        print("  loop step, no tap                %9.1f ns" % res["jax_step_baseline_ns"])
        print("  hcbtap.id_tap, detached          %9.1f ns" % res["jax_tap_detached_ns"])
        print("  hcbtap.id_tap, hcbtrace attached %9.1f ns" % res["jax_tap_attached_ns"])
        print("  jax.debug.callback               %9.1f ns  (%.1fx a detached tap)"
              % (res["jax_debug_callback_ns"], res["jax_debug_callback_vs_tap_detached"]))


if __name__ == "__main__":
    main()
