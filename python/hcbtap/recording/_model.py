# SPDX-License-Identifier: MIT
"""What a recording holds: the records, the consumers, the dtypes, pytree
structure strings, and the one exception a damaged recording raises.

The checks here are hcbtrace's own (src/core/consumer.c, src/core/tree.c,
src/core/dtype.c), so that a recording hcbtrace refuses is refused here too, at
the same record."""
from collections import namedtuple

import numpy as np

MAX_LEAVES = 4096
MAX_DIMS = 8
MAX_NAME = 256
MAX_REG_BYTES = 1 << 20
TREE_MAX_DEPTH = 64
U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1
ELEMS_LIMIT = 1 << 62       # hcb_shape_elems: no shape holds more
PROCESS_MAX = 1 << 20       # src/core/record.h: a job's processes, at most
HOST_MAX, JOB_MAX = 64, 63  # bytes of a host's and a job's name, at most
COMMAND_MAX = 255           # bytes of a command line, at most (printable ASCII)
SESSION_DEVICES = 256       # devices a session record lists, at most

# enum hcb_dtype (src/core/wire.h): code -> (numpy's name, bytes per element)
DTYPES = {
    1: ("bool", 1), 2: ("int8", 1), 3: ("int16", 2), 4: ("int32", 4), 5: ("int64", 8),
    6: ("uint8", 1), 7: ("uint16", 2), 8: ("uint32", 4), 9: ("uint64", 8),
    10: ("float16", 2), 11: ("bfloat16", 2), 12: ("float32", 4), 13: ("float64", 8),
    14: ("complex64", 8), 15: ("complex128", 16), 16: ("float8_e4m3fn", 1), 17: ("float8_e5m2", 1),
    18: ("float8_e3m4", 1), 19: ("float8_e4m3", 1), 20: ("float8_e4m3fnuz", 1),
    21: ("float8_e4m3b11fnuz", 1), 22: ("float8_e5m2fnuz", 1), 23: ("float8_e8m0fnu", 1),
    24: ("float4_e2m1fn", 1), 25: ("int2", 1), 26: ("int4", 1), 27: ("uint2", 1), 28: ("uint4", 1),
}
SIZES = {name: size for name, size in DTYPES.values()}
CODES = {name: code for code, (name, _) in DTYPES.items()}
# numpy has none of these: ml_dtypes' types (a sub-byte element one a byte,
# in its low bits, as ml_dtypes holds it)
ML_DTYPES = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e3m4", "float8_e4m3",
             "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
             "float4_e2m1fn", "int2", "int4", "uint2", "uint4")
ML_INTS = ("int2", "int4", "uint2", "uint4")
_NP_DTYPES = {}


def numpy_dtype(name):
    """The numpy dtype of an hcbtrace dtype name, little endian; bfloat16,
    float8, float4 and the sub-byte integers from ml_dtypes, imported only
    when a recording holds them."""
    dt = _NP_DTYPES.get(name)
    if dt is None:
        if name in ML_DTYPES:
            try:
                import ml_dtypes
            except ImportError:
                raise ImportError(
                    "hcbtap.recording: this recording holds %s arrays, and numpy has no %s: "
                    "install ml_dtypes (pip install ml_dtypes) to read them" % (name, name)) from None
            if not hasattr(ml_dtypes, name):
                raise ImportError(
                    "hcbtap.recording: this recording holds %s arrays, which ml_dtypes %s lacks: "
                    "upgrade it (pip install -U ml_dtypes)" % (name, ml_dtypes.__version__))
            dt = np.dtype(getattr(ml_dtypes, name))
        else:
            dt = np.dtype(name).newbyteorder("<")
        _NP_DTYPES[name] = dt
    return dt


class RecordingError(Exception):
    """A recording is damaged (or not one): raised once every record before
    the damage has been returned.  str(e) is hcbtrace's message,
    "FILE:LINE: what" (JSONL) or "FILE:offset N: what" (.hcbcap); the parts
    are in .path, .line or .offset (the other None), and .what.
    .truncated: the file ends inside a record (a cut copy), which is raised
    only with truncated="error" (the default warns and ends)."""

    def __init__(self, path, what, line=None, offset=None, truncated=False):
        self.path, self.what, self.line, self.offset = path, what, line, offset
        self.truncated = truncated
        if line is not None:
            where = "%s:%d: " % (path, line)
        elif offset is not None:
            where = "%s:offset %d: " % (path, offset)
        else:
            where = "%s: " % (path,)
        super().__init__(where + what)


class RecordingWarning(UserWarning):
    """A recording ends inside a record (truncated): everything before it
    was read.  hcbtrace replay warns the same way."""


class _Record:
    __slots__ = ()
    kind = None

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % (k, getattr(self, k)) for k in self.__slots__))

    def __eq__(self, other):
        return type(self) is type(other) and all(
            _same(getattr(self, k), getattr(other, k)) for k in self.__slots__)

    __hash__ = None


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and a.tobytes() == b.tobytes())
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


Process = namedtuple("Process", "index count source")
Process.__doc__ = """Where a process stands in its job: index, count (None where not
known) and source, whose word that is ("jax", "slurm", "openmpi", "pmi",
"torchrun", "torch", "kubernetes", "flag")."""
Device = namedtuple("Device", "device global_id platform")
Device.__doc__ = """A device of a session: its number in taps and drops, its id across
the job (None where not known) and the platform that names it."""


class Session(_Record):
    """The first record of a recording: the traced program and how.
    platform names the devices (see device_name); "" or missing is "cpu".
    hcbtrace: the writer's version (JSONL only, else None); pid: None when
    the recording does not know it (no "pid" in JSONL, 0 in .hcbcap).
    Who the process is: host (None where not known), process (a Process,
    None where not known), job (None: none), devices (Devices, in the order
    they were seen), command (the command line, arguments joined by spaces;
    None where not known).  A session record comes again, whole, when what
    it says grows (a device seen first): the last one read is the whole."""
    __slots__ = ("version", "pid", "provider", "platform", "start_ns", "hcbtrace", "host",
                 "process", "job", "devices", "command")
    kind = "session"

    def __init__(self, version, pid, provider, platform, start_ns, hcbtrace=None, host=None,
                 process=None, job=None, devices=(), command=None):
        self.version, self.pid, self.provider = version, pid, provider
        self.platform, self.start_ns, self.hcbtrace = platform or "cpu", start_ns, hcbtrace
        self.host, self.process, self.job = host, process, job
        self.devices, self.command = tuple(devices), command

    def platform_of(self, device):
        """The platform that names device: its own, else the session's."""
        for d in self.devices:
            if d.device == device and d.platform:
                return d.platform
        return self.platform

    def device_name(self, device):
        return device_name(self.platform_of(device), device)

    @property
    def in_job(self):
        """True where the process is one of several of a job (its index and
        a count above 1 known): what hcbtrace's headers show."""
        return self.process is not None and (self.process.count or 0) > 1


def process_ok(index, count, source):
    """src/core/procid.c hcb_procid_check, for a process that is there."""
    b = utf8(source)
    return (0 < len(b) < 16 and all(0x21 <= c <= 0x7e for c in b) and 0 <= index < PROCESS_MAX
            and (count is None or index < count <= PROCESS_MAX))


class Tap(_Record):
    """One packet of a consumer on a device.

    value: the tapped pytree with numpy arrays as leaves (tuples, lists and
    dicts as the recording's tree says; a lone leaf is the array itself);
    leaves: the same arrays, flat, in tree order.  seq: None where the
    recording has none; ts_ns: 0 where it has none.  pid, tid: the emitting
    thread (.hcbcap only, else None).  copy_ns: (start, end) of the tap's
    device-to-host copies on the device, first start to last end, on ts_ns's
    clock (hcbtrace record --cuda), or None where the recording has none.
    text: the line a jax.debug.print wrote (str, without its final newline),
    or None where the recording has none."""
    __slots__ = ("device", "seq", "ts_ns", "consumer", "name", "kwargs", "tree", "value",
                 "leaves", "pid", "tid", "copy_ns", "text")
    kind = "tap"

    def __init__(self, device, seq, ts_ns, consumer, name, kwargs, tree, value, leaves,
                 pid=None, tid=None, copy_ns=None, text=None):
        self.device, self.seq, self.ts_ns, self.consumer = device, seq, ts_ns, consumer
        self.name, self.kwargs, self.tree, self.value = name, kwargs, tree, value
        self.leaves, self.pid, self.tid, self.copy_ns = leaves, pid, tid, copy_ns
        self.text = text


class Drop(_Record):
    """count consecutive packets of device lost at this point, and why."""
    __slots__ = ("device", "count", "reason")
    kind = "drop"

    def __init__(self, device, count, reason):
        self.device, self.count, self.reason = device, count, reason


class Barrier(_Record):
    """hcbtrace barrier was answered: every tap issued before it is above."""
    __slots__ = ("ts_ns", "taps")
    kind = "barrier"

    def __init__(self, ts_ns, taps):
        self.ts_ns, self.taps = ts_ns, taps


class Trigger(_Record):
    """A flight recorder fired (hcbtrace record --until): condition, and the
    tap that fired it (device, seq, consumer name; the leaf, element and
    value that decided), or None for those where a signal fired it;
    oversize: the ring kept a tap larger than itself, alone.  A job's
    trigger (condition "job": another process of the job fired): by_pid,
    by_process (its index, None if not known); a fleet's (condition "fleet":
    another host's hcbtrace fired, record --fleet-dir): by_host, that host,
    and by_pid, by_process its process's; an abnormal end's (condition
    "exit"): exit_status or exit_signal; None where they do not apply."""
    __slots__ = ("condition", "device", "seq", "consumer", "leaf", "element", "value", "ts_ns",
                 "oversize", "by_pid", "by_process", "exit_status", "exit_signal", "by_host")
    kind = "trigger"

    def __init__(self, condition, device, seq, consumer, leaf, element, value, ts_ns, oversize,
                 by_pid=None, by_process=None, exit_status=None, exit_signal=None,
                 by_host=None):
        self.condition, self.device, self.seq, self.consumer = condition, device, seq, consumer
        self.leaf, self.element, self.value, self.ts_ns = leaf, element, value, ts_ns
        self.oversize = oversize
        self.by_pid, self.by_process = by_pid, by_process
        self.exit_status, self.exit_signal = exit_status, exit_signal
        self.by_host = by_host


class End(_Record):
    """The last record of a complete recording."""
    __slots__ = ("taps", "drops", "end_ns")
    kind = "end"

    def __init__(self, taps, drops, end_ns):
        self.taps, self.drops, self.end_ns = taps, drops, end_ns


class Consumer:
    """A tap site: id, name, kwargs (dict), tree, and its leaves' dtypes
    (hcbtrace's names) and shapes; the same in every tap of its id."""
    __slots__ = ("id", "name", "kwargs", "tree", "dtypes", "shapes", "counts", "nbytes",
                 "_shape", "_np", "_offsets")

    def __init__(self, cid, name, kwargs, tree, dtypes, shapes):
        self.id, self.name, self.kwargs, self.tree = cid, name, kwargs, tree
        self.dtypes, self.shapes = tuple(dtypes), tuple(shapes)
        self._shape = parse_tree(tree)[0]
        self._np = None
        self.counts = [_prod(s) for s in self.shapes]
        sizes = [SIZES[d] * n for d, n in zip(self.dtypes, self.counts)]
        self._offsets = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
        self.nbytes = self._offsets[-1]

    def key(self):
        return (self.name, tuple(self.kwargs.items()), self.tree, self.dtypes, self.shapes)

    def numpy_dtypes(self):
        if self._np is None:
            self._np = [numpy_dtype(d) for d in self.dtypes]
        return self._np

    def build(self, leaves):
        return build_tree(self._shape, leaves)

    def __repr__(self):
        return "Consumer(id=%d, name=%r, kwargs=%r, tree=%r, dtypes=%r, shapes=%r)" % (
            self.id, self.name, self.kwargs, self.tree, self.dtypes, self.shapes)


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def command_ok(text):
    """A session's command line as the formats hold it: 1 to COMMAND_MAX
    bytes of printable ASCII (src/core/record.h)."""
    return 0 < len(text) <= COMMAND_MAX and all(" " <= c <= "~" for c in text)


def device_name(platform, device):
    """How hcbtrace names a device: a platform with one %u (and no other %)
    is a pattern ("TFRT_CPU_%u" -> TFRT_CPU_0); any other gives "cpu:0"."""
    platform = platform or "cpu"
    if platform.count("%") == 1 and "%u" in platform:
        return platform.replace("%u", str(device))
    return "%s:%d" % (platform, device)


def utf8(s):
    return s.encode("utf-8", "surrogateescape")


def name_ok(s):
    """src/core/consumer.c name_ok: 1..255 bytes, no control characters."""
    b = utf8(s)
    return 0 < len(b) < MAX_NAME and not any(c < 0x20 or c == 0x7f for c in b)


def shape_elems(shape):
    """Elements of a shape, or None where hcb_shape_elems overflows."""
    n = 1
    for d in shape:
        if d and n > ELEMS_LIMIT // d:
            return None
        n *= d
    return n


def leaf_ok(dtype, shape):
    """src/core/consumer.c leaf_ok: a known dtype, at most 8 dims, and no more
    bytes than a tap can hold."""
    if dtype not in SIZES or len(shape) > MAX_DIMS:
        return False
    n = shape_elems(shape)
    return n is not None and n <= ELEMS_LIMIT // SIZES[dtype]


class TreeError(ValueError):
    pass


_OPEN = {"(": (")", tuple), "[": ("]", list), "{": ("}", dict)}


def parse_tree(s):
    """Parse a pytree structure string (src/core/tree.h) as src/core/tree.c does:
    (shape, number of leaves); shape is a leaf index (int) or (kind,
    children) with kind tuple, list or dict and a dict's children (key,
    shape) pairs.  TreeError if it is malformed."""
    if "\0" in s:
        raise TreeError(s)
    n = len(s)
    count = [0]

    def skip(p):
        while p < n and s[p] == " ":
            p += 1
        return p

    def token_len(p):
        k = 0
        while p + k < n and s[p + k] != " ":
            k += 1
        return k

    def value(p, depth):
        if depth > TREE_MAX_DEPTH:
            raise TreeError(s)
        p = skip(p)
        if p >= n:
            raise TreeError(s)
        c, k = s[p], token_len(p)
        if c == "*" and k == 1:
            count[0] += 1
            return count[0] - 1, p + 1
        if c not in _OPEN or k != 1:
            raise TreeError(s)
        close, kind = _OPEN[c]
        p += 1
        children = []
        while True:
            p = skip(p)
            if p >= n:
                raise TreeError(s)
            if s[p] == close and token_len(p) == 1:
                return (kind, children), p + 1
            if kind is dict:
                k = 0
                while p + k < n and s[p + k] > " " and s[p + k] not in "=\x7f":
                    k += 1
                key = s[p:p + k]
                if k == 0 or len(utf8(key)) > 255 or p + k >= n or s[p + k] != "=":
                    raise TreeError(s)
                p += k + 1
                if p >= n or s[p] == " ":
                    raise TreeError(s)
                child, p = value(p, depth + 1)
                children.append((key, child))
            else:
                child, p = value(p, depth + 1)
                children.append(child)

    shape, p = value(0, 0)
    if skip(p) != n:
        raise TreeError(s)
    return shape, count[0]


def tree_leaves(s):
    """The number of leaves of tree s, or None if it is malformed."""
    try:
        return parse_tree(s)[1]
    except TreeError:
        return None


def build_tree(shape, leaves):
    """The pytree of shape with leaves in it."""
    if type(shape) is int:
        return leaves[shape]
    kind, children = shape
    if kind is dict:
        return {k: build_tree(c, leaves) for k, c in children}
    items = [build_tree(c, leaves) for c in children]
    return tuple(items) if kind is tuple else items


def leaf_paths(shape, prefix):
    """(leaf index, path) of every leaf: prefix, prefix[1], prefix.key ..."""
    if type(shape) is int:
        return [(shape, prefix)]
    kind, children = shape
    out = []
    if kind is dict:
        for k, c in children:
            out += leaf_paths(c, "%s.%s" % (prefix, k))
    else:
        for i, c in enumerate(children):
            out += leaf_paths(c, "%s[%d]" % (prefix, i))
    return out
