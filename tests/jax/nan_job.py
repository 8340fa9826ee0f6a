# SPDX-License-Identifier: MIT
"""One process of a jax.distributed training job on CPU (gloo collectives)
whose loss goes NaN on one device at one step: the target of
tests/bats/parquet.bats (the first NaN across a job, found by a query).

    python nan_job.py PROCESS COUNT PORT GO_FILE BAD_DEVICE BAD_STEP STEPS

Process PROCESS of COUNT joins the job whose coordinator (process 0) is at
127.0.0.1:PORT, with 2 CPU devices (jax numbers process p's p * 2048 and
p * 2048 + 1).  Each step is one jit sharded over every device of the job:
every device holds the same w (replicas: data parallel), and a device's
loss is the mean square of its w plus the step, NaN on the device whose
global id is BAD_DEVICE at step BAD_STEP; every device calls back with
(step, loss, w) (partitioned: the device that holds the shard); then w
takes a little of the job's summed loss (a psum through gloo), so from
the next step on every device's loss is NaN: which came first is what a
query over the job's recordings has to tell (with NAN_JOB_SPREAD=0 in the
environment it does not spread: the other processes stay finite, so that
only the bad device's process ever taps a NaN).  It compiles and runs a step
(recording nothing), says "ready", waits for GO_FILE, runs STEPS steps,
says "done STEPS"; with NAN_JOB_END=FILE in the environment it then waits
for FILE before it ends (its callables alive until a recorder attached by
pid has named their sites: on a loaded machine a reader may come to a
program that ended right after its calls too late to read them).
"""
import os
import sys
import time

flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in flags:
    os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=2").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

SIZE = 8


def seen(step, loss, w):
    pass


def main():
    process, count, port, go = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    bad_device, bad_step, steps = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    spread = os.environ.get("NAN_JOB_SPREAD", "1") != "0"
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if count > 1:
        jax.distributed.initialize(coordinator_address="127.0.0.1:" + port,
                                   num_processes=count, process_id=process)
    mesh = Mesh(np.array(jax.devices()), ("x",))
    ids = np.array([d.id for d in mesh.devices.flat], dtype=np.int32)
    n = len(ids)
    rows = NamedSharding(mesh, P("x"))

    def put(a):
        return jax.make_array_from_callback(a.shape, rows, lambda i: a[i])

    @jax.jit
    def train(step, dev, w):
        loss = jnp.mean(w * w, axis=1) + step.astype(jnp.float32)
        loss = jnp.where((step == bad_step) & (dev == bad_device), jnp.nan, loss)
        jax.debug.callback(seen, step, loss, w, partitioned=True)
        if not spread:
            loss = jnp.nan_to_num(loss)
        return w * 0.999 + 1e-6 * jnp.sum(loss)     # the psum: a NaN spreads to all

    dev = put(ids)
    w = put(np.tile(np.arange(SIZE, dtype=np.float32) / SIZE, (n, 1)))
    train(put(np.full(n, -1, np.int32)), dev, w).block_until_ready()
    jax.effects_barrier()
    print("ready %d %s" % (jax.process_index(), " ".join(str(d.id) for d in jax.local_devices())),
          flush=True)
    while not os.path.exists(go):
        time.sleep(0.02)
    for s in range(steps):
        w = train(put(np.full(n, s, np.int32)), dev, w)
        w.block_until_ready()
    jax.effects_barrier()
    print("done %d" % steps, flush=True)
    end = os.environ.get("NAN_JOB_END")
    while end and not os.path.exists(end):
        time.sleep(0.02)
    if count > 1:
        jax.distributed.shutdown()


if __name__ == "__main__":
    main()
