# SPDX-License-Identifier: MIT
"""check_dtypes_truth.py TRUTH [--exact REC] [--text REC] [--npz NPZ REC] [--printed TXT]

Recordings of tests/jax/dtypes.py against the ground truth it wrote (what
each jax.debug.callback call was handed), read back with hcbtap.recording
(PYTHONPATH=python), one tap per truth line, in order:

  --exact REC   a recording whose every leaf must be the truth's bytes, with
                the truth's ml_dtypes dtype and shape (a .hcbcap straight
                from `hcbtrace record`, or converted from one);
  --text REC    the same, for a recording that went through JSONL text: every
                bit but a NaN's, which is the dtype's NaN that "nan" reads
                as (JSONL keeps no NaN payload or sign);
  --npz NPZ REC hcbtrace's .npz of REC: each leaf the member its name, device
                and index give (formats/npz.c), its raw bits the truth's and
                __dtypes__.json naming the dtype;
  --printed TXT `hcbtrace replay` text of a recording: each tap's block holds
                each leaf as numpy itself prints the truth's array.

Run with a Python that has numpy and ml_dtypes 0.5 or later.  Prints one
summary line; exits 0 if every check holds, 1 with the first problems.
"""
import argparse
import base64
import json
import sys

import ml_dtypes
import numpy as np

import hcbtap.recording as R
from check_npz import device_name, sanitize

PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def truth_arrays(path):
    out = []
    for line in open(path):
        t = json.loads(line)
        leaves = []
        for leaf in t["leaves"]:
            name = leaf["dtype"]
            dt = np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)
            raw = np.frombuffer(base64.b64decode(leaf["data"]), dtype=dt)
            leaves.append(raw.reshape(leaf["shape"]))
        out.append(leaves)
    return out


def through_text(a):
    """a as JSONL text gives it back: a NaN as the dtype's NaN "nan" reads as."""
    if a.dtype.name in ("int2", "int4", "uint2", "uint4") or not hasattr(ml_dtypes, a.dtype.name):
        return a        # no NaN, or float32, which has none here
    with np.errstate(invalid="ignore"):
        nan = np.isnan(a.astype(np.float32))
        if not nan.any():
            return a
        b = a.copy()
        b[nan] = np.array(np.nan, dtype=np.float32).astype(a.dtype)
    return b


def same(what, got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        problem("%s: %s %s, the callback got %s %s" % (what, got.dtype, got.shape, want.dtype,
                                                       want.shape))
    elif got.tobytes() != want.tobytes():
        g, w = got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8)
        i = np.flatnonzero(g != w)
        problem("%s: bytes %s differ: %s, the callback got %s" % (
            what, i[:5].tolist(), g[i[:5]].tolist(), w[i[:5]].tolist()))


def check_rec(truth, path, text):
    taps = list(R.taps(path))
    if len(taps) != len(truth):
        problem("%s: %d taps, the program made %d calls" % (path, len(taps), len(truth)))
    for k, (tap, leaves) in enumerate(zip(taps, truth)):
        if len(tap.leaves) != len(leaves):
            problem("%s: tap %d: %d leaves, not %d" % (path, k, len(tap.leaves), len(leaves)))
            continue
        for i, (got, want) in enumerate(zip(tap.leaves, leaves)):
            same("%s: tap %d leaf %d (%s)" % (path, k, i, want.dtype), got,
                 through_text(want) if text else want)
    return taps


def check_npz(truth, npz_path, rec):
    npz = np.load(npz_path, allow_pickle=False)
    real = json.loads(npz["__dtypes__.json"])
    counters = {}
    for k, (tap, leaves) in enumerate(zip(R.taps(rec), truth)):
        key = (sanitize(tap.name), tap.device)
        index = counters.get(key, 0)
        counters[key] = index + 1
        base = "%s/%s/%06d" % (key[0], device_name("cpu", tap.device), index)
        for i, want in enumerate(leaves):
            name = "%s_%d" % (base, i)
            got = npz[name]
            if name in real:        # raw bits, the dtype named
                if real[name] != want.dtype.name or got.dtype.itemsize != want.dtype.itemsize:
                    problem("%s: %s: %s named %s" % (npz_path, name, got.dtype, real[name]))
                    continue
                got = got.view(np.dtype(getattr(ml_dtypes, real[name])))
            same("%s: %s" % (npz_path, name), got, want)


def check_printed(truth, path):
    blocks = open(path).read().split("callback: ")[1:]
    if len(blocks) != len(truth):
        problem("%s: %d taps printed, the program made %d calls" % (path, len(blocks), len(truth)))
    for k, (block, leaves) in enumerate(zip(blocks, truth)):
        for i, a in enumerate(leaves):
            text = np.array2string(a, threshold=1024)
            if text not in block:
                problem("%s: tap %d leaf %d (%s): numpy prints\n%s\nnot in\n%s" % (
                    path, k, i, a.dtype, text, block[:2000]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("--exact", action="append", default=[])
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--npz", nargs=2, action="append", default=[])
    ap.add_argument("--printed", action="append", default=[])
    args = ap.parse_args()
    truth = truth_arrays(args.truth)
    dtypes = sorted({a.dtype.name for leaves in truth for a in leaves})
    for path in args.exact:
        check_rec(truth, path, False)
    for path in args.text:
        check_rec(truth, path, True)
    for npz_path, rec in args.npz:
        check_npz(truth, npz_path, rec)
    for path in args.printed:
        check_printed(truth, path)
    print("truth %d calls of %d dtypes (%s); %d recordings, %d npz, %d printed: %d problems"
          % (len(truth), len(dtypes), " ".join(dtypes), len(args.exact) + len(args.text),
             len(args.npz), len(args.printed), len(PROBLEMS)))
    for p in PROBLEMS[:10]:
        print("  " + p)
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
