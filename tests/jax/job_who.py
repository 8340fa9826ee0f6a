# SPDX-License-Identifier: MIT
"""One process of a jax.distributed job on this machine (CPU devices, gloo
collectives): the target of hcbtrace's tests of who a process is (issue 36).

    python job_who.py PORT PROCESS_ID NUM_PROCESSES STOP_FILE [--devices N] [--no-init]

Joins the job whose coordinator is 127.0.0.1:PORT (process 0 runs it) as
PROCESS_ID of NUM_PROCESSES, with N CPU devices (default 2); with
--no-init it never calls jax.distributed.initialize (a process alone, for
jax says nothing: the launcher's environment is all there is).  Then it
prints one JSON line of what its jax says of itself,

    {"process_index": 1, "process_count": 2, "local_devices": [2048, 2049]}

and, until STOP_FILE exists, calls a jax.debug.callback on each of its
devices a few times a second (what the tests' hcbtrace records).
"""
import json
import os
import sys
import time

port, pid, nproc, stop = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ndev = int(sys.argv[sys.argv.index("--devices") + 1]) if "--devices" in sys.argv else 2
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=%d" % ndev).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

if "--no-init" not in sys.argv:
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address="127.0.0.1:%d" % port,
                               num_processes=nproc, process_id=pid,
                               initialization_timeout=120)


def seen(x):
    pass


@jax.jit
def step(x):
    jax.debug.callback(seen, x)
    return x + 1


xs = [jax.device_put(jnp.arange(3, dtype=jnp.float32), d) for d in jax.local_devices()]
xs = [step(x) for x in xs]
print(json.dumps({"process_index": jax.process_index(), "process_count": jax.process_count(),
                  "local_devices": [d.id for d in jax.local_devices()]}), flush=True)
while not os.path.exists(stop):
    xs = [step(x) for x in xs]
    jax.block_until_ready(xs)
    time.sleep(0.05)
if "--no-init" not in sys.argv:
    jax.distributed.shutdown()
