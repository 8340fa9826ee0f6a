#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/jax_callbacks.py HCBTRACE [--json] - what hcbtrace costs an
unmodified JAX program's own callbacks (the jax-callback provider).

One jitted loop of N steps, each step handing a float32[4] to
jax.debug.callback (a Python function that keeps it), timed in the same
run: the loop without the callback (baseline), with the callback and no
tracer, and with the callback while `hcbtrace record` is attached to this
process.  Per callback: (time - baseline) / N, best of 5 runs.  The same
for jax.debug.print of the same operand (its stdout to /dev/null), whose
text hcbtrace takes from the program's own str concatenation (issue 29).
And what that probe costs the rest of the program: a plain Python loop
of M str concatenations (a + b), per concatenation, with and without
hcbtrace attached, and attached with --no-text (that probe left off).  Needs a venv with jax >= 0.4.26 and no hcbtap
(scripts/lib.sh: make_venv_jax12; an older one: scripts/jax-matrix makes
one per release).
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


def loop(callback, printed=False):
    def body(i, x):
        x = x * 1.0001 + 1.0
        if printed:
            jax.debug.print("x={x}", x=x)
        elif callback:
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


M = 200000


def concat_ns(runs=5):
    """Per str concatenation (a + b) of a plain Python loop, best of runs."""
    a, b = "abc" * 4, "de"
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(M):
            s = a + b
        t.append(time.perf_counter() - t0)
    # the loop's own cost: the same loop without the concatenation
    e = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(M):
            s = a
        e.append(time.perf_counter() - t0)
    del s
    return max(0.0, (min(t) - min(e)) / M * 1e9)


def attached(path, f, *opts):
    """Record this process to path (with opts); return once its first
    callback is in."""
    # the callbacks' provider: on jaxlib 0.4.31 the outfeed one answers first
    rec = subprocess.Popen([HCB, "record", "-q", "--provider", "jax-callback", *opts,
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
    base, cb, pr = loop(False), loop(True), loop(False, True)
    stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
    t_base = best(base)
    t_detached = best(cb)
    t_print_detached = best(pr)
    c_detached = concat_ns()
    with tempfile.TemporaryDirectory() as d:
        rec = attached(os.path.join(d, "taps.jsonl"), cb)
        t_attached = best(cb)
        t_print_attached = best(pr)
        c_attached = concat_ns()
        rec.send_signal(2)
        rec.wait()
    with tempfile.TemporaryDirectory() as d:
        rec = attached(os.path.join(d, "taps.jsonl"), cb, "--no-text")
        c_no_text = concat_ns()
        rec.send_signal(2)
        rec.wait()
    sys.stdout.close()
    sys.stdout = stdout
    per = lambda t: max(0.0, (t - t_base) / N * 1e9)
    res = {
        "jax_callback_step_baseline_ns": round(t_base / N * 1e9, 1),
        "jax_callback_detached_ns": round(per(t_detached), 1),
        "jax_callback_attached_ns": round(per(t_attached), 1),
        "jax_print_detached_ns": round(per(t_print_detached), 1),
        "jax_print_attached_ns": round(per(t_print_attached), 1),
        "py_concat_detached_ns": round(c_detached, 1),
        "py_concat_attached_ns": round(c_attached, 1),
        "py_concat_no_text_ns": round(c_no_text, 1),
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
    print("  jax.debug.print, no tracer         %10.1f ns" % res["jax_print_detached_ns"])
    print("  jax.debug.print, hcbtrace on it    %10.1f ns  (+%.1f ns)"
          % (res["jax_print_attached_ns"],
             res["jax_print_attached_ns"] - res["jax_print_detached_ns"]))
    print("A Python str concatenation (a + b) elsewhere in the program, %d of them (best of 5):"
          % M)
    print("  no tracer                          %10.1f ns" % res["py_concat_detached_ns"])
    print("  hcbtrace attached                  %10.1f ns  (+%.1f ns)"
          % (res["py_concat_attached_ns"],
             res["py_concat_attached_ns"] - res["py_concat_detached_ns"]))
    print("  hcbtrace attached, --no-text       %10.1f ns  (+%.1f ns)"
          % (res["py_concat_no_text_ns"],
             res["py_concat_no_text_ns"] - res["py_concat_detached_ns"]))


if __name__ == "__main__":
    main()
