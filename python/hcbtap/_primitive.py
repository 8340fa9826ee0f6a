# SPDX-License-Identifier: MIT
"""The tap as a JAX primitive: identity on its operands, with a side effect
that lowers to the hcbtap_tap XLA FFI custom call (hcbtap/hcbtap_ffi.c).

Its rules give host_callback's semantics:
  vmap   one call with the batched arrays, and a ("batch", {"batch_dims":
         ...}) entry appended to the `transforms` kwarg;
  jvp    the primal values are tapped, tangents pass through (grad too);
  jit, scan, while_loop, cond, pmap: the effect keeps the call from being
         removed; under pmap each device's call taps that device's values.
The consumer (name, kwargs, tree, leaf shapes) is registered when the call
is lowered, with the shapes it will really have, so batched taps register
batched shapes.
"""
import jax
import jax.extend.core
import numpy as np
from jax.interpreters import ad, batching, mlir
from jax._src import dispatch
from jax._src import ffi as _ffi_internal

from . import _native

TARGET = "hcbtap_tap"
# the FFI call's own effect: kept by dead-code elimination, allowed inside
# scan / while_loop / cond, lowerable
_EFFECT = _ffi_internal._FfiEffect

tap_p = jax.extend.core.Primitive("hcbtap_tap")
tap_p.multiple_results = True

jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(_native.FFI_TAP), platform="cpu")


def _abstract_eval(*avals, **params):
    return avals, {_EFFECT}


tap_p.def_effectful_abstract_eval(_abstract_eval)
tap_p.def_impl(lambda *args, **params: dispatch.apply_primitive(tap_p, *args, **params))


def format_transforms(transforms):
    """As host_callback printed them: [('batch', {'batch_dims': (0, 0)})]."""
    return str([(name, {"batch_dims": dims}) for name, dims in transforms])


_platform_set = False


def _name_devices():
    """Devices print as str(device) does: cpu:0 in current JAX."""
    global _platform_set
    if _platform_set:
        return
    _platform_set = True
    devices = jax.local_devices(backend="cpu")
    if not devices:
        return
    s, ident = str(devices[0]), str(devices[0].id)
    if s.endswith(":" + ident):
        _native.set_platform(s[:-len(ident) - 1])
    elif s.endswith(ident):
        _native.set_platform(s[:-len(ident)] + "%u")
    for d in devices:
        _native.declare_device(d.id)


def _lowering(ctx, *args, ntap, name, kwargs, tree, transforms):
    _name_devices()
    kw = list(kwargs)
    if transforms:
        kw.append(("transforms", format_transforms(transforms)))
    leaves = [(_native.numpy_name(a.dtype), tuple(a.shape)) for a in ctx.avals_in[:ntap]]
    consumer = _native.register(name, kw, tree, leaves)
    rule = jax.ffi.ffi_lowering(TARGET, has_side_effect=True,
                                operand_output_aliases={i: i for i in range(len(args))})
    return rule(ctx, *args, consumer=np.int64(consumer), ntap=np.int64(ntap))


mlir.register_lowering(tap_p, _lowering, platform="cpu")


def _batching(args, dims, *, ntap, name, kwargs, tree, transforms):
    batch_dims = tuple(dims[:ntap])
    outs = tap_p.bind(*args, ntap=ntap, name=name, kwargs=kwargs, tree=tree,
                      transforms=transforms + (("batch", batch_dims),))
    return outs, dims


batching.primitive_batchers[tap_p] = _batching


def _jvp(primals, tangents, **params):
    # host_callback taps the primal values only; tangents pass through
    return tap_p.bind(*primals, **params), [ad.instantiate_zeros(t) for t in tangents]


ad.primitive_jvps[tap_p] = _jvp
