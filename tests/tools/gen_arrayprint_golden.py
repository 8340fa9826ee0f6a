#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate golden cases for tests/unit/test_arrayprint.c from real numpy.

Needs numpy 1.26.4 (the version id_print's text comes from) and ml_dtypes
for bfloat16, float8, float4 and the sub-byte integers (0.4.1 made the files
of the dtypes it has; 0.5.4, beside numpy 1.26.4, those of float8_e3m4,
float8_e4m3, float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2fnuz,
float8_e8m0fnu, float4_e2m1fn, int2, int4, uint2 and uint4):

    python3 -m venv /tmp/npvenv
    /tmp/npvenv/bin/pip install numpy==1.26.4 ml_dtypes==0.5.4
    /tmp/npvenv/bin/python tests/tools/gen_arrayprint_golden.py tests/data/arrayprint [N [DTYPE...]]

One file per dtype, <dtype>.txt, a sequence of cases:

    case <name>
    dtype float32
    shape 2 3               # "shape" alone: a 0-d array
    threshold 1024
    precision 3             # optional: precision, max_line_width, edgeitems,
                            # suppress_small (0/1); numpy's defaults otherwise
    data 0000803f...        # the raw little-endian elements, hex
    expect 2                # number of lines that follow
    [[...]
     [...]]

Lines starting with '#' between cases are comments.  The seed is fixed, so
regenerating gives the same files.
"""
import math
import os
import random
import sys

import numpy as np
import ml_dtypes

assert np.__version__ == "1.26.4", np.__version__

DTYPES = {
    "bool": np.bool_,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
    "complex64": np.complex64, "complex128": np.complex128,
    "bfloat16": ml_dtypes.bfloat16,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
}
# ml_dtypes' other types: numpy prints them through their repr, like float8
ML_FLOATS = ("float8_e3m4", "float8_e4m3", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
             "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn")
ML_INTS = ("int2", "int4", "uint2", "uint4")
for _name in ML_FLOATS + ML_INTS:
    if hasattr(ml_dtypes, _name):
        DTYPES[_name] = getattr(ml_dtypes, _name)
# raw bit patterns (bits of them) are drawn for these
RAW = {"bfloat16": 16, "float8_e4m3fn": 8, "float8_e5m2": 8, "float8_e3m4": 8, "float8_e4m3": 8,
       "float8_e4m3fnuz": 8, "float8_e4m3b11fnuz": 8, "float8_e5m2fnuz": 8, "float8_e8m0fnu": 8,
       "float4_e2m1fn": 4}

FLOATS = ("float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2") + ML_FLOATS


def rand_shape(rng, rank, maxdim=6):
    return tuple(rng.randint(1 if rng.random() < 0.9 else 0, maxdim) for _ in range(rank))


def float_values(rng, n):
    """n float64 values in one of several styles numpy prints differently."""
    style = rng.randrange(10)
    if style == 0:  # one magnitude band: usually positional
        e = rng.uniform(-4, 8)
        v = [rng.choice((1, -1)) * 10 ** (e + rng.uniform(0, 1.5)) for _ in range(n)]
    elif style == 1:  # wide range: scientific
        v = [rng.choice((1, -1)) * 10 ** rng.uniform(-12, 20) for _ in range(n)]
    elif style == 2:  # whole numbers
        v = [float(rng.randint(-1000, 1000)) for _ in range(n)]
    elif style == 3:  # short decimals
        k = rng.randint(0, 9)
        v = [round(rng.uniform(-100, 100), k) for _ in range(n)]
    elif style == 4:  # around the switch points 1e-4, 1e8 and ratio 1e3
        c = rng.choice((1e-4, 1e8, 1.0))
        v = [c * rng.choice((0.999, 1.0, 1.001, 1000.0, 1001.0, 0.5, 2.0)) for _ in range(n)]
    elif style == 5:  # specials mixed in
        v = [rng.choice((math.nan, math.inf, -math.inf, 0.0, -0.0,
                         rng.uniform(-10, 10), 10 ** rng.uniform(-12, 20)))
             for _ in range(n)]
    elif style == 6:  # only specials
        v = [rng.choice((math.nan, math.inf, -math.inf, 0.0, -0.0)) for _ in range(n)]
    elif style == 7:  # powers of two and simple fractions
        v = [rng.choice((1, -1)) * 2.0 ** rng.randint(-30, 40) for _ in range(n)]
    elif style == 8:  # small positional with many digits
        v = [rng.uniform(-1, 1) for _ in range(n)]
    else:
        v = [rng.choice((1, -1)) * 10 ** rng.uniform(-12, 20) if rng.random() < 0.5
             else rng.uniform(0, 1) for _ in range(n)]
    return v


def make_array(rng, name, shape):
    dt = DTYPES[name]
    n = int(np.prod(shape)) if shape else 1
    if name == "bool":
        a = np.array([rng.random() < 0.5 for _ in range(n)], dtype=np.bool_)
    elif name in ML_INTS:
        info = ml_dtypes.iinfo(dt)
        a = np.array([rng.randint(int(info.min), int(info.max)) for _ in range(n)],
                     dtype=np.int64).astype(dt)
    elif np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        bits = rng.choice((2, 4, 8, 16, 32, 64))
        lo = max(info.min, -(2 ** (bits - 1)))
        hi = min(info.max, 2 ** bits - 1)
        if rng.random() < 0.1:
            lo, hi = info.min, info.max
        a = np.array([rng.randint(lo, hi) for _ in range(n)], dtype=dt)
    elif name in ("float16", "float32") and rng.random() < 0.15:
        # raw bit patterns: every exponent, subnormals, NaN payloads
        u = np.uint16 if name == "float16" else np.uint32
        bits = 16 if name == "float16" else 32
        a = np.array([rng.getrandbits(bits) for _ in range(n)], dtype=u).view(dt)
    elif name in RAW and rng.random() < 0.3:
        u = np.uint16 if name == "bfloat16" else np.uint8
        a = np.array([rng.getrandbits(RAW[name]) for _ in range(n)], dtype=u).view(dt)
    elif name.startswith("complex"):
        re = float_values(rng, n)
        im = float_values(rng, n) if rng.random() < 0.8 else [0.0] * n
        with np.errstate(invalid="ignore", over="ignore"):
            a = (np.array(re) + 1j * np.array(im)).astype(dt)
        # nan/inf imaginary parts the multiplication above cannot make
        if n and rng.random() < 0.2:
            a.imag[rng.randrange(n)] = rng.choice((math.nan, math.inf, -math.inf, -0.0))
    else:
        with np.errstate(over="ignore"):
            a = np.array(float_values(rng, n), dtype=np.float64).astype(dt)
    return a.reshape(shape)


def write_case(f, name, tag, a, threshold, opts=None):
    opts = opts or {}
    expect = np.array2string(a, threshold=threshold, **opts)
    lines = expect.split("\n")
    f.write("case %s\n" % tag)
    f.write("dtype %s\n" % name)
    f.write(("shape " + " ".join(str(d) for d in a.shape)).rstrip() + "\n")
    f.write("threshold %d\n" % threshold)
    for k, v in opts.items():
        f.write("%s %d\n" % (k, int(v)))
    f.write(("data " + np.ascontiguousarray(a).tobytes().hex()).rstrip() + "\n")
    f.write("expect %d\n" % len(lines))
    for line in lines:
        f.write(line + "\n")


def gen(name, outdir, ncases):
    rng = random.Random("hcbtrace-arrayprint-" + name)
    path = os.path.join(outdir, name + ".txt")
    with open(path, "w") as f:
        f.write("# generated by tests/tools/gen_arrayprint_golden.py: numpy %s, ml_dtypes %s\n"
                % (np.__version__, ml_dtypes.__version__))
        for i in range(ncases):
            kind = rng.random()
            if kind < 0.08:  # around the threshold, small threshold to keep files small
                rank = rng.randint(1, 4)
                shape = rand_shape(rng, rank, 9 if rank <= 2 else 5)
                size = int(np.prod(shape))
                threshold = max(0, size + rng.choice((-2, -1, 0, 1)))
            elif kind < 0.09:  # around numpy's default threshold used by id_print
                shape = rng.choice(((1024,), (1025,), (32, 32), (33, 32), (5, 205), (4, 257)))
                threshold = 1024
            elif kind < 0.18:  # long rows: line wrapping
                shape = rng.choice(((rng.randint(7, 60),), (2, rng.randint(7, 40)),
                                    (2, 2, rng.randint(7, 30))))
                threshold = 1024
            else:
                rank = rng.choice((0, 0, 1, 1, 1, 2, 2, 3, 4))
                shape = rand_shape(rng, rank)
                threshold = 1024
            a = make_array(rng, name, shape)
            opts = {}
            if rng.random() < 0.1:  # the other print options, as numpy names them
                opts = {"precision": rng.randint(0, 10), "max_line_width": rng.randint(10, 120),
                        "edgeitems": rng.randint(1, 4), "suppress_small": rng.random() < 0.5}
                opts = dict(rng.sample(sorted(opts.items()), rng.randint(1, 4)))
                threshold = min(threshold, rng.randint(0, 100))
            write_case(f, name, "%s-%d" % (name, i), a, threshold, opts)
        edge_cases(f, name)
    return path


def edge_cases(f, name):
    """Values found hard: the bottom of a binade, where the interval below
    is half as wide as above, so the shortest digits may lie above the
    value and not at its nearest rounding (numpy prints 34669810. for the
    float32 34669808); the largest and smallest values of each type."""
    if name not in FLOATS:
        return
    dt = DTYPES[name]
    if name in RAW:
        info = ml_dtypes.finfo(dt)
    else:
        info = np.finfo(dt)
    lo, hi = int(np.log2(float(info.tiny))), min(int(np.log2(float(info.max))), 1023)
    step = 5 if name == "float64" else 1
    powers = np.array([2.0 ** k for k in range(lo, hi + 1, step)])
    with np.errstate(over="ignore"):
        cases = [
            ("powers-of-two", powers.astype(dt)),
            ("above-powers-of-two", np.nextafter(powers.astype(np.float64), np.inf).astype(dt)),
            ("binade-bottoms", np.array([34669808, 41002688, 118334704, 1.2145019161028419e17,
                                         2.0 ** 97, 2.0 ** -100], np.float64).astype(dt)),
            ("extremes", np.array([float(info.max), -float(info.max), float(info.tiny),
                                   float(info.tiny) / 2, float(info.eps)], np.float64).astype(dt)),
        ]
    for tag, a in cases:
        for k in range(0, len(a), 6):
            write_case(f, name, "%s-edge-%s-%d" % (name, tag, k), a[k:k + 6], 1024)
            write_case(f, name, "%s-edge-%s-%d-alone" % (name, tag, k), a[k], 1024)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "tests/data/arrayprint"
    ncases = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    names = sys.argv[3:] or list(DTYPES)
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        print(gen(name, outdir, ncases))


if __name__ == "__main__":
    main()
