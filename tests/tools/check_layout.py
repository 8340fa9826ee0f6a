#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the layout rules of hcbtrace's C sources (issue 14).

usage: tests/tools/check_layout.py [DIR ...]    (default: src formats cli tui)

Run from anywhere; DIRs are relative to the repository root.  Prints one
line "PATH:LINE: what" per finding and exits 1 if there is any, 0 if none.
The rules, for every .c and .h file under the DIRs:

  - a file has at most 600 lines;
  - a function has at most 80 lines, counted from the line of its opening
    brace to that of its closing brace (kernel style: a function body opens
    with '{' at column 0 and closes with '}' at column 0);
  - no bare '{ }' block used as a scope inside a function (a '{' alone on
    its line that no if/else/for/while/do/switch/case or initializer owns);
  - no #include of another layer's private header: a header ending in
    _impl.h from another directory, any header of cli/ or tui/ from src/ or
    formats/, any header of formats/ from src/.

Python 3 only, no dependencies.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DIRS = ("src", "formats", "cli", "tui")
MAX_FILE_LINES = 600
MAX_FUNC_LINES = 80
# where a quoted #include is looked up after the includer's own directory:
# the include_directories of the meson build
INCLUDE_DIRS = ("src", "formats", "cli", "tui", "hcbtap")
# a layer may not include the headers of the layers listed for it
FORBIDDEN = {
    "src": ("formats", "cli", "tui"),
    "formats": ("cli", "tui"),
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def sources(dirs):
    for d in dirs:
        top = os.path.join(ROOT, d)
        if os.path.isfile(top):
            yield d
            continue
        for base, subdirs, files in os.walk(top):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(base, f), ROOT)


def code_of(line):
    """The line without // comments and trailing blanks (good enough here)."""
    return line.split("//", 1)[0].rstrip()


def is_comment(stripped):
    return stripped.startswith(("/*", "*", "//")) or stripped.endswith("*/")


def function_name(lines, brace):
    """The name before the '(' of the declarator above line index brace."""
    for i in range(brace - 1, max(brace - 8, -1), -1):
        m = None
        for m in NAME_RE.finditer(lines[i]):
            break
        if m and not lines[i].startswith((" ", "\t")):
            return m.group(1)
    return "?"


def check_functions(path, lines, out):
    start = None
    prev_code = ""
    for i, raw in enumerate(lines):
        line = raw.rstrip("\n")
        if start is None:
            if line.startswith("{"):
                start = i
                prev_code = "{"
            continue
        if line.startswith("}"):
            n = i - start + 1
            if n > MAX_FUNC_LINES:
                out.append("%s:%d: function %s() is %d lines (at most %d)"
                           % (path, start + 1, function_name(lines, start), n, MAX_FUNC_LINES))
            start = None
            continue
        stripped = code_of(line).strip()
        if not stripped or is_comment(stripped) or stripped.startswith("#"):
            continue
        # a '{' alone on its line: owned by what ends the line before it?
        # (after "= {" it is an element of an initializer)
        if stripped == "{" and (prev_code.endswith((";", "}")) or
                                (prev_code.endswith("{") and "=" not in prev_code)):
            out.append("%s:%d: bare { } block used as a scope" % (path, i + 1))
        prev_code = stripped


def header_dir(includer_dir, name):
    """The directory (relative to ROOT) holding header name, or None."""
    own = os.path.join(ROOT, includer_dir, name)
    if os.path.isfile(own):
        return os.path.dirname(os.path.relpath(own, ROOT))
    for d in INCLUDE_DIRS:
        p = os.path.join(ROOT, d, name)
        if os.path.isfile(p):
            return os.path.dirname(os.path.relpath(p, ROOT))
    return None


def layer(path):
    return path.split(os.sep, 1)[0]


def check_includes(path, lines, out):
    here = os.path.dirname(path)
    for i, line in enumerate(lines):
        m = INCLUDE_RE.match(line)
        if not m:
            continue
        name = m.group(1)
        where = header_dir(here, name)
        if where is None:
            continue     # generated (skeletons, vmlinux.h) or a system header
        if where == here:
            continue
        if name.endswith("_impl.h"):
            out.append("%s:%d: includes %s, a private header of %s/" % (path, i + 1, name, where))
        elif layer(where) in FORBIDDEN.get(layer(path), ()):
            out.append("%s:%d: includes %s of %s/ (%s/ may not depend on %s/)"
                       % (path, i + 1, name, where, layer(path), layer(where)))


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    dirs = argv or DEFAULT_DIRS
    found = 0
    for path in sources(dirs):
        out = []
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        if len(lines) > MAX_FILE_LINES:
            out.append("%s:1: %d lines (at most %d)" % (path, len(lines), MAX_FILE_LINES))
        if path.endswith(".c"):
            check_functions(path, lines, out)
        check_includes(path, lines, out)
        # in the order of the file (a function is found at its end)
        out.sort(key=lambda o: int(o.split(":")[1]))
        for o in out:
            print(o)
        found += len(out)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
