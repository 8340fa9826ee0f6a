#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""read_issued.py PID - print libhcbtap's per-device issued counters of a
running process, one "DEVICE COUNT" line per device it has declared or used.

Independent of hcbtrace's own code on purpose (tests use it to check what
hcbtrace delivered): the library comes from /proc/PID/maps, the registry's
address from `nm -D`, the bytes from /proc/PID/mem, the layout from
src/core/wire.h (struct hcb_wire_registry, version 2).
"""
import struct
import subprocess
import sys

REGISTRY_MAGIC = 0x47524348
REGISTRY_VERSION = 2
MAX_DEVICES = 256
# magic, version, nconsumers, ndevices: u32; head: u64; platform: char[16];
# device_mask: u64[MAX_DEVICES / 64]; issued: u64[MAX_DEVICES]
HEAD = struct.Struct("<IIIIQ16s4Q")


def library(pid):
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and "libhcbtap" in parts[5] and int(parts[2], 16) == 0:
                return parts[5], int(parts[0].split("-")[0], 16)
    sys.exit(f"read_issued: process {pid} has no libhcbtap mapped")


def symbol(lib, name):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    sys.exit(f"read_issued: {lib} does not define {name}")


def main():
    pid = int(sys.argv[1])
    lib, base = library(pid)
    addr = base + symbol(f"/proc/{pid}/root{lib}", "hcbtap_registry")
    size = HEAD.size + 8 * MAX_DEVICES
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(addr)
        raw = mem.read(size)
    magic, version, _, ndevices, _, _, *mask = HEAD.unpack_from(raw)
    if magic != REGISTRY_MAGIC or version != REGISTRY_VERSION:
        sys.exit(f"read_issued: no version {REGISTRY_VERSION} registry at {addr:#x}")
    issued = struct.unpack_from(f"<{MAX_DEVICES}Q", raw, HEAD.size)
    for d in range(min(ndevices, MAX_DEVICES)):
        if mask[d // 64] >> (d % 64) & 1:
            print(d, issued[d])


if __name__ == "__main__":
    main()
