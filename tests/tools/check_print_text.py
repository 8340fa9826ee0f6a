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

--unprovable FMT (repeatable): the site whose format string is FMT is one
whose line hcbtrace cannot make (HCBTRACE_TEST_TEXT=format, issue 39: a
pytree argument): its blocks are left out (one at least must be there),
and the program's lines that start with FMT's text before its first "{"
are not looked for.  Named one by one, never a way to pass a site that had to
be shown as printed.
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


def blocks(path, unprovable=()):
    """The blocks, and how many blocks of each unprovable site were left out."""
    out, cur, skipped = [], None, collections.Counter()
    for line in open(path, "rb").read().split(b"\n"):
        m = HEADER.match(line)
        site = next((u for u in unprovable if line.startswith(b"callback: " + u + b" ")), None)
        if site is not None:
            skipped[site] += 1
            cur = None
        elif m:
            cur = (int(m.group(1)), [])
            out.append(cur)
        elif cur is not None:
            cur[1].append(line)
    # the file's last newline leaves an empty last line
    if out and out[-1][1] and out[-1][1][-1] == b"":
        out[-1][1].pop()
    return out, skipped


def main():
    args = sys.argv[1:]
    unprovable = []
    while "--unprovable" in args:
        i = args.index("--unprovable")
        unprovable.append(args[i + 1].encode())
        del args[i:i + 2]
    prefixes = tuple(u.split(b"{")[0] for u in unprovable)
    assert all(prefixes), "an unprovable site's format must start with text"
    want = collections.Counter(line for line in program_lines(args[0])
                               if not prefixes or not line.startswith(prefixes))
    got = collections.Counter()
    bad = []
    per_device = 0
    bl, skipped = blocks(args[1], unprovable)
    for u in unprovable:
        if not skipped[u]:
            bad.append("%r: no block of that site (its operands) was shown" % u)
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
