# SPDX-License-Identifier: MIT
"""An unmodified modern-JAX program (jax >= 0.6 on CPU, 4 devices): the
target for hcbtrace's XLA FFI callback provider.  It uses only JAX's own
callbacks: jax.debug.print, jax.debug.callback, jax.experimental.io_callback
(ordered and not), jax.pure_callback and jax.experimental.buffer_callback,
under jit, vmap, scan, while_loop, cond, grad and pmap.

    python modern.py GO_FILE TRUTH_FILE [--reps N] [--all] [--until STOP_FILE] [--sites NAME,...]

Compiles and runs everything once (recording nothing, or with --all that
first run too: for a tracer there from the start), says "ready", waits for
GO_FILE to exist, runs everything REPS times (default 1), writes the
ground truth to TRUTH_FILE and says "done".  With --until it goes on running
everything (recording nothing) until STOP_FILE exists, before it says so.
With --sites only those of its sites run (kinds, dtypes, big, vmap, scan,
while, cond, grad, device1, pmap, pmap_pure, eager: RUNS below), for a
machine where compiling them all takes minutes (tests/kernel/checks).

The ground truth is JSON lines, one per callback call, written from inside
the callbacks with what XLA handed them:
    {"kind": "pure_callback", "site": "scan", "module": "jit_f_scan",
     "device": 0, "leaves": [{"dtype": "float32", "shape": [3],
     "data": BASE64 of the raw little-endian bytes}]}
kind is the callback API, module the XLA module it runs in (null where
the name is JAX's business and changes between versions: pmap's modules,
eager callbacks), device the device ordinal (from lax.axis_index under
pmap).
jax.debug.print's own callback only prints; its operands are recorded by
a debug.callback right beside it given the same operands, as kind
"debug_print" (and as that debug.callback's own call).  The first operand
of an ordered io_callback is XLA's token, which reaches no Python callback
and is not recorded.  tests/tools/check_jaxffi_truth.py compares an
hcbtrace recording of this program with the truth.
"""
import base64
import inspect
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

try:
    from jax.experimental.buffer_callback import buffer_callback
except ImportError:
    buffer_callback = None

# jax.debug.callback's partitioned=, from jax 0.6 on
JAX_VERSION = tuple(int(p) for p in jax.__version__.split(".")[:2])
PARTITIONED = {"partitioned": True} if JAX_VERSION >= (0, 6) else {}
VMAP_METHOD = "vmap_method" in inspect.signature(jax.pure_callback).parameters

BIG = 1 << 20            # elements of the one large operand
TRUTH = []
recording = False


def leaf(a):
    a = np.asarray(a)      # (np.ascontiguousarray would make a scalar 1-d)
    return {"dtype": a.dtype.name, "shape": list(a.shape),
            "data": base64.b64encode(a.tobytes(order="C")).decode()}


def note(kind, site, module, device, arrays):
    if not recording:
        return
    arrays = [np.asarray(a) for a in arrays]
    if device == "axis":          # pmap: the first operand is lax.axis_index
        device = int(arrays[0])
    TRUTH.append({"kind": kind, "site": site, "module": module, "device": device,
                  "leaves": [leaf(a) for a in arrays]})


def recorder(kind, site, module, device=0):
    def cb(*arrays):
        note(kind, site, module, device, arrays)
    return cb


def debug_print(site, module, fmt, *args, device=0, **kw):
    """jax.debug.print, and a debug.callback given the same operands that
    records them for both: the print's call and its own."""
    def cb(*arrays):
        note("debug_print", site, module, device, arrays)
        note("debug_callback", site + "-beside-print", module, device, arrays)
    jax.debug.print(fmt, *args, **kw)
    jax.debug.callback(cb, *args)


def pure(site, module, x, device=0, **kw):
    # vmap_method= is jax 0.4.34's; before, vectorized= said as much
    if "vmap_method" in kw and not VMAP_METHOD:
        kw["vectorized"] = kw.pop("vmap_method") == "expand_dims"

    def cb(*a):
        note("pure_callback", site, module, device, a)
        return np.asarray(a[-1]) + np.asarray(1, a[-1].dtype)
    return jax.pure_callback(cb, jax.ShapeDtypeStruct(x.shape, x.dtype), x, **kw)


def io(site, module, *args, ordered=False, device=0):
    def cb(*a):
        note("io_callback", site, module, device, a)
        return np.int32(len(TRUTH))
    return io_callback(cb, jax.ShapeDtypeStruct((), jnp.int32), *args, ordered=ordered)


def buf(site, module, x, device=0):
    def cb(ctx, out, *args):
        note("buffer_callback", site, module, device, args)
        np.from_dlpack(out)[...] = np.asarray(args[0])
    return buffer_callback(cb, jax.ShapeDtypeStruct(x.shape, x.dtype),
                           has_side_effect=True)(x)


# --- the sites: each function is jitted under its own name (module jit_NAME)

def f_kinds(x):
    m = "jit_f_kinds"
    debug_print("kinds", m, "x={} sum={}", x, x.sum())
    jax.debug.callback(recorder("debug_callback", "kinds", m), x * 2)
    jax.debug.callback(recorder("debug_callback", "kinds-ordered", m), x - 1, ordered=True)
    # partitioned= is jax 0.6's; before, it would reach the callback
    jax.debug.callback(recorder("debug_callback", "kinds-partitioned", m), x + 5,
                       **PARTITIONED)
    y = pure("kinds", m, x * 3)
    io("kinds", m, y, ordered=True)
    io("kinds-unordered", m, y + 1)
    if buffer_callback is not None:
        y = buf("kinds", m, y * 2)
    return y


def f_dtypes(x):
    m = "jit_f_dtypes"
    b16, f16 = x.astype(jnp.bfloat16) / 3, x.astype(jnp.float16) / 7
    i8, flag = (x * 37 - 100).astype(jnp.int8), x > 1.5
    jax.debug.callback(recorder("debug_callback", "dtypes", m), x, b16, f16, i8, flag)
    # ranks up to and past the 4 dims XLA keeps beside an operand's buffer
    jax.debug.callback(recorder("debug_callback", "dtypes-ranks", m), x.reshape(2, 1, 2, 1),
                       x.reshape(1, 2, 1, 2, 1), x.reshape(1, 1, 2, 1, 1, 2, 1, 1))
    debug_print("dtypes", m, "{} {} {} {}", b16, f16, i8, flag)
    io("dtypes", m, b16, i8, flag)
    # pure callbacks whose results go unused are compiled away
    return (pure("dtypes-bf16", m, b16), pure("dtypes-f16", m, f16),
            pure("dtypes-i8", m, i8), pure("dtypes-bool", m, flag))


def f_big(x):
    m = "jit_f_big"
    jax.debug.callback(recorder("debug_callback", "big", m), x)
    return pure("big", m, x[:8])


def f_vmap(xs):
    m = "jit_f_vmap"

    def one(x):
        jax.debug.callback(recorder("debug_callback", "vmap", m), x)
        debug_print("vmap", m, "{}", x)
        return pure("vmap-sequential", m, x, vmap_method="sequential") + \
            pure("vmap-expand", m, x * 2, vmap_method="expand_dims")
    return jax.vmap(one)(xs)


def f_scan(x):
    m = "jit_f_scan"

    def body(c, xi):
        debug_print("scan", m, "c={} xi={}", c, xi)
        c = pure("scan", m, c + xi)
        io("scan", m, c, ordered=True)
        return c, c * 2
    return lax.scan(body, x[0], x)


def f_while(x):
    m = "jit_f_while"

    def body(s):
        i, v = s
        jax.debug.callback(recorder("debug_callback", "while", m), i, v)
        return i + 1, pure("while", m, v) * 0.5
    return lax.while_loop(lambda s: s[0] < 3, body, (0, x))


def f_cond(x, p):
    m = "jit_f_cond"

    def yes(v):
        debug_print("cond-yes", m, "yes {}", v)
        return pure("cond-yes", m, v)

    def no(v):
        jax.debug.callback(recorder("debug_callback", "cond-no", m), v * -1)
        return v
    return lax.cond(p, yes, no, x)


def f_grad(w):
    m = "jit_f_grad"

    def loss(w):
        jax.debug.callback(recorder("debug_callback", "grad-w", m), w)
        h = jnp.tanh(w * 3)
        debug_print("grad-h", m, "h={}", h)
        return (h * h).sum()
    return jax.grad(loss)(w)


def f_device1(x):
    m = "jit_f_device1"
    debug_print("device1", m, "{}", x, device=1)
    return pure("device1", m, x, device=1)


def f_pmap(x):
    m = None   # pmap_f_pmap in some versions, jit__fun in others
    i = lax.axis_index("i")
    jax.debug.callback(recorder("debug_callback", "pmap", m, "axis"), i, x)
    debug_print("pmap", m, "{} {}", i, x * 2, device="axis")
    io("pmap", m, i, x + 1, device="axis")
    return x


def f_pmap_pure(x):
    m = None
    i = lax.axis_index("i")

    def cb(i, v):
        note("pure_callback", "pmap", m, "axis", (i, v))
        return np.asarray(v) * 2
    return jax.pure_callback(cb, jax.ShapeDtypeStruct(x.shape, x.dtype), i, x)


def eager(x):
    # eager pure_callback / io_callback reach XLA as executables of their own
    def pcb(v):
        note("pure_callback", "eager", None, 0, (v,))
        return np.asarray(v)

    def icb(v):
        note("io_callback", "eager", None, 0, (v,))
        return np.int32(0)
    jax.pure_callback(pcb, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    io_callback(icb, jax.ShapeDtypeStruct((), jnp.int32), x)


# each site's run, in order: (name, call(jits, x, xs, rep))
RUNS = [
    ("kinds", lambda j, x, xs, rep: j["kinds"](x)),
    ("dtypes", lambda j, x, xs, rep: j["dtypes"](jnp.arange(4.0, dtype=jnp.float32) + rep)),
    ("big", lambda j, x, xs, rep: j["big"](jnp.arange(BIG, dtype=jnp.float32) * 0.5 + rep)),
    ("vmap", lambda j, x, xs, rep: j["vmap"](jnp.arange(6.0, dtype=jnp.float32).reshape(3, 2) + rep)),
    ("scan", lambda j, x, xs, rep: j["scan"](jnp.arange(4.0, dtype=jnp.float32) + rep)),
    ("while", lambda j, x, xs, rep: j["while"](x)),
    ("cond", lambda j, x, xs, rep: (j["cond"](x, True).block_until_ready(), j["cond"](x, False))),
    ("grad", lambda j, x, xs, rep: j["grad"](x / 10)),
    ("device1", lambda j, x, xs, rep: j["device1"](jax.device_put(x * 5, jax.devices()[1]))),
    ("pmap", lambda j, x, xs, rep: j["pmap"](xs)),
    ("pmap_pure", lambda j, x, xs, rep: j["pmap_pure"](xs)),
    ("eager", lambda j, x, xs, rep: eager(x + 7)),
]


def run_all(jits, rep, sites=None):
    x = jnp.arange(3.0, dtype=jnp.float32) + rep
    xs = jnp.arange(8.0, dtype=jnp.float32).reshape(4, 2) + rep
    for name, call in RUNS:
        if sites is None or name in sites:
            jax.block_until_ready(call(jits, x, xs, rep))
    jax.effects_barrier()


def main():
    global recording
    go, truth = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 1
    jits = {n[2:]: (jax.pmap(f, axis_name="i") if n.startswith("f_pmap") else jax.jit(f))
            for n, f in globals().items() if n.startswith("f_")}
    recording = "--all" in sys.argv
    sites = sys.argv[sys.argv.index("--sites") + 1].split(",") if "--sites" in sys.argv else None
    assert sites is None or set(sites) <= {n for n, _ in RUNS}, sites
    run_all(jits, 0, sites)
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.02)
    recording = True
    for rep in range(reps):
        run_all(jits, rep + 1, sites)
    recording = False
    until = sys.argv[sys.argv.index("--until") + 1] if "--until" in sys.argv else None
    while until and not os.path.exists(until):
        run_all(jits, 0, sites)
    with open(truth + ".tmp", "w") as f:
        for t in TRUTH:
            f.write(json.dumps(t) + "\n")
    os.rename(truth + ".tmp", truth)
    print("done %d" % len(TRUTH), flush=True)
    time.sleep(0.3)


if __name__ == "__main__":
    main()
