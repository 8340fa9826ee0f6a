#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_record.py REC TRUTH ERR [--timed] [--burst] [--any-kwargs]

Checks an hcbtrace recording (JSONL) of tests/gpu/gpu_taps.py against the
TRUTH it wrote and the "issued DEVICE COUNT" lines of its stderr (ERR):
  * per device, every tap in program order: seq k is the truth's k-th tap
    (kwargs, dtype, shape and every value's bytes);
  * exact accounting: taps + drop counts = what libhcbtap issued = the
    truth's count, and the end record agrees;
  * without --burst no drop at all; with --burst at least one drop of
    reason "device staging full", and the taps after the burst arrived
    (the staging memory came back);
  * with --timed every tap has copy_ns [start, end], 0 < start <= end <= ts_ns;
  * with --any-kwargs the taps' kwargs are not compared (JAX's own callbacks
    on CUDA, tests/gpu/gpu_callbacks.py: their names are hcbtrace's).
Prints one line saying what it found; exits 1 with the first problems.
"""
import hashlib
import json
import re
import sys
from collections import defaultdict

import numpy as np


def same(got, want):
    """got's values (a recording's array) are want's (the truth's: its
    values, or the SHA-256 of their bytes), bit for bit."""
    raw = np.asarray(got["data"], got["dtype"]).tobytes()
    if "sha256" in want:
        return hashlib.sha256(raw).hexdigest() == want["sha256"]
    return raw == np.asarray(want["data"], want["dtype"]).tobytes()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    timed, burst = "--timed" in sys.argv, "--burst" in sys.argv
    any_kwargs = "--any-kwargs" in sys.argv
    rec_path, truth_path, err_path = args
    truth = defaultdict(list)
    for line in open(truth_path):
        t = json.loads(line)
        truth[t["device"]].append(t)
    issued = {int(d): int(n) for d, n in re.findall(r"^issued (\d+) (\d+)$", open(err_path).read(), re.M)}
    taps, drops, ends, bad = defaultdict(list), defaultdict(list), [], []
    for n, line in enumerate(open(rec_path), 1):
        try:
            r = json.loads(line)
        except ValueError as e:
            sys.exit(f"{rec_path}:{n}: not JSON: {e}")
        if r["type"] == "tap":
            taps[r["device"]].append(r)
        elif r["type"] == "drop":
            drops[r["device"]].append(r)
        elif r["type"] == "end":
            ends.append(r)

    if not truth:
        bad.append("the program wrote no truth")
    for d in sorted(set(truth) | set(taps) | set(drops)):
        want, got = truth.get(d, []), taps.get(d, [])
        lost = sum(x["count"] for x in drops.get(d, []))
        if issued.get(d) != len(want):
            bad.append(f"device {d}: libhcbtap issued {issued.get(d)}, the truth has {len(want)}")
        if len(got) + lost != len(want):
            bad.append(f"device {d}: {len(got)} taps + {lost} dropped != {len(want)} tapped")
        seqs = [t["seq"] for t in got]
        if seqs != sorted(set(seqs)):
            bad.append(f"device {d}: taps out of seq order or repeated")
        if not burst and seqs != list(range(len(want))):
            bad.append(f"device {d}: seqs are not 0..{len(want) - 1} in order")
        if not burst and lost:
            bad.append(f"device {d}: {lost} dropped: {sorted(set(x.get('reason') for x in drops[d]))}")
        for t in got:
            if not 0 <= t["seq"] < len(want):
                bad.append(f"device {d}: seq {t['seq']} beyond the truth")
                continue
            w = want[t["seq"]]
            if not any_kwargs and t.get("kwargs") != w["kwargs"]:
                bad.append(f"device {d} seq {t['seq']}: kwargs {t.get('kwargs')} != {w['kwargs']}")
            elif len(t["arrays"]) != len(w["arrays"]):
                bad.append(f"device {d} seq {t['seq']}: {len(t['arrays'])} arrays != {len(w['arrays'])}")
            else:
                for i, (a, b) in enumerate(zip(t["arrays"], w["arrays"])):
                    if (a["dtype"], a["shape"]) != (b["dtype"], b["shape"]) or not same(a, b):
                        bad.append(f"device {d} seq {t['seq']} array {i}: values differ from the truth")
            if timed:
                c = t.get("copy_ns")
                if not (isinstance(c, list) and len(c) == 2 and 0 < c[0] <= c[1] <= t["ts_ns"]):
                    bad.append(f"device {d} seq {t['seq']}: copy_ns {c} is not 0 < start <= end <= ts_ns {t['ts_ns']}")
        if burst:
            reasons = [x.get("reason") for x in drops.get(d, [])]
            if "device staging full" not in reasons:
                bad.append(f"device {d}: no drop for 'device staging full' in the burst (drops: {reasons})")
            after = [k for k, w in enumerate(want) if w["kwargs"].get("what") == "after"]
            if not set(after) <= set(seqs):
                bad.append(f"device {d}: the taps after the burst did not all arrive")
    if len(ends) != 1:
        bad.append(f"{len(ends)} end records")
    elif ends[0].get("taps") != sum(map(len, taps.values())) or \
            ends[0].get("drops") != sum(x["count"] for v in drops.values() for x in v):
        bad.append(f"the end record {ends[0]} disagrees with the records above it")
    if bad:
        print("\n".join(bad[:10]))
        sys.exit(1)

    ntaps = sum(map(len, taps.values()))
    nlost = sum(x["count"] for v in drops.values() for x in v)
    what = f"{ntaps} taps on {len(truth)} device(s) in program order, equal to the truth"
    if burst:
        what += f", {nlost} counted drops ({', '.join(sorted(set(x.get('reason') for v in drops.values() for x in v)))})"
    if timed:
        c = [(t["copy_ns"][1] - t["copy_ns"][0], t["ts_ns"] - t["copy_ns"][1]) for v in taps.values() for t in v]
        what += ", all with copy times (median copy %.1f us, copy end to probe %.1f us)" % (
            np.median([x for x, _ in c]) / 1e3, np.median([y for _, y in c]) / 1e3)
    print(what)


if __name__ == "__main__":
    main()
