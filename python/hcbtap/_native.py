# SPDX-License-Identifier: MIT
"""The package's libhcbtap.so through ctypes: consumer registration, the
device naming, the barrier, and the XLA FFI handler's address."""
import ctypes
import glob
import os
import sys

import numpy as np

_LIB = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libhcbtap.so"))

MAX_DIMS = 8
MAX_LEAVES = 4096

# enum hcbtap_dtype (hcbtap.h), by numpy's names
DTYPES = {
    "bool": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5,
    "uint8": 6, "uint16": 7, "uint32": 8, "uint64": 9,
    "float16": 10, "bfloat16": 11, "float32": 12, "float64": 13,
    "complex64": 14, "complex128": 15, "float8_e4m3fn": 16, "float8_e5m2": 17,
}


class _Leaf(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("ndim", ctypes.c_uint),
                ("dims", ctypes.c_uint64 * MAX_DIMS)]


_LIB.hcbtap_register.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p,
                                 ctypes.POINTER(_Leaf), ctypes.c_uint,
                                 ctypes.POINTER(ctypes.c_uint32)]
_LIB.hcbtap_register.restype = ctypes.c_int
_LIB.hcbtap_set_platform.argtypes = [ctypes.c_char_p]
_LIB.hcbtap_set_platform.restype = ctypes.c_int
_LIB.hcbtap_declare_device.argtypes = [ctypes.c_uint]
_LIB.hcbtap_declare_device.restype = ctypes.c_int
_LIB.hcbtap_barrier_wait.argtypes = [ctypes.c_int]
_LIB.hcbtap_barrier_wait.restype = ctypes.c_int
_LIB.hcbtap_issued.argtypes = [ctypes.c_uint]
_LIB.hcbtap_issued.restype = ctypes.c_int64

FFI_TAP = _LIB.hcbtap_ffi_tap            # the XLA FFI handlers: CPU
FFI_TAP_CUDA = _LIB.hcbtap_ffi_tap_cuda  # and CUDA devices
_LIB.hcbtap_cuda_runtime_hint.argtypes = [ctypes.c_char_p]
_LIB.hcbtap_cuda_runtime_hint.restype = None


def register(name, kwargs, tree, leaves):
    """Register a tap site: kwargs [(key, value)], tree in hcbtrace's syntax,
    leaves [(numpy dtype name, shape)].  Returns its consumer id."""
    if len(leaves) > MAX_LEAVES:
        raise ValueError("hcbtap: a tap has at most %d arrays, this one %d"
                         % (MAX_LEAVES, len(leaves)))
    arr = (_Leaf * max(len(leaves), 1))()
    for i, (dtype, shape) in enumerate(leaves):
        if dtype not in DTYPES:
            raise TypeError("hcbtap: cannot tap arrays of dtype %s (supported: %s)"
                            % (dtype, ", ".join(DTYPES)))
        if len(shape) > MAX_DIMS:
            raise ValueError("hcbtap: cannot tap arrays of more than %d dimensions" % MAX_DIMS)
        arr[i].dtype = DTYPES[dtype]
        arr[i].ndim = len(shape)
        for d, n in enumerate(shape):
            arr[i].dims[d] = int(n)
    flat = [s.encode() for kv in kwargs for s in kv] + [None]
    kw = (ctypes.c_char_p * len(flat))(*flat)
    cid = ctypes.c_uint32()
    err = _LIB.hcbtap_register(name.encode(), kw, tree.encode(), arr, len(leaves),
                               ctypes.byref(cid))
    if err:
        raise ValueError("hcbtap: cannot register tap %r: %s" % (name, os.strerror(-err)))
    return cid.value


def set_platform(pattern):
    _LIB.hcbtap_set_platform(pattern.encode())


def declare_device(ordinal):
    _LIB.hcbtap_declare_device(ordinal)


def barrier_wait(timeout_ms):
    return _LIB.hcbtap_barrier_wait(timeout_ms)


def issued(device):
    return _LIB.hcbtap_issued(device)


_hinted = False


def hint_cuda_runtime():
    """Tell the CUDA handler where the nvidia-cuda-runtime wheel's libcudart
    is (jax[cuda] installs it outside the loader's search path), before the
    first tap runs.  $HCBTAP_CUDART, if set, wins over it."""
    global _hinted
    if _hinted:
        return
    _hinted = True
    for d in sys.path:
        for pattern in ("nvidia/cu13/lib/libcudart.so.13", "nvidia/cuda_runtime/lib/libcudart.so.1[0-9]"):
            found = sorted(glob.glob(os.path.join(d, pattern)))
            if found:
                _LIB.hcbtap_cuda_runtime_hint(found[-1].encode())
                return


def numpy_name(dtype):
    return np.dtype(dtype).name
