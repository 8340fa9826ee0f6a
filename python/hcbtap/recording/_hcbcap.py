# SPDX-License-Identifier: MIT
"""The .hcbcap reader (formats/HCBCAP.md), frame by frame, with the checks
and the words of hcbtrace's (formats/hcbcap_read.c, src/core/consumer.c)."""
import os
import stat
import struct
import zlib

import numpy as np

from ._model import (COMMAND_MAX, DTYPES, HOST_MAX, JOB_MAX, MAX_DIMS, MAX_LEAVES, MAX_REG_BYTES,
                     SESSION_DEVICES, U64_MAX, Barrier, Consumer, Device, Drop, End, Process,
                     RecordingError, Session, Tap, Trigger, command_ok, leaf_ok, name_ok, process_ok,
                     tree_leaves)

MAGIC = b"HCBCAP\x1a\n"
HEADER, HEAD, TAIL = 16, 16, 4
TAP_HEAD, SESSION_HEAD, DROP_HEAD = 32, 24, 16
MAX_BODY = (1 << 30) + TAP_HEAD
SKIPPABLE = 0x80000000
SESSION, CONSUMER, TAP, DROP, BARRIER, END = range(1, 7)
COPY = SKIPPABLE | 1        # a tap's copy times, just before its tap frame
TRIGGER = SKIPPABLE | 2     # a flight recorder's trigger
TEXT = SKIPPABLE | 3        # a jax.debug.print's text, before its tap (and copy times)
WHO = SKIPPABLE | 4         # who the session's process is and its devices, before its session
MAX_TEXT = 1 << 20
WHO_HEAD, WHO_DEVICE = 24, 16
WHO_MAX = WHO_HEAD + HOST_MAX + 15 + JOB_MAX + SESSION_DEVICES * (WHO_DEVICE + 15)
TRIGGER_HEAD = 56
_TRIGGER = struct.Struct("<IQqqdQIII")
# a job's or an abnormal end's trigger: after the strings (older files: none)
_TRIGGER_TAIL = struct.Struct("<IqIii")
NAMES = {SESSION: "session", CONSUMER: "consumer", TAP: "tap", DROP: "drop", BARRIER: "barrier",
         END: "end", COPY: "copy times", TRIGGER: "trigger", TEXT: "text", WHO: "who"}
LIMITS = {SESSION: (SESSION_HEAD, SESSION_HEAD + 31 + 15), CONSUMER: (0, MAX_REG_BYTES),
          TAP: (TAP_HEAD, MAX_BODY), DROP: (DROP_HEAD, DROP_HEAD + 127), BARRIER: (16, 16),
          END: (24, 24), COPY: (16, 16),
          TRIGGER: (TRIGGER_HEAD, TRIGGER_HEAD + 127 + 255 + 24 + 4 + HOST_MAX),
          TEXT: (0, MAX_TEXT), WHO: (WHO_HEAD, WHO_MAX)}
REG_MAGIC = 0x52424348
_REG = struct.Struct("<8I")
_LEAF = struct.Struct("<II8Q")
_TAP = struct.Struct("<IIQQII")
_HEAD = struct.Struct("<IQI")


class _Bad(Exception):
    def __init__(self, what, truncated=False):
        super().__init__(what)
        self.truncated = truncated


def _text(b):
    return b.decode("utf-8", "surrogateescape")


def _who(b, n):
    """formats/hcbcap_who.c cap_who_parse: (host, process, job, devices,
    command)."""
    hn, index, count, sn, jn, nd = struct.unpack_from("<6I", b)
    at, end = WHO_HEAD, n

    def take(k, limit):
        nonlocal at
        v = bytes(b[at:at + k])
        if k > limit or len(v) < k or at + k > end or b"\0" in v:
            raise _Bad("invalid who frame")
        at += k
        return _text(v) if v else None

    if nd > SESSION_DEVICES:
        raise _Bad("invalid who frame")
    host, source, job = take(hn, HOST_MAX), take(sn, 15), take(jn, JOB_MAX)
    # a host's name is text (src/core/procid.c): what JSON keeps byte for byte
    if host is not None:
        try:
            host.encode("utf-8")
        except UnicodeEncodeError:
            raise _Bad("invalid who frame") from None
    if source is None and (index or count):
        raise _Bad("invalid who frame")
    process = None
    if source is not None:
        if not process_ok(index, count or None, source):
            raise _Bad("invalid who frame")
        process = Process(index, count or None, source)
    devices, seen = [], set()
    for _ in range(nd):
        if end - at < WHO_DEVICE:
            raise _Bad("invalid who frame")
        device, gid, pn = struct.unpack_from("<IQI", b, at)
        at += WHO_DEVICE
        platform = take(pn, 15)
        if device in seen:
            raise _Bad("invalid who frame")
        seen.add(device)
        devices.append(Device(device, None if gid == U64_MAX else gid, platform))
    command = None
    if at != end:
        # the command line, last: its length and 1 to COMMAND_MAX bytes
        if end - at < 4:
            raise _Bad("invalid who frame")
        cn, = struct.unpack_from("<I", b, at)
        at += 4
        command = take(cn, COMMAND_MAX)
        if command is None or at != end or not command_ok(command):
            raise _Bad("invalid who frame")
    return host, process, job, tuple(devices), command


def _trigger(b, n):
    device, seq, leaf, element, value, ts, oversize, cn, qn = _TRIGGER.unpack_from(b)
    end = TRIGGER_HEAD + cn + qn
    strings = bytes(b[TRIGGER_HEAD:end])
    tail = end + _TRIGGER_TAIL.size
    if cn > 127 or qn > 255 or (n != end and n < tail) or b"\0" in strings:
        raise _Bad("invalid trigger frame")
    tap = seq != U64_MAX
    by_pid, by_process, exited, status, sig = 0, -1, 0, 0, 0
    by_host = None
    if n > end:
        by_pid, by_process, exited, status, sig = _TRIGGER_TAIL.unpack_from(b, end)
    if n > tail:
        # a fleet's: u32 length and the host whose hcbtrace fired
        hn = struct.unpack_from("<I", b, tail)[0] if n >= tail + 4 else 0
        host = bytes(b[tail + 4:n])
        if not 0 < hn <= HOST_MAX or n != tail + 4 + hn or b"\0" in host:
            raise _Bad("invalid trigger frame")
        try:
            by_host = host.decode("utf-8")
        except UnicodeDecodeError:
            raise _Bad("invalid trigger frame") from None
    return Trigger(_text(strings[cn:]), device if tap else None, seq if tap else None,
                   _text(strings[:cn]) if tap else None, leaf if leaf >= 0 else None,
                   element if element >= 0 else None, value if tap else None, ts, bool(oversize),
                   by_pid or None, by_process if by_pid and by_process >= 0 else None,
                   status if exited and not sig else None, sig if exited and sig else None,
                   by_host)


def parse_registration(blob):
    """A consumer from its registration blob (src/core/wire.h), checked as
    hcb_consumer_from_reg checks it; _Bad with hcbtrace's words if not."""
    invalid = _Bad("invalid consumer definition")
    blob = bytes(blob)
    if len(blob) < _REG.size:
        raise invalid
    magic, version, total, cid, nleaves, name_len, kw_len, tree_len = _REG.unpack_from(blob)
    if magic != REG_MAGIC or version != 1:
        raise invalid
    if nleaves > MAX_LEAVES or total > MAX_REG_BYTES:
        raise _Bad("a consumer definition with more leaves or bytes than this hcbtrace holds")
    need = _REG.size + nleaves * _LEAF.size + name_len + kw_len + tree_len
    if need != total or need > len(blob) or cid == 0:
        raise invalid
    p = _REG.size
    dtypes, shapes = [], []
    for _ in range(nleaves):
        fields = _LEAF.unpack_from(blob, p)
        p += _LEAF.size
        dtype, ndim = DTYPES.get(fields[0], (None,))[0], fields[1]
        shape = tuple(fields[2:2 + ndim]) if ndim <= MAX_DIMS else ()
        if dtype is None or ndim > MAX_DIMS or not leaf_ok(dtype, shape):
            raise invalid
        dtypes.append(dtype)
        shapes.append(shape)
    name = _text(blob[p:p + name_len])
    p += name_len
    if not name_ok(name):
        raise invalid
    kw = blob[p:p + kw_len]
    p += kw_len
    kwargs = {}
    if kw:
        if kw[-1:] != b"\0":
            raise invalid
        parts = kw[:-1].split(b"\0")
        if len(parts) % 2:
            raise invalid
        for k, v in zip(parts[::2], parts[1::2]):
            key = _text(k)
            if not name_ok(key):
                raise invalid
            kwargs[key] = _text(v)
    tree = blob[p:p + tree_len]
    if b"\0" in tree:
        raise invalid
    tree = _text(tree)
    if tree_leaves(tree) != nleaves:
        raise invalid
    return Consumer(cid, name, kwargs, tree, dtypes, shapes)


class HcbcapReader:
    """Records of an .hcbcap recording from binary file f, frame by frame."""

    def __init__(self, f, path, on_truncated):
        self.f, self.path, self.on_truncated = f, path, on_truncated
        self.consumers = {}
        self.offset = 0         # of the frame being read
        self.read = 0           # bytes read so far
        self.copy = None        # a tap's copy times, for the tap frame next
        self.copy_offset = 0    # their frame's
        self.text = None        # a tap's text, likewise
        self.text_offset = 0
        self.who = None         # a session's who frame, for the session frame next
        self.who_offset = 0
        self.fd = None
        try:
            fd = f.fileno()
            if stat.S_ISREG(os.fstat(fd).st_mode):
                self.fd, self.start = fd, f.tell()
        except (AttributeError, OSError, ValueError):
            pass

    def __iter__(self):
        try:
            yield from self._frames()
        except _Bad as e:
            err = RecordingError(self.path, str(e), offset=self.offset, truncated=e.truncated)
            if not e.truncated:
                raise err from None
            self.on_truncated(err)

    def _available(self):
        """Bytes left in a regular file (it may still be growing), else None."""
        if self.fd is None:
            return None
        return os.fstat(self.fd).st_size - self.start - self.read

    def _read(self, n):
        """n bytes as a bytearray, or as many as there are (fewer at the end);
        memory grows with what arrives, whatever n claims."""
        avail = self._available()
        if avail is not None and avail >= n:
            buf = bytearray(n)
            view, got = memoryview(buf), 0
            while got < n:
                k = self.f.readinto(view[got:])
                if not k:
                    break
                got += k
            self.read += got
            return buf if got == n else buf[:got]
        buf = bytearray()
        while len(buf) < n:
            chunk = self.f.read(min(n - len(buf), max(len(buf), 1 << 16)))
            if not chunk:
                break
            buf += chunk
        self.read += len(buf)
        return buf

    def _frames(self):
        h = self._read(HEADER)
        if not h:
            raise _Bad("empty file: not a recording (a recording starts with its session record)")
        if h[:len(MAGIC)] != MAGIC[:len(h)]:
            raise _Bad("not an .hcbcap recording (its first bytes are not \"HCBCAP\\x1a\\n\")")
        if len(h) < HEADER:
            raise _Bad("truncated recording: the file ends inside its header (%d of %d bytes); "
                       "nothing was recorded" % (len(h), HEADER), True)
        version, flags = struct.unpack_from("<II", h, 8)
        if version != 1:
            raise _Bad(".hcbcap version %d; this hcbtrace reads version 1 "
                       "(a newer hcbtrace may read it)" % version)
        if flags:
            raise _Bad("unknown header flags 0x%x (written by a newer hcbtrace?)" % flags)
        self.offset = HEADER
        while True:
            head = self._read(HEAD)
            if not head and self.who is not None:
                self.offset = self.who_offset
                raise _Bad("truncated recording: the file ends after a session's who frame, "
                           "before the session; the records before it are complete", True)
            if not head and (self.copy is not None or self.text is not None):
                self.offset = self.copy_offset if self.copy is not None else self.text_offset
                raise _Bad("truncated recording: the file ends after a tap's copy times, before "
                           "the tap; the records before it are complete", True)
            if not head:
                return
            if len(head) < HEAD:
                raise _Bad("truncated recording: the file ends inside a frame header (%d of %d "
                           "bytes); the records before it are complete" % (len(head), HEAD), True)
            kind, n, crc = _HEAD.unpack(head)
            self._check_head(head, kind, n, crc)
            if self.copy is not None and kind != TAP:
                self.offset = self.copy_offset
                raise _Bad("a tap's copy times not followed by their tap (a %s frame comes next)"
                           % NAMES.get(kind, "unknown"))
            if self.text is not None and kind not in (TAP, COPY):
                self.offset = self.text_offset
                raise _Bad("a tap's text not followed by its tap (a %s frame comes next)"
                           % NAMES.get(kind, "unknown"))
            if self.who is not None and kind != SESSION:
                self.offset = self.who_offset
                raise _Bad("a who frame not followed by its session (a %s frame comes next)"
                           % NAMES.get(kind, "unknown"))
            need = HEAD + n + TAIL
            body = self._read(n + TAIL)
            if len(body) < n + TAIL:
                raise _Bad("truncated recording: the file ends inside a %s frame (%d of %d bytes); "
                           "the records before it are complete"
                           % (NAMES.get(kind, "unknown"), HEAD + len(body), need), True)
            view = memoryview(body)
            if zlib.crc32(view[:n], zlib.crc32(head)) != struct.unpack_from("<I", body, n)[0]:
                raise _Bad("damaged %s frame of %d bytes: checksum mismatch"
                           % (NAMES.get(kind, "unknown"), n))
            rec = self._parse(kind, body, n)
            self.offset += need
            if rec is not None:
                yield rec

    def _check_head(self, head, kind, n, crc):
        if zlib.crc32(head[:12]) != crc:
            raise _Bad("damaged frame header: checksum mismatch")
        if kind == 0 or (kind > END and not kind & SKIPPABLE):
            raise _Bad("unknown frame type %d" % kind)
        lo, hi = LIMITS.get(kind, (0, MAX_BODY))
        name = NAMES.get(kind, "unknown")
        if n > hi and kind in (TAP, CONSUMER) or (n > hi and kind & SKIPPABLE and kind not in (COPY, TRIGGER)):
            raise _Bad("a %s frame of %d bytes, more than the %d this hcbtrace reads" % (name, n, hi))
        if n < lo or n > hi:
            raise _Bad("a %s frame of %d bytes (expected %d to %d)" % (name, n, lo, hi))

    def _parse(self, kind, b, n):
        if kind == TAP:
            return self._tap(b, n)
        if kind == CONSUMER:
            c = parse_registration(memoryview(b)[:n])
            old = self.consumers.get(c.id)
            if old is None:
                self.consumers[c.id] = c
            elif old.key() != c.key():
                raise _Bad("consumer %d (%s) defined again with a different shape" % (old.id, old.name))
            return None
        if kind == SESSION:
            version, pid, start, pn, qn = struct.unpack_from("<iiQII", b)
            strings = bytes(b[SESSION_HEAD:n])
            if pn >= 32 or qn >= 16 or n != SESSION_HEAD + pn + qn or b"\0" in strings:
                raise _Bad("invalid session frame (provider %d bytes, platform %d bytes, frame %d "
                           "bytes)" % (pn, qn, n))
            who, self.who = self.who or (None, None, None, (), None), None
            return Session(version, pid or None, _text(strings[:pn]), _text(strings[pn:]), start,
                           None, *who)
        if kind == DROP:
            device, count, m = struct.unpack_from("<IQI", b)
            reason = bytes(b[DROP_HEAD:n])
            if n != DROP_HEAD + m or b"\0" in reason:
                raise _Bad("invalid drop frame")
            return Drop(device, count, _text(reason))
        if kind == BARRIER:
            return Barrier(*struct.unpack_from("<QQ", b))
        if kind == END:
            return End(*struct.unpack_from("<QQQ", b))
        if kind == COPY:
            start, end = struct.unpack_from("<QQ", b)
            if start > end:
                raise _Bad("a tap's copy times end before they start (%d > %d)" % (start, end))
            self.copy, self.copy_offset = (start, end), self.offset
            return None
        if kind == TRIGGER:
            return _trigger(b, n)
        if kind == WHO:
            self.who, self.who_offset = _who(b, n), self.offset
            return None
        if kind == TEXT:
            if self.text is not None:
                raise _Bad("two texts for one tap")
            self.text, self.text_offset = bytes(b[:n]).decode("utf-8", "replace"), self.offset
            return None
        return None             # a skippable frame of a later version

    def _tap(self, b, n):
        device, cid, seq, ts, pid, tid = _TAP.unpack_from(b)
        c = self.consumers.get(cid)
        if c is None:
            raise _Bad("tap of consumer %d, which no earlier frame defines" % cid)
        if n - TAP_HEAD != c.nbytes:
            raise _Bad("tap of consumer %d (%s) holds %d payload bytes; its shape needs %d"
                       % (cid, c.name, n - TAP_HEAD, c.nbytes))
        leaves = [np.frombuffer(b, dt, count, TAP_HEAD + off).reshape(shape)
                  for dt, count, off, shape in zip(c.numpy_dtypes(), c.counts, c._offsets,
                                                   c.shapes)]
        copy, self.copy = self.copy, None
        text, self.text = self.text, None
        return Tap(device, None if seq == U64_MAX else seq, ts, cid, c.name, dict(c.kwargs), c.tree,
                   c.build(leaves), leaves, pid, tid, copy if copy and copy[1] else None, text)
