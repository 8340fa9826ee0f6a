#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_delivery.py REC.jsonl ISSUED [--exact] [--upto-barrier]

Checks a recording against libhcbtap's issued counters (ISSUED: lines
"DEVICE COUNT", from read_issued.py or hcb-example --report-issued):

  every line is a valid JSON record; per device, tap seqs only grow and
  every seq from the device's first tap on is either a tap or counted in a
  drop record; the end record's totals match the taps and drops above it.

  default         every seq below ISSUED is in the file as a tap (gap-free,
                  no drops), from the device's first tap on
  --exact         taps + drops == ISSUED per device, from seq 0 (a session
                  that saw the program from its start, e.g. record -- CMD)
  --upto-barrier  only the records before the first barrier record count
                  (which must exist)
Prints one summary line per device; exits 1 with the reason on failure.
"""
import json
import sys


def fail(msg):
    print(f"check_delivery: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    exact = "--exact" in sys.argv
    upto_barrier = "--upto-barrier" in sys.argv
    rec_path, issued_path = args
    issued = {}
    for line in open(issued_path):
        if line.strip():
            d, n = line.split()[-2:]
            issued[int(d.split(":")[-1])] = int(n)

    taps, drops, last, first = {}, {}, {}, {}
    barrier = end = None
    with open(rec_path) as f:
        for no, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                fail(f"{rec_path}:{no}: not a JSON record: {e}")
            if not isinstance(r, dict) or "type" not in r:
                fail(f"{rec_path}:{no}: not a record")
            if r["type"] == "barrier":
                barrier = barrier or no
                if upto_barrier:
                    break
            elif r["type"] == "end":
                end = r
            elif r["type"] == "drop":
                d = r["device"]
                if r["count"] < 1:
                    fail(f"{rec_path}:{no}: drop of {r['count']}")
                drops[d] = drops.get(d, 0) + r["count"]
                # a loss before the first tap is only possible from seq 0 on
                first.setdefault(d, 0)
                last[d] = last.get(d, -1) + r["count"]
            elif r["type"] == "tap":
                d, seq = r["device"], r["seq"]
                if d in last and seq != last[d] + 1:
                    fail(f"{rec_path}:{no}: device {d} seq {seq} after {last[d]}: "
                         f"{'a gap no drop record accounts for' if seq > last[d] + 1 else 'out of order'}")
                first.setdefault(d, seq)
                last[d] = seq
                taps[d] = taps.get(d, 0) + 1
    if upto_barrier and not barrier:
        fail(f"{rec_path}: no barrier record")
    if end is not None:
        if end["taps"] != sum(taps.values()) or end["drops"] != sum(drops.values()):
            fail(f"end record says {end['taps']} taps, {end['drops']} drops; the file has "
                 f"{sum(taps.values())} and {sum(drops.values())}")
    for d, n in sorted(issued.items()):
        t, k = taps.get(d, 0), drops.get(d, 0)
        print(f"device {d}: issued {n}, taps {t}, dropped {k}, seqs {first.get(d)}..{last.get(d)}")
        if exact:
            if t + k != n or first.get(d, 0) != 0:
                fail(f"device {d}: {t} taps + {k} dropped != {n} issued")
        else:
            if k:
                fail(f"device {d}: {k} dropped")
            if n and last.get(d, -1) < n - 1:
                fail(f"device {d}: taps stop at seq {last.get(d)}, but {n} were issued")


if __name__ == "__main__":
    main()
