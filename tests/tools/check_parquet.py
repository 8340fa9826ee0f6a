#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_parquet.py CHECK OUT ARGS... REC... - what `hcbtrace convert REC...
-o OUT` wrote (OUT.parquet, or the dataset OUT/), read back by DuckDB,
against the recordings read by hcbtap.recording (PYTHONPATH=python).
Prints what it compared; exits 1 with the first difference.

  rows OUT REC...      a row per tap leaf, in the recordings' order: count
                       (taps x leaves), source, device, seq, consumer, name,
                       leaf, path; the events (drop, trigger, barrier, end)
                       likewise; host and process as the session says
  bits OUT REC...      every leaf's dtype, shape and raw bytes equal the
                       reader's array bit for bit (and numpy.frombuffer of
                       raw is it); nan_count, inf_count, value(s) its own
  firstnan OUT PROCESS DEVICE STEP REC...
                       formats/PARQUET.md's first-nan query names process
                       PROCESS, global device DEVICE and the seq of that
                       device's tap whose step (leaf 0) is STEP; its diverge
                       query that seq first
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parquet_queries                      # noqa: E402

import hcbtap.recording as R                # noqa: E402
from hcbtap.recording._model import leaf_paths, numpy_dtype, parse_tree   # noqa: E402


def fail(msg):
    print("check_parquet: " + msg)
    sys.exit(1)


def con_of(out):
    import duckdb
    taps, events, dataset = parquet_queries.sources(out)
    con = duckdb.connect()
    for view, src in (("taps", taps), ("events", events)):
        if dataset:
            # files in order of name: one file a recording and partition
            con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s/**/*.parquet', "
                        "hive_partitioning = true, file_row_number = true)" % (view, src))
        else:
            con.execute("CREATE VIEW %s AS SELECT * FROM '%s'" % (view, src))
    return con, dataset


def expected(recs):
    """(tap rows, event rows) of the recordings, as the reader reads them."""
    rows, events = [], []
    for path in recs:
        with R.Recording(path, truncated="ignore") as rec:
            try:
                for r in rec.records():
                    s = rec.session
                    who = (s.host if s else None, s.process.index if s and s.process else None)
                    if r.kind == "tap":
                        paths = dict(leaf_paths(parse_tree(r.tree)[0], r.name))
                        for i, leaf in enumerate(r.leaves):
                            rows.append((path, who, r.device, r.seq, r.consumer, r.name, i,
                                         paths[i], leaf))
                    elif r.kind != "session":
                        events.append((path, who, r.kind, getattr(r, "device", None)))
            except R.RecordingError:
                pass
    return rows, events


def order(dataset):
    """A dataset's files hold a recording (and partition) each, in its order."""
    return "ORDER BY source, file_row_number" if dataset else ""


def by_source(rows, dataset):
    return sorted(rows, key=lambda r: r[0]) if dataset else rows


def check_rows(out, recs):
    want, want_ev = expected(recs)
    con, dataset = con_of(out)
    got = con.execute("SELECT source, host, process_index, device, seq, consumer, name, leaf, path "
                      "FROM taps " + order(dataset)).fetchall()
    if len(got) != len(want):
        fail("rows: %d rows, the recordings' taps have %d leaves" % (len(got), len(want)))
    w = by_source([(p, who[0], who[1], d, s, c, n, i, pa) for p, who, d, s, c, n, i, pa, _ in want],
                  dataset)
    for g, e in zip(got, w):
        if tuple(g) != tuple(e):
            fail("rows: %r, the recording's %r" % (g, e))
    ev = con.execute("SELECT source, host, process_index, kind, device FROM events").fetchall()
    wev = [(p, who[0], who[1], k, d) for p, who, k, d in want_ev]
    if sorted(map(tuple, ev), key=repr) != sorted(wev, key=repr):
        fail("events: %r, the recordings' %r" % (ev[:5], wev[:5]))
    taps = sum(1 for r in want if r[6] == 0)
    print("rows: %d rows = %d taps' leaves of %d recordings, in order; %d events"
          % (len(got), taps, len(recs), len(ev)))


def figures(leaf):
    flat = leaf.reshape(-1)
    if flat.dtype.kind == "c":
        return int(np.isnan(flat).sum()), None
    with np.errstate(invalid="ignore"):
        v = flat.astype(np.float64)
    return int(np.isnan(v).sum()), v


def check_bits(out, recs):
    want, _ = expected(recs)
    con, dataset = con_of(out)
    got = con.execute("SELECT source, device, seq, leaf, dtype, shape, raw, nan_count, value, "
                      "\"values\" FROM taps %s" % order(dataset)).fetchall()
    want = by_source(want, dataset)
    dtypes, elems, nans = set(), 0, 0
    for g, e in zip(got, want):
        src, dev, seq, leaf, dtype, shape, raw, nan, value, values = g
        arr = e[8]
        if (src, dev, seq, leaf) != (e[0], e[2], e[3], e[6]):
            fail("bits: row %r where the recording has %r" % (g[:4], e[:4]))
        if dtype != arr.dtype.name or tuple(shape) != arr.shape or bytes(raw) != arr.tobytes():
            fail("bits: %s device %d seq %s leaf %d: %s %s, the reader's %s %s, raw %s"
                 % (src, dev, seq, leaf, dtype, shape, arr.dtype.name, arr.shape,
                    "equal" if bytes(raw) == arr.tobytes() else "differs"))
        back = np.frombuffer(bytes(raw), dtype=numpy_dtype(dtype)).reshape(shape)
        if back.tobytes() != arr.tobytes():
            fail("bits: frombuffer of raw is not the array")
        n, v = figures(arr)
        if nan != n:
            fail("bits: nan_count %d, the array has %d NaNs" % (nan, n))
        if v is not None and v.size <= 1024:
            if values is None or not np.array_equal(np.array(values, dtype=np.float64), v,
                                                    equal_nan=True):
                fail("bits: values %r, the array %r" % (values, v))
            if v.size == 1 and not (value == v[0] or (np.isnan(v[0]) and np.isnan(value))):
                fail("bits: value %r, the array's %r" % (value, v[0]))
        dtypes.add(dtype)
        elems += arr.size
        nans += n
    if len(got) != len(want):
        fail("bits: %d rows, the recordings %d leaves" % (len(got), len(want)))
    print("bits: %d leaves, %d elements (%d NaN) of %d dtypes (%s) equal the reader's bit for bit"
          % (len(got), elems, nans, len(dtypes), " ".join(sorted(dtypes))))


def check_firstnan(out, process, device, step, recs):
    seq = None
    for path in recs:
        for t in R.taps(path):
            if t.device == device and int(np.asarray(t.leaves[0]).reshape(-1)[0]) == step:
                seq = t.seq
    if seq is None:
        fail("firstnan: no tap of device %d at step %d in the recordings" % (device, step))
    res = parquet_queries.run_duckdb(out, ["first-nan", "diverge"])
    first = res["first-nan"]
    if len(first) != 1 or first[0][1:4] != [process, device, seq]:
        fail("firstnan: the query says %r; the NaN was put on process %d device %d at step %d "
             "(seq %d)" % (first, process, device, step, seq))
    div = res["diverge"]
    if not div or div[0][1:3] != ["seen[1]", seq]:
        fail("firstnan: replicas first diverge at %r, not at the loss of seq %d" % (div[:1], seq))
    print("firstnan: host %s process %d device %d seq %d (step %d); replicas diverge there first"
          % (first[0][0], process, device, seq, step))


def main():
    check, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if check == "rows":
        check_rows(out, args)
    elif check == "bits":
        check_bits(out, args)
    elif check == "firstnan":
        check_firstnan(out, int(args[0]), int(args[1]), int(args[2]), args[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
