# SPDX-License-Identifier: MIT
# lib.sh - what scripts/demo and scripts/test share: root, the packages
# this project needs on Debian 12, and the build.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${HCB_BUILD:-$ROOT/build}

# Debian packages: build (meson, clang for BPF, bpftool for skeletons,
# libbpf/libelf/zlib, jansson, ncurses, sdt.h), tests (cmocka, bats and its
# helpers, python3, shells and bash-completion for the completion tests,
# util-linux for setpriv/unshare, strace, valgrind; libFuzzer from
# libclang-rt).
PACKAGES=(
    build-essential pkg-config meson ninja-build clang llvm libclang-rt-14-dev
    libbpf-dev bpftool bpftrace libelf-dev zlib1g-dev libjansson-dev libncurses-dev
    systemtap-sdt-dev linux-libc-dev
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

install_deps()
{
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo ">> installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# Python packages the tests compare against, in a venv beside the build:
# numpy 1.26 (the reference for id_print text, isclose, .npz), ml_dtypes, and
# jax/jaxlib 0.4.31: the last host_callback with the outfeed receiver, whose
# id_print and pretty printer are the reference for the text format.
PY_PACKAGES=(numpy==1.26.4 ml_dtypes==0.4.1 jax==0.4.31 jaxlib==0.4.31)
VENV=${HCB_VENV:-$BUILD/venv}

make_venv()
{
    if [ ! -x "$VENV/bin/python" ] ||
       ! "$VENV/bin/python" -c 'import numpy, ml_dtypes, jax; assert jax.__version__ == "0.4.31"' 2>/dev/null; then
        echo ">> python venv $VENV: ${PY_PACKAGES[*]}"
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
    fi
}

# The newest jax that installs here, for hcbtap's JAX support (python/): a
# venv of its own, as it needs numpy 2; the package is built into it.
PY_JAX_PACKAGES=(jax==0.10.2 jaxlib==0.10.2)
VENV_JAX=${HCB_VENV_JAX:-$BUILD/venv-jax}

make_venv_jax()
{
    if [ ! -x "$VENV_JAX/bin/python" ] ||
       ! "$VENV_JAX/bin/python" -c 'import jax; assert jax.__version__ == "0.10.2"' 2>/dev/null; then
        echo ">> python venv $VENV_JAX: ${PY_JAX_PACKAGES[*]}"
        python3 -m venv "$VENV_JAX"
        "$VENV_JAX/bin/pip" install -q --disable-pip-version-check "${PY_JAX_PACKAGES[@]}"
    fi
    # always from this checkout: the tests exercise these sources
    echo ">> pip install ./python into $VENV_JAX"
    "$VENV_JAX/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps \
        "$ROOT/python"
}

build()
{
    if [ ! -f "$BUILD/build.ninja" ]; then
        meson setup "$BUILD" "$ROOT" -Dtests=true >/dev/null
    fi
    ninja -C "$BUILD" >/dev/null
}
