#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that no function of the BPF object has a stack frame of 64 bytes
or more (src/bpf/state.bpf.h says why).

usage: tests/tools/check_bpf_stack.py [--objdump PROG] OBJECT.o

Reads the object's code with llvm-objdump and takes, for each function (a
program or a function it calls), the deepest byte below the frame pointer
r10 that it touches: an access (r10 - N), or an address r10 - N made by
"rX = r10; rX += -N".  That is the frame the verifier computes for it
before any rewrite of its own.  A kernel with a private BPF stack (x86-64,
6.13 on) gives one to a function whose frame, rounded up to 16 bytes, is
64 or more; so every frame here must be at most 48 bytes.

Prints one line per function, deepest first, and exits 1 if any frame is
over 48 bytes (or if no function was found: a misread object), else 0.
"""
import re
import subprocess
import sys

MAX_FRAME = 48

FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:")
ACCESS_RE = re.compile(r"\(r10 - (0x[0-9a-f]+|\d+)\)")
MOVE_RE = re.compile(r"^(r\d+) = (r\d+)$")
ADD_RE = re.compile(r"^(r\d+) \+= (-?\d+)$")
WRITE_RE = re.compile(r"^(r\d+) \S*=")


def frames(disassembly):
    """{function: deepest byte below r10} from llvm-objdump -d output."""
    depth, at, cur = {}, {}, None
    for line in disassembly.splitlines():
        m = FUNC_RE.match(line)
        if m:
            # LBB* are labels inside a function, not functions
            if not m.group(1).startswith("LBB"):
                cur = m.group(1)
                depth.setdefault(cur, 0)
                at = {}
            continue
        if cur is None or ":" not in line:
            continue
        insn = line.split(":", 1)[1].split(";", 1)[0].strip()
        for a in ACCESS_RE.finditer(insn):
            depth[cur] = max(depth[cur], int(a.group(1), 0))
        # registers holding r10 plus an offset: at[reg] = the offset
        m = MOVE_RE.match(insn)
        if m:
            src = m.group(2)
            if src == "r10":
                at[m.group(1)] = 0
            elif src in at:
                at[m.group(1)] = at[src]
            else:
                at.pop(m.group(1), None)
            continue
        m = ADD_RE.match(insn)
        if m and m.group(1) in at:
            at[m.group(1)] += int(m.group(2))
            depth[cur] = max(depth[cur], -at[m.group(1)])
            continue
        m = WRITE_RE.match(insn)
        if m:
            at.pop(m.group(1), None)
    return depth


def main(argv):
    objdump = "llvm-objdump"
    if len(argv) >= 2 and argv[0] == "--objdump":
        objdump, argv = argv[1], argv[2:]
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        sys.stdout.reconfigure(errors="replace")
        out = subprocess.run([objdump, "-d", "--no-show-raw-insn", argv[0]], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("check_bpf_stack: cannot disassemble %s with %s: %s" % (argv[0], objdump, e),
              file=sys.stderr)
        return 2
    depth = frames(out)
    if not depth:
        print("check_bpf_stack: no function found in %s" % argv[0], file=sys.stderr)
        return 1
    bad = 0
    for name, d in sorted(depth.items(), key=lambda kv: (-kv[1], kv[0])):
        over = d > MAX_FRAME
        bad += over
        print("%s %3d bytes  %s" % ("OVER" if over else "ok  ", d, name))
    if bad:
        print("check_bpf_stack: %d function(s) with a frame over %d bytes: a kernel with a "
              "private BPF stack would give them one (src/bpf/state.bpf.h)" % (bad, MAX_FRAME),
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
