#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_npz.py REC.jsonl OUT.npz

Checks an .npz export of hcbtrace (formats/npz.c) against a JSONL recording of
the same taps, reading the archive with numpy.load itself:
  * every leaf of every tap is the array NAME/DEVICE/INDEX[_LEAF] (DEVICE:
    PLATFORMN, or the device's own name for a naming pattern)
    (INDEX counting that consumer name's taps on that device from 0, _LEAF
    added for taps of several leaves; characters other than [A-Za-z0-9_.-]
    as '_'; PLATFORM from the last session record before the tap, else cpu);
  * its dtype and shape are the tap's; bfloat16, float8, float4 and the
    sub-byte integers are stored as raw bits ('<u2' / '|u1', a sub-byte
    element one a byte) and __dtypes__.json names their real dtype (ml_dtypes);
  * every element equals the JSONL value: integers and bools exactly, floats
    bit for bit (the JSONL text reads back to exactly the stored value in the
    element's own dtype, -0.0 keeps its sign, NaN is NaN);
  * the archive holds nothing else but __dtypes__.json, which lists exactly
    the raw-bits arrays.
Prints a one-line summary; exits 1 with the first problems on a mismatch,
2 on a usage error.
"""
import json
import sys
import zipfile
from fractions import Fraction

import numpy as np

try:
    import ml_dtypes
except ImportError:  # only needed for ml_dtypes' types
    ml_dtypes = None

ML_INTS = ("int2", "int4", "uint2", "uint4")
RAW = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}
RAW.update({name: np.uint8 for name in ("float8_e3m4", "float8_e4m3", "float8_e4m3fnuz",
                                        "float8_e4m3b11fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
                                        "float4_e2m1fn") + ML_INTS})
UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SAFE = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def sanitize(s):
    b = s.encode("utf-8", "surrogateescape")
    out = "".join(chr(c) if c in SAFE else "_" for c in b)
    if set(out) <= {"."}:
        out = "_" * len(out)
    return out


def device_name(platform, dev):
    """As npz.c names a device: a naming pattern (one %u, no other %) is
    the device's own name (TFRT_CPU_%u -> TFRT_CPU_1); any other platform
    is followed by the number (cpu -> cpu1)."""
    if platform.count("%u") == 1 and platform.count("%") == 1:
        return sanitize(platform.replace("%u", str(dev)))
    return f"{sanitize(platform)}{dev}"


def real_dtype(name):
    if name in RAW:
        if ml_dtypes is None:
            sys.exit("check_npz.py: ml_dtypes is needed for " + name)
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def nearest_ok(text, got, dt):
    """Is got (a numpy scalar of float dtype dt) the value of dtype dt nearest to text?"""
    want = Fraction(text)
    if np.isnan(got) or np.isinf(got):
        return False
    if want == 0:
        return float(got) == 0 and bool(np.signbit(np.float64(got))) == text.lstrip().startswith("-")
    u = UINT_OF_SIZE[dt.itemsize]
    bits = int(np.array(got, dtype=dt).view(u))
    sign = 1 << (8 * dt.itemsize - 1)
    mag = bits & (sign - 1)
    v = Fraction(float(got))
    dist = abs(want - v)
    cands = [mag + 1 | (bits & sign), mag + 1 | (~bits & sign)]
    if mag:
        cands.append(mag - 1 | (bits & sign))
    for c in cands:
        cv = np.array(c, dtype=u).view(dt)
        f = float(cv)
        if np.isnan(f):
            continue
        if np.isinf(f):   # past the largest finite value: as wide above as below
            continue
        if abs(want - Fraction(f)) < dist:
            return False
    return True


def compare_floats(texts, got, dt, where, problems):
    """texts: flat list of JSON texts ("1.5", "nan", ...); got: flat array of dtype dt."""
    conv = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}
    texts = [t if isinstance(t, str) else repr(t) for t in texts]
    vals = np.array([conv[t] if t in conv else float(t) for t in texts], dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        fast = vals.astype(dt)
        same = (fast.view(UINT_OF_SIZE[dt.itemsize]) == got.view(UINT_OF_SIZE[dt.itemsize])) | (
            np.isnan(fast.astype(np.float64)) & np.isnan(got.astype(np.float64)))
    for i in np.flatnonzero(~same):
        t, g = texts[i], got[i]
        if t in conv:
            ok = (t == "nan" and np.isnan(g)) or (t != "nan" and float(g) == conv[t])
        else:
            ok = nearest_ok(t, g, dt)
        if not ok:
            problems.append(f"{where}: element {i}: JSONL {t}, npz {g!r}")
            return


def compare(arr, got, where, problems):
    dtn = arr["dtype"]
    dt = real_dtype(dtn)
    shape = tuple(arr["shape"])
    if got.shape != shape:
        problems.append(f"{where}: shape {got.shape}, JSONL {shape}")
        return
    data = arr["data"]
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if len(data) != n:
        problems.append(f"{where}: JSONL holds {len(data)} elements for shape {shape}")
        return
    flat = got.reshape(-1)
    if dtn in ML_INTS:
        want = np.array(data, dtype=np.int64).astype(dt).view(np.uint8)
        if not np.array_equal(want, flat.view(np.uint8)):
            i = int(np.flatnonzero(want != flat.view(np.uint8))[0])
            problems.append(f"{where}: element {i}: JSONL {data[i]}, npz bits {flat.view(np.uint8)[i]}")
    elif dtn == "bool" or dt.kind in "iu":
        want = np.array(data, dtype=dt)
        if not np.array_equal(want, flat):
            i = int(np.flatnonzero(want != flat)[0])
            problems.append(f"{where}: element {i}: JSONL {data[i]}, npz {flat[i]!r}")
    elif dt.kind == "c":
        part = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        compare_floats([d[0] for d in data], np.ascontiguousarray(flat.real), part, where + " (real)", problems)
        compare_floats([d[1] for d in data], np.ascontiguousarray(flat.imag), part, where + " (imag)", problems)
    else:
        compare_floats(data, np.ascontiguousarray(flat), dt, where, problems)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    rec_path, npz_path = argv[1], argv[2]
    problems = []
    platform = "cpu"
    counters = {}
    expected = {}      # name -> (JSONL array object, where)
    ntaps = 0
    with open(rec_path, encoding="utf-8", errors="surrogateescape") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line, parse_float=str)
            except ValueError as e:
                print(f"check_npz.py: {rec_path}:{lineno}: not JSON: {e}", file=sys.stderr)
                return 1
            if r.get("type") == "session":
                platform = r.get("platform") or "cpu"
            if r.get("type") != "tap":
                continue
            ntaps += 1
            cname, dev = sanitize(r["name"]), r["device"]
            index = counters.get((cname, dev), 0)
            counters[(cname, dev)] = index + 1
            base = f"{cname}/{device_name(platform, dev)}/{index:06d}"
            arrays = r["arrays"]
            for i, a in enumerate(arrays):
                name = base if len(arrays) == 1 else f"{base}_{i}"
                if name in expected:
                    problems.append(f"{rec_path}:{lineno}: array name {name} twice")
                expected[name] = (a, f"{npz_path}: {name} ({rec_path}:{lineno})")

    with zipfile.ZipFile(npz_path) as z:
        bad = z.testzip()
        if bad:
            problems.append(f"{npz_path}: member {bad} fails its CRC")
    npz = np.load(npz_path, allow_pickle=False)
    files = set(npz.files)
    if "__dtypes__.json" not in files:
        problems.append(f"{npz_path}: no __dtypes__.json")
        dtypes = {}
    else:
        dtypes = json.loads(npz["__dtypes__.json"])
        files.discard("__dtypes__.json")
    for name in sorted(files - set(expected)):
        problems.append(f"{npz_path}: {name} is no tap leaf of {rec_path}")
    for name in sorted(set(expected) - files):
        problems.append(f"{npz_path}: {name} missing")
    want_dtypes = {n: a["dtype"] for n, (a, _) in expected.items() if a["dtype"] in RAW}
    if dtypes != want_dtypes:
        extra = set(dtypes.items()) ^ set(want_dtypes.items())
        problems.append(f"{npz_path}: __dtypes__.json differs: {sorted(extra)[:5]}")
    for name, (a, where) in expected.items():
        if name not in files or len(problems) > 20:
            continue
        got = npz[name]
        if a["dtype"] in RAW:
            if got.dtype != np.dtype(RAW[a["dtype"]]):
                problems.append(f"{where}: raw {a['dtype']} stored as {got.dtype}")
                continue
            got = got.view(real_dtype(a["dtype"]))
        elif got.dtype != real_dtype(a["dtype"]):
            problems.append(f"{where}: dtype {got.dtype}, JSONL {a['dtype']}")
            continue
        compare(a, got, where, problems)
    if problems:
        for p in problems[:20]:
            print("check_npz.py: " + p, file=sys.stderr)
        print(f"check_npz.py: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"ok: {len(expected)} arrays of {ntaps} taps match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
