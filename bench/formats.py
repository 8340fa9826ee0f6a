#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/formats.py HCBTRACE WORKDIR [--json]

Side by side in one run, on the same data:
  * id_print text: `hcbtrace replay --no-wait` of N taps against numpy's own
    array2string(threshold=1024) on the same arrays (format_vs_numpy_speedup);
  * JSONL read and write, .hcbcap write, and diff of JSONL and of .hcbcap
    files in MB/s (of both files), against `cat` of the same JSONL file
    (cat_MB_per_s), and diff's peak memory.
Needs numpy (bench/run passes the project's venv python).
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

HCB, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(7)


def timed(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t


def child_peak_kb(cmd):
    """Peak RSS of cmd itself, through GNU time: a child of this (large)
    Python process would inherit its high-water mark across exec."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1])


def write_recording(path, arrays):
    with open(path, "w") as f:
        f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":1}\n')
        for i, a in enumerate(arrays):
            data = ",".join(repr(float(x)) if a.dtype == np.float64 else str(x) for x in a.reshape(-1))
            f.write('{"type":"tap","device":0,"seq":%d,"consumer":%d,"name":"t%d","kwargs":{},"tree":"*",'
                    '"ts_ns":%d,"arrays":[{"dtype":"%s","shape":%s,"data":[%s]}]}\n'
                    % (i, 100 + i % 3, i % 3, i, a.dtype.name, json.dumps(list(a.shape)), data))


# 1. rendering: the arrays numpy's timing in NOTES-bpf.md used
kinds = [rng.standard_normal(1000).astype(np.float32),
         rng.integers(-1000, 1000, 1000).astype(np.int32),
         rng.standard_normal(3).astype(np.float32)]
render = [kinds[i % 3] for i in range(600)]
rec = os.path.join(WORK, "render.jsonl")
write_recording(rec, render)
subprocess.run([HCB, "convert", rec, "-o", rec + ".hcbcap"], check=True)
t0 = time.perf_counter()
for a in render:
    np.array2string(a, threshold=1024)
t_numpy = time.perf_counter() - t0
t_hcb = min(timed([HCB, "replay", "--no-wait", rec + ".hcbcap"]) for _ in range(3))

# 2. throughput on ~100 MB of float32 taps
big = os.path.join(WORK, "big.jsonl")
write_recording(big, [rng.standard_normal(50000).astype(np.float32) for _ in range(400)])
size = os.path.getsize(big) / 1e6
t_cat = min(timed(["cat", big]) for _ in range(3))
cap = os.path.join(WORK, "big.hcbcap")
t_read = timed([HCB, "convert", big, "-o", cap])            # JSONL read (+ a cheap binary write)
t_write = timed([HCB, "convert", cap, "-o", big + ".2.jsonl"])   # JSONL write (+ a cheap binary read)
t_capw = timed([HCB, "convert", cap, "-o", cap + ".2.hcbcap"])   # .hcbcap read + write
t_diff = timed([HCB, "diff", "-q", big, big + ".2.jsonl"])
peak = child_peak_kb([HCB, "diff", "-q", big, big + ".2.jsonl"])
capsize = os.path.getsize(cap) / 1e6
# the same values as .hcbcap: diff compares them value by value all the same
t_capdiff = min(timed([HCB, "diff", "-q", cap, cap + ".2.hcbcap"]) for _ in range(3))
cappeak = child_peak_kb([HCB, "diff", "-q", cap, cap + ".2.hcbcap"])

res = {
    "format_vs_numpy_speedup": round(t_numpy / t_hcb, 2),
    "render_taps": len(render),
    "cat_MB_per_s": round(size / t_cat, 1),
    "jsonl_read_MB_per_s": round(size / t_read, 1),
    "jsonl_write_MB_per_s": round(size / t_write, 1),
    "hcbcap_rw_MB_per_s": round(capsize / t_capw, 1),
    "diff_MB_per_s": round(2 * size / t_diff, 1),
    "diff_peak_kB": peak,
    "diff_hcbcap_MB_per_s": round(2 * capsize / t_capdiff, 1),
    "diff_hcbcap_peak_kB": cappeak,
    "file_MB": round(size, 1),
}
if "--json" in sys.argv:
    print(json.dumps(res))
else:
    print(f"id_print text: hcbtrace {len(render)} taps in {t_hcb*1e3:.0f} ms, numpy array2string "
          f"{t_numpy*1e3:.0f} ms: {res['format_vs_numpy_speedup']}x")
    print(f"on {size:.0f} MB of float32 taps (cat {res['cat_MB_per_s']} MB/s):")
    for k in ("jsonl_read_MB_per_s", "jsonl_write_MB_per_s", "hcbcap_rw_MB_per_s", "diff_MB_per_s",
              "diff_hcbcap_MB_per_s"):
        print(f"  {k:24s} {res[k]:8.1f}   ratio to cat {res[k] / res['cat_MB_per_s']:.4f}")
    print(f"  diff peak memory        {peak} kB (JSONL), {cappeak} kB (.hcbcap)")
