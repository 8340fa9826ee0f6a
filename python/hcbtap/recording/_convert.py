# SPDX-License-Identifier: MIT
"""JSONL array data to numpy, value for value what hcbtrace reads
(formats/jsonl_read.c element()):

  * float64 and the float parts of complex128: the text's nearest double
    (Python's float() and strtod agree);
  * float32 and complex64's parts: the text's nearest float, rounded once
    as strtof does: through the double, except where the double is exactly
    halfway between two floats, where the text itself decides (Fraction);
  * float16, bfloat16, float8_e4m3fn, float8_e5m2: the nearest double,
    then rounded to the dtype (hcb_double_to_narrow_bits: round half to
    even, e4m3fn's overflow and infinities to its NaN, other NaNs to the
    quiet NaN);
  * the other float8 kinds and float4_e2m1fn: the nearest double, then as
    ml_dtypes converts it (hcb_double_to_narrow_bits: through float32);
  * integers exactly, in their dtype's range; bools from true/false;
  * "nan", "inf", "-inf" as strings.
A vectorised path takes every well-formed list; anything odd goes
element by element, in hcbtrace's order, to find what it says is wrong."""
from fractions import Fraction
from itertools import chain

import numpy as np

from ._model import numpy_dtype

SPECIAL = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
# ebits, mbits, "finite" (e4m3fn: no infinities, only S.1111.111 is NaN)
NARROW = {"float16": (5, 10, False), "bfloat16": (8, 7, False),
          "float8_e4m3fn": (4, 3, True), "float8_e5m2": (5, 2, False)}
# ml_dtypes' own conversion, through float32
ML_FLOATS = {"float8_e3m4", "float8_e4m3", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
             "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn"}
FLOATS = {"float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"} | ML_FLOATS
INT_RANGE = {
    "int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1),
    "uint8": (0, (1 << 8) - 1), "uint16": (0, (1 << 16) - 1),
    "uint32": (0, (1 << 32) - 1), "uint64": (0, (1 << 64) - 1),
    "int2": (-2, 1), "int4": (-8, 7), "uint2": (0, 3), "uint4": (0, 15),
}
_F32_HALF_PAST_MAX = 2.0 ** 128 - 2.0 ** 103    # halfway from FLT_MAX to 2^128


class DataError(Exception):
    """What is wrong with an element: hcbtrace's words (args[1]: the index
    of a number to be named by its text, not by Python's repr)."""


class NeedText(Exception):
    """Values only their texts settle (args: x, idx, mids): float32 values
    whose double lies exactly halfway between two floats (mids: that
    point), and integer zeros ("-0" is -0.0; mids: NaN).  The caller reads
    the texts of x[idx] and calls settle()."""


def narrow_bits(v, dtype):
    """hcb_double_to_narrow_bits over a float64 array: the dtype's bits."""
    ebits, mbits, fn = NARROW[dtype]
    v = np.asarray(v, dtype=np.float64)
    sign = np.signbit(v).astype(np.uint32) << np.uint32(ebits + mbits)
    expmax = (1 << ebits) - 1
    bias = (1 << (ebits - 1)) - 1
    mask = (1 << mbits) - 1
    nan_fn = sign | np.uint32((expmax << mbits) | mask)
    a = np.abs(v)
    with np.errstate(all="ignore"):
        finite = np.isfinite(a) & (a != 0)
        a1 = np.where(finite, a, 1.0)
        e = np.frexp(a1)[1].astype(np.int64) - 1
        sub = e < 1 - bias
        q_sub = np.rint(np.ldexp(a1, np.full(e.shape, bias - 1 + mbits, np.int64)))
        q = np.rint(np.ldexp(a1, mbits - e))
        carry = q >= 2.0 ** (mbits + 1)
        q = np.where(carry, q / 2, q)
        e = e + carry
        biased = e + bias
        mant = q - (1 << mbits)
        normal = (np.clip(biased, 0, 1 << 16).astype(np.uint32) << np.uint32(mbits)) | \
            np.clip(mant, 0, mask).astype(np.uint32)
        if fn:
            over = (biased > expmax) | ((biased == expmax) & (mant == mask))
            normal = np.where(over, nan_fn, sign | normal)
        else:
            normal = np.where(biased >= expmax, sign | np.uint32(expmax << mbits), sign | normal)
        out = np.where(sub, sign | np.clip(q_sub, 0, 1 << 16).astype(np.uint32), normal)
    out = np.where(a == 0, sign, out)
    if fn:
        out = np.where(np.isinf(a) | np.isnan(v), nan_fn, out)
    else:
        out = np.where(np.isinf(a), sign | np.uint32(expmax << mbits), out)
        out = np.where(np.isnan(v), np.uint32((expmax << mbits) | (1 << (mbits - 1))), out)
    return out


def _f32_ties(vals, x):
    """Indices where the double vals[i] lies exactly halfway between two
    floats (x[i] is then numpy's even choice), and those halfway points."""
    with np.errstate(all="ignore"):
        back = x.astype(np.float64)
        idx = np.flatnonzero((vals != back) & np.isfinite(vals))
        if not idx.size:
            return idx, None
        v, xb = vals[idx], x[idx]
        other = np.nextafter(xb, np.where(v > back[idx], np.float32(np.inf), np.float32(-np.inf)))
        mid = (back[idx] + other.astype(np.float64)) * 0.5
        tie = (v == mid) | (np.isinf(xb) & (np.abs(v) == _F32_HALF_PAST_MAX))
    return idx[tie], v[tie]


def settle(x, idx, mids, texts):
    """x with x[idx] settled by their texts: a halfway double's float is the
    one on the text's side of the halfway point (the even one on it, as
    numpy chose), an integer zero keeps the text's sign."""
    for i, m, t in zip(idx, mids, texts):
        if np.isnan(m):
            if t.startswith("-"):
                x[i] = -x.dtype.type(0)
            continue
        exact, half = Fraction(t), Fraction(float(m))
        if exact == half:
            continue
        up = np.float32(np.inf if m > float(x[i]) else -np.inf)
        lo, hi = sorted([float(x[i]), float(np.nextafter(x[i], up))])
        x[i] = np.float32(hi if exact > half else lo)
    return x


def from_float64(vals, dtype):
    """float64 values (the texts' nearest doubles) in dtype: (array, indices
    of float32 ties, their halfway points)."""
    none = np.zeros(0, np.intp)
    if dtype == "float64":
        return vals, none, None
    if dtype == "float32":
        with np.errstate(all="ignore"):
            x = vals.astype(np.float32)
        idx, mids = _f32_ties(vals, x)
        return x, idx, mids
    dt = numpy_dtype(dtype)
    if dtype in ML_FLOATS:
        with np.errstate(all="ignore"):
            return vals.astype(np.float32).astype(dt), none, None
    bits = narrow_bits(vals, dtype)
    return bits.astype(np.uint8 if dt.itemsize == 1 else np.uint16).view(dt), none, None


def _float_slow(data, dtype, index_of):
    """Element by element: float64 values, or DataError for the first bad one."""
    out = []
    for k, x in enumerate(data):
        t = type(x)
        if t is float:
            out.append(x)
        elif t is int:
            try:
                out.append(float(x))
            except OverflowError:
                out.append(float(str(x)))    # strtod: beyond the range is infinite
        elif t is str:
            if x not in SPECIAL:
                raise DataError('data[%d] is "%s": expected a number, "nan", "inf" or "-inf"'
                                % (index_of(k), x))
            out.append(SPECIAL[x])
        else:
            raise DataError("data[%d] of a %s array is not a number" % (index_of(k), dtype))
    return np.array(out, dtype=np.float64)


def float_values(data, dtype, index_of=lambda k: k):
    """The float64 values of a list of JSON numbers and "nan"/"inf"
    strings, and the indices of integer zeros (whose text has the sign)."""
    types = set(map(type, data))
    vals = None
    if types <= {float, int}:
        try:
            vals = np.array(data, dtype=np.float64)
        except OverflowError:
            pass
    elif types <= {float, int, str}:
        try:
            vals = np.array([SPECIAL[x] if type(x) is str else x for x in data], dtype=np.float64)
        except (KeyError, OverflowError):
            pass
    if vals is None:
        vals = _float_slow(data, dtype, index_of)
    if int in types:
        zeros = np.array([k for k, x in enumerate(data) if type(x) is int and x == 0], np.intp)
    else:
        zeros = np.zeros(0, np.intp)
    return vals, zeros


def _int_text(x):
    if type(x) is float:
        return repr(x)
    return "true" if x is True else "false" if x is False else str(x)


def int_values(data, dtype):
    lo, hi = INT_RANGE[dtype]
    dt = numpy_dtype(dtype)
    if set(map(type, data)) == {int}:
        arr = np.array(data)
        if arr.dtype.kind == "i" and arr.ndim == 1:
            if int(arr.min()) >= lo and int(arr.max()) <= hi:
                return arr.astype(dt)
        elif arr.dtype.kind == "u" and arr.ndim == 1 and dtype == "uint64":
            return arr.astype(dt)
    for k, x in enumerate(data):
        if type(x) is not int:
            if type(x) is not float:
                raise DataError("data[%d] of a %s array is not a number" % (k, dtype))
            raise DataError("data[%d] = %s is out of range for %s" % (k, _int_text(x), dtype), k)
        if not lo <= x <= hi:
            raise DataError("data[%d] = %s is out of range for %s" % (k, x, dtype))
    if dtype in ("int2", "int4", "uint2", "uint4"):     # ml_dtypes' take no objects
        return np.array(data, dtype=np.int64).astype(dt)
    return np.array(data, dtype=object).astype(dt)


def bool_values(data):
    if set(map(type, data)) == {bool}:
        return np.array(data, dtype=np.bool_)
    for k, x in enumerate(data):
        if type(x) is not bool:
            raise DataError("data[%d] of a bool array is not true or false" % k)
    raise AssertionError("unreachable")


def complex_values(data, dtype):
    """Complex elements from [re, im] pairs: the pairs' floats, parts rounded
    as float32 (complex64) or float64 (complex128)."""
    part = "float32" if dtype == "complex64" else "float64"
    if set(map(type, data)) == {list} and set(map(len, data)) == {2}:
        flat = list(chain.from_iterable(data))
        types = set(map(type, flat))
        if types <= {float, int, str}:
            try:
                return float_values(flat, part, lambda k: k // 2), part
            except DataError:
                pass
    # hcbtrace's order: element k's pair, its re, its im, then k + 1
    for k, x in enumerate(data):
        if type(x) is not list or len(x) != 2:
            raise DataError("data[%d] of a %s array is not a [re, im] pair" % (k, dtype))
        float_values(x, part, lambda _, k=k: k)
    raise AssertionError("unreachable")


def leaf_values(data, dtype):
    """A leaf's flat array from its JSON data list.  Raises DataError (what
    is wrong) or NeedText (idx counts float parts for complex, re before
    im)."""
    if not data:
        return np.zeros(0, dtype=numpy_dtype(dtype))
    if dtype == "bool":
        return bool_values(data)
    if dtype in INT_RANGE:
        return int_values(data, dtype)
    if dtype in FLOATS:
        (vals, zeros), part = float_values(data, dtype), dtype
    else:
        (vals, zeros), part = complex_values(data, dtype)
    x, ties, mids = from_float64(vals, part)
    if ties.size or zeros.size:
        idx = np.concatenate([ties, zeros])
        mids = np.concatenate([mids if mids is not None else np.zeros(0), np.full(zeros.size, np.nan)])
        raise NeedText(x, idx, mids)
    return x if dtype in FLOATS else pairs_to_complex(x, dtype)


def pairs_to_complex(parts, dtype):
    return np.ascontiguousarray(parts).view(numpy_dtype(dtype))
