#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate recordings whose `hcbtrace diff` results numpy decides.

Each set is a folder with ref.jsonl and new.jsonl (JSONL recordings,
formats/JSONL.md, written as formats/jsonl.c writes them: floats in the shortest text that
reads back in their own dtype, "nan"/"inf"/"-inf" strings, complex as [re, im]),
`args` (the diff options: random rtol/atol, sometimes --equal-nan) and
expected.json: for every tap, numpy.isclose(NEW, REF, rtol, atol, equal_nan)'s
mismatch count per leaf, and for floats and complex the max absolute and
relative differences as numpy.testing.assert_allclose (numpy 1.26) computes
them.  tests/tools/check_diff_isclose.py runs `hcbtrace diff -f json` on each
set and compares.

The values crowd numpy's tolerance boundary: for each ref, new is ref +/- the
tolerance computed in the dtype (float16, float32, float64), and the
neighbouring floats just inside and just outside it; plus NaN, +/-inf, -0.0,
subnormals, integers of every width at their extremes (through float64, as
numpy.isclose casts them), bools and complex numbers at a random angle.

    python3 -m venv /tmp/npvenv3 && /tmp/npvenv3/bin/pip install numpy==1.26.4
    /tmp/npvenv3/bin/python tests/tools/gen_isclose_cases.py OUTDIR [--seed N] [--sets K]
"""
import argparse
import json
import math
import os
import zlib

import numpy as np

SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (0,), (2, 0, 3), (17,), (4, 1, 2)]
FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
COMPLEX = [np.complex64, np.complex128]


def real_text(v):
    """A float element as the JSONL writer puts it."""
    if np.isnan(v):
        return '"nan"'
    if np.isinf(v):
        return '"inf"' if v > 0 else '"-inf"'
    if v.dtype == np.float64:
        s = repr(float(v))
    else:
        s = str(v)   # numpy: the shortest text that reads back in this dtype
    if "." not in s and "e" not in s:
        s += ".0"
    return s


def elem_text(v):
    if isinstance(v, np.bool_):
        return "true" if v else "false"
    if np.issubdtype(v.dtype, np.integer):
        return str(int(v))
    if np.issubdtype(v.dtype, np.complexfloating):
        return "[%s,%s]" % (real_text(v.real), real_text(v.imag))
    return real_text(v)


def array_json(a):
    data = ",".join(elem_text(v) for v in a.reshape(-1))
    return '{"dtype":"%s","shape":[%s],"data":[%s]}' % (
        a.dtype.name, ",".join(str(d) for d in a.shape), data)


def consumer_id(name, leaves):
    sig = name + "|" + ";".join("%s%s" % (a.dtype.name, a.shape) for a in leaves)
    return (zlib.crc32(sig.encode()) & 0x7FFFFFFF) | 1


class Recording:
    def __init__(self):
        self.lines = ['{"type":"session","version":1,"pid":1,"provider":"hcbtap",'
                      '"platform":"cpu","start_ns":0,"hcbtrace":"gen_isclose_cases"}']
        self.seq = {}

    def tap(self, device, name, leaves):
        seq = self.seq.get(device, 0)
        self.seq[device] = seq + 1
        tree = "*" if len(leaves) == 1 else "( " + " ".join("*" * len(leaves)) + " )"
        self.lines.append(
            '{"type":"tap","device":%d,"seq":%d,"consumer":%d,"name":%s,"kwargs":{},'
            '"tree":"%s","ts_ns":%d,"arrays":[%s]}' % (
                device, seq, consumer_id(name, leaves), json.dumps(name), tree, 1000 + seq,
                ",".join(array_json(a) for a in leaves)))

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.lines + ['{"type":"end","taps":%d,"drops":0,"end_ns":0}'
                                            % (len(self.lines) - 1)]) + "\n")


# ---- values ----

def tol_in(dt, ref, rtol, atol):
    """numpy.isclose's atol + rtol * |ref|, in ref's (promoted) dtype."""
    y = np.asarray(ref)
    return atol + rtol * np.abs(y)


def float_pair(rng, dt, shape, rtol, atol):
    n = int(np.prod(shape))
    fi = np.finfo(dt)
    mags = 10.0 ** rng.uniform(np.log10(float(fi.tiny)) / 2, np.log10(float(fi.max)) / 2, n)
    ref = (mags * rng.choice([-1, 1], n)).astype(dt)
    special = rng.random(n)
    ref[special < 0.05] = 0
    ref[(special >= 0.05) & (special < 0.08)] = fi.smallest_subnormal
    with np.errstate(all="ignore"):
        tol = tol_in(dt, ref, rtol, atol).astype(dt)
        towards = rng.choice([-1, 1], n).astype(dt)
        at = (ref + towards * tol).astype(dt)
        how = rng.integers(0, 6, n)
        new = at.copy()
        out = np.where(towards > 0, dt(np.inf), dt(-np.inf)).astype(dt)
        inside = np.where(towards > 0, dt(-np.inf), dt(np.inf)).astype(dt)
        new[how == 1] = np.nextafter(at, out)[how == 1]      # just over
        new[how == 2] = np.nextafter(at, inside)[how == 2]   # just under
        new[how == 3] = ref[how == 3]                        # equal
        k = rng.choice([0.5, 0.999, 1.001, 2.0], n)
        new[how == 4] = (ref + towards * (tol * k).astype(dt)).astype(dt)[how == 4]
        new[how == 5] = np.nextafter(np.nextafter(at, out), out)[how == 5]
    return ref.reshape(shape), new.reshape(shape)


def special_pair(rng, dt, shape):
    n = int(np.prod(shape))
    fi = np.finfo(dt)
    pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, float(fi.max),
                     float(fi.smallest_subnormal), float(fi.tiny)]).astype(dt)
    ref = rng.choice(pool, n)
    new = np.where(rng.random(n) < 0.5, ref, rng.choice(pool, n)).astype(dt)
    return ref.reshape(shape), new.reshape(shape)


def int_pair(rng, dt, shape):
    n = int(np.prod(shape))
    ii = np.iinfo(dt)
    lo, hi = int(ii.min), int(ii.max)
    picks = []
    for _ in range(n):
        r = rng.random()
        if r < 0.2:
            edges = [lo, hi, 0, 1, lo + 1, hi - 1]
            v = edges[int(rng.integers(0, len(edges)))]
        elif r < 0.4 and hi > 2 ** 53:
            v = 2 ** 53 + int(rng.integers(-3, 4))      # where float64 stops being exact
        else:
            v = int(rng.integers(lo, hi, endpoint=True, dtype=np.int64 if lo < 0 else np.uint64))
        picks.append(v)
    ref = np.array(picks, dtype=object)
    new = []
    for v in picks:
        steps = [0, 0, 0, 1, -1, 2, -2, 1000, 2 ** 40]
        d = steps[int(rng.integers(0, len(steps)))]
        w = min(max(v + d, lo), hi)
        new.append(w)
    return (np.array(picks, dtype=dt).reshape(shape), np.array(new, dtype=dt).reshape(shape))


def bool_pair(rng, shape):
    n = int(np.prod(shape))
    ref = rng.random(n) < 0.5
    new = np.where(rng.random(n) < 0.8, ref, ~ref)
    return ref.reshape(shape), new.reshape(shape)


def complex_pair(rng, dt, shape, rtol, atol):
    n = int(np.prod(shape))
    part = np.float32 if dt == np.complex64 else np.float64
    ref = (10.0 ** rng.uniform(-3, 3, n) * np.exp(1j * rng.uniform(0, 2 * np.pi, n))).astype(dt)
    with np.errstate(all="ignore"):
        tol = (atol + rtol * np.abs(ref)).astype(part)
        k = rng.choice([0.5, 0.9999, 1.0, 1.0001, 2.0], n)
        step = (tol * k).astype(part) * np.exp(1j * rng.uniform(0, 2 * np.pi, n))
        new = (ref + step.astype(dt)).astype(dt)
    special = rng.random(n)
    bad = np.array([complex(np.nan, 0), complex(0, np.nan), complex(np.inf, 0),
                    complex(np.inf, 1), complex(-np.inf, 0)], dtype=dt)
    sel = special < 0.08
    ref[sel] = rng.choice(bad, int(sel.sum()))
    sel2 = (special < 0.12) & (special >= 0.04)
    new[sel2] = rng.choice(bad, int(sel2.sum()))
    return ref.reshape(shape), new.reshape(shape)


# ---- what numpy says ----

def num(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def expected_leaf(ref, new, rtol, atol, equal_nan):
    close = np.isclose(new, ref, rtol=rtol, atol=atol, equal_nan=equal_nan)
    out = {"mismatched": int(np.size(close) - np.count_nonzero(close))}
    if out["mismatched"] == 0 or not np.issubdtype(ref.dtype, np.inexact):
        return out
    # numpy.testing.assert_array_compare (1.26): flagged pairs left out,
    # then max(abs(x - y)) and max(error[y != 0] / abs(y[y != 0]))
    x, y = new.reshape(-1), ref.reshape(-1)
    flagged = np.zeros(x.shape, bool)
    if equal_nan:
        flagged |= np.isnan(x) & np.isnan(y)
    flagged |= (x == +np.inf) & (y == +np.inf)
    flagged |= (x == -np.inf) & (y == -np.inf)
    x, y = x[~flagged], y[~flagged]
    if x.size == 0:   # numpy returns before computing them
        return out
    with np.errstate(all="ignore"):
        error = abs(x - y)
        out["max_abs"] = num(np.max(error))
        nz = y != 0
        out["max_rel"] = num(np.max(error[nz] / abs(y[nz]))) if nz.any() else "inf"
    return out


def make_set(rng, outdir, idx, ntaps):
    if idx == 0:
        rtol, atol, equal_nan, args = 1e-5, 1e-8, False, []
    else:
        rtol = float(10.0 ** rng.uniform(-7, -1)) if rng.random() < 0.9 else 0.0
        atol = float(10.0 ** rng.uniform(-12, -2)) if rng.random() < 0.8 else 0.0
        equal_nan = bool(rng.random() < 0.5)
        args = ["--rtol", repr(rtol), "--atol", repr(atol)] + (["--equal-nan"] if equal_nan else [])
    ref, new = Recording(), Recording()
    taps = []
    occurrences = {}
    for t in range(ntaps):
        kind = rng.integers(0, 10)
        shape = SHAPES[rng.integers(0, len(SHAPES))]
        if kind < 4:
            dt = FLOATS[rng.integers(0, 3)]
            pair = float_pair(rng, dt, shape, rtol, atol)
            name = "boundary_" + np.dtype(dt).name
        elif kind < 5:
            dt = FLOATS[rng.integers(0, 3)]
            pair = special_pair(rng, dt, shape)
            name = "special_" + np.dtype(dt).name
        elif kind < 7:
            dt = INTS[rng.integers(0, len(INTS))]
            pair = int_pair(rng, dt, shape)
            name = "int_" + np.dtype(dt).name
        elif kind < 8:
            pair = bool_pair(rng, shape)
            name = "bool"
        else:
            dt = COMPLEX[rng.integers(0, 2)]
            pair = complex_pair(rng, dt, shape, rtol, atol)
            name = "complex_" + np.dtype(dt).name
        leaves = [pair]
        if rng.random() < 0.15:   # a second leaf: ( * * )
            leaves.append(float_pair(rng, np.float32, (3,), rtol, atol))
            name += "_pair"
        name += "_" + "x".join(str(d) for d in shape)
        device = int(rng.integers(0, 3))
        key = (device, name)
        index = occurrences.get(key, 0)
        occurrences[key] = index + 1
        ref.tap(device, name, [l[0] for l in leaves])
        new.tap(device, name, [l[1] for l in leaves])
        taps.append({"device": device, "consumer": name, "index": index,
                     "leaves": [expected_leaf(l[0], l[1], rtol, atol, equal_nan) for l in leaves]})
    d = os.path.join(outdir, "set%02d" % idx)
    os.makedirs(d, exist_ok=True)
    ref.write(os.path.join(d, "ref.jsonl"))
    new.write(os.path.join(d, "new.jsonl"))
    with open(os.path.join(d, "args"), "w") as f:
        f.write(" ".join(args) + "\n")
    with open(os.path.join(d, "expected.json"), "w") as f:
        json.dump({"numpy": np.__version__, "rtol": rtol, "atol": atol, "equal_nan": equal_nan,
                   "taps": taps}, f, indent=0)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--sets", type=int, default=6)
    ap.add_argument("--taps", type=int, default=60)
    a = ap.parse_args()
    if np.__version__ != "1.26.4":
        print("warning: numpy %s, the reference is 1.26.4" % np.__version__)
    rng = np.random.default_rng(a.seed)
    for i in range(a.sets):
        make_set(rng, a.outdir, i, a.taps)


if __name__ == "__main__":
    main()
