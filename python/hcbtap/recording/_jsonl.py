# SPDX-License-Identifier: MIT
"""The JSONL reader (formats/JSONL.md), line by line, with the checks and
the words of hcbtrace's (formats/jsonl_read.c)."""
import json

from . import _convert as cv
from ._model import (COMMAND_MAX, HOST_MAX, JOB_MAX, MAX_DIMS, MAX_LEAVES, MAX_REG_BYTES, PROCESS_MAX,
                     SESSION_DEVICES, SIZES, U32_MAX, U64_MAX, Barrier, Consumer, Device, Drop, End,
                     Process, RecordingError, Session, Tap, Trigger, TreeError, command_ok, leaf_ok,
                     name_ok, parse_tree, process_ok, shape_elems, utf8)

_MISSING = object()
_REG_HEAD, _REG_LEAF = 32, 72      # struct hcb_wire_reg, struct hcb_wire_leaf


class _Bad(Exception):
    """What is wrong with the current line."""


def _reject_constant(name):
    raise ValueError("%s is not JSON" % name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_TEXT_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=str, parse_int=str)


def _u64(obj, key, limit, optional=False):
    v = obj.get(key, _MISSING)
    if v is _MISSING:
        if optional:
            return None
        raise _Bad("'%s' is missing" % key)
    if type(v) is not int or v < 0 or v > limit:
        raise _Bad("'%s' is not a whole number from 0 to %d" % (key, limit))
    return v


def _trigger(obj):
    """A "trigger" record: every member but condition optional."""
    cond = _str(obj, "condition", False, 256)
    consumer = _str(obj, "consumer", True, 128)
    device = _u64(obj, "device", U32_MAX, True)
    seq = _u64(obj, "seq", U64_MAX - 1, True)
    leaf = _u64(obj, "leaf", (1 << 63) - 1, True)
    element = _u64(obj, "element", (1 << 63) - 1, True)
    ts = _u64(obj, "ts_ns", U64_MAX, True) or 0
    value = obj.get("value")
    if type(value) is str and value in ("nan", "inf", "-inf"):
        value = float(value)
    elif value is not None and (type(value) not in (int, float)):
        raise _Bad("trigger: 'value' is not valid")
    oversize = obj.get("oversize", False)
    if type(oversize) is not bool:
        raise _Bad("trigger: 'oversize' is not true or false")
    # a job's trigger, an abnormal end's: absent from older files
    by_pid = _u64(obj, "by_pid", U32_MAX, True)
    by_process = _u64(obj, "by_process", U32_MAX, True)
    exit_status = _u64(obj, "exit_status", 255, True)
    exit_signal = _u64(obj, "exit_signal", 127, True)
    # a fleet's: another host's (formats/jsonl_trigger.c)
    by_host = obj.get("by_host")
    if by_host is not None and (type(by_host) is not str or "\0" in by_host or
                                not 0 < len(utf8(by_host)) <= HOST_MAX):
        raise _Bad("trigger: 'by_host' is not valid")
    return Trigger(cond, device, seq, consumer, leaf, element,
                   None if value is None else float(value), ts, oversize,
                   by_pid or None, by_process if by_pid else None, exit_status, exit_signal,
                   by_host)


def _member(obj, key):
    """A member, None where it is absent or null."""
    return obj.get(key)


def _who_text(obj, key, limit):
    """formats/jsonl_session.c text(): a string of 1 to limit bytes, no NUL."""
    v = _member(obj, key)
    if v is None:
        return None
    if type(v) is not str or "\0" in v or not 0 < len(utf8(v)) <= limit:
        raise _Bad("session: '%s' is not a string of 1 to %d bytes" % (key, limit))
    return v


def _whole(v, limit):
    return type(v) is int and 0 <= v <= limit


def _process(obj):
    p = _member(obj, "process")
    if p is None:
        return None
    if type(p) is not dict:
        raise _Bad("session: 'process' is not an object")
    index = _member(p, "index")
    if not _whole(index, PROCESS_MAX - 1):
        raise _Bad("session: 'process' has no 'index' from 0 to %d" % (PROCESS_MAX - 1))
    count = _member(p, "count")
    if count is not None and (not _whole(count, PROCESS_MAX) or count <= index):
        raise _Bad("session: 'process' 'count' is not above its index, up to %d" % PROCESS_MAX)
    if _member(p, "source") is None:
        raise _Bad("session: 'process' has no 'source'")
    source = _who_text(p, "source", 15)
    if not process_ok(index, count, source):
        raise _Bad("session: 'process' 'source' is not printable")
    return Process(index, count, source)


def _devices(obj):
    devs = _member(obj, "devices")
    if devs is None:
        return ()
    if type(devs) is not list or len(devs) > SESSION_DEVICES:
        raise _Bad("session: 'devices' is not a list of at most %d" % SESSION_DEVICES)
    out, seen = [], set()
    for d in devs:
        if type(d) is not dict or not _whole(_member(d, "device"), U32_MAX):
            raise _Bad("session: a device of 'devices' has no 'device' number")
        gid = _member(d, "global_id")
        if gid is not None and not _whole(gid, U64_MAX - 1):
            raise _Bad("session: device %d's 'global_id' is not a whole number" % d["device"])
        platform = _who_text(d, "platform", 15)
        if d["device"] in seen:
            raise _Bad("session: device %d is in 'devices' twice" % d["device"])
        seen.add(d["device"])
        out.append(Device(d["device"], gid, platform))
    return tuple(out)


def _session(obj):
    version = _u64(obj, "version", U32_MAX)
    if version != 1:
        raise _Bad("recording format version %d; this hcbtrace reads version 1" % version)
    pid = _u64(obj, "pid", (1 << 31) - 1, True)
    start = _u64(obj, "start_ns", U64_MAX, True) or 0
    provider = _str(obj, "provider", True, 32) or ""
    platform = _str(obj, "platform", True, 16)
    writer = obj.get("hcbtrace")
    host = _who_text(obj, "host", HOST_MAX)
    process = _process(obj)
    job = _who_text(obj, "job", JOB_MAX)
    devices = _devices(obj)
    command = _who_text(obj, "command", COMMAND_MAX)
    if command is not None and not command_ok(command):
        raise _Bad("session: 'command' holds a byte that is not printable ASCII")
    return Session(version, pid, provider, "cpu" if platform is None else platform, start,
                   writer if type(writer) is str else None, host, process, job, devices, command)


def _str(obj, key, optional=False, limit=None):
    v = obj.get(key, _MISSING)
    if v is _MISSING:
        if optional:
            return None
        raise _Bad("'%s' is missing" % key)
    if type(v) is not str:
        raise _Bad("'%s' is not a string" % key)
    if "\0" in v:
        raise _Bad("'%s' holds a NUL character" % key)
    if limit is not None and len(utf8(v)) >= limit:
        raise _Bad("'%s' is longer than %d bytes" % (key, limit - 1))
    return v


def _copy_ns(obj):
    """A tap's "copy_ns" (formats/jsonl_copy.c): (start, end), or None
    without one; [0, 0], an end not known, is none either."""
    v = obj.get("copy_ns", _MISSING)
    if v is _MISSING:
        return None
    if (type(v) is not list or len(v) != 2 or
            not all(type(x) is int and 0 <= x <= U64_MAX for x in v)):
        raise _Bad("'copy_ns' is not a list of two whole numbers from 0 to %d" % U64_MAX)
    if v[0] > v[1]:
        raise _Bad("'copy_ns' ends before it starts")
    return (v[0], v[1]) if v[1] else None


def _check_data(a, i, n):
    data = a.get("data")
    if type(data) is not list:
        raise _Bad("arrays[%d]: 'data' is missing or not a list" % i)
    if len(data) != n:
        raise _Bad("arrays[%d]: 'data' has %d values; its shape needs %d" % (i, len(data), n))


class JsonlReader:
    """Records of a JSONL recording from f (binary or text, line by line)."""

    def __init__(self, f, path, on_truncated):
        self.f, self.path, self.on_truncated = f, path, on_truncated
        self.consumers = {}
        self.lineno = 0
        self.records = 0

    def __iter__(self):
        for line in self.f:
            self.lineno += 1
            if line[-1:] not in ("\n", b"\n"):
                self.on_truncated(RecordingError(
                    self.path, "the recording ends in the middle of a line (truncated?); "
                    "the %d lines before it are complete" % (self.lineno - 1),
                    line=self.lineno, truncated=True))
                return
            if len(line) == 1:
                continue        # blank lines carry nothing
            try:
                rec = self._record(line)
            except _Bad as e:
                raise RecordingError(self.path, str(e), line=self.lineno) from None
            self.records += 1
            yield rec
        if not self.records:
            raise RecordingError(self.path, "empty file: not a recording "
                                 "(a recording starts with its session record)")

    def _record(self, line):
        if type(line) is bytes:
            if b"\0" in line:
                raise _Bad("a NUL byte in the line")
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise _Bad("not valid JSON: invalid UTF-8 at column %d" % (e.start + 1)) from None
        elif "\0" in line:
            raise _Bad("a NUL byte in the line")
        try:
            obj = _DECODER.decode(line)
        except json.JSONDecodeError as e:
            raise _Bad("not valid JSON: %s at column %d" % (e.msg, e.colno)) from None
        except ValueError as e:
            raise _Bad("not valid JSON: %s" % e) from None
        except RecursionError:
            raise _Bad("not valid JSON: nested too deep") from None
        if type(obj) is not dict:
            raise _Bad("a record is a JSON object")
        kind = _str(obj, "type")
        if kind == "tap":
            return self._tap(obj, line)
        if kind == "session":
            return _session(obj)
        if kind == "drop":
            device = _u64(obj, "device", U32_MAX)
            count = _u64(obj, "count", U64_MAX)
            return Drop(device, count, _str(obj, "reason", True, 128) or "")
        if kind == "barrier":
            return Barrier(_u64(obj, "ts_ns", U64_MAX, True) or 0, _u64(obj, "taps", U64_MAX, True) or 0)
        if kind == "trigger":
            return _trigger(obj)
        if kind == "end":
            return End(_u64(obj, "taps", U64_MAX, True) or 0, _u64(obj, "drops", U64_MAX, True) or 0,
                       _u64(obj, "end_ns", U64_MAX, True) or 0)
        raise _Bad("unknown record type '%s' (expected session, tap, drop, barrier, trigger or end)" % kind)

    def _tap(self, obj, line):
        device = _u64(obj, "device", U32_MAX)
        cid = _u64(obj, "consumer", U32_MAX)
        ts = _u64(obj, "ts_ns", U64_MAX, True) or 0
        name = _str(obj, "name")
        tree = _str(obj, "tree")
        if cid == 0:
            raise _Bad("consumer id 0 is reserved")
        seq = obj.get("seq", _MISSING)
        if seq is _MISSING:
            raise _Bad("'seq' is missing")
        if seq is not None:
            seq = _u64(obj, "seq", U64_MAX - 1)
        copy_ns = _copy_ns(obj)
        text = _str(obj, "text", True)      # a jax.debug.print's line
        kwargs = obj.get("kwargs", _MISSING)
        if kwargs is _MISSING:
            kwargs = {}
        elif type(kwargs) is not dict:
            raise _Bad("'kwargs' is not an object")
        arrays = obj.get("arrays")
        if type(arrays) is not list:
            raise _Bad("'arrays' is missing or not a list")
        if len(arrays) > MAX_LEAVES:
            raise _Bad("%d arrays: at most %d" % (len(arrays), MAX_LEAVES))
        for k, v in kwargs.items():
            if type(v) is not str:
                raise _Bad("kwargs '%s' is not a string" % k)
        specs = [self._leaf_spec(a, i) for i, a in enumerate(arrays)]
        dtypes = tuple(s[0] for s in specs)
        shapes = tuple(s[1] for s in specs)
        c = self.consumers.get(cid)
        if c is None or c.key() != (name, tuple(kwargs.items()), tree, dtypes, shapes):
            c = self._consumer(cid, name, kwargs, tree, arrays, dtypes, shapes, c)
        for i, a in enumerate(arrays):
            _check_data(a, i, c.counts[i])
        leaves = []
        ties = []
        for i, a in enumerate(arrays):
            data = a["data"]
            try:
                flat = cv.leaf_values(data, c.dtypes[i])
            except cv.DataError as e:
                if len(e.args) > 1:     # a float in an integer array, as its text
                    k = e.args[1]
                    text = _TEXT_DECODER.decode(line)["arrays"][i]["data"][k]
                    raise _Bad("data[%d] = %s is out of range for %s" % (k, text, c.dtypes[i])) from None
                raise _Bad(e.args[0]) from None
            except cv.NeedText as t:
                x, idx, mids = t.args
                ties.append((i, x, idx, mids))
                flat = x
            leaves.append(flat)
        if ties:
            self._settle(line, leaves, ties, c)
        leaves = [flat.reshape(shape) for flat, shape in zip(leaves, c.shapes)]
        return Tap(device, seq, ts, cid, name, dict(kwargs), tree, c.build(leaves), leaves,
                   copy_ns=copy_ns, text=text)

    @staticmethod
    def _leaf_spec(a, i):
        if type(a) is not dict:
            raise _Bad("arrays[%d] is not an object" % i)
        dtype = _str(a, "dtype")
        if dtype not in SIZES:
            raise _Bad("arrays[%d]: unknown dtype '%s'" % (i, dtype))
        shape = a.get("shape")
        if type(shape) is not list or len(shape) > MAX_DIMS:
            raise _Bad("arrays[%d]: 'shape' is missing or not a list of at most %d sizes" % (i, MAX_DIMS))
        for k, d in enumerate(shape):
            if type(d) is not int or d < 0 or d > U64_MAX:
                raise _Bad("arrays[%d]: shape[%d] is not a size" % (i, k))
        return dtype, tuple(shape)

    def _consumer(self, cid, name, kwargs, tree, arrays, dtypes, shapes, old):
        """The consumer a tap describes, checked as hcbtrace checks a
        registration (check_shapes, then remember_consumer)."""
        try:
            nleaves = parse_tree(tree)[1]
        except TreeError:
            raise _Bad("'tree' \"%s\" is not a pytree structure such as \"( * * )\"" % tree) from None
        if nleaves != len(arrays):
            raise _Bad("'tree' \"%s\" has %d leaves but 'arrays' has %d" % (tree, nleaves, len(arrays)))
        for i, (a, dtype, shape) in enumerate(zip(arrays, dtypes, shapes)):
            n = shape_elems(shape)
            if n is None or n > (1 << 62) // SIZES[dtype]:
                raise _Bad("arrays[%d]: its shape holds more elements than a tap can" % i)
            _check_data(a, i, n)
        blob = (_REG_HEAD + _REG_LEAF * len(arrays) + len(utf8(name)) + len(utf8(tree)) +
                sum(len(utf8(k)) + len(utf8(v)) + 2 for k, v in kwargs.items()))
        if (not name_ok(name) or not all(map(name_ok, kwargs)) or blob > MAX_REG_BYTES or
                not all(leaf_ok(d, s) for d, s in zip(dtypes, shapes))):
            raise _Bad("consumer %d: invalid name, kwargs, tree or leaf shapes" % cid)
        if old is not None:
            raise _Bad("consumer %d changes its name, kwargs, tree or shapes here; "
                       "a consumer is the same throughout a recording" % cid)
        c = Consumer(cid, name, dict(kwargs), tree, dtypes, shapes)
        self.consumers[cid] = c
        return c

    @staticmethod
    def _settle(line, leaves, ties, c):
        """Values only their texts settle (_convert.NeedText), from the line
        parsed again with every number as its text."""
        obj = _TEXT_DECODER.decode(line)
        for i, x, idx, mids in ties:
            data = obj["arrays"][i]["data"]
            if c.dtypes[i] in ("complex64", "complex128"):
                texts = [data[k // 2][k % 2] for k in idx]
                leaves[i] = cv.pairs_to_complex(cv.settle(x, idx, mids, texts), c.dtypes[i])
            else:
                leaves[i] = cv.settle(x, idx, mids, [data[k] for k in idx])
