# SPDX-License-Identifier: MIT
"""A dense, unmodified JAX program for attaching mid-run (issue 36): many
jax.debug.print, jax.debug.callback, pure_callback and io_callback calls a
second, under jit, scan, vmap, ordered=True and pmap over 4 CPU devices,
several threads at once, running from its start to its end.

    python dense.py GO_FILE STOP_FILE TRUTH_FILE [--rounds N] [--pace S]

Runs round after round (k = 0, 1, ...) from the start, and says "running"
after the first.  At the first round boundary where GO_FILE exists it says
"go K" (K: the next round), runs N more rounds (default 20), says "done
K2" (K2: the first round after them) and goes on until STOP_FILE exists;
then writes its truth to TRUTH_FILE, says "end" and exits at once.  --pace S sleeps S
seconds between rounds (default 0).

Every call site has a name of its own: a print's format string (each
begins with its site and "k={k}", the round), a callback's function.
Every line a print writes holds its round, so a line printed in rounds
K..K2-1 is printed in no other; a pmap print says its device as "dev=D".
The truth is JSON lines, one per callback call, written from inside the
callbacks with what XLA handed them (tests/tools/check_dense.py compares a
recording with it and with the program's stdout):
    {"site": "log_scan", "device": 0, "k": 5,
     "leaves": [{"dtype": "int32", "shape": [], "data": BASE64}, ...]}
"""
import base64
import json
import os
import sys
import time

flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in flags:
    os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=4").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.experimental import io_callback  # noqa: E402

TRUTH = []


def note(site, device, arrays):
    arrays = [np.asarray(a) for a in arrays]
    TRUTH.append({"site": site, "device": int(device), "k": int(arrays[0]),
                  "leaves": [{"dtype": a.dtype.name, "shape": list(a.shape),
                              "data": base64.b64encode(a.tobytes(order="C")).decode()}
                             for a in arrays]})


# the callbacks: each a site of its own, named by its function
def log_jit(k, x):
    note("log_jit", 0, (k, x))


def log_scan(k, i, c):
    note("log_scan", 0, (k, i, c))


def log_pmap(k, d, x):
    note("log_pmap", d, (k, d, x))


def pure_vmap(k, x):
    note("pure_vmap", 0, (k, x))
    return np.asarray(x) * 2


def io_plain(k, x):
    note("io_plain", 0, (k, x))
    return np.int32(1)


def io_ordered(k, x):
    note("io_ordered", 0, (k, x))
    return np.int32(2)


def pure_pmap(k, d, x):
    note("pure_pmap", d, (k, d, x))
    return np.asarray(x) + 1


I32 = jax.ShapeDtypeStruct((), jnp.int32)


@jax.jit
def f_jit(k, x):
    jax.debug.print("jit k={k} sum={s:.3f} x={x}", k=k, s=jnp.sum(x), x=x)
    jax.debug.callback(log_jit, k, x * 2)
    return io_callback(io_plain, I32, k, x + 1)


@jax.jit
def f_scan(k, x):
    def body(c, i):
        jax.debug.print("scan k={k} i={i} c={c}", k=k, i=i, c=c)
        jax.debug.callback(log_scan, k, i, c)
        return c + i, c
    return lax.scan(body, x, jnp.arange(4))[0]


@jax.jit
def f_vmap(k, xs):
    def one(x):
        jax.debug.print("vmap k={k} x={x:.2f}", k=k, x=x)
        return jax.pure_callback(pure_vmap, jax.ShapeDtypeStruct(x.shape, x.dtype), k, x,
                                 vmap_method="sequential")
    return jax.vmap(one)(xs)


@jax.jit
def f_ordered(k, x):
    jax.debug.print("ordered k={k} first {x}", k=k, x=x, ordered=True)
    r = io_callback(io_ordered, I32, k, x, ordered=True)
    jax.debug.print("ordered k={k} second {x}", k=k, x=x + 1, ordered=True)
    return r


def per_device(k, x):
    d = lax.axis_index("i")
    jax.debug.print("pmap k={k} dev={d} x={x}", k=k, d=d, x=x)
    jax.debug.callback(log_pmap, k, d, x)
    return jax.pure_callback(pure_pmap, jax.ShapeDtypeStruct(x.shape, x.dtype), k, d, x)


f_pmap = jax.pmap(per_device, axis_name="i", in_axes=(None, 0))


def run_round(k):
    kk = jnp.int32(k)
    f_jit(kk, jnp.arange(3.0, dtype=jnp.float32) + k)
    f_scan(kk, jnp.int32(k))
    f_vmap(kk, jnp.arange(3.0, dtype=jnp.float32) / 3 + k)
    f_ordered(kk, jnp.float32(k))
    f_pmap(kk, jnp.arange(8.0, dtype=jnp.float32).reshape(4, 2) + k)
    jax.effects_barrier()


def arg(name, default, kind):
    return kind(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    go, stop, truth = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds, pace = arg("--rounds", 20, int), arg("--pace", 0.0, float)
    k = 0
    run_round(k)
    print("running", flush=True)
    window = None
    while True:
        k += 1
        if window is None and os.path.exists(go):
            sys.stdout.flush()
            print("go %d" % k, flush=True)
            window = k + rounds
        if window is not None and k == window:
            sys.stdout.flush()
            print("done %d" % k, flush=True)
        if window is not None and k >= window and os.path.exists(stop):
            break
        run_round(k)
        if pace:
            time.sleep(pace)
    with open(truth + ".tmp", "w") as f:
        for t in TRUTH:
            f.write(json.dumps(t) + "\n")
    os.rename(truth + ".tmp", truth)
    sys.stdout.flush()
    print("end %d" % len(TRUTH), flush=True)
    # out at once, as a long run is ended: the interpreter does not free
    # its objects first, so a tracer reading a last call's callable after
    # this finds the process gone, not another object at its address
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
