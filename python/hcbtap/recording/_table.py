# SPDX-License-Identifier: MIT
"""The scalar streams of a recording as a pandas DataFrame (scalars())."""
import numpy as np

from ._model import ML_DTYPES, ML_INTS, leaf_paths, parse_tree

# pandas' nullable dtypes, for integer and bool columns with empty cells
_NULLABLE = {"bool": "boolean", "int8": "Int8", "int16": "Int16", "int32": "Int32",
             "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
             "uint64": "UInt64"}


def _scalar_leaves(tap, cache):
    """(column, leaf index) of tap's 0-d leaves, by its name and tree."""
    key = (tap.name, tap.tree, tuple(leaf.shape for leaf in tap.leaves))
    cols = cache.get(key)
    if cols is None:
        shape = parse_tree(tap.tree)[0]
        cols = [(path, i) for i, path in leaf_paths(shape, tap.name) if tap.leaves[i].ndim == 0]
        cache[key] = cols
    return cols


def scalars_of(pd, taps, names=None, devices=None):
    names = None if names is None else {names} if isinstance(names, str) else set(names)
    devices = None if devices is None else {devices} if isinstance(devices, int) else set(devices)
    head = {"device": [], "seq": [], "ts_ns": [], "name": []}
    columns = {}            # column -> (rows, values, dtype name)
    cache = {}
    row = 0
    for tap in taps:
        if (names is not None and tap.name not in names) or \
                (devices is not None and tap.device not in devices):
            continue
        head["device"].append(tap.device)
        head["seq"].append(tap.seq)
        head["ts_ns"].append(tap.ts_ns)
        head["name"].append(tap.name)
        for path, i in _scalar_leaves(tap, cache):
            leaf = tap.leaves[i]
            col = columns.get(path)
            if col is None:
                col = columns[path] = ([], [], leaf.dtype)
            col[0].append(row)
            col[1].append(leaf)
        row += 1
    index = pd.RangeIndex(row)
    out = {k: _int_column(pd, head[k], index) for k in ("device", "seq", "ts_ns")}
    out["name"] = pd.Series(head["name"], index=index, dtype=object)
    for path, (rows, values, dtype) in columns.items():
        if path in out:
            path = path + "'"      # a tap named like a head column
        out[path] = _column(pd, rows, values, row, index)
    return pd.DataFrame(out, index=index)


def _int_column(pd, values, index):
    """int64 (uint64 past its range); nullable where a value is None."""
    big = any(v is not None and v >= 1 << 63 for v in values)
    if any(v is None for v in values):
        return pd.Series(pd.array(values, dtype="UInt64" if big else "Int64"), index=index)
    return pd.Series(np.array(values, dtype=np.uint64 if big else np.int64), index=index)


def _column(pd, rows, values, n, index):
    """One leaf column: its values at rows, empty elsewhere."""
    dtypes = {v.dtype for v in values}
    if len(dtypes) == 1:
        dt = values[0].dtype
        arr = np.array(values, dtype=dt) if values else np.zeros(0, dt)
        if dt.name in ML_INTS:      # ml_dtypes' int2 ... uint4: int8 or uint8 columns
            arr = arr.astype(np.int8 if dt.name.startswith("int") else np.uint8)
        elif dt.name in ML_DTYPES:
            arr = arr.astype(np.float32)
    else:   # a name whose consumers differ in dtype: numpy's common type
        arr = np.array([v[()] for v in values])
    if len(rows) == n:
        return pd.Series(arr, index=index)
    name = arr.dtype.name
    if name in _NULLABLE:
        full = pd.array([None] * n, dtype=_NULLABLE[name])
        full[np.array(rows)] = arr
        return pd.Series(full, index=index)
    full = np.full(n, np.nan, dtype=arr.dtype if arr.dtype.kind in "fc" else object)
    full[rows] = arr
    return pd.Series(full, index=index)
