#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plant each break check_layout.py is there to catch in a throwaway tree
and see that it names it; a clean tree passes.

usage: tests/tools/test_check_layout.py

The script finds the tree it checks from its own place (ROOT is three
folders up), so a copy of it under a temporary tree checks that tree.
Exits 1 with the first difference, 0 when every plant was caught.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def fn(name, calls="", body_lines=1):
    body = "".join("\tx += %d;\n" % i for i in range(body_lines))
    return "int %s(int x)\n{\n%s%s\treturn x;\n}\n" % (name, body, calls)


def check(root):
    r = subprocess.run([sys.executable, os.path.join(root, "tests", "tools", "check_layout.py"),
                        "src"], capture_output=True, text=True)
    return r.returncode, r.stdout


def tree(plants):
    """A small house: core at the bottom, engine above; plants add or
    replace files."""
    root = tempfile.mkdtemp(prefix="layout-")
    os.makedirs(os.path.join(root, "tests", "tools"))
    shutil.copy(os.path.join(HERE, "check_layout.py"), os.path.join(root, "tests", "tools"))
    files = {
        "src/bpf/ring.h": "enum { HCB_EV_A = 1, HCB_EV_B, };\n",
        "src/core/a.h": "int core_a(int x);\n",
        "src/core/a.c": '#include "a.h"\n' + fn("core_a"),
        "src/core/b.c": '#include "a.h"\n' + fn("core_b", "\tx = core_a(x);\n"),
        "src/engine/e.c": '#include "core/a.h"\n' + fn("engine_e", "\tx = core_a(x);\n"),
    }
    files.update(plants)
    for p, t in files.items():
        write(root, p, t)
    return root


CASES = [
    ("clean", {}, None),
    ("a folder depends on a higher floor",
     {"src/core/c.c": '#include "engine/e.h"\n' + fn("core_c"),
      "src/engine/e.h": "int engine_e(int x);\n"},
     "src/core/c.c:1:"),
    ("two folders of one floor call each other",
     {"src/session/s.c": fn("session_s", "\tx = watch_w(x);\n"),
      "src/watch/w.c": fn("watch_w", "\tx = session_s(x);\n")},
     "circle"),
    ("two files of a folder call each other",
     {"src/core/a.c": '#include "a.h"\n' + fn("core_a", "\tx = core_b(x);\n")},
     "circle"),
    ("a ring record numbered outside ring.h",
     {"src/core/ev.h": "#define HCB_EV_C 3\n"},
     "defines a ring record type outside"),
    ("a function over 80 lines",
     {"src/core/long.c": fn("core_long", body_lines=90)},
     "lines (at most 80)"),
    ("a file over 600 lines",
     {"src/core/big.h": "/* a line */\n" * 601},
     "601 lines (at most 600)"),
]


def main():
    for what, plants, expect in CASES:
        root = tree(plants)
        try:
            rc, out = check(root)
        finally:
            shutil.rmtree(root)
        if expect is None and (rc != 0 or out):
            print("%s: expected no finding, got exit %d:\n%s" % (what, rc, out))
            return 1
        if expect is not None and (rc != 1 or expect not in out):
            print("%s: expected exit 1 and %r, got exit %d:\n%s" % (what, expect, rc, out))
            return 1
        print("ok: %s%s" % (what, (": " + out.strip().splitlines()[0]) if out else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
