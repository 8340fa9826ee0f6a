# SPDX-License-Identifier: MIT
"""python -m hcbtap.recording.parquet -o OUT IN...: what `hcbtrace convert
IN... -o OUT.parquet` (or -o OUTDIR/) runs (cli/convert_parquet.c).

Messages are hcbtrace's ("hcbtrace: ..."), and so are the exit codes: 0
converted (a recording cut inside its last record warns, as hcbtrace
replay does), 1 a recording damaged (converted up to the damage, one
message each) or the output not written, 2 usage, 4 no pyarrow here (the
message names the install command).  On a terminal, a progress line and
a summary; elsewhere nothing but warnings and errors."""
import argparse
import os
import sys
import time
import warnings

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_SYSTEM = 0, 1, 2, 4


def _say(kind, msg):
    sys.stderr.write("hcbtrace: %s%s\n" % (kind, msg))


class _Progress:
    """A line on a terminal, rewritten at most twice a second."""

    def __init__(self):
        self.last = 0.0
        self.shown = False

    def __call__(self, path, done, size, result):
        now = time.monotonic()
        if now - self.last < 0.5:
            return
        self.last = now
        self.shown = True
        sys.stderr.write("\r\033[K%s: %d of %d MB, %d rows" % (
            os.path.basename(path), done >> 20, size >> 20, result.rows))
        sys.stderr.flush()

    def done(self):
        if self.shown:
            sys.stderr.write("\r\033[K")


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
    progress = _Progress() if sys.stderr.isatty() and not a.quiet else None
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
    if progress:        # on a terminal: what it did, in a word
        _say("", "%d taps, %d rows, %d events from %d recordings (%.1f MB) to %s"
             % (result.taps, result.rows, result.events, result.files,
                result.bytes_in / 1e6, out))
    return EXIT_FAIL if result.errors else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
