#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_golden_replay.py OUTDIR - golden cases for `hcbtrace replay`.

Writes OUTDIR/replay/<case>/{in.jsonl,args,stdout,status}.  The expected
text is what jax 0.4.25's real host_callback printed for the same values:
its _print_tap_func (the id_print printer) with numpy 1.26.4 and ml_dtypes,
the device passed as "cpu:N".  Needs a venv with jax==0.4.25, numpy==1.26.4.
"""
import io
import json
import os
import sys

import ml_dtypes
import numpy as np
from jax.experimental import host_callback as hcb

OUT = sys.argv[1]


def jnum(dt, v):
    """One element as the JSONL schema writes it (shortest in its dtype)."""
    if dt == "bool":
        return bool(v)
    if dt.startswith("int") or dt.startswith("uint"):
        return int(v)
    if dt.startswith("complex"):
        part = np.float32 if dt == "complex64" else np.float64
        return [jnum(np.dtype(part).name, part(v.real)), jnum(np.dtype(part).name, part(v.imag))]
    f = float(v)
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    return RawNum(str(v) if dt in ("bfloat16", "float8_e4m3fn", "float8_e5m2") else repr(v)
                  if dt == "float64" else str(v))


class RawNum(str):
    pass


def dump(o):
    if isinstance(o, RawNum):
        s = str(o)
        if s.startswith("np.float"):
            raise ValueError(s)
        return s if any(c in s for c in ".e") else s + ".0"
    if isinstance(o, bool):
        return "true" if o else "false"
    if isinstance(o, int):
        return str(o)
    if isinstance(o, str):
        return json.dumps(o, ensure_ascii=False)
    if isinstance(o, list):
        return "[" + ",".join(dump(x) for x in o) + "]"
    if isinstance(o, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in o.items()) + "}"
    raise TypeError(o)


def dtname(a):
    return a.dtype.name


def leaves_and_tree(v):
    if isinstance(v, tuple):
        parts = [leaves_and_tree(x) for x in v]
        return [l for p in parts for l in p[0]], "( " + " ".join(p[1] for p in parts) + (" )" if parts else ")")
    if isinstance(v, list):
        parts = [leaves_and_tree(x) for x in v]
        return [l for p in parts for l in p[0]], "[ " + " ".join(p[1] for p in parts) + (" ]" if parts else "]")
    if isinstance(v, dict):
        parts = [(k, leaves_and_tree(x)) for k, x in v.items()]
        return ([l for _, p in parts for l in p[0]],
                "{ " + " ".join(f"{k}={p[1]}" for k, p in parts) + (" }" if parts else "}"))
    return [np.asarray(v)], "*"


def tap_line(device, seq, cid, name, kwargs, value, ts):
    leaves, tree = leaves_and_tree(value)
    arrays = [{"dtype": dtname(a), "shape": list(a.shape),
               "data": [jnum(dtname(a), x) for x in a.reshape(-1)]} for a in leaves]
    rec = {"type": "tap", "device": device, "seq": seq, "consumer": cid, "name": name,
           "kwargs": kwargs, "tree": tree, "ts_ns": ts, "arrays": arrays}
    return dump(rec)


def as_arrays(v):
    """Leaves as arrays, as they came out of the outfeed (0-d for scalars)."""
    if isinstance(v, tuple):
        return tuple(as_arrays(x) for x in v)
    if isinstance(v, list):
        return [as_arrays(x) for x in v]
    if isinstance(v, dict):
        return {k: as_arrays(x) for k, x in v.items()}
    return np.asarray(v)


def printed(device, kwargs, value):
    buf = io.StringIO()
    hcb._print_tap_func(as_arrays(value), [], device=f"cpu:{device}", output_stream=buf, **kwargs)
    return buf.getvalue()


f32, f64 = np.float32, np.float64
bf16 = ml_dtypes.bfloat16
TAPS = [
    ("loss", {"what": "loss"}, f32(0.5)),
    ("power3", {"what": "x,x^2"}, (f32(3.0), f32(9.0))),
    ("params", {"what": "params"}, {"w": np.array([0.25, -1.5, 3.0, 1e-3], f32), "b": f32(1.25)}),
    ("status", {"what": "status"}, [np.int32(7), np.bool_(True), f64(0.001)]),
    ("mat", {"what": "mat"}, np.array([[1.0, -2.5, 3.25], [1e9, 0.0, -0.0]], f64)),
    ("ints", {}, (np.array([-2**63, 2**63 - 1], np.int64), np.array([2**64 - 1, 0], np.uint64),
                  np.array([-128, 127], np.int8), np.array([65535], np.uint16))),
    ("halves", {"what": "f16"}, np.array([0.1, -0.0, np.inf, np.nan, 65504.0], np.float16)),
    ("bf16", {"what": "bf16"}, np.array([1.5, 3.140625, -0.0], bf16)),
    ("cplx", {"what": "c"}, np.array([1 + 2j, -0.5j, np.nan + 1j], np.complex64)),
    ("wide", {"what": "breaks", "step": "3"}, tuple(np.arange(6, dtype=f32) * (i + 1) / 3 for i in range(5))),
    ("edge", {"what": "edge"}, (np.zeros((0,), f32), np.array(7, np.int16), np.zeros((2, 0), f64))),
    ("nested", {"what": "nested"}, ({"a": f32(1.0), "b": [np.int32(2), np.int32(3)]}, np.array([True, False]))),
    ("sci", {"what": "sci"}, np.array([1e-5, 1.0, 1e10], f32)),
]


def write_case(name, lines, args, expected, status=0, stderr=None):
    d = os.path.join(OUT, "replay", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "in.jsonl"), "w") as f:
        f.write("".join(lines))
    with open(os.path.join(d, "args"), "w") as f:
        f.write(args + "\n")
    with open(os.path.join(d, "stdout"), "w") as f:
        f.write(expected)
    with open(os.path.join(d, "status"), "w") as f:
        f.write(f"{status}\n")


def main():
    lines = ['{"type":"session","version":1,"pid":4242,"provider":"hcbtap","platform":"cpu",'
             '"start_ns":1795318845000000000,"hcbtrace":"0.1.0"}\n']
    texts = []
    seqs = {0: 0, 1: 0}
    for i, (name, kwargs, value) in enumerate(TAPS):
        dev = i % 2
        cid = 1000 + i
        lines.append(tap_line(dev, seqs[dev], cid, name, kwargs, value, 1795318845000000000 + i * 1000) + "\n")
        texts.append((dev, name, printed(dev, kwargs, value)))
        seqs[dev] += 1
    lines.append('{"type":"drop","device":1,"count":2,"reason":"ring buffer full"}\n')
    lines.append('{"type":"end","taps":%d,"drops":2,"end_ns":1795318846000000000}\n' % len(TAPS))
    write_case("basic", lines, "replay --no-wait @CASE@/in.jsonl", "".join(t for _, _, t in texts))
    write_case("filter", lines, "replay --no-wait --device 1 --consumer power3 --consumer 1005 @CASE@/in.jsonl",
               "".join(t for d, n, t in texts if d == 1 and n in ("power3", "ints")))
    write_case("count", lines, "replay --no-wait -c 3 @CASE@/in.jsonl", "".join(t for _, _, t in texts[:3]))
    # damage: a copy cut in the middle of its last line
    cut = lines[:4] + [lines[4][: len(lines[4]) // 2]]
    write_case("truncated", cut, "replay --no-wait @CASE@/in.jsonl", "".join(t for _, _, t in texts[:3]))


main()
