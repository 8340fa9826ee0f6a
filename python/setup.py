# SPDX-License-Identifier: MIT
"""Builds hcbtap/libhcbtap.so: libhcbtap (../hcbtap, ../src/core, ../src/session) plus the XLA FFI
handlers (CPU and CUDA), against the FFI header in the jaxlib of the build
environment.  Build it against the jaxlib it will run with
(pip install --no-build-isolation): XLA refuses a handler that speaks a
newer FFI API version than its own."""
import os

import jaxlib
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.relpath(os.path.join(HERE, ".."), HERE)
XLA_INCLUDE = os.path.join(os.path.dirname(jaxlib.__file__), "include")

if not os.path.exists(os.path.join(XLA_INCLUDE, "xla", "ffi", "api", "c_api.h")):
    raise SystemExit("hcbtap: jaxlib at %s ships no xla/ffi/api/c_api.h; "
                     "install a jaxlib with XLA's FFI (0.4.31 or later)" % jaxlib.__file__)


class PlainLibrary(build_ext):
    """A plain shared library named libhcbtap.so, which is how hcbtrace
    recognises the tap runtime in a process's memory map."""

    def finalize_options(self):
        super().finalize_options()
        # Always compile: the objects land outside the per-interpreter build
        # directories (the sources are ../hcbtap/*.c) and distutils does not
        # see that the jaxlib header changed, so a build for one venv would
        # otherwise reuse objects compiled against another venv's jaxlib.
        self.force = True

    def get_ext_filename(self, ext_name):
        return os.path.join(*ext_name.split(".")) + ".so"

    def get_export_symbols(self, ext):
        return []


def src(*parts):
    return os.path.join(TOP, *parts)


libhcbtap = Extension(
    "hcbtap.libhcbtap",
    sources=[src("hcbtap", "hcbtap.c"), src("hcbtap", "ffi_util.c"), src("hcbtap", "hcbtap_ffi.c"),
             src("hcbtap", "hcbtap_cuda.c"), src("hcbtap", "cuda_rt.c"), src("hcbtap", "staging.c"),
             src("src", "session", "barrier.c"), src("src", "core", "consumer.c"),
             src("src", "core", "tree.c"), src("src", "core", "dtype.c"),
             src("src", "session", "session.c")],
    include_dirs=[src("hcbtap"), src("src"), XLA_INCLUDE],
    extra_compile_args=["-std=gnu11", "-O2", "-fvisibility=hidden", "-D_GNU_SOURCE"],
    # the CUDA handler opens libcudart with dlopen: no CUDA needed to build
    libraries=["pthread", "m", "dl"],
)

setup(ext_modules=[libhcbtap], cmdclass={"build_ext": PlainLibrary})
