# SPDX-License-Identifier: MIT
"""recgen.py - recordings for tests/python/test_reader.py, written without
hcbtrace (hcbtrace then converts and checks them):

  write_jsonl(path, seed)    every dtype in many shapes and trees, each value
                             as one of the texts JSON allows for it:
                             hcbtrace's shortest, long and short decimals,
                             integers (and -0), exponents past the dtype's
                             range, and texts a hair off (or on) the
                             halfway point between two values of the dtype;
                             a tap's copy_ns now and then
  write_hcbcap(path, seed)   a .hcbcap written frame by frame: payloads of
                             random bits (NaN payloads, -NaN, subnormals),
                             a skippable frame, a repeated consumer frame,
                             taps' copy times frames
"""
import json
import random
import struct
import zlib
from decimal import Decimal, localcontext

import ml_dtypes
import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
          "float8_e4m3fn", "float8_e5m2"]
CODE = {name: i + 1 for i, name in enumerate(DTYPES)}
# ml_dtypes' later types (src/core/wire.h's codes), where this ml_dtypes has them (0.4.1: the
# fnuz kinds, int4 and uint4; 0.5 all)
LATER = ["float8_e3m4", "float8_e4m3", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz",
         "float8_e8m0fnu", "float4_e2m1fn", "int2", "int4", "uint2", "uint4"]
CODE.update({name: 18 + i for i, name in enumerate(LATER)})
DTYPES += [name for name in LATER if hasattr(ml_dtypes, name)]
ML = ("bfloat16", "float8_e4m3fn", "float8_e5m2") + tuple(LATER)
SUBBYTE = {"float4_e2m1fn": 4, "int2": 2, "int4": 4, "uint2": 2, "uint4": 4}
INTS = ("int2", "int4", "uint2", "uint4")     # ml_dtypes' integers: no NaN
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SHAPES = [(), (1,), (7,), (3, 4), (0,), (2, 0, 3), (2, 1, 2, 1, 2, 1, 1, 2), (1, 5, 1)]
KEYS = ["a", "b", "w", "k(1]", "\u043a\u043b\u044e\u0447", "$x", "a.b", "z9"]
NAMES = ["loss", "na\u00efve \"q\" \\ x", "\u03bb/grad", "params", "a b c", "x" * 255]


def np_dtype(name):
    return np.dtype(getattr(ml_dtypes, name)) if name in ML else np.dtype(name)


# exponent and mantissa bits of the IEEE-like float dtypes
IEEE = {"float16": (5, 10), "bfloat16": (8, 7), "float32": (8, 23), "float64": (11, 52),
        "float8_e5m2": (5, 2)}


def nan_bits(rng, name, n):
    """n NaNs of dtype name (a float, or a complex's part) with random signs and payloads."""
    if name in LATER:      # the codes that are NaN (float4 has none: any code)
        codes = np.arange(1 << SUBBYTE.get(name, 8), dtype=np.uint8).view(np_dtype(name))
        with np.errstate(invalid="ignore"):
            nans = codes[np.isnan(codes.astype(np.float32))]
        return rng.choice(nans if nans.size else codes, n)
    if name == "float8_e4m3fn":
        return (rng.integers(0, 2, n, dtype=np.uint8) << 7 | 0x7f).view(np_dtype(name))
    ebits, mbits = IEEE[name]
    u = UINT[(1 + ebits + mbits) // 8]
    mant = rng.integers(1, 1 << min(mbits, 62), n, dtype=np.uint64)
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(ebits + mbits)
    bits = sign | np.uint64(((1 << ebits) - 1) << mbits) | mant
    return bits.astype(u).view(np_dtype(name))


def random_values(rng, name, n, nans=0.0):
    """n values of dtype name: random bits, with the dtype's edges mixed in;
    a fraction nans of the floats NaNs of any payload and sign."""
    dt = np_dtype(name)
    if name == "bool":
        return rng.integers(0, 2, n).astype(bool)
    size = dt.itemsize
    if dt.kind == "c":
        size //= 2
    bits = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt).copy()
    if name in SUBBYTE:    # one a byte, the bits above the element's zero
        bits = rng.integers(0, 1 << SUBBYTE[name], n, dtype=np.uint8).view(dt)
    if dt.kind in "iu" and n:
        info = np.iinfo(dt)
        bits[rng.integers(0, n, 2)] = [info.min, info.max]
    if dt.kind == "f" and name not in ML and n:
        nice = rng.integers(-1000, 1000, n) / 8.0
        pick = rng.random(n) < 0.3
        bits[pick] = nice[pick].astype(dt)
    if nans and dt.kind in "fcV" and n:
        flat = bits.view(np.float32 if dt == np.complex64 else np.float64) if dt.kind == "c" else bits
        part = name if dt.kind != "c" else "float32" if dt == np.complex64 else "float64"
        pick = np.flatnonzero(rng.random(flat.size) < nans)
        flat[pick] = nan_bits(rng, part, pick.size)
    return bits


def shortest(name, v):
    """hcbtrace's text for a float: the shortest that reads back in its dtype."""
    if name in ("float32", "float16"):
        s = str(v)
    else:
        s = repr(float(v))
    return s if any(c in s for c in ".e") else s + ".0"


def _neighbors(name, v):
    """v and the next value of its dtype away from zero, as doubles."""
    dt = np_dtype(name)
    x = np.array([v], dtype=dt)
    up = (x.view(UINT[dt.itemsize]) + 1).view(dt)
    return float(x[0]), float(up[0])


def halfway_text(rng, name, v):
    """A text exactly on, or a hair (far below a double's step) off, the
    halfway point between v and its neighbour; None if it would be too long."""
    a, b = _neighbors(name, v)
    if not np.isfinite(b):
        return None
    with localcontext() as ctx:
        ctx.prec = 400
        mid = (Decimal(a) + Decimal(b)) / 2
        step = rng.choice([0, 1, -1])
        if step:
            mid += step * abs(mid).scaleb(-34)
        text = "{:e}".format(mid.normalize())
    return text if len(text) < 60 else None


def float_text(rng, name, v):
    """One float element's JSON text (a number, or "nan"/"inf" quoted)."""
    f = float(v)
    if np.isnan(f):
        return '"nan"'
    if np.isinf(f):
        return '"inf"' if f > 0 else '"-inf"'
    mode = rng.random()
    text = None
    if mode < 0.55:
        text = shortest(name, v)
    elif mode < 0.7:
        text = "%.*e" % (int(rng.integers(0, 22)), f)
    elif mode < 0.85 and name != "float64":
        text = halfway_text(rng, name, v)
    elif mode < 0.92 and abs(f) < 1e25:
        text = str(int(f)) if f or rng.random() < 0.5 else "-0"
    else:
        digits = "".join(str(d) for d in rng.integers(0, 10, int(rng.integers(1, 30))))
        text = "%s%s.%se%d" % ("-" if rng.random() < 0.5 else "", int(rng.integers(1, 10)), digits,
                               int(rng.integers(-330, 330)))
    if text is None or len(text) >= 60:
        text = shortest(name, v)
    return text


def element_text(rng, name, v):
    if name == "bool":
        return "true" if v else "false"
    if name.startswith(("int", "uint")):
        return str(int(v))
    if name.startswith("complex"):
        part = "float32" if name == "complex64" else "float64"
        return "[%s,%s]" % (float_text(rng, part, v.real), float_text(rng, part, v.imag))
    return float_text(rng, name, v)


def random_tree(rng, dtypes, depth=0):
    """(tree string, leaf dtypes) of a random pytree over some of dtypes."""
    r = rng.random()
    if depth > 3 or r < 0.35:
        return "*", [dtypes[int(rng.integers(0, len(dtypes)))]]
    n = int(rng.integers(0, 4))
    parts = [random_tree(rng, dtypes, depth + 1) for _ in range(n)]
    leaves = [d for _, ds in parts for d in ds]
    if r < 0.6:
        return "( " + "".join(t + " " for t, _ in parts) + ")", leaves
    if r < 0.8:
        return "[ " + "".join(t + " " for t, _ in parts) + "]", leaves
    keys = rng.choice(KEYS, n, replace=False) if n else []
    return "{ " + "".join("%s=%s " % (k, t) for k, (t, _) in zip(keys, parts)) + "}", leaves


def consumers(rng):
    """[(id, name, kwargs, tree, [(dtype, shape)])]: each dtype alone in
    every shape, and in mixed trees."""
    out = []
    cid = 100
    for name in DTYPES:
        for shape in SHAPES:
            cid += 1
            out.append((cid, "%s_%d" % (name, len(shape)), {"what": name}, "*", [(name, shape)]))
        for k in range(3):
            tree, leaves = random_tree(rng, [name] * 3 + DTYPES)
            cid += 1
            kwargs = [{}, {"what": "x,x^2"}, {"\u00e9t\u00e9": "\u2603", "step": "3"}][k]
            out.append((cid, NAMES[(cid + k) % len(NAMES)] if k else "mix_" + name, kwargs, tree,
                        [(d, SHAPES[int(rng.integers(0, 4))]) for d in leaves]))
    return out


def copy_times(r, ts):
    """A tap's device copy (start, end) around ts, or at the edges; r is a
    random number in [0, 1)."""
    if r < 0.05:
        return 0, 2**64 - 1
    if r < 0.08:
        return 0, 0                 # an end not known: no copy times
    start = ts - int(r * 10**6)
    return start, start + int(r * 7919)


def write_jsonl(path, seed):
    rng = np.random.default_rng(seed)
    cons = consumers(rng)
    seq = {}
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"type":"session","version":1,"pid":4242,"provider":"hcbtap","platform":"cpu",'
                '"start_ns":1795318845000000000,"hcbtrace":"0.1.0"}\n')
        ts = 1795318845000000000
        for rnd in range(3):
            if rnd == 2:
                f.write('{"type":"session","version":1,"pid":4243,"provider":"hcbtap",'
                        '"platform":"TFRT_CPU_%u","start_ns":1795318846000000000}\n')
            for cid, name, kwargs, tree, leaves in cons:
                dev = int(rng.integers(0, 4))
                if rng.random() < 0.05:     # a device of any id: jax's 2048 on, the u32's edges
                    dev = [2048, 2**31 - 1, 2**32 - 1][int(rng.integers(0, 3))]
                s = seq.get(dev, 0)
                seq[dev] = s + 1
                ts += int(rng.integers(1, 10**6))
                arrays = []
                for dtype, shape in leaves:
                    vals = random_values(rng, dtype, int(np.prod(shape, dtype=np.int64)))
                    data = ",".join(element_text(rng, dtype, v) for v in vals)
                    arrays.append('{"dtype":"%s","shape":%s,"data":[%s]}'
                                  % (dtype, json.dumps(list(shape)), data))
                kw = "" if not kwargs and rng.random() < 0.5 else \
                    ',"kwargs":' + json.dumps(kwargs, ensure_ascii=bool(rng.random() < 0.5))
                tsf = "" if rng.random() < 0.05 else ',"ts_ns":%d' % ts
                seqf = "null" if rng.random() < 0.05 else str(s)
                r = rng.random()
                copyf = "" if r >= 0.3 else ',"copy_ns":%s[%d,%d]' % (
                    " " if r < 0.02 else "", *copy_times(r / 0.3, ts))
                f.write('{"type":"tap","device":%d,"seq":%s,"consumer":%d,"name":%s%s,"tree":"%s"%s%s,'
                        '"arrays":[%s]}\n' % (dev, seqf, cid, json.dumps(name, ensure_ascii=False),
                                              kw, tree, tsf, copyf, ",".join(arrays)))
            f.write('{"type":"drop","device":%d,"count":%d,"reason":"ring buffer full"}\n'
                    % (rnd, rnd + 1))
            f.write('{"type":"barrier","ts_ns":%d,"taps":%d}\n' % (ts, len(cons) * (rnd + 1)))
        f.write('{"type":"end","taps":%d,"drops":6,"end_ns":%d}\n' % (3 * len(cons), ts + 1))


def frame(kind, body):
    head = struct.pack("<IQ", kind, len(body))
    head += struct.pack("<I", zlib.crc32(head))
    return head + body + struct.pack("<I", zlib.crc32(head + body))


def registration(cid, name, kwargs, tree, leaves):
    name, tree = name.encode(), tree.encode()
    kw = b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in kwargs.items())
    body = b""
    for dtype, shape in leaves:
        body += struct.pack("<II8Q", CODE[dtype], len(shape), *(list(shape) + [0] * (8 - len(shape))))
    total = 32 + len(body) + len(name) + len(kw) + len(tree)
    return struct.pack("<8I", 0x52424348, 1, total, cid, len(leaves), len(name), len(kw),
                       len(tree)) + body + name + kw + tree


def write_hcbcap(path, seed):
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    cons = consumers(rng)
    with open(path, "wb") as f:
        f.write(b"HCBCAP\x1a\n" + struct.pack("<II", 1, 0))
        f.write(frame(1, struct.pack("<iiQII", 1, 4242, 1795318845000000000, 6, 3) + b"hcbtapcpu"))
        seq = {}
        for rnd in range(3):
            for cid, name, kwargs, tree, leaves in cons:
                if rnd == 0 or pyrng.random() < 0.1:     # a repeated definition is harmless
                    f.write(frame(2, registration(cid, name, kwargs, tree, leaves)))
                # now and then a device of any id: jax's 2048 on, the u32's edges
                dev = pyrng.choice([pyrng.randrange(256), 2048, 2**31 - 1, 2**32 - 1]) \
                    if pyrng.random() < 0.1 else pyrng.randrange(4)
                s = seq.get(dev, 0)
                seq[dev] = s + 1
                payload = b""
                for dtype, shape in leaves:
                    n = int(np.prod(shape, dtype=np.int64))
                    payload += random_values(rng, dtype, n, nans=0.2).tobytes()
                if pyrng.random() < 0.3:
                    f.write(frame(0x80000001, struct.pack(
                        "<QQ", *copy_times(pyrng.random(), 1795318845000000000 + s))))
                f.write(frame(3, struct.pack("<IIQQII", dev, cid, 2**64 - 1 if pyrng.random() < 0.05 else s,
                                             1795318845000000000 + s, 4242, (4243 + dev) & 0xffffffff) + payload))
            f.write(frame(0x80000005, bytes(pyrng.randrange(256) for _ in range(40))))
            reason = b"target memory unreadable"
            f.write(frame(4, struct.pack("<IQI", rnd, 7, len(reason)) + reason))
            f.write(frame(5, struct.pack("<QQ", 1795318846000000000, 100)))
        f.write(frame(6, struct.pack("<QQQ", 3 * len(cons), 21, 1795318847000000000)))
