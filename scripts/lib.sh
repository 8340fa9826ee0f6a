# SPDX-License-Identifier: MIT
# lib.sh - what scripts/demo and scripts/test share: root, the packages
# this project needs on Debian 12, and the build.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${HCB_BUILD:-$ROOT/build}

# Debian packages: build (meson, clang for BPF, bpftool for skeletons,
# libbpf/libelf/zlib/libdeflate, jansson, ncurses, capstone, sdt.h, dragonbox and
# fast_float for the float digits), tests (cmocka, bats and its
# helpers, python3, shells and bash-completion for the completion tests,
# util-linux for setpriv/unshare, strace, valgrind; libFuzzer from
# libclang-rt).
PACKAGES=(
    build-essential pkg-config meson ninja-build clang llvm libclang-rt-14-dev
    libbpf-dev bpftool bpftrace libelf-dev zlib1g-dev libdeflate-dev libjansson-dev libncurses-dev
    libcapstone-dev
    systemtap-sdt-dev linux-libc-dev libdragonbox-dev libfast-float-dev
    libcmocka-dev bats bats-assert bats-support python3 python3-venv python3-dev
    bash-completion zsh fish groff man-db util-linux strace procps valgrind unzip time tmux
)

need_root()
{
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null; then
            exec sudo -E bash "$0" "$@"
        fi
        echo "$(basename "$0"): must run as root (it installs packages and attaches BPF programs)" >&2
        exit 1
    fi
}

# missing_packages PKG...: those of PKGs dpkg does not have installed
missing_packages()
{
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

# install_deps [PKG...]: apt-get install what is missing of PKGs (default:
# every package above)
install_deps()
{
    local missing
    [ $# -gt 0 ] || set -- "${PACKAGES[@]}"
    missing=($(missing_packages "$@"))
    if [ ${#missing[@]} -gt 0 ]; then
        echo ">> installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# sync_sources DIR WORKTREE: this checkout's sources into DIR, HEAD's
# (WORKTREE=0) or the working tree's (1: tracked and untracked, not
# ignored), copied over DIR's file by file only where they differ, so that
# a build there rebuilds only that
sync_sources()
{
    local dir=$1 f
    rm -rf "$dir.new"
    mkdir -p "$dir.new" "$dir"
    if [ "$2" = 1 ]; then
        (cd "$ROOT" && git ls-files -co --exclude-standard -z | tar -c --null -T -) | tar -x -C "$dir.new"
    else
        git -C "$ROOT" archive HEAD | tar -x -C "$dir.new"
    fi
    (cd "$dir.new" && find . -type f -print0) | while IFS= read -r -d '' f; do
        if ! cmp -s "$dir.new/$f" "$dir/$f"; then
            mkdir -p "$(dirname "$dir/$f")"
            cp -p "$dir.new/$f" "$dir/$f"
        fi
    done
    (cd "$dir" && find . -type f -print0) | while IFS= read -r -d '' f; do
        [ -e "$dir.new/$f" ] || rm -f "$dir/$f"
    done
    rm -rf "$dir.new"
}

# Python packages the tests compare against, in a venv beside the build:
# numpy 1.26 (the reference for id_print text, isclose, .npz), ml_dtypes, and
# jax/jaxlib 0.4.31: the last host_callback with the outfeed receiver, whose
# id_print and pretty printer are the reference for the text format; pandas
# for hcbtap.recording's DataFrames (tests/bats/pyreader.bats).
# pyarrow and duckdb: convert -o .parquet and its tests (tests/bats/parquet.bats);
# pyarrow 19 takes numpy 1.26 (the newest pyarrow wants numpy 2)
PY_PACKAGES=(numpy==1.26.4 ml_dtypes==0.4.1 jax==0.4.31 jaxlib==0.4.31 pandas==2.2.3
             pyarrow==19.0.1 duckdb==2.0.1)
VENV=${HCB_VENV:-$BUILD/venv}

make_venv()
{
    if [ ! -x "$VENV/bin/python" ] ||
       ! "$VENV/bin/python" -c 'import numpy, ml_dtypes, jax, pandas, pyarrow, duckdb; assert jax.__version__ == "0.4.31"' 2>/dev/null; then
        echo ">> python venv $VENV: ${PY_PACKAGES[*]}"
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
    fi
}

# hcbtap's JAX support (python/) is tested on two jax versions, each in a
# venv of its own (they need numpy 2): jax 0.10.2 on Python 3.11, and the
# newest jax on Python 3.12 (jax >= 0.11 needs it) from pyenv.  The package
# is built into each against that venv's own jaxlib (--no-build-isolation:
# an isolated build would compile against the newest jaxlib on PyPI, whose
# FFI handler an older jaxlib refuses).
PY_JAX_PACKAGES=(jax==0.10.2 jaxlib==0.10.2)
VENV_JAX=${HCB_VENV_JAX:-$BUILD/venv-jax10}
VENV_JAX12=${HCB_VENV_JAX12:-$BUILD/venv-jax12}
PY312=${HCB_PY312:-/root/.pyenv/versions/3.12.1/bin/python3.12}

# pip_install_hcbtap VENV: this checkout's python/, built against VENV's jaxlib
pip_install_hcbtap()
{
    echo ">> pip install ./python into $1"
    "$1/bin/pip" install -q --disable-pip-version-check 'setuptools>=70.1' &&
    "$1/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps \
        --no-build-isolation "$ROOT/python"
}

make_venv_jax()
{
    if [ ! -x "$VENV_JAX/bin/python" ] ||
       ! "$VENV_JAX/bin/python" -c 'import jax; assert jax.__version__ == "0.10.2"' 2>/dev/null; then
        echo ">> python venv $VENV_JAX: ${PY_JAX_PACKAGES[*]}"
        python3 -m venv "$VENV_JAX"
        "$VENV_JAX/bin/pip" install -q --disable-pip-version-check "${PY_JAX_PACKAGES[@]}"
    fi
    # always from this checkout: the tests exercise these sources
    pip_install_hcbtap "$VENV_JAX"
}

# The newest jax and jaxlib on PyPI when this was written, on Python 3.12
# (pyenv's, or python3.12 on PATH).  Pinned: the jax-callback provider reads
# XLA internals it checked per jaxlib version (src/providers/jaxcb/ffi.c), so a newer
# jaxlib is added there, checked, and then named here.
PY_JAX12_PACKAGES=(jax==0.12.0.1 jaxlib==0.12.0.1)
make_venv_jax12()
{
    local py=$PY312
    [ -x "$py" ] || py=$(command -v python3.12) || {
        echo "!!! no Python 3.12 (pyenv's $PY312 or python3.12 on PATH): no newest-jax venv !!!" >&2
        return 1
    }
    if [ ! -x "$VENV_JAX12/bin/python" ] ||
       ! "$VENV_JAX12/bin/python" -c 'import jaxlib; assert jaxlib.__version__ == "0.12.0.1"' 2>/dev/null; then
        echo ">> python venv $VENV_JAX12: ${PY_JAX12_PACKAGES[*]} ($py)"
        "$py" -m venv "$VENV_JAX12"
        "$VENV_JAX12/bin/pip" install -q --disable-pip-version-check "${PY_JAX12_PACKAGES[@]}"
    fi
    pip_install_hcbtap "$VENV_JAX12"
}

# An older jax on Python 3.10 (pyenv's 3.10.13): the oldest Python the
# jax-callback provider's text probe reads (PyUnicode_Append, the str
# layout with wstr), on a jaxlib whose inner function is still xla::'s.
PY_JAX6_PACKAGES=(jax==0.6.2 jaxlib==0.6.2 numpy)
VENV_JAX6=${HCB_VENV_JAX6:-$BUILD/venv-jax6-py310}
PY310=${HCB_PY310:-/root/.pyenv/versions/3.10.13/bin/python3.10}
make_venv_jax6()
{
    local py=$PY310
    [ -x "$py" ] || py=$(command -v python3.10) || {
        echo "!!! no Python 3.10 (pyenv's $PY310 or python3.10 on PATH): no jax 0.6 venv !!!" >&2
        return 1
    }
    if [ ! -x "$VENV_JAX6/bin/python" ] ||
       ! "$VENV_JAX6/bin/python" -c 'import jaxlib; assert jaxlib.__version__ == "0.6.2"' 2>/dev/null; then
        echo ">> python venv $VENV_JAX6: ${PY_JAX6_PACKAGES[*]} ($py)"
        "$py" -m venv "$VENV_JAX6"
        "$VENV_JAX6/bin/pip" install -q --disable-pip-version-check "${PY_JAX6_PACKAGES[@]}"
    fi
}

# The newest jax on Python 3.13 (pyenv's 3.13.0): the newest Python the
# walker and the text probe read, whose code and str offsets the process
# itself publishes (_Py_DebugOffsets), checked against hcbtrace's table.
PY_JAX12_PY313_PACKAGES=(jax==0.12.0.1 jaxlib==0.12.0.1)
VENV_JAX12_PY313=${HCB_VENV_JAX12_PY313:-$BUILD/venv-jax12-py313}
PY313=${HCB_PY313:-/root/.pyenv/versions/3.13.0/bin/python3.13}
make_venv_jax12_py313()
{
    local py=$PY313
    [ -x "$py" ] || py=$(command -v python3.13) || {
        echo "!!! no Python 3.13 (pyenv's $PY313 or python3.13 on PATH): no jax 0.12 on 3.13 venv !!!" >&2
        return 1
    }
    if [ ! -x "$VENV_JAX12_PY313/bin/python" ] ||
       ! "$VENV_JAX12_PY313/bin/python" -c 'import jaxlib; assert jaxlib.__version__ == "0.12.0.1"' 2>/dev/null; then
        echo ">> python venv $VENV_JAX12_PY313: ${PY_JAX12_PY313_PACKAGES[*]} ($py)"
        "$py" -m venv "$VENV_JAX12_PY313"
        "$VENV_JAX12_PY313/bin/pip" install -q --disable-pip-version-check "${PY_JAX12_PY313_PACKAGES[@]}"
    fi
}

# jax with CUDA, for tests/bats/gpu.bats: only where there is a GPU
VENV_JAX_CUDA=${HCB_VENV_JAX_CUDA:-$BUILD/venv-jax-cuda}

has_gpu()
{
    nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

make_venv_jax_cuda()
{
    has_gpu || return 0
    local py=$PY312
    [ -x "$py" ] || py=$(command -v python3.12) || py=python3
    if [ ! -x "$VENV_JAX_CUDA/bin/python" ] ||
       ! "$VENV_JAX_CUDA/bin/python" -c 'import jax_cuda12_plugin' 2>/dev/null; then
        echo ">> python venv $VENV_JAX_CUDA: jax[cuda12] ($py)"
        "$py" -m venv "$VENV_JAX_CUDA"
        "$VENV_JAX_CUDA/bin/pip" install -q --disable-pip-version-check 'jax[cuda12]'
    fi
    pip_install_hcbtap "$VENV_JAX_CUDA"
}

build()
{
    if [ ! -f "$BUILD/build.ninja" ]; then
        meson setup "$BUILD" "$ROOT" -Dtests=true >/dev/null
    fi
    ninja -C "$BUILD" >/dev/null
}
