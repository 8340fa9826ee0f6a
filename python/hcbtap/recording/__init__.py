# SPDX-License-Identifier: MIT
"""Read hcbtrace recordings (.jsonl and .hcbcap) as numpy arrays.

    from hcbtap.recording import taps

    for tap in taps("run.jsonl"):              # or run.hcbcap, "-", a file object
        print(tap.device, tap.seq, tap.ts_ns, tap.name, tap.kwargs, tap.value)

tap.value is the tapped pytree (tuples, lists, dicts) of numpy arrays,
bit for bit what hcbtrace reads; records() gives the session, drop,
barrier and end records too, and scalars() a pandas DataFrame of the scalar
leaves.  The file is read a line (JSONL) or a frame (.hcbcap) at a time.
A damaged recording raises RecordingError ("FILE:LINE: what", or
"FILE:offset N: what") once every record before the damage has been
returned; a truncated one (the file ends inside its last record) warns
(RecordingWarning) and ends, as hcbtrace replay does.

Needs numpy only: ml_dtypes for bfloat16, float8, float4 and sub-byte
integer arrays, pandas for scalars(); never jax.  See python/README.md."""
import io
import os
import sys
import warnings

from ._hcbcap import HcbcapReader
from ._jsonl import JsonlReader
from ._model import (Barrier, Consumer, Device, Drop, End, Process, RecordingError,
                     RecordingWarning, Session, Tap, Trigger, device_name)
from ._table import scalars_of

__all__ = ["Recording", "records", "taps", "scalars", "to_parquet", "to_arrow", "RecordingError",
           "RecordingWarning", "Session", "Tap", "Drop", "Barrier", "End", "Trigger", "Consumer",
           "Process", "Device", "device_name"]

FORMATS = ("jsonl", "hcbcap")
_TRUNCATED = ("warn", "error", "ignore")


class _Prefixed:
    """A stream that cannot seek, with the byte (or character) read to tell
    its format put back in front."""

    def __init__(self, first, f):
        self.first, self.f = first, f

    def _take(self):
        first, self.first = self.first, self.first[:0]
        return first

    def read(self, n=-1):
        first = self._take()
        if n is not None and 0 <= n <= len(first):
            self.first = first[n:]
            return first[:n]
        return first + self.f.read(-1 if n is None or n < 0 else n - len(first))

    def __iter__(self):
        first = self._take()
        if first:
            yield first + self.f.readline()
        yield from self.f


def _peek(f):
    """(stream, first byte or character) without consuming it."""
    peek = getattr(f, "peek", None)
    if peek is not None:
        try:
            return f, peek(1)[:1]
        except (OSError, ValueError):
            pass
    try:
        if f.seekable():
            pos = f.tell()
            first = f.read(1)
            f.seek(pos)
            return f, first
    except (AttributeError, OSError, ValueError):
        pass
    first = f.read(1)
    return _Prefixed(first, f), first


class Recording:
    """A recording being read, once, front to back.

        with Recording("run.hcbcap") as rec:
            for r in rec:                  # Session, Tap, Drop, Barrier, Trigger, End
                ...
            rec.consumers                  # {id: Consumer} seen so far

    source: a path (str, bytes or os.PathLike), "-" for standard input, or a
    file object (binary; a text one for JSONL).  format: "jsonl" or
    "hcbcap"; by default the first byte says ("{" JSONL, "H" .hcbcap), as
    hcbtrace reads a file it does not know by name, and else the file's
    name.  truncated: what a file that ends inside its last record (a cut
    copy) does once the records before it are returned: "warn" (a
    RecordingWarning, as hcbtrace replay warns), "error" (RecordingError
    with .truncated True) or "ignore".  Damage of any other kind raises
    RecordingError whatever this says."""

    def __init__(self, source, *, format=None, truncated="warn"):
        if format not in (None,) + FORMATS:
            raise ValueError("format must be 'jsonl' or 'hcbcap', not %r" % (format,))
        if truncated not in _TRUNCATED:
            raise ValueError("truncated must be 'warn', 'error' or 'ignore', not %r" % (truncated,))
        self._truncated = truncated
        self._own = None
        if isinstance(source, str) and source == "-":
            f, self.path = sys.stdin.buffer, "<stdin>"
        elif isinstance(source, (str, bytes, os.PathLike)):
            self.path = os.fsdecode(source)
            f = self._own = open(source, "rb")
        elif hasattr(source, "read"):
            f = source
            name = getattr(source, "name", None)
            self.path = name if isinstance(name, str) else "<stream>"
        else:
            raise TypeError("a recording is a path, '-' or a file object, not %s"
                            % type(source).__name__)
        try:
            f, first = _peek(f)
            text = isinstance(first, str)
            if format is None:
                format = self._format(first)
            if format == "hcbcap":
                if text:
                    raise TypeError("%s: an .hcbcap recording is binary: open it with 'rb'" % self.path)
                self._reader = HcbcapReader(f, self.path, self._on_truncated)
            else:
                self._reader = JsonlReader(f, self.path, self._on_truncated)
        except BaseException:
            self.close()
            raise
        self.format = format
        self.session = None
        self._it = iter(self._reader)

    def _format(self, first):
        if first in (b"{", "{"):
            return "jsonl"
        if first in (b"H", "H"):
            return "hcbcap"
        for fmt in FORMATS:
            if self.path.endswith("." + fmt):
                return fmt
        if not first:
            return "jsonl"      # an empty stream: the reader says it is empty
        raise RecordingError(self.path, "not a recording hcbtrace reads (JSONL or .hcbcap): "
                             "it starts with %r" % (first,))

    def _on_truncated(self, err):
        if self._truncated == "error":
            raise err
        if self._truncated == "warn":
            warnings.warn(str(err), RecordingWarning, stacklevel=4)

    @property
    def consumers(self):
        """{consumer id: Consumer} of the consumers read so far."""
        return self._reader.consumers

    def __iter__(self):
        return self.records()

    def records(self):
        """Every record from here on: Session, Tap, Drop, Barrier, Trigger, End."""
        for rec in self._it:
            if rec.kind == "session":
                self.session = rec
            yield rec

    def taps(self):
        """The taps from here on (the other records pass by; .session is
        the last session record read)."""
        for rec in self._it:
            if rec.kind == "tap":
                yield rec
            elif rec.kind == "session":
                self.session = rec

    def device_name(self, device):
        """A device as hcbtrace prints it, after the last session read."""
        return self.session.device_name(device) if self.session else device_name("cpu", device)

    def close(self):
        if self._own is not None:
            self._own.close()
            self._own = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def records(source, **kw):
    """Every record of a recording: Session, Tap, Drop, Barrier, Trigger, End (the
    keywords are Recording's)."""
    with Recording(source, **kw) as rec:
        yield from rec.records()


def taps(source, **kw):
    """Every tap of a recording (the keywords are Recording's)."""
    with Recording(source, **kw) as rec:
        yield from rec.taps()


def scalars(source, *, names=None, devices=None, **kw):
    """A pandas DataFrame of a recording's scalar streams: one row per tap
    (columns device, seq, ts_ns, name) and one column per scalar leaf,
    named by its path: "loss" (a lone array), "power3[1]" (a tuple's or
    list's item), "params.b" (a dict's).  Leaves that are not 0-d arrays
    are left out.  A cell is empty (NaN, or <NA> in an integer or bool
    column) where the row's tap has no such leaf.  bfloat16, float8 and
    float4 values come as float32, int2 and int4 as int8, uint2 and uint4
    as uint8 (pandas knows no ml_dtypes).  names, devices:
    only taps of these consumer names, devices.  source: a path, "-", a
    file object, a Recording, or any iterable of Tap."""
    try:
        import pandas
    except ImportError:
        raise ImportError("hcbtap.recording.scalars needs pandas: "
                          "pip install 'hcbtap[pandas]' (or pip install pandas)") from None
    if isinstance(source, Recording):
        return scalars_of(pandas, source.taps(), names, devices)
    if isinstance(source, (str, bytes, os.PathLike, io.IOBase)) or hasattr(source, "read"):
        with Recording(source, **kw) as rec:
            return scalars_of(pandas, rec.taps(), names, devices)
    return scalars_of(pandas, (t for t in source if t.kind == "tap"), names, devices)


def to_parquet(paths, out, **kw):
    """Recordings (a file, a directory of them, or a list) as Parquet:
    OUT.parquet, a row per tap leaf, and OUT.events.parquet; or a dataset
    partitioned by host and process where out is a directory.  Needs
    pyarrow (pip install 'hcbtap[parquet]').  See _parquet.to_parquet and
    formats/PARQUET.md."""
    from ._parquet import to_parquet as write
    return write(paths, out, **kw)


def to_arrow(paths, **kw):
    """Recordings as the pyarrow Table to_parquet writes (events=True: the
    events'); .to_pandas() for a DataFrame.  Needs pyarrow."""
    from ._parquet import to_arrow as read
    return read(paths, **kw)
