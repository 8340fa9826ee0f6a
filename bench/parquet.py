#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/parquet.py HCBTRACE WORKDIR [--json] [--scale N]

`hcbtrace convert REC -o OUT.parquet` (pyarrow, through hcbtap.recording)
against the Python reader's own read of the same recording (iterating
hcbtap.recording.taps(), every leaf decoded), on two shapes of recording,
each as .jsonl and as .hcbcap:

  * steps:  a training loop's taps, (step int32, loss float32, w float32[16])
            on 4 devices: many small rows;
  * arrays: taps of one float32[20000]: few rows, most of the bytes in raw.

For each: MB/s of recording in, rows/s out (of CPU time: see measure()), the reader's MB/s, convert's
time over the reader's (the writer's own cost), peak RSS (GNU time, the
hcbtrace and python processes together) and the Parquet's size.  Needs
pyarrow in this python (bench/run passes the project's venv python);
HCB_PYTHON is set to it.  --scale multiplies the recordings' sizes.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

HCB, WORK = sys.argv[1], sys.argv[2]
SCALE = float(sys.argv[sys.argv.index("--scale") + 1]) if "--scale" in sys.argv else 1.0
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, HCB_PYTHON=sys.executable,
           PYTHONPATH=os.path.join(ROOT, "python") + (":" + os.environ["PYTHONPATH"]
                                                      if os.environ.get("PYTHONPATH") else ""))
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(37)

HEAD = '{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":1}\n'


def leaf(a):
    data = ",".join(repr(float(x)) for x in a.reshape(-1)) if a.dtype.kind == "f" else \
        ",".join(str(int(x)) for x in a.reshape(-1))
    return '{"dtype":"%s","shape":%s,"data":[%s]}' % (a.dtype.name, json.dumps(list(a.shape)), data)


def write_steps(path, steps):
    with open(path, "w") as f:
        f.write(HEAD)
        for s in range(steps):
            for d in range(4):
                w = rng.standard_normal(16).astype(np.float32)
                loss = np.float32((w * w).mean())
                f.write('{"type":"tap","device":%d,"seq":%d,"consumer":1,"name":"train","kwargs":{},'
                        '"tree":"( * * * )","ts_ns":%d,"arrays":[%s,%s,%s]}\n'
                        % (d, s, 1000 + s, leaf(np.array(s, np.int32)), leaf(loss), leaf(w)))
        f.write('{"type":"end","taps":%d,"drops":0,"end_ns":2}\n' % (4 * steps))
    return 3 * 4 * steps


def write_arrays(path, taps):
    with open(path, "w") as f:
        f.write(HEAD)
        for s in range(taps):
            a = rng.standard_normal(20000).astype(np.float32)
            f.write('{"type":"tap","device":0,"seq":%d,"consumer":2,"name":"acts","kwargs":{},'
                    '"tree":"*","ts_ns":%d,"arrays":[%s]}\n' % (s, 1000 + s, leaf(a)))
    return taps


def measure(cmd):
    """(CPU seconds, wall seconds, peak RSS kB) of cmd and its children,
    through GNU time.  The rates are of CPU time (user + system): on a
    shared machine the wall clock measures the neighbours; the work is
    one thread's."""
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=ENV)
    wall = time.perf_counter() - t
    if r.returncode:
        sys.exit("bench/parquet.py: %s failed: %s" % (" ".join(cmd), r.stderr[-500:]))
    user, system, kb = r.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system), wall, int(kb)


READ = ("import sys, hcbtap.recording as R\n"
        "n = 0\n"
        "for t in R.taps(sys.argv[1]):\n"
        "    n += len(t.leaves)\n")


def best(cmd, reps=2):
    runs = [measure(cmd) for _ in range(reps)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def bench(name, path, rows):
    size = os.path.getsize(path)
    out = path + ".parquet"
    conv_s, conv_wall, conv_kb = best([HCB, "convert", path, "-o", out])
    read_s, _, read_kb = best([sys.executable, "-c", READ, path])
    mb = size / 1e6
    return {
        "%s_MB" % name: round(mb, 1),
        "%s_rows" % name: rows,
        "%s_convert_MB_per_s" % name: round(mb / conv_s, 1),
        "%s_convert_rows_per_s" % name: round(rows / conv_s),
        "%s_convert_wall_s" % name: round(conv_wall, 2),
        "%s_reader_MB_per_s" % name: round(mb / read_s, 1),
        "%s_convert_over_read" % name: round(conv_s / read_s, 2),
        "%s_convert_peak_kB" % name: conv_kb,
        "%s_reader_peak_kB" % name: read_kb,
        "%s_parquet_MB" % name: round((os.path.getsize(out) +
                                       os.path.getsize(out[:-8] + ".events.parquet")) / 1e6, 1),
    }


def main():
    res = {}
    j = os.path.join(WORK, "steps.jsonl")
    rows = write_steps(j, int(20000 * SCALE))
    subprocess.run([HCB, "convert", j, "-o", j[:-6] + ".hcbcap"], check=True)
    res.update(bench("steps_jsonl", j, rows))
    res.update(bench("steps_hcbcap", j[:-6] + ".hcbcap", rows))
    j = os.path.join(WORK, "arrays.jsonl")
    rows = write_arrays(j, int(600 * SCALE))
    subprocess.run([HCB, "convert", j, "-o", j[:-6] + ".hcbcap"], check=True)
    res.update(bench("arrays_jsonl", j, rows))
    res.update(bench("arrays_hcbcap", j[:-6] + ".hcbcap", rows))
    if "--json" in sys.argv:
        print(json.dumps(res))
        return
    print("convert -o .parquet (pyarrow %s) against the Python reader's read, best of 2, "
          "rates of CPU time" % __import__("pyarrow").__version__)
    print("%-14s %8s %9s %10s %12s %10s %8s %10s %9s" % (
        "recording", "MB", "rows", "conv MB/s", "conv rows/s", "read MB/s", "conv/read",
        "conv peak", "parquet"))
    for name in ("steps_jsonl", "steps_hcbcap", "arrays_jsonl", "arrays_hcbcap"):
        g = lambda k: res["%s_%s" % (name, k)]     # noqa: E731
        print("%-14s %8.1f %9d %10.1f %12d %10.1f %8.2fx %8d kB %6.1f MB" % (
            name, g("MB"), g("rows"), g("convert_MB_per_s"), g("convert_rows_per_s"),
            g("reader_MB_per_s"), g("convert_over_read"), g("convert_peak_kB"),
            g("parquet_MB")))


if __name__ == "__main__":
    main()
