# SPDX-License-Identifier: MIT
"""map_late.py GO FILE...: an unmodified JAX program that loads a library
after jaxlib, as jax loads its CUDA plugin when it starts its backends.
It imports jax (jaxlib's CPU callbacks mapped), says "jax PID", waits
until GO exists, then maps each FILE read and execute as map_files.py does
(no code of them is run), says "mapped", waits until GO.more exists, runs
one jax.debug.print on the CPU (its value 7.0) and says "done".  For
tests/bats/jaxgpu.bats: `record -- CMD` attached before the plugin came."""
import mmap
import os
import sys
import time

import jax
import jax.numpy as jnp


def wait_file(path):
    deadline = time.monotonic() + 300
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)


print("jax", os.getpid(), flush=True)
wait_file(sys.argv[1])
maps = []
for path in sys.argv[2:]:
    fd = os.open(path, os.O_RDONLY)
    maps.append(mmap.mmap(fd, 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC))
    os.close(fd)
print("mapped", flush=True)
wait_file(sys.argv[1] + ".more")


@jax.jit
def f(x):
    jax.debug.print("late {x}", x=x)
    return x + 1


f(jnp.float32(7.0)).block_until_ready()
print("done", flush=True)
