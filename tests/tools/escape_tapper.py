#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""escape_tapper.py LIBHCBTAP - a traced program that names its taps with
what a terminal would act on (tests/bats/trust.bats): a consumer whose
kwarg holds escapes (set the title, clear the screen) and a newline that
starts a forged "hcbtrace:" line, whose name and pytree key hold a C1
control and a byte that is no UTF-8, on a platform with an escape in it.
It taps a float32 scalar on device 0 every 20 ms, forever; prints "ready"
once registered.
"""
import ctypes
import sys
import time

NAME = b"evil\xc2\x9b2J"                       # C1 CSI as UTF-8
WHAT = b"\x1b]0;pwned\x07\x1b[2J\nhcbtrace: forged line\x7f\xff"
TREE = b"{ k\xff=* }"                           # a key with a stray byte
PLATFORM = b"cpu\x1b[7m"


class Leaf(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("ndim", ctypes.c_uint),
                ("dims", ctypes.c_uint64 * 8)]


def main():
    lib = ctypes.CDLL(sys.argv[1])
    kwargs = (ctypes.c_char_p * 3)(b"what", WHAT, None)
    leaf = Leaf(12, 0)                          # HCBTAP_FLOAT32, a scalar
    cid = ctypes.c_uint32()
    assert lib.hcbtap_set_platform(PLATFORM) == 0
    assert lib.hcbtap_declare_device(0) == 0
    assert lib.hcbtap_register(NAME, kwargs, TREE, ctypes.byref(leaf), 1, ctypes.byref(cid)) == 0
    sem = ctypes.POINTER(ctypes.c_ushort).in_dll(lib, "hcbtap_semaphore")
    lib.hcbtap_emit_attached.restype = ctypes.c_int64
    value = ctypes.c_float(1.5)
    leaves = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(value), ctypes.c_void_p))
    print("ready", flush=True)
    while True:
        if sem[0]:
            lib.hcbtap_emit_attached(cid, 0, leaves)
        time.sleep(0.02)


if __name__ == "__main__":
    main()
