#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check `hcbtrace diff -f json` against numpy on sets of gen_isclose_cases.py.

    check_diff_isclose.py HCBTRACE SETDIR...

For every tap of expected.json: the mismatch count of each leaf must be
numpy.isclose's, and where numpy computed them the max absolute and relative
differences must be assert_allclose's (exactly; NaN equals NaN).  Every tap
must have been paired (no missing, no extra) and the exit status must be 1
when something mismatched, 0 otherwise.  Prints one line per disagreement
and a summary; exits 1 if there is any.  Needs no numpy.
"""
import json
import math
import os
import subprocess
import sys


def same_num(a, b):
    fa, fb = float(a), float(b)   # also "nan", "inf", "-inf"
    if math.isnan(fa) or math.isnan(fb):
        return math.isnan(fa) and math.isnan(fb)
    return fa == fb


def check_set(hcbtrace, d):
    with open(os.path.join(d, "expected.json")) as f:
        exp = json.load(f)
    with open(os.path.join(d, "args")) as f:
        args = f.read().split()
    p = subprocess.run([hcbtrace, "diff", "-f", "json"] + args +
                       [os.path.join(d, "ref.jsonl"), os.path.join(d, "new.jsonl")],
                       capture_output=True, text=True)
    bad = []
    if p.returncode not in (0, 1):
        return ["%s: exit %d: %s" % (d, p.returncode, p.stderr.strip())], 0, 0
    out = json.loads(p.stdout)
    got = {}
    for t in out["differences"]:
        key = (t["device"], t["consumer"], t["index"])
        got[key] = {l["leaf"]: l for l in t["leaves"]}
        for l in t["leaves"]:
            if l["differs"] != "values":
                bad.append("%s: %s leaf %d: differs by %s" % (d, key, l["leaf"], l["differs"]))
    if out["missing"] or out["extra"]:
        bad.append("%s: unpaired taps: %s %s" % (d, out["missing"], out["extra"]))
    any_mismatch = False
    nleaves = 0
    for t in exp["taps"]:
        key = (t["device"], t["consumer"], t["index"])
        for i, want in enumerate(t["leaves"]):
            nleaves += 1
            have = got.get(key, {}).get(i)
            n = have["mismatched"] if have else 0
            if n != want["mismatched"]:
                bad.append("%s: %s leaf %d: %d mismatched, numpy says %d"
                           % (d, key, i, n, want["mismatched"]))
                continue
            if want["mismatched"]:
                any_mismatch = True
            for k in ("max_abs", "max_rel"):
                if k in want and have and not same_num(have[k], want[k]):
                    bad.append("%s: %s leaf %d: %s %r, numpy says %r"
                               % (d, key, i, k, have[k], want[k]))
    if out["counts"]["compared"] != len(exp["taps"]):
        bad.append("%s: %d pairs compared, expected %d" % (d, out["counts"]["compared"], len(exp["taps"])))
    if p.returncode != (1 if any_mismatch else 0):
        bad.append("%s: exit %d" % (d, p.returncode))
    return bad, len(exp["taps"]), nleaves


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    allbad, taps, leaves = [], 0, 0
    for d in sys.argv[2:]:
        b, t, n = check_set(sys.argv[1], d)
        allbad += b
        taps += t
        leaves += n
    for line in allbad:
        print(line)
    print("%d sets, %d taps, %d leaves: %d disagreements with numpy"
          % (len(sys.argv) - 2, taps, leaves, len(allbad)))
    return 1 if allbad else 0


if __name__ == "__main__":
    sys.exit(main())
