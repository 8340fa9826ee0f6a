# SPDX-License-Identifier: MIT
"""hcbtap - JAX's host_callback id_tap / id_print / barrier_wait, on taps that
cost nothing until `hcbtrace attach` (or record) attaches to the process.

    import hcbtap as hcb          # instead of: from jax.experimental import host_callback as hcb

    def power3(x):
        y = x * x
        _, y = hcb.id_print((x, y), what="x,x^2")
        return y * x

Then `hcbtrace attach PID` prints, per device, what id_print printed:

    device: cpu:0 what: x,x^2
    ( 3. 9. )

On CPU and CUDA devices.  A computation's taps reach each device in
program order (an ordered effect); set_ordered(False), or HCBTAP_ORDERED=0
in the environment, makes taps traced afterwards unordered.

hcbtap.recording reads hcbtrace's recordings (.jsonl, .hcbcap) with numpy
alone: importing it imports no jax, and neither does `import hcbtap` (the
JAX side is loaded when one of the names below is first used).
"""
import importlib

__all__ = ["id_tap", "id_print", "barrier_wait", "set_ordered"]
__version__ = "0.1.0"

_LAZY = {"id_tap": "._api", "id_print": "._api", "barrier_wait": "._api",
         "set_ordered": "._primitive"}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError("module 'hcbtap' has no attribute %r" % name)
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
