# SPDX-License-Identifier: MIT
"""The tap as a JAX primitive: identity on its operands, with a side effect
that lowers to the hcbtap_tap XLA FFI custom call (hcbtap/hcbtap_ffi.c on
CPU, hcbtap/hcbtap_cuda.c on CUDA devices).

Its rules give host_callback's semantics:
  order  the effect is ordered, as jax.debug.print(ordered=True) is: the
         calls thread an XLA token, so the taps of one computation reach a
         device in program order, as host_callback's did (it sequenced its
         outfeeds with tokens);
  vmap   one call with the batched arrays, and a ("batch", {"batch_dims":
         ...}) entry appended to the `transforms` kwarg;
  jvp    the primal values are tapped, tangents pass through (grad too);
  jit, scan, while_loop, cond, pmap, shard_map: the effect keeps the call
         from being removed; under pmap each device's call taps that
         device's values.  Where a JAX version refuses ordered effects in a
         computation (see ORDERED_FALLBACK below) the tap is unordered there.
The consumer (name, kwargs, tree, leaf shapes) is registered when the call
is lowered, with the shapes it will really have, so batched taps register
batched shapes.
"""
import dataclasses
import functools
import os

import jax
import jax.extend.core
import numpy as np
from jax.interpreters import ad, batching, mlir
from jax._src import core as _core
from jax._src import dispatch
from jax._src import effects

from . import _native

TARGET = "hcbtap_tap"


class TapEffect(effects.Effect):
    """An unordered tap: kept by dead-code elimination, allowed in control
    flow, lowerable, but XLA may run independent taps in any order."""
    __str__ = lambda self: "hcbtap"


class OrderedTapEffect(effects.Effect):
    """A tap in program order: its call takes and gives an XLA token."""
    __str__ = lambda self: "hcbtap(ordered)"


UNORDERED = TapEffect()
ORDERED = OrderedTapEffect()
for _t in (TapEffect, OrderedTapEffect):
    effects.lowerable_effects.add_type(_t)
    effects.control_flow_allowed_effects.add_type(_t)
    effects.custom_derivatives_allowed_effects.add_type(_t)
    effects.remat_allowed_effects.add_type(_t)
effects.ordered_effects.add_type(OrderedTapEffect)
# per device, in program order; no order between devices (as host_callback)
effects.shardable_ordered_effects.add_type(OrderedTapEffect)

# ORDERED_FALLBACK: where taps are unordered.
#  - set_ordered(False), or HCBTAP_ORDERED=0 in the environment: everywhere.
#  - a JAX whose pmap is not built on shard_map (jax_pmap_shmap_merge off,
#    the default before jax 0.7) refuses any ordered effect in pmap
#    ("Ordered effects not supported in `pmap`"): there, taps traced with
#    a named axis in scope (pmap, and also vmap(axis_name=...) and
#    shard_map) are unordered.  Current JAX runs pmap on shard_map, which
#    takes this effect (it is shardable: ordered per device), so pmap and
#    shard_map taps keep their order there.
_ordered = os.environ.get("HCBTAP_ORDERED", "1").strip().lower() not in ("0", "false", "no", "off")


def set_ordered(on):
    """Taps bound from now on are ordered (True, the default) or not."""
    global _ordered
    _ordered = bool(on)


def _legacy_pmap():
    # no such option (jax 0.10 on): pmap is shard_map
    return getattr(jax.config, "jax_pmap_shmap_merge", True) is False


def ordered_here():
    """Whether a tap bound now, in the current trace, can be ordered."""
    if not _ordered:
        return False
    if _legacy_pmap():
        try:
            return not _core.get_axis_env().axis_sizes
        except AttributeError:
            return False
    return True


tap_p = jax.extend.core.Primitive("hcbtap_tap")
tap_p.multiple_results = True

jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(_native.FFI_TAP), platform="cpu")
# Registered whether or not this jaxlib has a CUDA plugin: jaxlib keeps it
# until one loads.  The handler finds the CUDA runtime when it first runs.
jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(_native.FFI_TAP_CUDA), platform="CUDA")


def _abstract_eval(*avals, ordered, **params):
    return avals, {ORDERED if ordered else UNORDERED}


tap_p.def_effectful_abstract_eval(_abstract_eval)
tap_p.def_impl(lambda *args, **params: dispatch.apply_primitive(tap_p, *args, **params))


def format_transforms(transforms):
    """As host_callback printed them: [('batch', {'batch_dims': (0, 0)})]."""
    return str([(name, {"batch_dims": dims}) for name, dims in transforms])


_platform_set = False


def _name_devices(platform):
    """Devices print as str(device) does: cpu:0 or cuda:0 in current JAX.
    The first platform with devices in this process names them all."""
    global _platform_set
    if _platform_set:
        return
    try:
        devices = jax.local_devices(backend=platform)
    except RuntimeError:
        devices = []   # lowered for a platform this process does not have
    if not devices:
        return
    _platform_set = True
    s, ident = str(devices[0]), str(devices[0].id)
    if s.endswith(":" + ident):
        _native.set_platform(s[:-len(ident) - 1])
    elif s.endswith(ident):
        _native.set_platform(s[:-len(ident)] + "%u")
    for d in devices:
        _native.declare_device(d.id)


def _lowering(ctx, *args, platform, ordered, ntap, name, kwargs, tree, transforms):
    _name_devices(platform)
    if platform == "cuda":
        _native.hint_cuda_runtime()
    kw = list(kwargs)
    if transforms:
        kw.append(("transforms", format_transforms(transforms)))
    leaves = [(_native.numpy_name(a.dtype), tuple(a.shape)) for a in ctx.avals_in[:ntap]]
    consumer = _native.register(name, kw, tree, leaves)
    attrs = dict(consumer=np.int64(consumer), ntap=np.int64(ntap))
    if not ordered:
        rule = jax.ffi.ffi_lowering(TARGET, has_side_effect=True,
                                    operand_output_aliases={i: i for i in range(len(args))})
        return rule(ctx, *args, **attrs)
    # The token goes in and out first, as jax's own ordered callbacks pass
    # it; the handlers skip operands of XLA's token type.
    n = len(args)
    tok_ctx = dataclasses.replace(ctx, avals_in=[_core.abstract_token, *ctx.avals_in],
                                  avals_out=[_core.abstract_token, *ctx.avals_out])
    rule = jax.ffi.ffi_lowering(TARGET, has_side_effect=True,
                                operand_output_aliases={i: i for i in range(1, n + 1)})
    token, *outs = rule(tok_ctx, ctx.tokens_in.get(ORDERED), *args, **attrs)
    ctx.set_tokens_out(ctx.tokens_in.update_tokens(mlir.TokenSet({ORDERED: token})))
    return outs


mlir.register_lowering(tap_p, functools.partial(_lowering, platform="cpu"), platform="cpu")
mlir.register_lowering(tap_p, functools.partial(_lowering, platform="cuda"), platform="cuda")


def _batching(args, dims, *, ntap, transforms, **params):
    batch_dims = tuple(dims[:ntap])
    outs = tap_p.bind(*args, ntap=ntap, transforms=transforms + (("batch", batch_dims),),
                      **params)
    return outs, dims


batching.primitive_batchers[tap_p] = _batching


def _jvp(primals, tangents, **params):
    # host_callback taps the primal values only; tangents pass through
    return tap_p.bind(*primals, **params), [ad.instantiate_zeros(t) for t in tangents]


ad.primitive_jvps[tap_p] = _jvp
