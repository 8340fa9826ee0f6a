#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print the id_print golden texts used by tests/unit/test_idprint.c.

Real host_callback.id_print from jax 0.4.25 with numpy 1.26.4:

    python3 -m venv /tmp/jaxold
    /tmp/jaxold/bin/pip install 'jax[cpu]==0.4.25' numpy==1.26.4
    /tmp/jaxold/bin/python tests/data/unit/gen_idprint_golden.py

jax 0.4.25 names the CPU device "TFRT_CPU_0"; hcbtrace prints "cpu:0" (the
name host_callback used before TFRT), so that one word is replaced.  Each
case prints its Python expression and then the text as a C string.
"""
import io
import json

import numpy as np
import jax
from jax.experimental import host_callback as hcb

jax.config.update("jax_enable_x64", True)  # keep float64 leaves float64

f32 = np.float32


def idp(arg, **kw):
    out = io.StringIO()

    def f(x):
        hcb.id_print(x, tap_with_device=True, output_stream=out, **kw)
        return x

    jax.jit(f)(arg)
    hcb.barrier_wait()
    return out.getvalue().replace("TFRT_CPU_0", "cpu:0")


CASES = [
    "idp(f32(3.0), what='x')",
    "idp((f32(3.0), f32(9.0)))",
    "idp([np.int32(1), np.int32(-2), np.int32(30)], b='2', a='1')",
    "idp({'w': np.array([1.0, 2.0], f32), 'b': f32(0.5)})",
    "idp({'b': (f32(1.5), [np.int32(7), np.array([True, False, True])]), 'a': {'z': f32(-2.0), 'y': np.bool_(True)}})",
    "idp(tuple(np.arange(3 * i, 3 * i + 3, dtype=f32) / 7 for i in range(6)), what='big')",
    "idp((np.array([[1.0, 2.0], [3.0, 4.0]], f32), np.int32(5)))",
    "idp((np.array([1.5, -2.25, 100.0], f32), np.array([1e-5, 1.0], f32), np.array([0.1, 1e9], np.float64)))",
    "idp((np.bool_(True), np.bool_(False), np.array([[1, -20], [300, 4]], np.int32)))",
    "idp({'params': {'w1': np.arange(20, dtype=f32).reshape(4, 5) / 3, 'b1': np.zeros(5, f32)}, 'step': np.int32(42)}, device='gpu:7', zz='last', aa='first')",
    "idp((np.arange(2000, dtype=f32),))",
    "idp(())",
    "idp((np.float64(0.1), np.int64(-9223372036854775808), np.uint8(255)))",
]

for expr in CASES:
    text = eval(expr)
    print("/* " + expr + " */")
    print(json.dumps(text))
    print()
