#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the layout rules of hcbtrace's C sources (issue 14).

usage: tests/tools/check_layout.py [DIR ...]
       (default: src formats cli tui bench hcbtap examples)

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
    _impl.h from another directory, any header of cli/ or tui/ from src/,
    formats/ or hcbtap/ (the library traced programs load), any header of
    formats/ from src/ or hcbtap/;
  - no circle between modules: a module is a directory's files of one name
    up to its first '_' (tui/model.c, tui/model_read.c, tui/model.h are
    tui/model; src/capture*.c and capture_impl.h are src/capture).  No
    module may include, through #include lines of its files, a header of a
    module that includes one of its own, directly or around a longer loop;
    nor call, through the functions its files define (not static) and the
    calls of the others' files, a module that calls it back.  A circle is
    reported once, at the first include or call that closes it.

Python 3 only, no dependencies.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DIRS = ("src", "formats", "cli", "tui", "bench", "hcbtap", "examples")
MAX_FILE_LINES = 600
MAX_FUNC_LINES = 80
# where a quoted #include is looked up after the includer's own directory:
# the include_directories of the meson build
INCLUDE_DIRS = ("src", "formats", "cli", "tui", "hcbtap", "bench", "examples")
# a layer may not include the headers of the layers listed for it
FORBIDDEN = {
    "src": ("formats", "cli", "tui"),
    "formats": ("cli", "tui"),
    # libhcbtap runs inside traced programs: libc, hcb_wire.h and the core
    "hcbtap": ("formats", "cli", "tui"),
}

# Circles of modules known and not broken yet: none is left.  Each entry
# would be the set of modules of one circle; a circle not listed here
# fails, and one listed that no longer exists is reported, so the list only
# shrinks.
KNOWN_CIRCLES = []

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


def module(path):
    d, f = os.path.split(path)
    return os.path.join(d, os.path.splitext(f)[0].split("_", 1)[0])


STRING_RE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
COMMENT_RE = re.compile(r"/\*.*?\*/", re.S)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case",
            "defined", "__attribute__", "__typeof__", "typeof", "_Static_assert", "alignof"}


def code_text(text):
    """The text without comments and string literals, lines kept."""
    text = COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return "\n".join(STRING_RE.sub('""', code_of(l)) for l in text.split("\n"))


def definitions(path, lines):
    """The functions path defines that other files may call: (name, is_static)."""
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("{"):
            continue
        name = function_name(lines, i)
        if name == "?":
            continue
        head = " ".join(lines[max(i - 4, 0):i])
        # the declarator's own lines: from the last line ending a statement
        start = i - 1
        while start > 0 and not lines[start - 1].rstrip().endswith((";", "}", "*/")) \
                and lines[start - 1].strip() and not lines[start - 1].startswith("#"):
            start -= 1
        head = " ".join(lines[start:i])
        out.append((name, re.search(r"\bstatic\b", head) is not None))
    return out


def find_cycle(graph, node):
    """A shortest path node -> ... -> node in graph, or None."""
    prev = {node: None}
    queue = [node]
    while queue:
        n = queue.pop(0)
        for m in sorted(graph.get(n, ())):
            if m == node:
                path = [n]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [node] + path[::-1][1:] + [node] if len(path) > 1 else [node, n, node] \
                    if n != node else None
            if m not in prev:
                prev[m] = n
                queue.append(m)
    return None


def report_cycles(kind, edges, out, known):
    """edges: {(module a, module b): (path, line, what)}; a circle once each,
    unless its modules are a known circle (then added to known)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    seen = set()
    for a, b in sorted(edges):
        cycle = find_cycle(graph, a)
        if not cycle or b not in cycle:
            continue
        key = frozenset(cycle)
        if key in seen:
            continue
        seen.add(key)
        if key in [frozenset(k) for k in KNOWN_CIRCLES]:
            known.add(key)
            continue
        path, line, what = edges[(cycle[0], cycle[1])]
        out.append("%s:%d: %s %s, a circle of modules: %s"
                   % (path, line, kind, what, " -> ".join(cycle)))


def check_cycles(paths, texts, out):
    includes, calls, defined, local = {}, {}, {}, {}
    for path in paths:
        lines = texts[path]
        here = os.path.dirname(path)
        for i, line in enumerate(lines):
            m = INCLUDE_RE.match(line)
            where = m and header_dir(here, m.group(1))
            if not where:
                continue
            target = module(os.path.join(where, m.group(1)))
            if target != module(path):
                includes.setdefault((module(path), target), (path, i + 1, m.group(1)))
        for name, static in definitions(path, lines):
            if static and path.endswith(".c"):
                local.setdefault(path, set()).add(name)
            else:
                defined.setdefault(name, set()).add(module(path))
    for path in paths:
        if not path.endswith(".c"):
            continue
        text = code_text("".join(texts[path])).split("\n")
        for i, line in enumerate(text):
            for m in NAME_RE.finditer(line):
                name = m.group(1)
                if name in KEYWORDS or name in local.get(path, ()) or \
                        (not line.startswith((" ", "\t")) and m.start() == line.find(name)):
                    continue
                for target in defined.get(name, ()):
                    if target != module(path):
                        calls.setdefault((module(path), target), (path, i + 1, name + "()"))
    known = set()
    report_cycles("includes", includes, out, known)
    report_cycles("calls", calls, out, known)
    for k in KNOWN_CIRCLES:
        if frozenset(k) not in known and all(any(module(p) == m for p in paths) for m in k):
            out.append("tests/tools/check_layout.py:1: the circle %s is gone: take it off "
                       "KNOWN_CIRCLES" % " <-> ".join(sorted(k)))


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    dirs = argv or DEFAULT_DIRS
    found = 0
    texts = {}
    for path in sources(dirs):
        out = []
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        texts[path] = lines
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
    out = []
    check_cycles(list(texts), texts, out)
    for o in out:
        print(o)
    found += len(out)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
