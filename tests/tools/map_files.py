# SPDX-License-Identifier: MIT
"""map_files.py GO FILE...: map each FILE read and execute, from offset 0,
as the loader maps a library's code (no code of them is run), say
"mapped", then wait until GO exists.  For tests/bats/jaxgpu.bats: a
process in which hcbtrace finds the real jax CUDA plugin's files on a
machine with no GPU and no CUDA jax installed."""
import mmap
import os
import sys
import time

maps = []
for path in sys.argv[2:]:
    fd = os.open(path, os.O_RDONLY)
    maps.append(mmap.mmap(fd, 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC))
    os.close(fd)
print("mapped", flush=True)
deadline = time.monotonic() + 300
while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:
    time.sleep(0.02)
