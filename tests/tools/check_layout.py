#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the layout rules of hcbtrace's C sources (docs/ARCHITECTURE.md).

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
  - no #include of another folder's private header (a name ending in
    _impl.h), and none of a layer the includer may not depend on
    (FORBIDDEN: src/ knows nothing of formats/, tui/ or cli/; libhcbtap,
    which runs inside traced programs, only the model and the session
    files);
  - a module is a folder: a folder depends (includes a header of, or calls
    a function defined in) only on folders of a lower floor (FLOORS), and
    no two folders depend on each other, directly or around a loop;
  - the ring buffer's record types are numbered in one list, the enum of
    src/bpf/ring.h, without a value set by hand: no other file defines an
    HCB_EV_ name, so no two record types can share a number;
  - inside a folder, a file depends on the files it builds on, never back
    up: no two files of one folder include or call each other, directly or
    around a loop (NAME.c includes NAME.h, which declares what NAME.c
    defines; a call of it is a dependency on NAME.c).

A dependency is an #include line, or a call of a function that another
file defines (not static); the BPF programs (*.bpf.c, *.bpf.h) are linked
apart from the C code, so only their includes count.  A circle is reported
once, at the first include or call that closes it.

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
# what a layer may not depend on (folders, and every folder below them)
FORBIDDEN = {
    "src": ("formats", "cli", "tui"),
    "formats": ("cli", "tui"),
    # libhcbtap runs inside traced programs: libc, the model and the
    # session files (its own barrier)
    "hcbtap": ("formats", "cli", "tui", "src/watch", "src/diff", "src/process", "src/bpf",
               "src/providers", "src/engine"),
}
# The floors of the house, from the ground up: a folder depends only on
# folders of lower floors (several folders of one floor know nothing of
# each other).  A folder not listed here is held to FORBIDDEN and to the
# circles alone.
FLOORS = (
    ("src/core",),
    ("src/session", "src/watch", "src/diff", "src/process", "src/bpf"),
    ("src/providers",),
    ("src/providers/hcbtap", "src/providers/outfeed", "src/providers/jaxcb"),
    ("src/engine",),
    ("formats/text", "formats/json", "formats/svg"),
    ("formats",),
    ("tui",),
    ("cli",),
)

# Circles known and not broken yet: none is left.  Each entry would be the
# set of modules (folders, or a folder's files) of one circle; a circle not
# listed here fails, and one listed that no longer exists is reported, so
# the list only shrinks.
KNOWN_CIRCLES = []

# the one numbering of the ring's records
RING_HEADER = os.path.join("src", "bpf", "ring.h")
RING_DEF_RE = re.compile(r"^\s*(HCB_EV_[A-Z0-9_]+)\s*(=|,|$)")
RING_ANY_DEF_RE = re.compile(r"\b(HCB_EV_[A-Z0-9_]+)\s*=(?!=)|#\s*define\s+(HCB_EV_[A-Z0-9_]+)\b")

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


def header_path(includer_dir, name):
    """The path (relative to ROOT) of header name, or None (generated
    headers, system headers)."""
    own = os.path.join(ROOT, includer_dir, name)
    if os.path.isfile(own):
        return os.path.relpath(own, ROOT)
    for d in INCLUDE_DIRS:
        p = os.path.join(ROOT, d, name)
        if os.path.isfile(p):
            return os.path.relpath(p, ROOT)
    return None


def folder(path):
    return os.path.dirname(path)


def under(path_folder, top):
    return path_folder == top or path_folder.startswith(top + os.sep)


def floor_of(fold):
    for i, names in enumerate(FLOORS):
        if fold in names:
            return i
    return None


def forbidden(src_folder, dst_folder):
    """Why src_folder may not depend on dst_folder, or None."""
    for layer, banned in FORBIDDEN.items():
        if not under(src_folder, layer):
            continue
        for b in banned:
            if under(dst_folder, b) and not under(src_folder, b):
                return "%s/ may not depend on %s/" % (layer, b)
    a, b = floor_of(src_folder), floor_of(dst_folder)
    if a is not None and b is not None and b >= a:
        return "%s/ is on floor %d, %s/ on floor %d: a folder builds only on lower floors" \
            % (src_folder, a, dst_folder, b)
    return None


def check_includes(path, lines, out):
    here = folder(path)
    for i, line in enumerate(lines):
        m = INCLUDE_RE.match(line)
        if not m:
            continue
        name = m.group(1)
        where = header_path(here, name)
        if where is None or folder(where) == here:
            continue
        if where.endswith("_impl.h"):
            out.append("%s:%d: includes %s, a private header of %s/" % (path, i + 1, name,
                                                                        folder(where)))
            continue
        why = forbidden(here, folder(where))
        if why:
            out.append("%s:%d: includes %s (%s)" % (path, i + 1, name, why))


def file_module(path):
    """A folder's file, itself: NAME.c builds on NAME.h (it includes it)."""
    return path


STRING_RE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
COMMENT_RE = re.compile(r"/\*.*?\*/", re.S)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case",
            "defined", "__attribute__", "__typeof__", "typeof", "_Static_assert", "alignof"}


def code_text(text):
    """The text without comments and string literals, lines kept."""
    text = COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return "\n".join(STRING_RE.sub('""', code_of(l)) for l in text.split("\n"))


def definitions(lines):
    """The functions a file defines: (name, is_static)."""
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("{"):
            continue
        name = function_name(lines, i)
        if name == "?":
            continue
        # the declarator's own lines: from the last line ending a statement
        start = i - 1
        while start > 0 and not lines[start - 1].rstrip().endswith((";", "}", "*/")) \
                and lines[start - 1].strip() and not lines[start - 1].startswith("#"):
            start -= 1
        head = " ".join(lines[start:i])
        out.append((name, re.search(r"\bstatic\b", head) is not None))
    return out


def is_bpf(path):
    return ".bpf." in os.path.basename(path)


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
                return [node] + path[::-1][1:] + [node] if len(path) > 1 else [node, n, node]
            if m not in prev:
                prev[m] = n
                queue.append(m)
    return None


def report_cycles(what, edges, out, known):
    """edges: {(a, b): (path, line, how)}; a circle once each, unless it is
    a known one (then added to known)."""
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
        path, line, how = edges[(cycle[0], cycle[1])]
        out.append("%s:%d: %s, a circle of %s: %s"
                   % (path, line, how, what, " -> ".join(cycle)))


def dependencies(paths, texts):
    """Every dependency of a file on another: [(path, line, how, target path)]."""
    deps, defined, local = [], {}, {}
    for path in paths:
        lines = texts[path]
        for i, line in enumerate(lines):
            m = INCLUDE_RE.match(line)
            where = m and header_path(folder(path), m.group(1))
            if where and file_module(where) != file_module(path):
                deps.append((path, i + 1, "includes " + m.group(1), where))
        if is_bpf(path):
            continue
        for name, static in definitions(lines):
            if static and path.endswith(".c"):
                local.setdefault(path, set()).add(name)
            else:
                defined.setdefault(name, set()).add(path)
    for path in paths:
        if not path.endswith(".c") or is_bpf(path):
            continue
        text = code_text("".join(texts[path])).split("\n")
        for i, line in enumerate(text):
            for m in NAME_RE.finditer(line):
                name = m.group(1)
                if name in KEYWORDS or name in local.get(path, ()) or \
                        (not line.startswith((" ", "\t")) and m.start() == line.find(name)):
                    continue
                for target in defined.get(name, ()):
                    if file_module(target) != file_module(path):
                        deps.append((path, i + 1, "calls %s()" % name, target))
    return deps


def check_dependencies(paths, texts, out):
    folders, files = {}, {}
    for path, line, how, target in dependencies(paths, texts):
        a, b = folder(path), folder(target)
        if a != b:
            folders.setdefault((a, b), (path, line, how))
            if how.startswith("calls"):
                why = forbidden(a, b)
                if why:
                    out.append("%s:%d: %s, defined in %s (%s)" % (path, line, how, target, why))
        else:
            files.setdefault((file_module(path), file_module(target)), (path, line, how))
    known = set()
    report_cycles("folders", folders, out, known)
    report_cycles("a folder's files", files, out, known)
    modules = {folder(p) for p in paths} | {file_module(p) for p in paths}
    for k in KNOWN_CIRCLES:
        if frozenset(k) not in known and all(m in modules for m in k):
            out.append("tests/tools/check_layout.py:1: the circle %s is gone: take it off "
                       "KNOWN_CIRCLES" % " <-> ".join(sorted(k)))


def check_ring_numbers(path, lines, out):
    """HCB_EV_ names are defined in bpf/ring.h's enum alone, none with a
    value of its own."""
    for i, line in enumerate(lines):
        if path == RING_HEADER:
            m = RING_DEF_RE.match(code_of(line))
            if m and m.group(2) == "=":
                out.append("%s:%d: %s is given a number by hand: the enum numbers its "
                           "records" % (path, i + 1, m.group(1)))
        else:
            m = RING_ANY_DEF_RE.search(code_of(line))
            if m:
                out.append("%s:%d: %s defines a ring record type outside %s"
                           % (path, i + 1, m.group(1) or m.group(2), RING_HEADER))


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
        check_ring_numbers(path, lines, out)
        # in the order of the file (a function is found at its end)
        out.sort(key=lambda o: int(o.split(":")[1]))
        for o in out:
            print(o)
        found += len(out)
    out = []
    check_dependencies(list(texts), texts, out)
    for o in out:
        print(o)
    found += len(out)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
