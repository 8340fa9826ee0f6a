# SPDX-License-Identifier: MIT
"""host_callback's documented examples, with `import hcbtap as hcb` in place
of `from jax.experimental import host_callback as hcb`: the program the JAX
tests of tests/bats/jax.bats run under hcbtrace.

    python taps.py SCENARIO...   power3 | vmap | jvp | grad | scan | while |
                                 cond | eager | pmap | order | pmap_order |
                                 shard_map | lower_cpu | lower_cuda | mixed |
                                 loop (taps until killed)

Each scenario prints its results to stdout ("power3 27.0"), so a test can
check that tapping leaves them unchanged; at the end hcb.barrier_wait() and
"issued cpu:N COUNT" per device (libhcbtap's own counters) on stderr.
"""
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import hcbtap as hcb
from hcbtap import _native
from hcbtap._primitive import tap_p


def power3(x):
    y = x * x
    # Print both 'x' and 'x^2'. Must pack as a tuple.
    _, y = hcb.id_print((x, y), what="x,x^2")
    return y * x


def scan_body(c, x):
    hcb.id_print(c, what="c")
    return c + x, c


def while_cond(c):
    return c < 3


def while_body(c):
    hcb.id_print(c, what="while")
    return c + 1


def cond_fn(x):
    return jax.lax.cond(x > 0, lambda v: hcb.id_print(v * 2, what="pos"),
                        lambda v: hcb.id_print(v * -2, what="neg"), x)


def three(x, y, z):
    # three taps no data orders: only their effect keeps program order
    hcb.id_print(x, what="a")
    hcb.id_print(y, what="b")
    hcb.id_print(z, what="c")
    return x


def mixed(x):
    """An hcbtap tap and JAX's own jax.debug.print in one function."""
    hcb.id_print(x, what="hcbtap")
    jax.debug.print("debug {}", x * 10)
    return x


def two(x):
    hcb.id_print(x, what="a")
    hcb.id_print(x + 1, what="b")
    return x * 2


ORDER_RUNS = 100


def order():
    """three() under jit, ORDER_RUNS times for each of three shapes of its
    middle tap (small to large, so their copies take different times)."""
    f = jax.jit(three)
    for n in (1, 1000, 100000):
        for i in range(ORDER_RUNS):
            f(np.float32(i), np.full(n, i, np.float32), np.arange(3.) + i).block_until_ready()
    return ORDER_RUNS * 3


def shard_map_two():
    from jax.sharding import Mesh, PartitionSpec as P
    try:
        from jax import shard_map
    except ImportError:
        from jax.experimental.shard_map import shard_map
    mesh = Mesh(np.array(jax.devices()), ("i",))
    n = len(jax.devices())
    return jax.jit(shard_map(two, mesh=mesh, in_specs=P("i"), out_specs=P("i")))(np.arange(3., 3. + n))


def lower(platform):
    """The module power3 lowers to for platform (no device of it needed),
    then where the tap's FFI target is registered."""
    from jax._src.interpreters import mlir
    from jaxlib import xla_client
    traced = jax.jit(power3).trace(np.float32(3.))
    print(traced.lower(lowering_platforms=(platform,)).as_text())
    print("lowering rule for", platform, tap_p in mlir._platform_specific_lowerings[platform])
    pending = [name for name, *_ in xla_client._custom_callback.get("CUDA", [])]
    print("ffi target pending for CUDA:", "hcbtap_tap" in pending)
    return 0


def run(scenario):
    if scenario == "power3":
        return jax.jit(power3)(3.)
    if scenario == "vmap":
        return jax.vmap(power3)(np.array([3., 4.]))
    if scenario == "jvp":
        return jax.jvp(power3, (3.,), (0.1,))
    if scenario == "grad":
        return jax.grad(power3)(3.)
    if scenario == "scan":
        return jax.jit(lambda xs: jax.lax.scan(scan_body, 0., xs))(jnp.arange(3.))
    if scenario == "while":
        return jax.jit(lambda c: jax.lax.while_loop(while_cond, while_body, c))(0)
    if scenario == "cond":
        return jax.jit(cond_fn)(2.), jax.jit(cond_fn)(-1.)
    if scenario == "eager":
        return hcb.id_tap({"b": jnp.ones(2), "a": [np.int32(7), 1.5]}, what="eager", step=1)
    if scenario == "pmap":
        n = jax.local_device_count()
        return jax.pmap(power3)(np.arange(3., 3. + n))
    if scenario == "order":
        return order()
    if scenario == "pmap_order":
        n = jax.local_device_count()
        return jax.pmap(two)(np.arange(3., 3. + n))
    if scenario == "shard_map":
        return shard_map_two()
    if scenario == "mixed":
        return jax.jit(mixed)(np.float32(4.))
    if scenario in ("lower_cpu", "lower_cuda"):
        return lower(scenario[len("lower_"):])
    raise SystemExit("taps.py: unknown scenario %r" % scenario)


def main():
    scenarios = sys.argv[1:]
    if scenarios == ["loop"]:
        f = jax.jit(power3)
        f(3.).block_until_ready()   # compiled: its tap is registered
        print("looping", flush=True)
        while True:
            f(3.).block_until_ready()
            time.sleep(0.01)
    for s in scenarios:
        out = jax.tree_util.tree_map(np.asarray, run(s))
        print(s, jax.tree_util.tree_map(lambda a: a.tolist(), out), flush=True)
    hcb.barrier_wait(timeout=30)
    for d in range(jax.local_device_count()):
        print("issued cpu:%d %d" % (d, _native.issued(d)), file=sys.stderr)


if __name__ == "__main__":
    main()
