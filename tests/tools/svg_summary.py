#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read a picture of hcbtrace diff --plot and print what it shows, as JSON.

usage: tests/tools/svg_summary.py FILE.svg

The file must parse as XML (xml.etree) with an <svg> root in the SVG
namespace, hold no <script>, no external reference (href, url() other than
to its own gradients) and no @font-face; every line must agree with its data:
its "points" are the data-x/data-y values put through the chart's scales
(the plot area's frame, padded, and its data-xmin/xmax/ymin/ymax), to the
hundredth of a pixel.  Exits 1 with the reason otherwise.

The summary: {"title", "subtitles": [...], "charts": [{"title", "subtitle",
"xmin", "xmax", "ymin", "ymax", "lines": [{"class", "label", "points", "x",
"y"}], "bands", "mark", "mark_label", "flags": [x...], "legend": [text...],
"note"}], "heatmaps": [{"title", "maps": [{"title", "rows", "cols", "cells",
"marks", "lo", "hi", "diverging"}]}], "notes": [...]}.  tests/bats/plot.bats
asserts on it.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
PAD_X, PAD_Y = 12.0, 14.0      # formats/svg/svgplot.c: frame to extreme points


def fail(msg):
    print("svg_summary: %s" % msg, file=sys.stderr)
    sys.exit(1)


def scale(v, lo, hi, p0, p1):
    if not hi > lo:
        return (p0 + p1) / 2
    return p0 + (v - lo) / (hi - lo) * (p1 - p0)


def text_of(el):
    return "".join(el.itertext())


def by_class(parent, tag, cls):
    return [e for e in parent.iter(NS + tag) if cls in (e.get("class") or "").split()]


def check_line(line, plot, where):
    xs = [float(v) for v in line.get("data-x").split()]
    ys = [float(v) for v in line.get("data-y").split()]
    pts = [tuple(float(c) for c in p.split(",")) for p in line.get("points").split()]
    if not (len(xs) == len(ys) == len(pts)):
        fail("%s: %d points, %d data-x, %d data-y" % (where, len(pts), len(xs), len(ys)))
    l, t = float(plot.get("x")), float(plot.get("y"))
    r, b = l + float(plot.get("width")), t + float(plot.get("height"))
    x0, x1 = float(plot.get("data-xmin")), float(plot.get("data-xmax"))
    y0, y1 = float(plot.get("data-ymin")), float(plot.get("data-ymax"))
    for (px, py), x, y in zip(pts, xs, ys):
        ex, ey = scale(x, x0, x1, l + PAD_X, r - PAD_X), scale(y, y0, y1, b - PAD_Y, t + PAD_Y)
        if abs(px - ex) > 0.006 or abs(py - ey) > 0.006:
            fail("%s: point (%s, %s) drawn at %s, %s: expected %.3f, %.3f" % (where, x, y, px, py, ex, ey))
        if not (l <= px <= r and t <= py <= b):
            fail("%s: point (%s, %s) outside the plot area" % (where, x, y))
    return xs, ys, len(pts)


def chart(g):
    title = g.find(NS + "title")
    plot = by_class(g, "rect", "plot")[0]
    out = {
        "title": text_of(by_class(g, "text", "title")[0]),
        "tooltip": text_of(title) if title is not None else None,
        "subtitle": text_of(by_class(g, "text", "subtitle")[0]),
        "xmin": float(plot.get("data-xmin")), "xmax": float(plot.get("data-xmax")),
        "ymin": float(plot.get("data-ymin")) if plot.get("data-ymin") else None,
        "ymax": float(plot.get("data-ymax")) if plot.get("data-ymax") else None,
        "lines": [], "bands": len(by_class(g, "polygon", "band")),
        "flags": [float(f.get("data-x")) for f in by_class(g, "rect", "flag")],
        "legend": [text_of(t) for e in by_class(g, "g", "legend") for t in e.iter(NS + "text")],
        "mark": None, "mark_label": None, "note": None,
    }
    for i, line in enumerate(by_class(g, "polyline", "line")):
        xs, ys, n = check_line(line, plot, "chart %r line %d" % (out["title"], i))
        cls = [c for c in line.get("class").split() if c != "line"][0]
        out["lines"].append({"class": cls, "label": line.get("data-label"), "points": n, "x": xs, "y": ys})
    marks = by_class(g, "line", "mark")
    if marks:
        out["mark"] = float(marks[0].get("data-x"))
        out["mark_label"] = text_of(by_class(g, "text", "mark-label")[0])
    notes = by_class(g, "text", "note")
    if notes:
        out["note"] = text_of(notes[0])
    return out


def heatmaps(g):
    out = {"title": text_of(by_class(g, "text", "title")[0]), "maps": []}
    for m in by_class(g, "g", "heatmap"):
        cells = [r for c in by_class(m, "g", "cells") for r in c.iter(NS + "rect")]
        rows, cols = int(m.get("data-rows")), int(m.get("data-cols"))
        if len(cells) != rows * cols:
            fail("heatmap %r: %d cells for %d x %d" % (out["title"], len(cells), rows, cols))
        out["maps"].append({
            "title": text_of(by_class(m, "text", "map-title")[0]), "rows": rows, "cols": cols,
            "cells": len(cells), "marks": len(by_class(g, "rect", "cell-mark")),
            "lo": float(m.get("data-lo")) if m.get("data-lo") else None,
            "hi": float(m.get("data-hi")) if m.get("data-hi") else None,
            "diverging": m.get("data-diverging") == "1",
        })
    return out


def self_contained(raw, root):
    if root.tag != NS + "svg":
        fail("the root is %s, not an SVG <svg>" % root.tag)
    for el in root.iter():
        if el.tag in (NS + "script", NS + "foreignObject", NS + "image", NS + "style"):
            fail("has a <%s>" % el.tag.replace(NS, ""))
        for k, v in el.attrib.items():
            if k.endswith("href") or k.startswith("on"):
                fail("attribute %s on <%s>" % (k, el.tag.replace(NS, "")))
            for ref in re.findall(r"url\(([^)]*)\)", v):
                if not ref.startswith("#"):
                    fail("external url(%s)" % ref)
    if "@font-face" in raw or "@import" in raw:
        fail("loads fonts or styles")


def main(path):
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        fail("%s: not XML: %s" % (path, e))
    self_contained(raw, root)
    summary = {
        "title": text_of(by_class(root, "text", "doc-title")[0]),
        "subtitles": [text_of(t) for t in by_class(root, "text", "doc-subtitle")],
        "width": root.get("width"), "height": root.get("height"),
        "charts": [chart(g) for g in by_class(root, "g", "chart")],
        "heatmaps": [heatmaps(g) for g in by_class(root, "g", "heatmaps")],
        "notes": [text_of(t) for t in root.findall(NS + "text") if t.get("class") == "note"],
    }
    json.dump(summary, sys.stdout)
    print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: svg_summary.py FILE.svg")
    main(sys.argv[1])
