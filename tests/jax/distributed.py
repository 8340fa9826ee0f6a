# SPDX-License-Identifier: MIT
"""One process of an unmodified multi-process jax job (jax.distributed on
CPU, gloo collectives): the target of tests/bats/distributed.bats.

    python distributed.py PROCESS COUNT PORT GO_FILE TRUTH_FILE [--reps N] [--truth-all]

Process PROCESS of COUNT joins the job whose coordinator (process 0) is at
127.0.0.1:PORT, with the local devices XLA_FLAGS gives it (2 if it says
none); a COUNT of 1 is a plain process (PORT unused).  jax numbers a CPU device process_index * 2048 + local, so process
1's devices are 2048 and 2049: ids no dense table of devices holds.  The
program runs a jit sharded over every device of the job (a psum across the
processes, and per shard a jax.debug.callback and a jax.debug.print,
partitioned: each runs on the device that holds the shard), and a jit on
its own first device (an unpartitioned jax.debug.print and a callback).
It runs everything once (recording nothing, or with --truth-all, for a
tracer there from its first call, recording that too), says "ready", waits
for GO_FILE, runs everything REPS times (default 2), writes the ground truth
to TRUTH_FILE and says "done N".

The ground truth is the JSON lines tests/jax/modern.py writes (one per
callback call, written from inside the callbacks with what XLA handed
them; tests/tools/check_jaxffi_truth.py compares a recording with it),
device being the global id of the device that ran the call.  A shard's
callback learns its device from the shard of an index array it is handed
beside the data: shard k of an array sharded over the job's mesh is on the
mesh's k-th device.
"""
import base64
import json
import os
import sys
import time

flags = os.environ.get("XLA_FLAGS", "")
if "xla_force_host_platform_device_count" not in flags:
    os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=2").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

TRUTH = []
recording = False
MESH_IDS = []            # the global id of the mesh's k-th device


def leaf(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape),
            "data": base64.b64encode(a.tobytes(order="C")).decode()}


def note(kind, site, module, device, arrays):
    if recording:
        TRUTH.append({"kind": kind, "site": site, "module": module, "device": device,
                      "leaves": [leaf(a) for a in arrays]})


def shard_cb(kind, site):
    """A partitioned callback's: its device from the index shard it holds."""
    def cb(k, *arrays):
        device = MESH_IDS[int(np.asarray(k)[0])]
        note(kind, site, "jit_step", device, (k,) + arrays)
    return cb


def step(k, x):
    """Sharded over the job's devices: per shard a callback, and a print with
    a callback beside it given the same operands (the print's truth)."""
    jax.debug.callback(shard_cb("debug_callback", "shard"), k, x * 2, partitioned=True)
    jax.debug.print("shard {} x={}", k, x, partitioned=True)
    beside = shard_cb("debug_print", "shard-print")
    beside_own = shard_cb("debug_callback", "shard-print-beside")
    jax.debug.callback(lambda *a: (beside(*a), beside_own(*a)), k, x, partitioned=True)
    return x * x.sum()      # a psum: the processes' collectives, through gloo


def local(x):
    """On this process's first device alone: an unpartitioned print."""
    dev = jax.local_devices()[0].id

    def cb(v):
        note("debug_print", "local-print", "jit_local", dev, (v,))
        note("debug_callback", "local-print-beside", "jit_local", dev, (v,))
    jax.debug.print("local {}", x)
    jax.debug.callback(cb, x)
    return x + 1


def run_all(jits, sharding, rep):
    n = len(MESH_IDS)
    k = jax.make_array_from_callback((n,), sharding,
                                     lambda i: np.arange(n, dtype=np.int32)[i])
    x = jax.make_array_from_callback(
        (3 * n,), sharding,
        lambda i: (np.arange(3 * n, dtype=np.float32) * 0.5 + rep)[i])
    jits["step"](k, x).block_until_ready()
    own = jax.device_put(jnp.arange(4.0, dtype=jnp.float32) + 10 * rep + jax.process_index(),
                         jax.local_devices()[0])
    jits["local"](own).block_until_ready()
    jax.effects_barrier()


def main():
    global recording, MESH_IDS
    process, count, port, go, truth = sys.argv[1:6]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 2
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if int(count) > 1:      # a job of one process is a plain one
        jax.distributed.initialize(coordinator_address="127.0.0.1:" + port,
                                   num_processes=int(count), process_id=int(process))
    mesh = Mesh(np.array(jax.devices()), ("x",))
    MESH_IDS = [d.id for d in mesh.devices.flat]
    sharding = NamedSharding(mesh, P("x"))
    jits = {"step": jax.jit(step), "local": jax.jit(local)}
    recording = "--truth-all" in sys.argv
    run_all(jits, sharding, 0)
    print("ready %d %s" % (jax.process_index(), " ".join(str(d.id) for d in jax.local_devices())),
          flush=True)
    while not os.path.exists(go):
        time.sleep(0.02)
    recording = True
    for rep in range(reps):
        run_all(jits, sharding, rep + 1)
    recording = False
    with open(truth + ".tmp", "w") as f:
        for t in TRUTH:
            f.write(json.dumps(t) + "\n")
    os.rename(truth + ".tmp", truth)
    print("done %d" % len(TRUTH), flush=True)
    # the job ends together: no process leaves while another still needs it
    if int(count) > 1:
        jax.distributed.shutdown()


if __name__ == "__main__":
    main()
