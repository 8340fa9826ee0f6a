# SPDX-License-Identifier: MIT
"""Recordings as Apache Arrow tables and Parquet files (formats/PARQUET.md):
one row per tap leaf, and a table of the other records (drops, triggers,
barriers, ends), for DuckDB, Spark, pandas and the rest of the field.

Written a row group at a time (ParquetWriter): the memory a conversion
takes is bounded by ROWS_PER_GROUP and BYTES_PER_GROUP, not by the
recording's size.  Needs pyarrow (pip install 'hcbtap[parquet]')."""
import math
import os
import urllib.parse
import warnings

import numpy as np

from ._model import RecordingError, RecordingWarning, leaf_paths, parse_tree

# a numeric leaf's elements in the values column, at most: a scalar, a
# small vector or a histogram's bins; larger leaves have values null (raw
# holds every one of them)
VALUES_MAX = 1024
# a row group is flushed at whichever comes first: rows, or bytes of raw
ROWS_PER_GROUP = 32768
BYTES_PER_GROUP = 32 << 20
EXTENSIONS = (".jsonl", ".hcbcap")

# the distribution this reader came in: hcbtap (python/), or the hcbtrace
# wheel, which ships it as hcbtrace.recording
INSTALL = "pip install '%s[parquet]' (or pip install pyarrow)" % __name__.split(".")[0]
# columns of few distinct values, dictionary-encoded; raw, values and the
# numbers are not (a dictionary of unique leaves is work thrown away)
DICTIONARY = ["source", "host", "job", "provider", "platform", "device_name", "name", "op",
              "module", "file", "path", "dtype", "kind", "reason", "condition"]


def _writer(pa, path, schema):
    return pa.parquet.ParquetWriter(path, schema, use_dictionary=[
        n for n in DICTIONARY if n in schema.names])


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ImportError("writing Parquet needs pyarrow: " + INSTALL) from None
    return pyarrow


def tap_schema(pa):
    """The columns of the taps table, one row per leaf of each tap (lists'
    items named "element", as Parquet names them: a table read back from
    the file is the table to_arrow gives)."""
    return pa.schema([
        ("source", pa.string()),            # the recording the row came from
        ("host", pa.string()),
        ("process_index", pa.int32()),
        ("process_count", pa.int32()),
        ("job", pa.string()),
        ("pid", pa.int64()),
        ("command", pa.string()),           # the process's command line
        ("provider", pa.string()),
        ("start_ns", pa.int64()),
        ("device", pa.int64()),
        ("global_device_id", pa.int64()),
        ("platform", pa.string()),
        ("device_name", pa.string()),
        ("consumer", pa.int64()),
        ("name", pa.string()),
        ("op", pa.string()),
        ("module", pa.string()),
        ("file", pa.string()),
        ("line", pa.int32()),
        ("kwargs", pa.map_(pa.string(), pa.string())),
        ("seq", pa.uint64()),
        ("ts_ns", pa.uint64()),
        ("leaf", pa.int32()),
        ("leaves", pa.int32()),
        ("path", pa.string()),
        ("dtype", pa.string()),
        ("shape", pa.list_(pa.field("element", pa.int64()))),
        ("size", pa.int64()),               # elements
        ("nbytes", pa.int64()),             # bytes of raw
        ("nan_count", pa.int64()),
        ("inf_count", pa.int64()),
        ("min", pa.float64()),
        ("max", pa.float64()),
        ("mean", pa.float64()),
        ("value", pa.float64()),            # a real leaf of one element: it
        ("values", pa.list_(pa.field("element", pa.float64()))),
        ("raw", pa.large_binary()),
    ])


def event_schema(pa):
    """The columns of the events table: drops, triggers, barriers, ends."""
    return pa.schema([
        ("source", pa.string()),
        ("host", pa.string()),
        ("process_index", pa.int32()),
        ("process_count", pa.int32()),
        ("job", pa.string()),
        ("pid", pa.int64()),
        ("kind", pa.string()),              # drop, trigger, barrier, end
        ("device", pa.int64()),
        ("global_device_id", pa.int64()),
        ("count", pa.uint64()),             # drop: packets lost
        ("reason", pa.string()),            # drop: why
        ("condition", pa.string()),         # trigger
        ("seq", pa.uint64()),               # trigger: the tap that fired it
        ("name", pa.string()),              # trigger: its consumer's name
        ("leaf", pa.int64()),
        ("element", pa.uint64()),
        ("value", pa.float64()),
        ("ts_ns", pa.uint64()),
        ("taps", pa.uint64()),              # barrier, end
        ("drops", pa.uint64()),             # end
        ("by_pid", pa.int64()),             # trigger "job": the process that fired
        ("by_process", pa.int64()),         # ... its index in the job
        ("exit_status", pa.int32()),        # trigger "exit": how the process ended
        ("exit_signal", pa.int32()),
        ("by_host", pa.string()),           # trigger "fleet": the host whose hcbtrace fired
    ])


def recording_files(paths):
    """The recordings of paths: a file as it is, a directory's *.jsonl and
    *.hcbcap (sorted by name, not descending into subdirectories)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = os.fsdecode(p)
        if os.path.isdir(p):
            out += sorted(os.path.join(p, n) for n in os.listdir(p)
                          if n.endswith(EXTENSIONS) and os.path.isfile(os.path.join(p, n)))
        else:
            out.append(p)
    return out


class _Who:
    """What the session in effect says of each row: the last session record
    read (a later one, whole, replaces it)."""

    def __init__(self, source):
        self.source = source
        self.set(None)

    def set(self, s):
        self.session = s
        proc = s.process if s is not None else None
        self.row = {
            "source": self.source,
            "host": s.host if s is not None else None,
            "process_index": proc.index if proc is not None else None,
            "process_count": proc.count if proc is not None else None,
            "job": s.job if s is not None else None,
            "pid": s.pid if s is not None else None,
        }
        self.globals = {d.device: d.global_id for d in s.devices} if s is not None else {}

    def key(self):
        return (self.row["host"], self.row["process_index"])


SMALL = 32      # elements: figures in Python (numpy's calls cost more than the work)
_INF = (float("inf"), float("-inf"))


def leaf_figures(arr):
    """(nan_count, inf_count, min, max, mean, values) of a leaf, as hcbtrace
    defines them once for every layer (src/core/leafstats.h): numpy's
    nanmin, nanmax, nanmean (NaN elements left out, an inf counts) as
    float64, None where no element is a number; a complex element counts
    by its real part, and is NaN where either part is; bools as 0 and 1.
    values: the elements as float64, flat, where the leaf is real and holds
    at most VALUES_MAX (else None).  Call it under
    numpy.errstate(invalid="ignore", over="ignore"): a float8 kind's NaN
    becomes float64's, which is what is wanted."""
    flat = arr.reshape(-1)
    if flat.dtype.kind == "c":
        nan_mask = np.isnan(flat)
        v = flat.real.astype(np.float64)
    else:
        v = flat.astype(np.float64)
        if v.size <= SMALL:
            values = v.tolist()
            num = [x for x in values if x == x]
            if not num:
                return len(values), 0, None, None, None, values
            inf = sum(1 for x in num if x in _INF)
            total = math.fsum(num) if not inf else sum(num)
            return (len(values) - len(num), inf, min(num), max(num), total / len(num), values)
        nan_mask = np.isnan(v)
    nan = int(np.count_nonzero(nan_mask))
    inf = int(np.count_nonzero(np.isinf(v) & ~nan_mask))
    num = v if nan == 0 else v[~nan_mask]
    if num.size:
        lo, hi, mean = float(num.min()), float(num.max()), float(num.mean(dtype=np.float64))
    else:
        lo = hi = mean = None
    values = v.tolist() if flat.dtype.kind != "c" and v.size <= VALUES_MAX else None
    return nan, inf, lo, hi, mean, values


def _int_or_none(s):
    try:
        return int(s) if s is not None else None
    except ValueError:
        return None


class _Batch:
    """Columns being filled, flushed to a writer a row group at a time."""

    def __init__(self, schema):
        self.schema = schema
        self.names = schema.names
        self.clear()

    def clear(self):
        self.cols = {n: [] for n in self.names}
        self.rows = 0
        self.nbytes = 0
        # {device: [row]}: rows of a device no session record has named yet
        self.unnamed = {}

    def full(self):
        # rows waiting for their device's global id wait a little longer
        if self.unnamed and self.rows < 2 * ROWS_PER_GROUP and self.nbytes < 2 * BYTES_PER_GROUP:
            return False
        return self.rows >= ROWS_PER_GROUP or self.nbytes >= BYTES_PER_GROUP

    def name_devices(self, session):
        """A device's first tap comes before the session record that names
        it (hcbtrace writes that record once it has seen the device): its
        rows in this batch get its global id now."""
        col = self.cols.get("global_device_id")
        for d in session.devices:
            for i in self.unnamed.pop(d.device, ()):
                col[i] = d.global_id

    def table(self, pa):
        t = pa.Table.from_pydict(self.cols, schema=self.schema)
        self.clear()
        return t


class _TapRows:
    """A tap's rows, a leaf a row, into a _Batch; a consumer's per-leaf
    columns are worked out once."""

    def __init__(self):
        self.sites = {}

    def _site(self, tap):
        key = (tap.consumer, tap.name, tap.tree, tuple(tap.kwargs.items()))
        site = self.sites.get(key)
        if site is None:
            paths = dict(leaf_paths(parse_tree(tap.tree)[0], tap.name))
            kw = tap.kwargs
            site = (paths, list(kw.items()), kw.get("op"), kw.get("module"), kw.get("file"),
                    _int_or_none(kw.get("line")))
            if len(self.sites) > 4096:
                self.sites.clear()
            self.sites[key] = site
        return site

    def add(self, b, tap, who):
        paths, kw, op, module, file, line = self._site(tap)
        s = who.session
        gid = who.globals.get(tap.device)
        c = b.cols
        n = len(tap.leaves)
        if gid is None and s is not None:
            b.unnamed.setdefault(tap.device, []).extend(range(b.rows, b.rows + n))
        # the tap's columns, once for its n leaves
        tap_cols = dict(who.row)
        tap_cols.update(
            command=s.command if s is not None else None,
            provider=s.provider if s is not None else None,
            start_ns=s.start_ns if s is not None else None,
            device=tap.device, global_device_id=gid,
            platform=s.platform_of(tap.device) if s is not None else "cpu",
            device_name=s.device_name(tap.device) if s is not None else "cpu:%d" % tap.device,
            consumer=tap.consumer, name=tap.name, op=op, module=module, file=file, line=line,
            kwargs=kw, seq=tap.seq, ts_ns=tap.ts_ns, leaves=n)
        for k, v in tap_cols.items():
            c[k].extend((v,) * n)
        for i, leaf in enumerate(tap.leaves):
            nan, inf, lo, hi, mean, values = leaf_figures(leaf)
            raw = leaf.tobytes()
            c["leaf"].append(i)
            c["path"].append(paths.get(i, tap.name))
            c["dtype"].append(_dtype_name(leaf.dtype))
            c["shape"].append(list(leaf.shape))
            c["size"].append(leaf.size)
            c["nbytes"].append(len(raw))
            c["nan_count"].append(nan)
            c["inf_count"].append(inf)
            c["min"].append(lo)
            c["max"].append(hi)
            c["mean"].append(mean)
            c["value"].append(values[0] if values is not None and len(values) == 1 else None)
            c["values"].append(values)
            c["raw"].append(raw)
            b.nbytes += len(raw) + (8 * len(values) if values else 0)
        b.rows += n


_DTYPE_NAMES = {}


def _dtype_name(dt):
    """numpy's dtype.name, which takes microseconds a call: once a dtype."""
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        name = _DTYPE_NAMES[dt] = dt.name
    return name


def _event_row(b, rec, who):
    c = b.cols
    for k, v in who.row.items():
        c[k].append(v)
    d = getattr(rec, "device", None)
    fields = {"kind": rec.kind, "device": d, "global_device_id": who.globals.get(d)}
    if rec.kind == "drop":
        fields.update(count=rec.count, reason=rec.reason)
    elif rec.kind == "trigger":
        fields.update(condition=rec.condition, seq=rec.seq, name=rec.consumer, leaf=rec.leaf,
                      element=rec.element, ts_ns=rec.ts_ns,
                      value=rec.value if isinstance(rec.value, (int, float)) else None,
                      by_pid=rec.by_pid, by_process=rec.by_process,
                      exit_status=rec.exit_status, exit_signal=rec.exit_signal,
                      by_host=rec.by_host)
    elif rec.kind == "barrier":
        fields.update(ts_ns=rec.ts_ns, taps=rec.taps)
    elif rec.kind == "end":
        fields.update(taps=rec.taps, drops=rec.drops, ts_ns=rec.end_ns)
    for k in b.names[len(who.row):]:
        c[k].append(fields.get(k))
    b.rows += 1


def events_path(out):
    """Where to_parquet puts the events of OUT.parquet: OUT.events.parquet."""
    out = os.fspath(out)
    stem = out[:-len(".parquet")] if out.endswith(".parquet") else out
    return stem + ".events.parquet"


def _part(value):
    """A hive partition's value: URL-quoted, null as Hive writes it."""
    if value is None:
        return "__HIVE_DEFAULT_PARTITION__"
    return urllib.parse.quote(str(value), safe="")


class _FileSink:
    """OUT.parquet and OUT.events.parquet, both written whatever comes (an
    empty table has its columns)."""

    def __init__(self, pa, out):
        self.pa, self.out = pa, os.fspath(out)
        self.writers = {"taps": _writer(pa, self.out, tap_schema(pa)),
                        "events": _writer(pa, events_path(self.out), event_schema(pa))}

    def begin(self, source):
        pass

    def write(self, kind, key, table):
        self.writers[kind].write_table(table)

    def end(self):
        pass

    def close(self):
        for w in self.writers.values():
            w.close()


class _DatasetSink:
    """OUTDIR/{taps,events}/host=H/process=P/NAME.parquet, one file a
    recording and partition; host is the directory's, not a column of the
    files: a name both in the files and in the path is one the engines
    that read hive partitions would have to choose between."""

    def __init__(self, pa, outdir):
        self.pa, self.outdir = pa, os.fspath(outdir)
        self.writers = {}
        self.names = set()
        self.stem = None

    def begin(self, source):
        stem = os.path.basename(source)
        for ext in EXTENSIONS:
            if stem.endswith(ext):
                stem = stem[:-len(ext)]
        self.stem = stem or "recording"

    def _writer(self, kind, key, schema):
        w = self.writers.get((kind, key))
        if w is None:
            d = os.path.join(self.outdir, kind, "host=" + _part(key[0]),
                             "process=" + _part(key[1]))
            os.makedirs(d, exist_ok=True)
            name, n = self.stem, 1
            while (d, name) in self.names or os.path.exists(os.path.join(d, name + ".parquet")):
                n += 1
                name = "%s-%d" % (self.stem, n)
            self.names.add((d, name))
            schema = schema.remove(schema.get_field_index("host"))
            w = self.writers[(kind, key)] = _writer(self.pa, os.path.join(d, name + ".parquet"),
                                                    schema)
        return w

    def write(self, kind, key, table):
        schema = tap_schema(self.pa) if kind == "taps" else event_schema(self.pa)
        self._writer(kind, key, schema).write_table(table.drop_columns(["host"]))

    def end(self):
        for w in self.writers.values():
            w.close()
        self.writers = {}

    def close(self):
        self.end()


class _TableSink:
    """Tables in memory, for to_arrow."""

    def __init__(self, pa):
        self.pa = pa
        self.tables = {"taps": [], "events": []}

    def begin(self, source):
        pass

    def write(self, kind, key, table):
        self.tables[kind].append(table)

    def end(self):
        pass

    def close(self):
        pass


class Result:
    """What a conversion did: files, taps, rows (tap leaves), events read;
    bytes_in (of the recordings); errors (RecordingError of each damaged
    recording, converted up to its damage) and warnings (str: recordings
    cut inside their last record, converted whole up to it)."""

    def __init__(self):
        self.files = self.taps = self.rows = self.events = self.bytes_in = 0
        self.errors, self.warnings = [], []

    def __repr__(self):
        return "Result(files=%d, taps=%d, rows=%d, events=%d, bytes_in=%d, errors=%d)" % (
            self.files, self.taps, self.rows, self.events, self.bytes_in, len(self.errors))


def _flush(pa, sink, kind, key, batch):
    if batch.rows:
        sink.write(kind, key, batch.table(pa))


def _convert_one(pa, path, sink, result, progress):
    from . import Recording     # the package imports this module lazily
    who = _Who(path)
    taps, events = _Batch(tap_schema(pa)), _Batch(event_schema(pa))
    rows = _TapRows()
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    sink.begin(path)
    try:
        rec = Recording(path, truncated="error")
    except RecordingError as e:     # not a recording at all: nothing of it converts
        result.errors.append(e)
        sink.end()
        return
    with rec, np.errstate(invalid="ignore", over="ignore"):
        f = rec._own
        try:
            for r in rec.records():
                if r.kind == "session":
                    if who.key() != (r.host, r.process.index if r.process else None):
                        _flush(pa, sink, "taps", who.key(), taps)
                        _flush(pa, sink, "events", who.key(), events)
                    taps.name_devices(r)
                    who.set(r)
                elif r.kind == "tap":
                    rows.add(taps, r, who)
                    result.taps += 1
                    result.rows += len(r.leaves)
                    if taps.full():
                        _flush(pa, sink, "taps", who.key(), taps)
                    if progress and f is not None:
                        progress(path, f.tell(), size, result)
                else:
                    _event_row(events, r, who)
                    result.events += 1
                    if events.full():
                        _flush(pa, sink, "events", who.key(), events)
        except RecordingError as e:
            if e.truncated:
                result.warnings.append(str(e))
            else:
                result.errors.append(e)
        finally:
            _flush(pa, sink, "taps", who.key(), taps)
            _flush(pa, sink, "events", who.key(), events)
            sink.end()
    result.files += 1
    result.bytes_in += size


def _run(pa, paths, sink, errors, progress):
    if errors not in ("raise", "collect"):
        raise ValueError("errors must be 'raise' or 'collect', not %r" % (errors,))
    result = Result()
    try:
        for path in recording_files(paths):
            _convert_one(pa, path, sink, result, progress)
            if result.errors and errors == "raise":
                break
    finally:
        sink.close()
    for w in result.warnings:
        warnings.warn(w, RecordingWarning, stacklevel=3)
    if result.errors and errors == "raise":
        raise result.errors[0]
    return result


def to_parquet(paths, out, *, errors="raise", progress=None):
    """Write recordings (paths: a file, a directory of *.jsonl and *.hcbcap,
    or a list of them) as Parquet: OUT.parquet (one row per tap leaf) and
    OUT.events.parquet (drops, triggers, barriers, ends); or, where out is
    a directory (an existing one, or a name ending in "/"), a dataset
    partitioned hive-style: OUT/taps/host=H/process=P/NAME.parquet and
    OUT/events/... (formats/PARQUET.md says every column).

    A damaged recording is converted up to the damage: errors="raise"
    raises its RecordingError once that is written and the files are
    closed; "collect" goes on with the next recording and returns it in
    Result.errors.  A recording cut inside its last record warns
    (RecordingWarning), as hcbtrace replay does.  progress: a function
    (path, bytes read, bytes of the file, Result) called after every tap.
    Returns a Result."""
    pa = _pyarrow()
    out = os.fspath(out)
    if out.endswith(os.sep) or os.path.isdir(out):
        os.makedirs(out, exist_ok=True)
        sink = _DatasetSink(pa, out)
    else:
        sink = _FileSink(pa, out)
    return _run(pa, paths, sink, errors, progress)


def to_arrow(paths, *, events=False, errors="raise"):
    """The rows to_parquet writes, as a pyarrow Table (events=True: the
    events table's); .to_pandas() makes it a DataFrame.  In memory: for a
    recording larger than memory, write Parquet and query that."""
    pa = _pyarrow()
    sink = _TableSink(pa)
    _run(pa, paths, sink, errors, None)
    kind = "events" if events else "taps"
    schema = event_schema(pa) if events else tap_schema(pa)
    return pa.concat_tables(sink.tables[kind]) if sink.tables[kind] else schema.empty_table()
