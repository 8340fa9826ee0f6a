#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""site_cache.py HCBTRACE_PID TARGET_PID: the call sites hcbtrace's FFI
probe has learned for TARGET_PID (its jaxffi_sites map, events.h), one
"OP MODULE HITS" line each (the names' first 32 characters, and the
calls sent without them), sorted; read with
bpftool from the maps HCBTRACE_PID holds.  Exit 1 if it holds no such map."""
import glob
import json
import struct
import subprocess
import sys

KEY, VALUE = 16, 8 * 8 + 32 + 32 + 8 + 8 + 8


def map_ids(pid):
    for path in glob.glob(f"/proc/{pid}/fdinfo/*"):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("map_id:"):
                        yield int(line.split()[1])
        except OSError:
            pass


def bpftool(*args):
    return json.loads(subprocess.run(["bpftool", "-j", *args], check=True,
                                     capture_output=True, text=True).stdout)


def raw(words):
    return bytes(int(b, 16) for b in words)


def main():
    hcb, target = int(sys.argv[1]), int(sys.argv[2])
    sites = None
    for mid in set(map_ids(hcb)):
        if bpftool("map", "show", "id", str(mid)).get("name") != "jaxffi_sites":
            continue
        sites = []
        for e in bpftool("map", "dump", "id", str(mid)):
            key, value = raw(e["key"]), raw(e["value"])
            assert len(key) == KEY and len(value) == VALUE, (len(key), len(value))
            if struct.unpack_from("<I", key)[0] != target:
                continue
            op = value[64:96].rstrip(b"\0").decode("ascii", "replace")
            module = value[96:128].rstrip(b"\0").decode("ascii", "replace")
            hits = struct.unpack_from("<Q", value, 144)[0]
            sites.append(f"{op} {module} {hits}")
    if sites is None:
        sys.exit(f"process {hcb} holds no jaxffi_sites map")
    for site in sorted(sites):
        print(site)


if __name__ == "__main__":
    main()
