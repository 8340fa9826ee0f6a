#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare_truth.py CAPTURED TRUTH [--all] [--devices N]

Checks a JSONL capture of hcbtrace against hcb-example's --truth file:
  * every captured tap is in the truth, identical (name, consumer, kwargs,
    tree, dtypes, shapes, data), matched by (device, seq);
  * per device, the captured seqs run without a gap from the first to the
    last captured one, and nothing the truth has between them is missing;
  * with --all: every tap the truth has (all with a seq) was captured;
  * with --devices N: taps from exactly N devices were captured.
Prints a one-line summary; exits 1 with the first problems on failure.
"""
import json
import sys


def load(path, kind):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                sys.exit(f"{path}:{n}: not JSON: {e}")
            if r.get("type") != "tap":
                continue
            if kind == "truth" and r["seq"] is None:
                continue
            key = (r["device"], r["seq"])
            if key in out:
                sys.exit(f"{path}:{n}: tap {key} twice")
            out[key] = r
    return out


def main():
    args = sys.argv[1:]
    want_all = "--all" in args
    ndev = None
    if "--devices" in args:
        ndev = int(args[args.index("--devices") + 1])
    paths = [a for a in args if not a.startswith("--") and not a.isdigit()]
    cap, truth = load(paths[0], "cap"), load(paths[1], "truth")
    problems = []
    if not cap:
        problems.append("nothing captured")
    for key, r in sorted(cap.items()):
        t = truth.get(key)
        if t is None:
            problems.append(f"captured {key} is not in the truth")
            continue
        for field in ("name", "consumer", "kwargs", "tree", "arrays"):
            if r[field] != t[field]:
                problems.append(f"{key} {r['name']}: {field} differs")
    devices = sorted({d for d, _ in cap})
    for d in devices:
        seqs = sorted(s for dd, s in cap if dd == d)
        missing = [s for s in range(seqs[0], seqs[-1] + 1) if (d, s) not in cap]
        if missing:
            problems.append(f"device {d}: {len(missing)} taps missing, first seq {missing[0]}")
    if want_all:
        lost = sorted(k for k in truth if k not in cap)
        if lost:
            problems.append(f"{len(lost)} taps of the truth not captured, first {lost[0]}")
    if ndev is not None and len(devices) != ndev:
        problems.append(f"taps from {len(devices)} devices, expected {ndev}")
    if problems:
        print("\n".join(problems[:10]), file=sys.stderr)
        sys.exit(1)
    print(f"ok: {len(cap)} taps from {len(devices)} devices match the truth")


main()
