# SPDX-License-Identifier: MIT
"""python -m hcbtap.recording.parquet -o OUT IN...: what `hcbtrace convert
IN... -o OUT.parquet` (or -o OUTDIR/) runs (cli/convert_parquet.c).

Messages are hcbtrace's ("hcbtrace: ..."), and so are the exit codes: 0
converted (a recording cut inside its last record warns, as hcbtrace
replay does), 1 a recording damaged (converted up to the damage, one
message each) or the output not written, 2 usage, 4 no pyarrow here (the
message names the install command).  On a terminal, hcbtrace's progress
line, cleared at the end; else nothing but warnings and errors."""
import argparse
import os
import sys
import time
import warnings

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_SYSTEM = 0, 1, 2, 4


def _say(kind, msg):
    sys.stderr.write("hcbtrace: %s%s\n" % (kind, msg))


def _bytes(n):
    """cli/progress.c's sizes: 1.2 GB, 430 MB, 12 kB, 10 B."""
    for scale, unit in ((1e9, "%.1f GB"), (1e6, "%.0f MB"), (1e3, "%.0f kB")):
        if n >= scale:
            return unit % (n / scale)
    return "%.0f B" % n


def _delay_s():
    """HCBTRACE_PROGRESS_DELAY_MS, as cli/progress.c reads it."""
    s = os.environ.get("HCBTRACE_PROGRESS_DELAY_MS", "")
    return int(s) / 1000 if s.isdigit() and int(s) <= 3600000 else 0.25


class _Progress:
    """hcbtrace's progress line (cli/progress.c): on a terminal, once the
    work has taken a quarter of a second, at most four times a second,
    "[ 43%] 430 MB of 1.0 GB, 210 MB/s" over all the recordings, cleared
    at the end."""

    def __init__(self, files):
        self.total = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
        self.start = self.last = time.monotonic()
        self.first = _delay_s()
        self.base, self.path, self.size = 0, None, 0
        self.shown = False

    def __call__(self, path, done, size, result):
        if path != self.path:
            self.base += self.size
            self.path, self.size = path, size
        now = time.monotonic()
        if now - self.start < self.first or (self.shown and now - self.last < 0.25):
            return
        self.last = now
        self.shown = True
        n = self.base + done
        pct = int(100 * n / self.total) if self.total else 100
        sys.stderr.write("\r[%3d%%] %s of %s, %s/s\033[K" % (
            pct, _bytes(n), _bytes(self.total), _bytes(n / max(now - self.start, 1e-9))))
        sys.stderr.flush()

    def done(self):
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="hcbtrace convert", add_help=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args(argv)
    try:
        import pyarrow                  # noqa: F401
        import pyarrow.parquet          # noqa: F401
    except ImportError:
        from ._parquet import INSTALL
        _say("", "converting to Parquet needs pyarrow, which %s cannot import: %s; or set "
             "HCB_PYTHON to a python3 that has it" % (sys.executable, INSTALL))
        return EXIT_SYSTEM
    from ._parquet import recording_files, to_parquet
    files = recording_files(a.inputs)
    for f in files:
        if not os.path.isfile(f) and f != "-":
            _say("", "cannot open '%s': %s" % (f, os.strerror(2)))
            return EXIT_FAIL
    if not files:
        _say("", "no recording (*.jsonl, *.hcbcap) in %s" % " ".join(a.inputs))
        return EXIT_FAIL
    out = a.output
    if (out.endswith("/") or os.path.isdir(out)) and os.path.isdir(out) and os.listdir(out):
        _say("", "'%s' is not empty: a dataset goes into a directory of its own (its files "
             "would be read with the old ones)" % out)
        return EXIT_USAGE
    progress = _Progress(files) if sys.stderr.isatty() and not a.quiet else None
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            result = to_parquet(files, out, errors="collect", progress=progress)
    except OSError as e:
        if progress:
            progress.done()
        _say("", "writing '%s': %s" % (e.filename or out, e.strerror or e))
        return EXIT_FAIL
    if progress:
        progress.done()
    for w in seen:
        _say("warning: ", str(w.message))
    for e in result.errors:
        _say("", "%s (converted up to there)" % e)
    return EXIT_FAIL if result.errors else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
