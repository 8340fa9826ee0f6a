# SPDX-License-Identifier: MIT
"""check_dense.py PROGRAM_STDOUT TRUTH RECORDING: an hcbtrace JSONL recording
of tests/jax/dense.py, attached mid-run, against what the program printed
and what its callbacks were handed (issue 36).

Run with a Python that has numpy and ml_dtypes (a JAX venv has both).

  - every site one name: each call site (module, op) has one consumer
    name, each name one site; the name is the site's own (a print's format
    string, a callback's function; a second XLA op of one Python site,
    as vmap makes, "NAME #N"), never XLA's op or "unknown";
  - every line as printed: a print's tap holds its text, which the program
    printed (a "pmap ... dev=D" line on device D); every line the program
    printed in the rounds between "go K" and "done K2" is shown, as often;
  - every callback value the truth's: each callback tap is a call the truth
    holds (its function, device and operands' bytes); every call of the
    rounds K..K2-1 is a tap, as often.
Taps of rounds before K (before and while hcbtrace attached) are held to
the first two points and must be in the truth; a round is read from a
tap's text ("k=N") or its first operand.  Prints one summary line, and
exits 0 if all holds, else says what does not and exits 1.
"""
import base64
import collections
import json
import re
import sys

import ml_dtypes
import numpy as np

PRINTS = ["jit k={k} sum={s:.3f} x={x}", "scan k={k} i={i} c={c}", "vmap k={k} x={x:.2f}",
          "ordered k={k} first {x}", "ordered k={k} second {x}", "pmap k={k} dev={d} x={x}"]
CALLBACKS = ["log_jit", "log_scan", "log_pmap", "pure_vmap", "io_plain", "io_ordered",
             "pure_pmap"]
ROUND = re.compile(r"\bk=(\d+)\b")
DEV = re.compile(r"^pmap k=\d+ dev=(\d+) ")


def dtype_of(name):
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def element(v):
    return float(v) if isinstance(v, str) else v


def array_bytes(a):
    dt = dtype_of(a["dtype"])
    flat = [element(v) for v in a["data"]]
    if dt.kind == "f":
        return np.array(flat, dtype=np.float64).astype(dt).tobytes()
    return np.array(flat, dtype=dt).tobytes()


def base_name(name):
    return re.sub(r" #\d+$", "", name)


def window(lines):
    go = next(int(l.split()[1]) for l in lines if l.startswith("go "))
    done = next(int(l.split()[1]) for l in lines if l.startswith("done "))
    return go, done


def check_names(taps, bad):
    """Every site one name, its own; the count of taps named by none."""
    names, sites = collections.defaultdict(set), collections.defaultdict(set)
    unnamed = 0
    for t in taps:
        site = (t["kwargs"].get("module"), t["kwargs"].get("op"))
        names[site].add(t["name"])
        sites[t["name"]].add(site)
        if base_name(t["name"]) not in PRINTS + CALLBACKS or site[0] in (None, "unknown"):
            unnamed += 1
            if unnamed <= 5:
                bad.append("a tap named by no call site: %r (module %s, op %s)"
                           % (t["name"], site[0], site[1]))
    for site, n in names.items():
        if len(n) > 1:
            bad.append("site %s op %s has %d names: %s" % (site + (len(n), sorted(n))))
    for name, s in sites.items():
        if len(s) > 1:
            bad.append("name %r is %d sites: %s" % (name, len(s), sorted(s, key=str)))
    return unnamed, len(names)


def check_texts(lines, taps, k0, k1, bad):
    """Every print's tap holds a line the program printed; every line of
    the window is shown as often as it was printed."""
    printed = collections.Counter(l for l in lines if ROUND.search(l))
    shown, no_text = collections.Counter(), 0
    for t in taps:
        if base_name(t["name"]) not in PRINTS:
            continue
        if "text" not in t:
            no_text += 1
            if no_text <= 5:
                bad.append("a print's tap without its text: %r device %d seq %d"
                           % (t["name"], t["device"], t["seq"]))
            continue
        for line in t["text"].split("\n"):
            shown[line] += 1
            m = DEV.match(line)
            if m and int(m.group(1)) != t["device"]:
                bad.append("%r shown on device %d" % (line, t["device"]))
    for line in sorted(set(printed) | set(shown)):
        k = int(ROUND.search(line).group(1)) if ROUND.search(line) else -1
        in_window = k0 <= k < k1
        if shown[line] > printed[line] or (in_window and shown[line] != printed[line]):
            bad.append("%r: printed %d times, shown %d" % (line, printed[line], shown[line]))
    return sum(n for l, n in printed.items() if k0 <= int(ROUND.search(l).group(1)) < k1), no_text


def check_values(truth, taps, k0, k1, bad):
    """Every callback tap a call of the truth; every call of the window a tap."""
    pool = collections.Counter()
    for t in truth:
        key = (t["site"], t["device"],
               tuple((l["dtype"], tuple(l["shape"]), base64.b64decode(l["data"]))
                     for l in t["leaves"]))
        pool[key] += 1
    window_calls = collections.Counter(
        (t["site"], t["device"]) for t in truth if k0 <= t["k"] < k1)
    seen = collections.Counter()
    for t in taps:
        if base_name(t["name"]) not in CALLBACKS:
            continue
        key = (t["name"], t["device"],
               tuple((a["dtype"], tuple(a["shape"]), array_bytes(a)) for a in t["arrays"]))
        if pool[key] <= 0:
            bad.append("a callback tap the truth does not hold: %r device %d seq %d"
                       % (t["name"], t["device"], t["seq"]))
            continue
        pool[key] -= 1
        k = int(np.frombuffer(key[2][0][2], dtype=dtype_of(key[2][0][0]))[0])
        if k0 <= k < k1:
            seen[(t["name"], t["device"])] += 1
    for site in sorted(window_calls):
        if seen[site] != window_calls[site]:
            bad.append("%s on device %d: %d calls in rounds %d..%d, %d taps"
                       % (site + (window_calls[site], k0, k1 - 1, seen[site])))
    return sum(window_calls.values())


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    truth = [json.loads(l) for l in open(sys.argv[2])]
    records = [json.loads(l) for l in open(sys.argv[3])]
    taps = [r for r in records if r["type"] == "tap"]
    k0, k1 = window(lines)
    bad = []
    unnamed, nsites = check_names(taps, bad)
    nlines, no_text = check_texts(lines, taps, k0, k1, bad)
    ncalls = check_values(truth, taps, k0, k1, bad)
    drops = sum(r["count"] for r in records if r["type"] == "drop")
    print("%d taps, %d sites, %d named by no site, %d prints without text, %d drops; "
          "rounds %d..%d: %d printed lines, %d callback calls; %d problems"
          % (len(taps), nsites, unnamed, no_text, drops, k0, k1 - 1, nlines, ncalls, len(bad)))
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad or not taps else 0


if __name__ == "__main__":
    sys.exit(main())
