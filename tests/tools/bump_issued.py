#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bump_issued.py PID DEVICE N - make a running libhcbtap program claim N
taps on DEVICE that it never sent: add N to its registry's issued counter
in place (/proc/PID/mem), as a hostile or broken target could.  Stop the
process first (SIGSTOP), or a tap racing the write may be lost to it.
Layout and look-up as tests/tools/read_issued.py reads them.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import read_issued  # noqa: E402


def main():
    pid, device, n = (int(a) for a in sys.argv[1:4])
    lib, base = read_issued.library(pid)
    addr = base + read_issued.symbol(f"/proc/{pid}/root{lib}", "hcbtap_registry")
    at = addr + read_issued.HEAD.size + 8 * device
    with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem:
        mem.seek(at)
        was = struct.unpack("<Q", mem.read(8))[0]
        mem.seek(at)
        mem.write(struct.pack("<Q", was + n))
    print(was + n)


if __name__ == "__main__":
    main()
