#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/jax_callbacks.py HCBTRACE [--json [--prefix P]] [--windows K] [--wall] [--quick] [-v]
- what attaching hcbtrace costs an unmodified JAX program (the jax-callback
provider), detached against attached, in one run: a table, or one JSON
object (--prefix P: every key starts with P).

Per call, in a jitted fori_loop of N steps on a float32[4]: jax.debug.callback
(a Python function that keeps it), jax.debug.print (stdout to /dev/null; its
text hcbtrace takes from the program's own str concatenation, issue 29),
jax.experimental.io_callback and jax.pure_callback: (loop - bare loop) / N.
On jaxlib >= 0.6 these calls end in XLA FFI handlers; before (0.4.26 to 0.5.x)
in the legacy custom call xla_python_cpu_callback: the same script measures
whichever path its venv's jaxlib takes, and says which.

Per operation of unrelated Python work (the bare loop subtracted, the
garbage collector off as timeit has it): a str concatenation (a + b), an
iteration of a dict-heavy loop, and json.dumps of a small nested object;
attached with the default and with --no-text (the print-text probe left off).

K windows (default 10), each three sides: detached, attached, attached with
--no-text, each attached side its own `hcbtrace record -p` of this process,
started and stopped within it, and measured after 2 s of the loops (a long
job's steady state: the probes a site's naming needs are off by then); odd windows take the sides in reverse order
(ABBA), so that a busy machine's load, which comes in phases of seconds,
falls on every side.  Within a side the loops take turns run by run; each
figure is the best of R runs over all windows, in CPU time of the process
(all its threads; --wall: wall-clock time).  --quick: fewer and shorter
(a check that it runs, not figures); -v: every window's figures on stderr.
Needs root and a venv with jax >= 0.4.26 (hcbtap not needed): scripts/lib.sh
make_venv_jax12 for the newest, make_venv for jaxlib 0.4.31 (the legacy
path); scripts/jax-matrix makes one per release.
"""
import gc
import json
import os
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
from jax.experimental import io_callback

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit("usage: " + __doc__.split("\n")[0])
HCB = sys.argv[1]
QUICK = "--quick" in sys.argv
VERBOSE = "-v" in sys.argv
# CPU time of the process, all its threads (a probe's trap and BPF program
# run in the thread that hits it, as its system time): on a busy machine the
# time spent waiting for a CPU, which wall time counts, is most of the noise
CLOCK = time.perf_counter if "--wall" in sys.argv else time.process_time
N = 50 if QUICK else 100           # callbacks a jitted loop
RUNS = 3 if QUICK else 6           # a jitted loop's runs a window, best taken
M = 20000 if QUICK else 100000     # iterations of a Python work loop
WORK_RUNS = 3 if QUICK else 10     # its runs a window, best taken
SETTLE_S = 2.0                     # attached, before measuring: see attached()
kept = []

KINDS = [("callback", "jax.debug.callback"), ("print", "jax.debug.print"),
         ("io_callback", "io_callback"), ("pure_callback", "jax.pure_callback")]
WORK = [("concat", "str concatenation a + b"),
        ("dict", "dict-heavy loop, an iteration"),
        ("json", "json.dumps, small nested object")]


def option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def keep(x):
    kept.append(x)


def echo(x):
    return np.asarray(x)


def loop(kind):
    """A jitted fori_loop of N steps, each making one call of kind (None:
    the bare loop)."""
    shape = jax.ShapeDtypeStruct((4,), jnp.float32)

    def body(i, x):
        x = x * 1.0001 + 1.0
        if kind == "callback":
            jax.debug.callback(keep, x)
        elif kind == "print":
            jax.debug.print("x={x}", x=x)
        elif kind == "io_callback":
            io_callback(keep, None, x)
        elif kind == "pure_callback":
            x = jax.pure_callback(echo, shape, x)
        return x
    return jax.jit(lambda x: jax.lax.fori_loop(0, N, body, x))


def run_loop(f):
    """Seconds (CLOCK's) of one run of f."""
    kept.clear()
    t0 = CLOCK()
    f(jnp.zeros(4, jnp.float32)).block_until_ready()
    jax.effects_barrier()
    return CLOCK() - t0


A, B = "abc" * 4, "de"
OBJ = {"step": 12, "loss": 0.315, "tags": ["train", "eval"],
       "metrics": {"acc": [0.5, 0.75, 0.875], "lr": 1e-3, "done": False, "note": None}}


def w_empty(m):
    for i in range(m):
        pass


def w_concat(m):
    for i in range(m):
        s = A + B
    return s


def w_dict(m):
    d = {}
    for i in range(m):
        e = {"step": i, "loss": 0.5}
        e["lr"] = 1e-3
        d[i & 255] = e.get("step", 0) + len(e)
        del e["lr"]
    return d


def w_json(m):
    for i in range(m):
        s = json.dumps(OBJ)
    return s


# iterations of each work loop: a json.dumps is ~100x a concatenation
WORK_M = {"empty": M, "concat": M, "dict": M // 4, "json": M // 50}


def best_work():
    """Best seconds per iteration of each work loop, the bare loop's
    included; they take turns, run by run, so that the bare loop is
    measured in the same phases of a busy machine as the work it is
    subtracted from."""
    best = {}
    gc.disable()    # as timeit does: a collection is not the probe's
    try:
        for _ in range(WORK_RUNS):
            for name, m in WORK_M.items():
                f = globals()["w_" + name]
                t0 = CLOCK()
                f(m)
                best[name] = min(best.get(name, 1e9), (CLOCK() - t0) / m)
    finally:
        gc.enable()
    return best


def measure(loops):
    """One window's figures: per call of each kind (ns), per work item (ns).
    The loops take turns, run by run, so that a burst of load falls on all
    of them, and each keeps its best run."""
    res, best = {}, {}
    for _ in range(RUNS):
        for kind, f in loops.items():
            best[kind] = min(best.get(kind, 1e9), run_loop(f))
    for kind, _ in KINDS:
        res[kind] = max(0.0, (best[kind] - best[None]) / N * 1e9)
    res["step"] = best[None] / N * 1e9
    work = best_work()
    for name, _ in WORK:
        res[name] = max(0.0, (work[name] - work["empty"]) * 1e9)
    return res


def attach(path, f, opts):
    """Record this process to path (with opts); return once its first
    callback is in."""
    # the callbacks' provider: on jaxlib 0.4.31 the outfeed one answers first
    with open(path + ".err", "w") as err:
        rec = subprocess.Popen([HCB, "record", "-q", "--provider", "jax-callback", *opts,
                                "-p", str(os.getpid()), "-o", path], stderr=err)
    for _ in range(3000):
        f(jnp.zeros(4, jnp.float32)).block_until_ready()
        jax.effects_barrier()
        if os.path.exists(path) and b'"type":"tap"' in open(path, "rb").read():
            return rec
        if rec.poll() is not None:
            break
        time.sleep(0.01)
    if rec.poll() is None:
        rec.kill()
        rec.wait()
    with open(path + ".err") as err:
        why = err.read().strip()
    sys.exit("bench/jax_callbacks.py: hcbtrace record%s never saw a callback (exit %d): %s"
             % ("".join(" " + o for o in opts), rec.returncode, why))


def attached(loops, opts):
    with tempfile.TemporaryDirectory() as d:
        rec = attach(os.path.join(d, "taps.jsonl"), loops["callback"], opts)
        try:
            # each call site's first calls while attached (naming it) are
            # not the steady state this measures: a long job's, once the
            # probes naming needs went (a second of quiet sites)
            x = jnp.zeros(4, jnp.float32)
            settle = time.perf_counter() + (0.3 if QUICK else SETTLE_S)
            while time.perf_counter() < settle:
                for f in loops.values():
                    f(x).block_until_ready()
                jax.effects_barrier()
            return measure(loops)
        finally:
            rec.send_signal(2)
            rec.wait()


def keep_best(acc, res):
    for k, v in res.items():
        acc[k] = min(acc.get(k, v), v)


def windows(k):
    """Best of k windows each: detached, attached, attached with --no-text."""
    loops = {kind: loop(kind) for kind in [None] + [k_ for k_, _ in KINDS]}
    x = jnp.zeros(4, jnp.float32)
    for f in loops.values():
        f(x).block_until_ready()
    jax.effects_barrier()
    det, att, notext = {}, {}, {}
    for w in range(k):
        sides = [("det", None), ("att", []), ("notext", ["--no-text"])]
        if w % 2:
            sides.reverse()
        for side, opts in sides:
            t0 = time.perf_counter()
            res = measure(loops) if opts is None else attached(loops, opts)
            res["window_s"] = time.perf_counter() - t0
            keep_best({"det": det, "att": att, "notext": notext}[side], res)
            if VERBOSE:
                print("window %d %-6s %s" % (w, side, " ".join(
                    "%s=%.1f" % kv for kv in sorted(res.items(), key=str))), file=sys.stderr)
    return det, att, notext


def version_tuple(v):
    return tuple(int(p) for p in v.split(".")[:3] if p.isdigit())


def results(det, att, notext, k):
    legacy = version_tuple(jaxlib.__version__) < (0, 6)
    res = {"jax_version": jax.__version__, "jaxlib_version": jaxlib.__version__,
           "python_version": sys.version.split()[0],
           "jax_callback_path": "legacy" if legacy else "ffi",
           "clock": "wall" if CLOCK is time.perf_counter else "cpu",
           "jax_callback_calls": N, "windows": k, "runs_per_window": RUNS,
           "jax_callback_step_baseline_ns": round(det["step"], 1)}
    for kind, _ in KINDS:
        d, a = det[kind], att[kind]
        res["jax_%s_detached_ns" % kind] = round(d, 1)
        res["jax_%s_attached_ns" % kind] = round(a, 1)
        res["jax_%s_attached_added_ns" % kind] = round(a - d, 1)
        res["jax_%s_attached_ratio" % kind] = round(a / max(d, 1.0), 3)
        res["jax_%s_no_text_ns" % kind] = round(notext[kind], 1)
    for name, _ in WORK:
        d, a, n = det[name], att[name], notext[name]
        res["py_%s_detached_ns" % name] = round(d, 1)
        res["py_%s_attached_ns" % name] = round(a, 1)
        res["py_%s_no_text_ns" % name] = round(n, 1)
        res["py_%s_attached_ratio" % name] = round(a / max(d, 0.1), 3)
        res["py_%s_no_text_ratio" % name] = round(n / max(d, 0.1), 3)
    return res


def row(what, d, a, digits):
    us = lambda ns: "%12.*f" % (digits, ns / 1000.0)
    added = "%+12.*f" % (digits, (a - d) / 1000.0)
    ratio = "%7.2fx" % (a / d) if d > 0 else "      -"
    print("  %-40s%s%s%s %s" % (what, us(d), us(a), added, ratio))


def table(res):
    print("What attaching hcbtrace costs an unmodified JAX program (bench/jax_callbacks.py):"
          " jax %s, jaxlib %s (%s path), Python %s; %s, best of %d windows x %d runs,"
          " detached and attached alternating"
          % (res["jax_version"], res["jaxlib_version"], res["jax_callback_path"],
             res["python_version"],
             {"cpu": "CPU time of the process", "wall": "wall-clock time"}[res["clock"]],
             res["windows"], res["runs_per_window"]))
    head = "%12s%12s%12s %7s" % ("detached us", "attached us", "added us", "ratio")
    print("  %-40s%s" % ("per call, jitted fori_loop of %d, float32[4]" % N, head))
    for kind, what in KINDS:
        row(what, res["jax_%s_detached_ns" % kind], res["jax_%s_attached_ns" % kind], 1)
        if kind == "print":
            row("  the same, attached with --no-text", res["jax_print_detached_ns"],
                res["jax_print_no_text_ns"], 1)
    print("  (the bare loop's step: %.1f ns)" % res["jax_callback_step_baseline_ns"])
    print("  %-40s%s" % ("per operation of unrelated Python work", head))
    for name, what in WORK:
        d = res["py_%s_detached_ns" % name]
        row(what, d, res["py_%s_attached_ns" % name], 3)
        row("  the same, attached with --no-text", d, res["py_%s_no_text_ns" % name], 3)


def main():
    k = int(option("--windows", 2 if QUICK else 10))
    stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
    try:
        det, att, notext = windows(k)
    finally:
        sys.stdout.close()
        sys.stdout = stdout
    res = results(det, att, notext, k)
    if "--json" in sys.argv:
        prefix = option("--prefix", "")
        print(json.dumps({prefix + key: v for key, v in res.items()}))
        return
    table(res)


if __name__ == "__main__":
    main()
