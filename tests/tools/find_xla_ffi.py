#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where the XLA FFI C header (xla/ffi/api/c_api.h, shipped in the jaxlib
wheel) is, for the unit tests of hcbtap's FFI handlers: one line
"LABEL INCLUDE_DIR" per distinct header, LABEL naming the jaxlib version.

Looks in $HCB_XLA_FFI_INCLUDE (include dirs, ':'-separated), then in the
venvs of scripts/lib.sh: $HCB_VENV_JAX, $HCB_VENV_JAX12, BUILD/venv-jax10,
BUILD/venv-jax12 (BUILD: the first argument).  Prints nothing when there is
none (the tests are then not built, and meson says so)."""
import glob
import hashlib
import os
import re
import sys

HEADER = os.path.join("xla", "ffi", "api", "c_api.h")


def candidates(build):
    for d in os.environ.get("HCB_XLA_FFI_INCLUDE", "").split(":"):
        if d:
            yield "custom", d
    venvs = [os.environ.get("HCB_VENV_JAX"), os.environ.get("HCB_VENV_JAX12"),
             os.path.join(build, "venv-jax10"), os.path.join(build, "venv-jax12")]
    for v in venvs:
        if not v:
            continue
        for inc in sorted(glob.glob(os.path.join(v, "lib", "python3*", "site-packages", "jaxlib", "include"))):
            site = os.path.dirname(os.path.dirname(inc))
            dist = sorted(glob.glob(os.path.join(site, "jaxlib-*.dist-info")))
            m = re.match(r"jaxlib-(.+)\.dist-info", os.path.basename(dist[-1])) if dist else None
            yield ("jaxlib_" + m.group(1) if m else "jaxlib"), inc


def main():
    seen = set()
    for label, inc in candidates(sys.argv[1] if len(sys.argv) > 1 else "."):
        path = os.path.join(inc, HEADER)
        if not os.path.isfile(path):
            continue
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        print(re.sub(r"[^A-Za-z0-9_]", "_", label), os.path.abspath(inc))


if __name__ == "__main__":
    main()
