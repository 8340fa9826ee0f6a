#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare_idprint_blocks.py PROGRAM_OUT HCBTRACE_OUT [--all]

Per device, the values a host_callback program printed itself with
id_print(..., tap_with_device=True) (PROGRAM_OUT, between its "ready" and
"done" lines) against what hcbtrace printed attached to it (HCBTRACE_OUT:
kwargs line "consumer: ID device: NAME", then the value).  The taps
host_callback.barrier_wait() makes (each device's index, an int) are not
printed by the program and are left out.  --all: every tap the program
printed up to "done", those before "ready" too (hcbtrace was there from the
start).  Exits 1 with the first difference.
"""
import re
import sys


def blocks(lines, header):
    out, cur = [], None
    for line in lines:
        m = header.match(line)
        if m:
            cur = [m.group(1), []]
            out.append(cur)
        elif cur is not None:
            cur[1].append(line)
    return [(dev, "\n".join(v)) for dev, v in out]


def main():
    prog = open(sys.argv[1]).read().split("\n")
    if "--all" in sys.argv:
        prog = [line for line in prog[:prog.index("done")] if line != "ready"]
    else:
        prog = prog[prog.index("ready") + 1:prog.index("done")]
    ours = open(sys.argv[2]).read().rstrip("\n").split("\n")
    want = blocks(prog, re.compile(r"^device: (\S+) what: "))
    got = blocks(ours, re.compile(r"^consumer: \d+ device: (\S+)$"))
    got = [(d, v) for d, v in got if v != d.rsplit("_", 1)[-1]]   # barrier_wait's taps
    for dev in sorted({d for d, _ in want} | {d for d, _ in got}):
        w = [v for d, v in want if d == dev]
        g = [v for d, v in got if d == dev]
        if w != g:
            sys.exit("device %s: the program printed %r, hcbtrace %r" % (dev, w, g))
        print("device %s: %d taps, the same values" % (dev, len(w)))
    if not want:
        sys.exit("the program printed no taps")


if __name__ == "__main__":
    main()
