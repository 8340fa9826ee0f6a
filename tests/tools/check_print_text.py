#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare what a JAX program's jax.debug.print calls wrote to stdout with
what hcbtrace showed of them (issue 29).

    check_print_text.py PROGRAM_STDOUT HCBTRACE_TEXT [--missing-ok N]

PROGRAM_STDOUT: the program's stdout; the lines between its "go" and
"done" lines are its prints' (tests/jax/prints.py).  HCBTRACE_TEXT:
`hcbtrace attach` or `replay` output: blocks of a header line
("callback: SITE device: cpu:D module: M", kwargs after it; SITE, a
format string, may hold spaces) and what followed it up to the
next header.  Every line the program printed must be in a block's text,
byte for byte, as often as it was printed, and no block may hold a line
the program did not print; a line "pmap dev=D ..." must be in a block of
device cpu:D.  Prints "N lines, N blocks, N per device checked" and exits
0, or says what differs and exits 1.
"""
import collections
import re
import sys

HEADER = re.compile(rb"^callback: .+ device: cpu:(\d+) module: \S+( .*)?$")
DEV = re.compile(rb"^pmap dev=(\d+) ")


def program_lines(path):
    lines = open(path, "rb").read().split(b"\n")
    start, end = lines.index(b"go"), lines.index(b"done")
    return lines[start + 1:end]


def blocks(path):
    out, cur = [], None
    for line in open(path, "rb").read().split(b"\n"):
        m = HEADER.match(line)
        if m:
            cur = (int(m.group(1)), [])
            out.append(cur)
        elif cur is not None:
            cur[1].append(line)
    # the file's last newline leaves an empty last line
    if out and out[-1][1] and out[-1][1][-1] == b"":
        out[-1][1].pop()
    return out


def main():
    want = collections.Counter(program_lines(sys.argv[1]))
    got = collections.Counter()
    bad = []
    per_device = 0
    bl = blocks(sys.argv[2])
    for dev, text in bl:
        for line in text:
            got[line] += 1
            m = DEV.match(line)
            if m:
                per_device += 1
                if int(m.group(1)) != dev:
                    bad.append("%r shown under device cpu:%d" % (line, dev))
    for line in sorted(set(want) | set(got)):
        if want[line] != got[line]:
            bad.append("%r: printed %d times, shown %d" % (line, want[line], got[line]))
    if not want:
        bad.append("the program printed nothing between go and done")
    if bad:
        print("\n".join(bad[:20]))
        return 1
    print("%d lines, %d blocks, %d per device checked" % (sum(want.values()), len(bl), per_device))
    return 0


if __name__ == "__main__":
    sys.exit(main())
