#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_reader.py CHECK WORKDIR - hcbtap.recording against hcbtrace itself.

Run with PYTHONPATH=python:tests/python and HCBTRACE, HCB_EXAMPLE set (as
tests/bats/pyreader.bats does); each CHECK prints what it compared and exits
1 with the first problems.  CHECKs:

  dtypes   every dtype, from .jsonl, its .hcbcap and back: each leaf's bytes
           and shape equal hcbtrace's .npz of the same file (read by numpy)
  raw      a .hcbcap of random payload bits (NaN payloads and signs) the same
  live     hcb-example recorded by hcbtrace (.jsonl and .hcbcap) the same
  damage   cut and corrupted recordings: the error (or warning) names the
           line or offset hcbtrace's names, after as many records as
           `hcbtrace replay -f jsonl` printed before it
  golden   tests/golden/replay's damaged files: hcbtrace's very messages
  stream   a recording of hundreds of MB, read with flat memory
  table    scalars() as a pandas DataFrame
  sources  '-', file objects, text mode, truncated=, no jax, no ml_dtypes,
           no pandas
  copyns   taps' device copy times (copy_ns) from .jsonl, .hcbcap and back;
           malformed or misplaced ones refused with hcbtrace's very words;
           and, with HCBTRACE_CUPTI_LIB set (tests/fake_cupti), those of a
           live record --cuda
"""
import io
import json
import os
import random
import struct
import subprocess
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))

import recgen                                   # noqa: E402
from check_npz import sanitize                  # noqa: E402

import hcbtap.recording as R                    # noqa: E402

HCBTRACE = os.environ.get("HCBTRACE", os.path.join(ROOT, "build", "cli", "hcbtrace"))
EXAMPLE = os.environ.get("HCB_EXAMPLE", os.path.join(ROOT, "build", "examples", "hcb-example"))
PROBLEMS = []


def slurp(path):
    with open(path, "rb") as f:
        return f.read()


def problem(msg):
    PROBLEMS.append(msg)
    if len(PROBLEMS) <= 20:
        print("FAIL: " + msg, file=sys.stderr)


def hcb(*args, check=True):
    p = subprocess.run([HCBTRACE] + [str(a) for a in args], capture_output=True)
    if check and p.returncode:
        raise SystemExit("hcbtrace %s: exit %d: %s" % (" ".join(map(str, args)), p.returncode,
                                                      p.stderr.decode(errors="replace")))
    return p


def raw_view(arr):
    """The array's bytes as unsigned integers (bit for bit), with its shape."""
    return arr.view(recgen.UINT[arr.dtype.itemsize] if arr.dtype.kind != "c" else
                    recgen.UINT[arr.dtype.itemsize // 2])


def against_npz(src):
    """Read src with hcbtap.recording; convert it to .npz with hcbtrace; every
    leaf must be the npz member's bytes, dtype and shape.  (taps, leaves,
    elements, dtypes seen)."""
    npz_path = src + ".npz"
    if os.path.exists(npz_path):
        os.unlink(npz_path)
    hcb("convert", src, "-o", npz_path)
    npz = np.load(npz_path, allow_pickle=False)
    real = json.loads(npz["__dtypes__.json"])
    members = set(npz.files) - {"__dtypes__.json"}
    platform, counters, seen = "cpu", {}, set()
    taps = leaves = elems = 0
    dtypes = set()
    for rec in R.records(src):
        if rec.kind == "session":
            platform = rec.platform
        if rec.kind != "tap":
            continue
        taps += 1
        key = (sanitize(rec.name), rec.device)
        index = counters.get(key, 0)
        counters[key] = index + 1
        if "%" in platform:     # a pattern: the device's name (npz.c)
            devname = sanitize(R.device_name(platform, rec.device))
        else:
            devname = sanitize(platform) + str(rec.device)
        base = "%s/%s/%06d" % (key[0], devname, index)
        for i, leaf in enumerate(rec.leaves):
            name = base if len(rec.leaves) == 1 else "%s_%d" % (base, i)
            seen.add(name)
            leaves += 1
            elems += leaf.size
            dtypes.add(leaf.dtype.name)
            if name not in members:
                problem("%s: tap %d: no npz member %s" % (src, taps, name))
                continue
            want = npz[name]
            dname = real.get(name, want.dtype.name)
            if leaf.dtype.name != dname or leaf.shape != want.shape:
                problem("%s: %s: read %s %s, npz %s %s" % (src, name, leaf.dtype, leaf.shape, dname,
                                                         want.shape))
            elif leaf.tobytes() != want.tobytes():
                got = raw_view(leaf).reshape(-1)        # complex: re, im, re, ...
                ref = want.view(got.dtype).reshape(-1)
                diff = np.flatnonzero(got != ref)
                problem("%s: %s: elements (complex: parts) %s differ: read bits %s, npz %s" % (
                    src, name, diff[:5].tolist(), [hex(v) for v in got[diff[:3]]],
                    [hex(v) for v in ref[diff[:3]]]))
    for name in sorted(members - seen)[:5]:
        problem("%s: npz member %s is no leaf read" % (src, name))
    return taps, leaves, elems, dtypes


def same_records(a, b, what, nan_payloads=False):
    """Records of files a and b are the same (pid, tid, hcbtrace aside)."""
    ra, rb = list(R.records(a)), list(R.records(b))
    if len(ra) != len(rb):
        problem("%s: %d records, %s has %d" % (what, len(ra), b, len(rb)))
    for n, (x, y) in enumerate(zip(ra, rb)):
        if x.kind == "tap" and y.kind == "tap":
            x.pid = x.tid = y.pid = y.tid = None
            if nan_payloads:
                x.leaves = [canon(v) for v in x.leaves]
                y.leaves = [canon(v) for v in y.leaves]
                x.value = y.value = None
        if x.kind == "session":
            x.hcbtrace = y.hcbtrace = None
            x.pid = y.pid = None
        if x != y:
            problem("%s: record %d differs:\n  %r\n  %r" % (what, n, x, y))
            return


def canon(arr):
    """arr's bytes with every NaN as numpy's own (JSON keeps no payload)."""
    arr = np.array(arr)
    if (arr.dtype.kind in "fcV" or arr.dtype.name in recgen.ML) and arr.dtype.name not in recgen.INTS:
        parts = arr.reshape(-1)
        if arr.dtype.kind == "c":
            parts = parts.view(np.float32 if arr.dtype == np.complex64 else np.float64)
        with np.errstate(invalid="ignore"):
            nan = np.isnan(parts.astype(np.float64))
            parts[nan] = np.nan
    return arr.tobytes()


def check_dtypes(work):
    total = [0, 0, 0]
    allt = set()
    for seed in (1, 2, 3):
        j = os.path.join(work, "all%d.jsonl" % seed)
        recgen.write_jsonl(j, seed)
        c = j[:-6] + ".hcbcap"
        back = j[:-6] + ".back.jsonl"
        hcb("convert", j, "-o", c)
        hcb("convert", c, "-o", back)
        for src in (j, c, back):
            taps, leaves, elems, dtypes = against_npz(src)
            total = [total[0] + taps, total[1] + leaves, total[2] + elems]
            allt |= dtypes
        same_records(j, c, "%s vs its .hcbcap" % j)
        # a JSONL "nan" is numpy's NaN: -NaN (e4m3fn's overflow) comes back without its sign
        same_records(j, back, "%s vs .hcbcap -> .jsonl" % j, nan_payloads=True)
    missing = set(recgen.DTYPES) - allt
    if missing:
        problem("dtypes never read: %s" % sorted(missing))
    print("dtypes: %d taps, %d leaves, %d elements of %d dtypes from 9 files (.jsonl, .hcbcap, "
          ".jsonl again) equal hcbtrace's .npz bit for bit" % (total[0], total[1], total[2], len(allt)))


def check_raw(work):
    c = os.path.join(work, "raw.hcbcap")
    recgen.write_hcbcap(c, 7)
    hcb("replay", "--no-wait", c)
    taps, leaves, elems, dtypes = against_npz(c)
    nans = 0
    for tap in R.taps(c):
        for leaf in tap.leaves:
            if (leaf.dtype.kind in "fc" or leaf.dtype.name in recgen.ML) and \
                    leaf.dtype.name not in recgen.INTS:
                v = leaf.reshape(-1)
                if leaf.dtype.kind == "c":
                    v = v.view(np.float32 if leaf.dtype == np.complex64 else np.float64)
                bits = raw_view(v)
                with np.errstate(invalid="ignore"):
                    canonical = raw_view(np.array([np.nan], dtype=v.dtype))[0]
                    nans += int(np.count_nonzero(np.isnan(v.astype(np.float64)) & (bits != canonical)))
    j = os.path.join(work, "raw.jsonl")
    hcb("convert", c, "-o", j)
    against_npz(j)
    same_records(c, j, "raw .hcbcap vs its .jsonl (NaN payloads aside)", nan_payloads=True)
    print("raw: %d taps, %d leaves, %d elements of %d dtypes (%d NaNs with a payload or sign of "
          "their own) equal hcbtrace's .npz of the .hcbcap bit for bit; its .jsonl too"
          % (taps, leaves, elems, len(dtypes), nans))
    if nans < 100:
        problem("raw: only %d NaNs with a payload" % nans)


def record_live(work, ext, steps=3, field=3000):
    out = os.path.join(work, "live." + ext)
    hcb("record", "-q", "-o", out, "--", EXAMPLE, "--devices", 2, "--steps", steps,
        "--interval-ms", 0, "--field-size", field)
    return out


def replay_count(path, kinds=("tap",)):
    p = hcb("replay", "--no-wait", "-f", "jsonl", path, check=False)
    lines = p.stdout.decode().splitlines()
    return sum(1 for line in lines if json.loads(line)["type"] in kinds), p


def check_live(work):
    for ext in ("jsonl", "hcbcap"):
        src = record_live(work, ext)
        taps, leaves, elems, dtypes = against_npz(src)
        want, _ = replay_count(src)
        end = [r for r in R.records(src) if r.kind == "end"]
        if taps != want or not end or end[0].taps != taps:
            problem("live %s: %d taps read, hcbtrace replay %d, end record %r" % (ext, taps, want, end))
        print("live %s: %d taps (%d leaves, %d elements: %s) equal hcbtrace's .npz; replay counts %d"
              % (ext, taps, leaves, elems, " ".join(sorted(dtypes)), want))


def c_verdict(path):
    """hcbtrace replay's verdict on path: (records printed, 'ok' | 'warn' |
    'error', where, message)."""
    n, p = replay_count(path, ("session", "tap", "drop", "barrier", "trigger", "end"))
    err = p.stderr.decode(errors="replace").strip()
    msg = err.split("\n")[0]
    for prefix in ("hcbtrace: warning: ", "hcbtrace: "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
            break
    state = "error" if p.returncode else "warn" if err else "ok"
    return n, state, msg


def py_verdict(path):
    n, state, msg = 0, "ok", ""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", R.RecordingWarning)
        try:
            for _ in R.records(path):
                n += 1
        except R.RecordingError as e:
            state, msg = "error", str(e)
        if state == "ok" and w:
            state, msg = "warn", str(w[0].message)
    return n, state, msg


def where(msg, path):
    """Of "PATH:12: what", "PATH:offset 9: what", "PATH: what": the place
    ("12", "offset 9", "")."""
    if not msg.startswith(path + ":"):
        return None
    rest = msg[len(path) + 1:]
    return "" if rest.startswith(" ") else rest.split(":")[0]


def mutate(data, rng, binary):
    data = bytearray(data)
    k = rng.random()
    if k < 0.25:
        return bytes(data[:rng.randrange(len(data))])
    pos = rng.randrange(len(data))
    if k < 0.7:
        data[pos] = rng.randrange(256) if binary else rng.choice(b'{}[]":,.-+e0123456789 \naxnt')
    elif k < 0.85:
        del data[pos:pos + rng.randrange(1, 40)]
    else:
        data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5)))
    return bytes(data)


def check_damage(work):
    rng = random.Random(18)
    bases = []
    for seed in (4, 5):
        j = os.path.join(work, "dmg%d.jsonl" % seed)
        recgen.write_jsonl(j, seed)
        hcb("convert", j, "-o", j[:-6] + ".hcbcap")
        bases += [j, j[:-6] + ".hcbcap"]
    bases.append(record_live(work, "jsonl", steps=2, field=50))
    hcb("convert", bases[-1], "-o", bases[-1][:-6] + ".hcbcap")
    bases.append(bases[-1][:-6] + ".hcbcap")
    counts = {"ok": 0, "warn": 0, "error": 0}
    same_text = 0
    tries = int(os.environ.get("HCB_DAMAGE_TRIES", "150"))
    for base in bases:
        data = slurp(base)
        ext = os.path.splitext(base)[1]
        for t in range(tries):
            path = os.path.join(work, "mut" + ext)
            with open(path, "wb") as f:
                f.write(mutate(data, rng, ext == ".hcbcap"))
            c, py = c_verdict(path), py_verdict(path)
            counts[c[1]] += 1
            first_changed = slurp(path)[:1] != data[:1]
            if first_changed and c[1] == py[1] == "error" and c[0] == py[0] == 0:
                continue    # a recording whose first byte says another format: both refuse it
            if c[:2] != py[:2] or (c[1] != "ok" and where(c[2], path) != where(py[2], path)):
                problem("%s mutation %d: hcbtrace %r, hcbtap.recording %r" % (base, t, c, py))
                os.rename(path, "%s.%d.bad%s" % (base, t, ext))
            elif c[2] == py[2]:
                same_text += 1
    n = sum(counts.values())
    print("damage: %d mutated files (cut, bytes changed, removed, inserted) of %d recordings: "
          "%d read whole, %d truncated (warned), %d damaged (raised); the same records, verdict "
          "and place as hcbtrace replay in each, the same words in %d"
          % (n, len(bases), counts["ok"], counts["warn"], counts["error"], same_text))


def check_golden(work):
    gold = os.path.join(ROOT, "tests", "golden", "replay")
    n = 0
    for case in sorted(os.listdir(gold)):
        d = os.path.join(gold, case)
        ins = [f for f in os.listdir(d) if f.startswith("in.")]
        if not ins or "--no-wait" not in slurp(os.path.join(d, "args")).decode().split()[-2:]:
            continue
        path = os.path.join(d, ins[0])
        got = py_verdict(path)
        c = c_verdict(path)
        stderr = os.path.join(d, "stderr")
        expected = slurp(stderr).decode().strip() if os.path.exists(stderr) else ""
        expected = expected.replace("hcbtrace: ", "", 1).replace("@CASE@", d)
        n += 1
        if got[:2] != c[:2]:
            problem("golden %s: hcbtrace %r, hcbtap.recording %r" % (case, c, got))
        elif expected and got[2] != expected and not (
                "not valid JSON" in expected and where(got[2], path) == where(expected, path)):
            problem("golden %s: message %r, hcbtrace's %r" % (case, got[2], expected))
    print("golden: %d replay cases: same records and verdict, hcbtrace's messages" % n)


def rss_of_reading(path):
    """Read every tap of path in a new process, touching every element:
    (taps, seconds, peak RSS before reading, peak RSS after), from the
    kernel's VmHWM (getrusage's ru_maxrss would count the forking parent)."""
    code = ("import sys, time, numpy as np, hcbtap.recording as R\n"
            "def hwm():\n"
            "    for line in open('/proc/self/status'):\n"
            "        if line.startswith('VmHWM:'):\n"
            "            return int(line.split()[1]) * 1024\n"
            "base, t0, n = hwm(), time.monotonic(), 0\n"
            "for t in R.taps(sys.argv[1]):\n"
            "    n += 1\n"
            "    for leaf in t.leaves:\n"
            "        if leaf.dtype.kind in 'fiub':\n"
            "            np.sum(leaf, dtype=np.float64)\n"
            "print(n, time.monotonic() - t0, base, hwm())\n")
    p = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(p.stderr)
    n, secs, base, peak = p.stdout.split()
    return int(n), float(secs), int(base), int(peak)


def check_stream(work):
    """hcb-example's recording, copied end to end (a valid recording: the
    same consumers throughout) to HCB_STREAM_MB (300) MB, and its .hcbcap."""
    mb = int(os.environ.get("HCB_STREAM_MB", "300"))
    one = record_live(work, "jsonl", steps=20, field=65536)
    per_copy, _ = replay_count(one)
    if sum(1 for _ in R.taps(one)) != per_copy:
        problem("stream: the recording copied has %d taps, hcbtrace replay says" % per_copy)
    big = os.path.join(work, "big.jsonl")
    chunk = slurp(one)
    copies = 0
    with open(big, "wb") as f:
        while f.tell() < mb << 20:
            f.write(chunk)
            copies += 1
    cap = os.path.join(work, "big.hcbcap")
    hcb("convert", big, "-o", cap)
    for path in (big, cap):
        size = os.path.getsize(path)
        n, secs, base, peak = rss_of_reading(path)
        grew = peak - base
        print("stream: %s: %d MB, %d taps in %.1f s: peak RSS %d MB (%d MB before reading, %d MB "
              "more while reading)" % (os.path.basename(path), size >> 20, n, secs, peak >> 20,
                                       base >> 20, grew >> 20))
        if n != per_copy * copies:
            problem("stream %s: %d taps read, %d written" % (path, n, per_copy * copies))
        if grew > min(size // 8, 64 << 20):
            problem("stream %s: memory grew by %d MB reading %d MB" % (path, grew >> 20, size >> 20))
        os.unlink(path)


def check_table(work):
    import pandas as pd
    src = record_live(work, "jsonl", steps=4, field=100)
    df = R.scalars(src)
    taps = list(R.taps(src))
    want = ["device", "seq", "ts_ns", "name", "loss", "power3[0]", "power3[1]", "params.b",
            "status[0]", "status[1]", "status[2]"]
    if list(df.columns) != want:
        problem("table: columns %s, expected %s" % (list(df.columns), want))
    if len(df) != len(taps):
        problem("table: %d rows for %d taps" % (len(df), len(taps)))
    for row, tap in zip(df.itertuples(index=False), taps):
        if (row.device, row.seq, row.ts_ns, row.name) != (tap.device, tap.seq, tap.ts_ns, tap.name):
            problem("table: row %r for tap %r" % (row, tap))
            break
    loss = df.loc[df.name == "loss", "loss"].to_numpy()
    ref = np.array([t.value for t in taps if t.name == "loss"])
    if loss.dtype != np.float32 or loss.tobytes() != ref.tobytes():
        problem("table: loss column %r, taps %r" % (loss, ref))
    if not df.loc[df.name != "loss", "loss"].isna().all():
        problem("table: loss is not empty in other rows")
    if str(df["status[0]"].dtype) != "Int32" or str(df["status[1]"].dtype) != "boolean":
        problem("table: status dtypes %s" % df.dtypes.to_dict())
    j = os.path.join(work, "all1.jsonl")
    recgen.write_jsonl(j, 1)
    full = R.scalars(j)
    bf = full["bfloat16_0"].dropna()
    if bf.dtype != np.float32 or len(bf) != 3:
        problem("table: bfloat16 column %r" % bf)
    only = R.scalars(src, names=["loss"], devices=[1])
    if set(only.name) != {"loss"} or set(only.device) != {1} or "power3[0]" in only:
        problem("table: names/devices filter: %r" % only.head())
    print("table: %d taps of hcb-example as %d rows x %d columns (%s); every dtype's 0-d leaves "
          "in %d columns of a generated recording (pandas %s)"
          % (len(taps), len(df), len(df.columns), ", ".join(want[4:]), len(full.columns) - 4,
             pd.__version__))


def run_py(code, stdin=None):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, env=env)


def check_sources(work):
    j = os.path.join(work, "src.jsonl")
    recgen.write_jsonl(j, 9)
    c = j[:-6] + ".hcbcap"
    hcb("convert", j, "-o", c)
    ref = list(R.records(j))
    # standard input, a pipe (no seeking): both formats
    for path in (j, c):
        p = run_py("import hcbtap.recording as R; print(sum(1 for _ in R.records('-')))",
                   slurp(path))
        if p.stdout.strip() != str(len(ref)).encode():
            problem("sources: '-' with %s: %r %r" % (path, p.stdout, p.stderr[-300:]))
    # file objects: binary, seekable or not, and a text one for JSONL
    data = slurp(j)
    if list(R.records(io.BytesIO(data))) != ref:
        problem("sources: BytesIO")
    if list(R.records(io.BufferedReader(io.BytesIO(slurp(c))))) != list(R.records(c)):
        problem("sources: BufferedReader of .hcbcap")
    with open(j, encoding="utf-8") as f:
        if list(R.records(f)) != ref:
            problem("sources: text file")
    # a name that says nothing: the first byte decides
    odd = os.path.join(work, "capture.bin")
    with open(odd, "wb") as f:
        f.write(slurp(c))
    with R.Recording(odd) as rec:
        if rec.format != "hcbcap" or sum(1 for _ in rec) != len(list(R.records(c))):
            problem("sources: .hcbcap content named .bin")
    # truncated: warn (default), error, ignore
    cut = os.path.join(work, "cut.jsonl")
    with open(cut, "wb") as f:
        f.write(data[:len(data) - 10])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", R.RecordingWarning)
        n = sum(1 for _ in R.records(cut))
    if n != len(ref) - 1 or len(w) != 1 or not issubclass(w[0].category, R.RecordingWarning):
        problem("sources: truncated warn: %d records, %r" % (n, w))
    got = []
    try:
        for r in R.records(cut, truncated="error"):
            got.append(r)
        problem("sources: truncated='error' did not raise")
    except R.RecordingError as e:
        if not e.truncated or e.line != data.count(b"\n") or len(got) != len(ref) - 1:
            problem("sources: truncated='error': %s %d" % (e, len(got)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", R.RecordingWarning)
        if sum(1 for _ in R.records(cut, truncated="ignore")) != len(ref) - 1 or w:
            problem("sources: truncated='ignore'")
    # no jax at all: the reader imports none, and hcbtap's JAX side is lazy
    p = run_py("import sys; sys.modules['jax'] = None\n"
               "import hcbtap, hcbtap.recording as R\n"
               "print(sum(1 for _ in R.taps(%r)), 'jax' in sys.modules and sys.modules['jax'] is not None)\n"
               "try:\n    hcbtap.id_print\nexcept ImportError as e:\n    print('ImportError')\n" % j)
    if p.stdout.split() != [str(sum(1 for r in ref if r.kind == "tap")).encode(), b"False",
                            b"ImportError"]:
        problem("sources: without jax: %r %r" % (p.stdout, p.stderr[-500:]))
    # no ml_dtypes: a clear error naming the dtype; no pandas: one naming the extra
    p = run_py("import sys; sys.modules['ml_dtypes'] = None\nimport hcbtap.recording as R\n"
               "for t in R.taps(%r): pass\n" % j)
    if b"ImportError: hcbtap.recording: this recording holds bfloat16 arrays" not in p.stderr and \
            b"holds float8_e" not in p.stderr:
        problem("sources: without ml_dtypes: %r" % p.stderr[-300:])
    p = run_py("import sys; sys.modules['pandas'] = None\nimport hcbtap.recording as R\n"
               "R.scalars(%r)\n" % j)
    if b"pip install 'hcbtap[pandas]'" not in p.stderr:
        problem("sources: without pandas: %r" % p.stderr[-300:])
    print("sources: '-' (both formats), BytesIO, BufferedReader, a text file, a name without "
          "extension; truncated= warn, error, ignore; no jax imported; ml_dtypes and pandas missing")


COPY_TAP = ('{"type":"tap","device":%d,"seq":%d,"consumer":7,"name":"x","tree":"*","ts_ns":5000%s,'
            '"arrays":[{"dtype":"int16","shape":[2],"data":[1,-2]}]}\n')
COPY_GOOD = [(',"copy_ns":[4000,4500]', (4000, 4500)), ('', None),
             (',"copy_ns":[ 0 , 18446744073709551615 ]', (0, 2**64 - 1)),
             (',"copy_ns":[0,0]', None), (',"copy_ns":[5000,5000]', (5000, 5000))]
COPY_BAD = ['"4000"', '[4000]', '[1,2,3]', '[-1,5]', '[1.5,2]', '[1e3,2000]', 'null', '{}',
            '[1000,18446744073709551616]', '[true,2]', '[4501,4500]']


def copy_frame(start, end, size=16):
    return recgen.frame(0x80000001, struct.pack("<QQQ", start, end, 0)[:size])


def check_copyns_live(work):
    """A live record --cuda through the test stand-in of the CUPTI
    library: every tap with copy times, read alike from both formats."""
    lib = os.environ.get("HCBTRACE_CUPTI_LIB")
    if not lib:
        return 0
    out = os.path.join(work, "cuda.hcbcap")
    hcb("record", "--cuda", "-q", "-o", out, "--", EXAMPLE, "--devices", 2, "--steps", 2,
        "--interval-ms", 0, "--field-size", 40)
    back = out[:-7] + ".jsonl"
    hcb("convert", out, "-o", back)
    taps = list(R.taps(out))
    want = [tuple(json.loads(line)["copy_ns"]) for line in
            hcb("replay", "--no-wait", "-f", "jsonl", out).stdout.decode().splitlines()
            if '"type":"tap"' in line]
    if not taps or [t.copy_ns for t in taps] != want or [t.copy_ns for t in R.taps(back)] != want:
        problem("copyns live: %r, hcbtrace %r" % ([t.copy_ns for t in taps][:4], want[:4]))
    return len(taps)


def check_copyns(work):
    # good ones: from .jsonl, its .hcbcap and back, as hcbtrace reads them
    j = os.path.join(work, "copy.jsonl")
    with open(j, "w") as f:
        for k, (field, _) in enumerate(COPY_GOOD):
            f.write(COPY_TAP % (k % 2, k // 2, field))
    c = j[:-6] + ".hcbcap"
    hcb("convert", j, "-o", c)
    hcb("convert", c, "-o", j[:-6] + ".back.jsonl")
    for path in (j, c, j[:-6] + ".back.jsonl"):
        got = [t.copy_ns for t in R.taps(path)]
        if got != [want for _, want in COPY_GOOD]:
            problem("copyns: %s: %r" % (path, got))
    same_records(j, c, "copyns .jsonl vs its .hcbcap")
    # bad ones: refused at the same line, in the same words
    bad = os.path.join(work, "bad.jsonl")
    n = 0
    for text in COPY_BAD:
        with open(bad, "w") as f:
            f.write(COPY_TAP % (0, 0, "") + COPY_TAP % (0, 1, ',"copy_ns":' + text))
        cv, pv = c_verdict(bad), py_verdict(bad)
        if cv != pv or cv[1] != "error" or ":2: 'copy_ns' " not in cv[2]:
            problem("copyns %s: hcbtrace %r, hcbtap.recording %r" % (text, cv, pv))
        n += 1
    # .hcbcap: copy times out of place, cut, reversed, of another size
    data = slurp(c)
    first = data.index(struct.pack("<I", 0x80000001))
    tap_at = first + 36
    rest = data[tap_at:]
    end = recgen.frame(6, struct.pack("<QQQ", 1, 0, 2))
    cases = {
        "cut": data[:tap_at],
        "then end": data[:tap_at] + end,
        "twice": data[:tap_at] + copy_frame(1, 2) + rest,
        "reversed": data[:first] + copy_frame(3, 2) + rest,
        "short": data[:first] + copy_frame(1, 2, 8) + rest,
        "long": data[:first] + copy_frame(1, 2, 24) + rest,
    }
    badc = os.path.join(work, "bad.hcbcap")
    for name, content in sorted(cases.items()):
        with open(badc, "wb") as f:
            f.write(content)
        cv, pv = c_verdict(badc), py_verdict(badc)
        if cv != pv or cv[1] == "ok" or ("offset %d:" % first) not in cv[2]:
            problem("copyns .hcbcap %s: hcbtrace %r, hcbtap.recording %r" % (name, cv, pv))
        n += 1
    live = check_copyns_live(work)
    print("copyns: copy_ns of %d taps read alike from .jsonl, .hcbcap and back; %d malformed or "
          "misplaced refused in hcbtrace's words; %d taps of a live record --cuda"
          % (len(COPY_GOOD), n, live))


CHECKS = {"dtypes": check_dtypes, "raw": check_raw, "live": check_live, "damage": check_damage,
          "golden": check_golden, "stream": check_stream, "table": check_table,
          "sources": check_sources, "copyns": check_copyns}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CHECKS:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    print("numpy %s, Python %s" % (np.__version__, sys.version.split()[0]))
    CHECKS[sys.argv[1]](sys.argv[2])
    if PROBLEMS:
        print("%d problem(s)" % len(PROBLEMS), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
