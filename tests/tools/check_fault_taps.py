#!/usr/bin/env python3
"""Checks a recording of tests/tools/fault_tapper.c against what it tapped.

    check_fault_taps.py RECORDING.jsonl ISSUED_FILE FIELD

ISSUED_FILE holds fault_tapper's stdout ("issued DEVICE N" lines).  Every tap
must be device d's step s whole: element i equal to (d << 48) | (s << 20) | i,
FIELD elements, each step of each device once.  A step not delivered must be
counted by a drop record.  Prints one summary line; exit 1 on any value out
of place (another tap's, or a tap's own misplaced), a duplicate, or a tap
neither delivered nor counted.
"""
import json
import sys


def check_tap(rec, field, seen, bad):
    dev = rec["device"]
    data = rec["arrays"][0]["data"]
    if len(data) != field:
        bad.append(f"device {dev} seq {rec['seq']}: {len(data)} elements, not {field}")
        return
    step = (data[0] >> 20) & 0x7FFFFFF
    want = [(dev << 48) | (step << 20) | i for i in range(field)]
    if data != want:
        wrong = sum(1 for a, b in zip(data, want) if a != b)
        bad.append(f"device {dev} seq {rec['seq']}: {wrong} of {field} values not step {step}'s"
                   f" (first: {data[0]:#x})")
        return
    if step in seen.setdefault(dev, set()):
        bad.append(f"device {dev}: step {step} twice")
    seen[dev].add(step)


def main():
    path, issued_path, field = sys.argv[1], sys.argv[2], int(sys.argv[3])
    issued = {}
    with open(issued_path) as f:
        for line in f:
            _, dev, n = line.split()
            issued[int(dev)] = int(n)
    seen, bad, dropped, taps = {}, [], {}, 0
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] == "tap":
                taps += 1
                check_tap(rec, field, seen, bad)
            elif rec["type"] == "drop":
                dropped[rec["device"]] = dropped.get(rec["device"], 0) + rec["count"]
    for dev, n in sorted(issued.items()):
        got = len(seen.get(dev, ()))
        if got + dropped.get(dev, 0) != n:
            bad.append(f"device {dev}: issued {n}, delivered {got} whole, dropped "
                       f"{dropped.get(dev, 0)}")
    print(f"taps {taps} issued {sum(issued.values())} dropped {sum(dropped.values())} "
          f"bad {len(bad)}")
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
