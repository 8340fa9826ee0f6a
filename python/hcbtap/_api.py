# SPDX-License-Identifier: MIT
"""id_tap, id_print and barrier_wait with host_callback's meaning."""
import warnings

import jax
import jax.numpy as jnp

from . import _native
from ._primitive import ordered_here, tap_p

_SPECIAL = set(" \t\n=()[]{}")


def _walk(x, leaves):
    """hcbtrace's tree syntax for arg, collecting its leaves in that order
    (dict keys sorted, as JAX and id_print order them)."""
    if isinstance(x, tuple):
        return "( " + " ".join(_walk(e, leaves) for e in x) + " )" if x else "( )"
    if isinstance(x, list):
        return "[ " + " ".join(_walk(e, leaves) for e in x) + " ]" if x else "[ ]"
    if isinstance(x, dict):
        parts = []
        for k in sorted(x):
            key = str(k)
            if not key or _SPECIAL & set(key):
                raise ValueError("hcbtap: cannot tap a dict with key %r: keys are printed as "
                                 "key=value, so no spaces, '=' or brackets" % (k,))
            parts.append("%s=%s" % (key, _walk(x[k], leaves)))
        return "{ " + " ".join(parts) + " }" if parts else "{ }"
    if x is None:
        raise TypeError("hcbtap: cannot tap None; tap arrays, or tuples, lists and dicts of them")
    leaves.append(x)
    return "*"


def _rebuild(x, it):
    """arg's structure again, with the tapped values in it."""
    if isinstance(x, tuple):
        items = [_rebuild(e, it) for e in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return [_rebuild(e, it) for e in x]
    if isinstance(x, dict):
        return {k: _rebuild(x[k], it) for k in sorted(x)}
    return next(it)


def _tap(arg, result, kwargs):
    leaves = []
    tree = _walk(arg, leaves)
    try:
        leaves = [jnp.asarray(v) for v in leaves]
    except TypeError as e:
        raise TypeError("hcbtap: can only tap arrays and numbers (and tuples, lists and dicts "
                        "of them): %s" % e) from None
    res_leaves, res_def = jax.tree_util.tree_flatten(result)
    kw = tuple(sorted((str(k), str(v)) for k, v in kwargs.items()))
    name = str(kwargs.get("what", "tap"))[:255] or "tap"
    outs = tap_p.bind(*leaves, *res_leaves, ntap=len(leaves), name=name, kwargs=kw, tree=tree,
                      transforms=(), ordered=ordered_here())
    if result is not None:
        return jax.tree_util.tree_unflatten(res_def, outs[len(leaves):])
    return _rebuild(arg, iter(outs))


_warned_tap_func = False


def id_tap(*args, result=None, **kwargs):
    """Tap arg: returns it unchanged (or result, which then waits for the
    tap), and sends it, with kwargs, to every attached hcbtrace session.
    While none is attached the tap costs a check and nothing else.

    id_tap(arg, result=None, **kwargs); host_callback's own form
    id_tap(tap_func, arg, ...) is taken too: tap_func is not called (the
    taps go to hcbtrace), as a one-time warning says.
    """
    global _warned_tap_func
    if not args or len(args) > 2:
        raise TypeError("id_tap(arg, result=None, **kwargs) takes the value to tap")
    if len(args) == 2:
        if not callable(args[0]):
            raise TypeError("id_tap(arg, result=None, **kwargs): one positional argument")
        if not _warned_tap_func:
            _warned_tap_func = True
            warnings.warn("hcbtap.id_tap: tap functions are not called; the taps go to "
                          "hcbtrace sessions attached to this process", stacklevel=2)
        args = args[1:]
    # host_callback options that mean nothing here: devices are always tapped
    kwargs.pop("tap_with_device", None)
    kwargs.pop("device_index", None)
    return _tap(args[0], result, kwargs)


def id_print(arg, *, result=None, output_stream=None, threshold=None, **kwargs):
    """Like host_callback.id_print: returns arg (or result), and hcbtrace
    attached to the process prints it as id_print did, kwargs first.
    Nothing is printed in the process itself (output_stream and threshold
    are accepted and ignored: hcbtrace has --threshold)."""
    kwargs.pop("tap_with_device", None)
    kwargs.pop("device_index", None)
    return _tap(arg, result, kwargs)


def barrier_wait(logging_name=None, *, timeout=None):
    """Wait until every tap issued so far has been written by every hcbtrace
    session attached to this process; at once if none is.  timeout in
    seconds (None: no limit) raises TimeoutError when it runs out."""
    jax.effects_barrier()
    err = _native.barrier_wait(-1 if timeout is None else max(0, int(timeout * 1000)))
    if err == -110:   # ETIMEDOUT
        raise TimeoutError("hcbtap.barrier_wait%s: attached hcbtrace sessions did not "
                           "confirm every tap within %s s"
                           % (" (%s)" % logging_name if logging_name else "", timeout))
    if err:
        raise OSError(-err, "hcbtap.barrier_wait: cannot reach the hcbtrace sessions")
