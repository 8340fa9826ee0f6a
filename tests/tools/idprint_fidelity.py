#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""idprint_fidelity.py - what hcbtrace's text must be, from the real thing.

Writes JSONL recordings of generated taps and, beside each, the text the
reference prints for them, for tests/bats/fidelity.bats to replay and compare
byte for byte:

  arrays OUT N SEED   N random arrays over all 17 dtypes (ranks 0-4, sizes
                      around the threshold, magnitudes 1e-12..1e20, nan, inf,
                      -0.0), one tap each, in groups: group 0 with id_print's
                      options (threshold 1024), the others with random
                      precision / linewidth / threshold / edgeitems /
                      suppress.  The reference: numpy.array2string (numpy
                      1.26.4, ml_dtypes for bfloat16 and float8).
                      Files: OUT/arrays-K.jsonl, .txt, .opts (replay options).
  pytrees OUT N SEED  N random nested tuples / lists / dicts of arrays, some
                      too wide for one line, printed by jax 0.4.31's own
                      host_callback.id_print(..., tap_with_device=True, what=..):
                      its id_tap of _print_tap_func.  Files: OUT/pytrees.jsonl, .txt.

Each tap's kwargs carry its case name (what: "case-7"), so a difference is
easy to trace back; the seed is printed, and the same seed gives the same
files.  Needs the test venv (scripts/lib.sh).
"""
import functools
import io
import json
import math
import os
import random
import sys

import numpy as np
import ml_dtypes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_arrayprint_golden as gen  # noqa: E402  (its array generators)

PLATFORM = "TFRT_CPU_%u"   # how jax 0.4.31 names CPU devices: str(device)
DEVICE = "TFRT_CPU_0"


def elem(x, dtype):
    """One element as JSONL data: exact, non-finite as strings."""
    if dtype == "bool":
        return bool(x)
    if dtype.startswith(("int", "uint")):
        return int(x)
    if dtype.startswith("complex"):
        return [elem(x.real, "float64"), elem(x.imag, "float64")]
    v = float(x)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def array_json(a):
    name = a.dtype.name
    flat = np.ascontiguousarray(a).reshape(-1)
    return {"dtype": name, "shape": list(a.shape), "data": [elem(x, name) for x in flat]}


def tap(i, kwargs, tree, arrays):
    return json.dumps({"type": "tap", "device": 0, "seq": i, "consumer": 1000 + i,
                       "name": "case-%d" % i, "kwargs": kwargs, "tree": tree,
                       "ts_ns": 1795000000000000000 + i,
                       "arrays": [array_json(a) for a in arrays]},
                      allow_nan=False, separators=(",", ":"))


def session():
    return json.dumps({"type": "session", "version": 1, "pid": 1, "provider": "hcbtap",
                       "platform": PLATFORM}, separators=(",", ":"))


def random_shape(rng):
    kind = rng.random()
    if kind < 0.12:   # around id_print's threshold of 1024 elements
        return rng.choice(((1023,), (1024,), (1025,), (32, 32), (33, 31), (2, 512), (2, 513),
                           (4, 16, 16), (1, 1025), (5, 205), (2, 2, 2, 129)))
    if kind < 0.25:   # long rows: wrapping
        return rng.choice(((rng.randint(7, 80),), (2, rng.randint(7, 50)),
                           (2, 2, rng.randint(7, 30))))
    return gen.rand_shape(rng, rng.choice((0, 0, 1, 1, 1, 2, 2, 3, 4)))


def random_opts(rng):
    """Replay options and the numpy arguments they stand for."""
    o = {"threshold": rng.choice((rng.randint(0, 60), 1024, 2000)),
         "precision": rng.randint(0, 12),
         "linewidth": rng.randint(20, 140),
         "edgeitems": rng.randint(1, 4),
         "suppress": rng.random() < 0.5}
    args = ["--threshold", str(o["threshold"]), "--precision", str(o["precision"]),
            "--linewidth", str(o["linewidth"]), "--edgeitems", str(o["edgeitems"])]
    if o["suppress"]:
        args.append("--suppress")
    kw = {"threshold": o["threshold"], "precision": o["precision"],
          "max_line_width": o["linewidth"], "edgeitems": o["edgeitems"],
          "suppress_small": o["suppress"]}
    return args, kw


def arrays(out, n, seed):
    rng = random.Random("arrays-%s" % seed)
    names = list(gen.DTYPES)
    groups = [([], {"threshold": 1024})] + [random_opts(rng) for _ in range(5)]
    per = [n // 2] + [n // 10] * 5          # half with id_print's options
    per[0] += n - sum(per)
    for k, ((args, kw), count) in enumerate(zip(groups, per)):
        base = "%s/arrays-%d" % (out, k)
        with open(base + ".jsonl", "w") as rec, open(base + ".txt", "w") as txt:
            rec.write(session() + "\n")
            for i in range(count):
                name = names[i % len(names)]
                a = gen.make_array(rng, name, random_shape(rng))
                what = "case-%d-%d" % (k, i)
                rec.write(tap(i, {"what": what}, "*", [a]) + "\n")
                txt.write("device: %s what: %s\n%s\n" % (DEVICE, what, np.array2string(a, **kw)))
        with open(base + ".opts", "w") as f:
            f.write(" ".join(args) + "\n")
    print("arrays: %d taps in %d groups, seed %s" % (n, len(groups), seed))


def random_tree(rng, depth, leaves):
    """A pytree of small arrays, and our tree syntax for it."""
    kind = rng.random() if depth < 3 else 1.0
    if kind < 0.25:
        items = [random_tree(rng, depth + 1, leaves) for _ in range(rng.randint(1, 4))]
        return tuple(v for v, _ in items), "( " + " ".join(s for _, s in items) + " )"
    if kind < 0.45:
        items = [random_tree(rng, depth + 1, leaves) for _ in range(rng.randint(1, 4))]
        return [v for v, _ in items], "[ " + " ".join(s for _, s in items) + " ]"
    if kind < 0.6:
        keys = rng.sample(["a", "b", "c", "x", "loss", "w", "zeta", "k1"], rng.randint(1, 4))
        items = {k: random_tree(rng, depth + 1, leaves) for k in keys}
        # id_print and our printer both sort the keys; our syntax lists them sorted too
        return ({k: v for k, (v, _) in items.items()},
                "{ " + " ".join("%s=%s" % (k, items[k][1]) for k in sorted(items)) + " }")
    name = rng.choice(("float32", "int32", "bool", "float16", "float64", "int8", "uint8",
                       "complex64", "bfloat16"))
    shape = rng.choice(((), (), (2,), (3,), (rng.randint(1, 12),), (2, 3), (2, 2, 2)))
    a = gen.make_array(rng, name, shape)
    if name != "bool" and not name.startswith(("int", "uint")):
        # id_print printed on JAX's callback thread, which XLA runs with
        # denormals-are-zero: numpy then took subnormals for zeros in some
        # of its steps and not in others.  hcbtrace prints as numpy does
        # in a normal process (the arrays test checks subnormals against
        # that); here they are left out.
        tiny = float(ml_dtypes.finfo(a.dtype).tiny) if name in ("bfloat16",) else \
            float(np.finfo(np.complex64 if name == "complex64" else a.dtype).tiny)
        with np.errstate(invalid="ignore"):
            if name.startswith("complex"):
                a = (np.where(np.abs(a.real) < tiny, 0 * a.real, a.real) +
                     1j * np.where(np.abs(a.imag) < tiny, 0 * a.imag, a.imag)).astype(a.dtype)
            else:
                a = np.where(np.abs(a.astype(np.float64)) < tiny, a * 0, a).astype(a.dtype)
    leaves.append(a)
    return a, "*"


def flatten_order(tree, s):
    """Leaves in the order our tree syntax lists them (dict keys sorted)."""
    if isinstance(tree, tuple) or isinstance(tree, list):
        return [x for t in tree for x in flatten_order(t, s)]
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in flatten_order(tree[k], s)]
    return [tree]


def pytrees(out, n, seed):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import warnings
    warnings.simplefilter("ignore", DeprecationWarning)
    import jax
    jax.config.update("jax_enable_x64", True)
    from jax.experimental import host_callback as hcb

    assert jax.__version__ == "0.4.31", jax.__version__
    rng = random.Random("pytrees-%s" % seed)
    stream = io.StringIO()
    received = []

    # id_print is id_tap of _print_tap_func; tapping it the same way also
    # keeps the values as they reached the host (XLA on CPU flushes bfloat16
    # subnormals, for one), which are what the recording must hold
    def tap_func(arg, transforms, *, device=None, what=None):
        received.append(arg)
        hcb._print_tap_func(arg, transforms, device=device, output_stream=stream,
                            threshold=1024, what=what)

    with open(out + "/pytrees.jsonl", "w") as rec:
        rec.write(session() + "\n")
        for i in range(n):
            tree, syntax = random_tree(rng, 0, [])
            what = "case-%d" % i
            hcb.id_tap(functools.partial(tap_func, what=what),
                       jax.tree_util.tree_map(jax.numpy.asarray, tree), tap_with_device=True)
            hcb.barrier_wait()
            rec.write(tap(i, {"what": what}, syntax, flatten_order(received[-1], syntax)) + "\n")
    with open(out + "/pytrees.txt", "w") as txt:
        txt.write(stream.getvalue())
    print("pytrees: %d taps printed by jax %s's id_print, seed %s" % (n, jax.__version__, seed))


def main():
    what, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    os.makedirs(out, exist_ok=True)
    {"arrays": arrays, "pytrees": pytrees}[what](out, n, seed)


if __name__ == "__main__":
    main()
