#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_flight_window.py REC FIRST LAST DEVICES TRIGGER_DEVICE CONSUMER LEAF ELEMENT COND

A flight recorder's recording (hcbtrace record --until ...) of
tests/tools/nan_tapper or tests/jax/nan_loss.py, read through
hcbtap.recording (python/, found beside this file; numpy needed): REC holds
the session, then per device the taps of consecutive seqs (nothing lost: no
drop records either) whose steps run up to LAST and start past FIRST (the
first steps were let go), each step whole but the first kept; then one
trigger record naming the last tap of TRIGGER_DEVICE, consumer CONSUMER,
leaf LEAF, element ELEMENT (-: none), a NaN; then the end, counting the
taps.  Prints what it saw; exits 1 (an assertion) where REC differs.
Used by tests/bats/flight.bats and tests/kernel/checks.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import math  # noqa: E402

from hcbtap.recording import records  # noqa: E402

rec, first, last, devices, tdev, cons, leaf, elem, cond = sys.argv[1:]
first, last, devices, tdev, leaf = int(first), int(last), int(devices), int(tdev), int(leaf)
# the session record comes again as devices come (engine/whois.h): the
# first stays first, the others are read past
recs = list(records(rec))
recs = recs[:1] + [r for r in recs[1:] if r.kind != "session"]
kinds = [r.kind for r in recs]
assert kinds[0] == "session" and kinds[-1] == "end", kinds[:2] + kinds[-2:]
assert kinds.count("trigger") == 1 and kinds.count("drop") == 0, kinds
ti = kinds.index("trigger")
assert all(k == "tap" for k in kinds[1:ti]), "only taps before the trigger"
taps = recs[1:ti]
per = {}
for t in taps:
    step = int(t.leaves[0].flat[0])
    per.setdefault(t.device, []).append((t.seq, t.name, step))
assert sorted(per) == list(range(devices)), sorted(per)
for d, ts in per.items():
    seqs = [s for s, _, _ in ts]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "device %d: a gap in %r" % (d, seqs)
    steps = [st for _, _, st in ts]
    assert steps == sorted(steps) and steps[-1] == last, (d, steps[0], steps[-1])
    assert steps[0] > first, "device %d keeps step %d" % (d, steps[0])
    names = {}
    for _, n, st in ts:
        names.setdefault(st, []).append(n)
    for st in sorted(names)[1:]:
        assert len(names[st]) == len(names[last]), "step %d on device %d not whole" % (st, d)
tr, end = recs[ti], recs[-1]
lastseq = per[tdev][-1][0]
assert (tr.condition, tr.device, tr.seq, tr.consumer) == (cond, tdev, lastseq, cons), vars(tr) if hasattr(tr, "__dict__") else (tr.condition, tr.device, tr.seq, tr.consumer)
assert tr.leaf == leaf and tr.element == (None if elem == "-" else int(elem)), (tr.leaf, tr.element)
assert math.isnan(tr.value), tr.value
assert end.taps == len(taps) and end.drops == 0, (end.taps, end.drops, len(taps))
print("%s: %d taps, steps %s, trigger %s on device %d seq %d leaf %d element %s"
      % (rec, len(taps), {d: (ts[0][2], ts[-1][2]) for d, ts in per.items()}, cond, tdev,
         lastseq, leaf, elem))
