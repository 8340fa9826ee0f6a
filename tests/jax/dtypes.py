# SPDX-License-Identifier: MIT
"""An unmodified JAX program (CPU) that hands jax.debug.callback every
dtype JAX has beyond numpy's: the float8 kinds, float4_e2m1fn, int2, int4,
uint2 and uint4 (and bfloat16 beside them), for hcbtrace's jax-callback
provider to record (tests/bats/dtypes.bats).

    python dtypes.py TRUTH_FILE

Per dtype one jitted call of one callback with four operands: every code of
the dtype (all 256 of a float8, 16 of a 4-bit type, 4 of a 2-bit one), a
float32 (where it lies in XLA's buffer follows a packed operand's size), a
3x3 of codes (an odd count: a packed buffer's last byte half used) and a
scalar.  The ground truth is JSON lines, one per callback call in order,
written from inside the callback with what XLA handed it:
    {"leaves": [{"dtype": "int4", "shape": [16], "data": BASE64 of the
     raw bytes}, ...]}
tests/tools/check_dtypes_truth.py compares recordings with it.
"""
import base64
import json
import sys

import jax
import ml_dtypes
import numpy as np

NAMES = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz",
         "float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
         "float4_e2m1fn", "int2", "int4", "uint2", "uint4"]
BITS = {"float4_e2m1fn": 4, "int2": 2, "int4": 4, "uint2": 2, "uint4": 4, "bfloat16": 16}
TRUTH = []


def leaf(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape),
            "data": base64.b64encode(a.tobytes()).decode()}


def callback(*args):
    TRUTH.append({"leaves": [leaf(a) for a in args]})


@jax.jit
def step(codes, f, square, scalar):
    jax.debug.callback(callback, codes, f, square, scalar)
    return f + 1


def inputs(name):
    """The dtype's every code (bits above a sub-byte element's own zero),
    a 3x3 and a scalar of them."""
    dt = np.dtype(getattr(ml_dtypes, name))
    bits = BITS.get(name, 8)
    if bits == 16:
        codes = np.arange(0, 1 << 16, 257, dtype=np.uint16).view(dt)
    else:
        codes = np.arange(1 << bits, dtype=np.uint8).view(dt)
    pick = np.arange(9) * 7 % codes.size
    return codes, codes[pick].reshape(3, 3), codes[codes.size // 2 + 1]


def main():
    for k, name in enumerate(NAMES):
        codes, square, scalar = inputs(name)
        step(codes, np.float32(k + 0.5), square, scalar).block_until_ready()
    jax.effects_barrier()
    with open(sys.argv[1], "w") as f:
        for t in TRUTH:
            f.write(json.dumps(t) + "\n")
    print("done %d" % len(TRUTH))


if __name__ == "__main__":
    main()
