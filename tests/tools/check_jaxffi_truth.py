# SPDX-License-Identifier: MIT
"""check_jaxffi_truth.py TRUTH RECORDING: every tap of an hcbtrace JSONL
recording of tests/jax/modern.py against the ground truth it wrote.

Run with a Python that has numpy and ml_dtypes (a JAX venv has both).
A device's independent callbacks may run at the same time on several
threads, so taps are paired with truth entries as a multiset, by device,
callback kind (from the op name: "pure_callback.4" is a pure_callback;
jaxlib 0.6 names them "custom-call.N" and the kind goes unchecked; the op
is the op kwarg where the site is named by the user's code, issue 29,
else the tap's name), and
each array's dtype, shape and bytes.  Then per pair: the module kwarg
(where the truth names one, and hcbtrace does not say "unknown": XLA's
classic CPU runtime, jaxlib before 0.4.33, names no module at a legacy
callback), the callback kwarg, the tree ("*" for one
array, a tuple for several).  Prints one summary line and the first
mismatches; exits 0 if every tap and every truth entry found its pair (or,
for a truth entry, is one of the calls hcbtrace's drop records counted lost
on its device) and nothing differs, 1 otherwise.
"""
import base64
import collections
import json
import re
import sys

import ml_dtypes
import numpy as np

KINDS = r"(debug_print|debug_callback|io_callback|pure_callback|buffer_callback)"


def kind_of(op):
    m = re.match(r"^%s\.\d+$" % KINDS, op)
    return m.group(1) if m else None


def op_of(c):
    """The XLA op of a tap's site: its op kwarg, where hcbtrace named the
    site by the user's code, else the site's name."""
    return c["kwargs"].get("op", c["name"])


def dtype_of(name):
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def element(v):
    if isinstance(v, str):
        return float(v)                 # "nan", "inf", "-inf"
    if isinstance(v, list):
        return complex(element(v[0]), element(v[1]))
    return v


def array_bytes(a):
    dt = dtype_of(a["dtype"])
    flat = [element(v) for v in a["data"]]
    if dt.kind == "f" or dt.name in ("bfloat16",) or dt.name.startswith("float8"):
        # the writer's shortest decimal reads back in the element's own dtype
        return np.array(flat, dtype=np.float64).astype(dt).tobytes()
    return np.array(flat, dtype=dt).tobytes()


def truth_key(t, named, print_op):
    # jax before 0.7.2 has no debug_print primitive: jax.debug.print is a
    # debug_callback there
    kind = t["kind"] if print_op or t["kind"] != "debug_print" else "debug_callback"
    return (t["device"], kind if named else None,
            tuple((l["dtype"], tuple(l["shape"]), base64.b64decode(l["data"]))
                  for l in t["leaves"]))


def tap_key(c, named):
    return (c["device"], kind_of(op_of(c)) if named else None,
            tuple((a["dtype"], tuple(a["shape"]), array_bytes(a)) for a in c["arrays"]))


def pair(truth, taps, named, dropped):
    """dropped: per device, the calls hcbtrace counted lost (drop records):
    that many unrecorded calls of the device are losses it said, not
    mismatches."""
    pool = collections.defaultdict(list)
    for c in taps:
        pool[tap_key(c, named)].append(c)
    print_op = any(kind_of(op_of(c)) == "debug_print" for c in taps)
    bad, modules, lost = [], 0, 0
    unnamed = 0
    for t in truth:
        cands = pool.get(truth_key(t, named, print_op))
        if not cands and dropped[t["device"]] > 0:
            dropped[t["device"]] -= 1
            lost += 1
            continue
        if not cands:
            bad.append(("not recorded", t["kind"], t["site"], "device %d" % t["device"]))
            continue
        pick = next((c for c in cands if t["module"] in (None, c["kwargs"].get("module"))), None)
        if pick is None:
            pick = next((c for c in cands if c["kwargs"].get("module") == "unknown"), None)
            unnamed += pick is not None
        if pick is None:
            pick = cands[0]
            bad.append(("module", t["site"], t["module"], pick["kwargs"].get("module")))
        elif t["module"] is not None and pick["kwargs"].get("module") != "unknown":
            modules += 1
        cands.remove(pick)
        n = len(t["leaves"])
        tree = "*" if n == 1 else "( " + " ".join(["*"] * n) + " )" if n else "( )"
        if pick["tree"] != tree or pick["kwargs"].get("callback") != pick["name"]:
            bad.append(("tree or callback kwarg", pick["name"], pick["tree"], tree))
    for cands in pool.values():
        for c in cands:
            bad.append(("not in the truth", c["name"], c["kwargs"].get("module"),
                        "device %d" % c["device"]))
    return bad, (modules, unnamed), lost


def main():
    truth = [json.loads(l) for l in open(sys.argv[1])]
    records = [json.loads(l) for l in open(sys.argv[2])]
    taps = [r for r in records if r["type"] == "tap"]
    drops = [r for r in records if r["type"] == "drop"]
    named = all(kind_of(op_of(c)) for c in taps)
    dropped = collections.Counter()
    for d in drops:
        dropped[d["device"]] += d["count"]
    bad, (modules, unnamed), lost = pair(truth, taps, named, dropped)
    print("truth %d calls, recording %d taps, %d drop records, %d lost as counted, %d mismatches "
          "(modules checked %d%s, op kinds %s)"
          % (len(truth), len(taps), len(drops), lost, len(bad), modules,
             ", %d said unknown" % unnamed if unnamed else "",
             "checked" if named else "not named by this jaxlib"))
    for b in bad[:20]:
        print("  ", *b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
