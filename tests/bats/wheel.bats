#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# wheel.bats - scripts/wheel's wheel: its tag and contents, `pip install`
# into a fresh venv, and the installed hcbtrace behaving as the build's.
# The wheel is built once for the file (setup_file: the static build and
# auditwheel's venv are kept in build/wheel-work, so a second run only
# relinks what changed), from the working tree as it is.

load common

setup_file()
{
    local root
    root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    export WHEEL_DIST=$BATS_FILE_TMPDIR/dist
    bash "$root/scripts/wheel" --worktree "$WHEEL_DIST" >"$BATS_FILE_TMPDIR/wheel.log" 2>&1 ||
        { tail -20 "$BATS_FILE_TMPDIR/wheel.log" >&3; return 1; }
    export WHEEL
    WHEEL=$(ls "$WHEEL_DIST"/hcbtrace-*.whl)
    # a fresh venv, the wheel and its one dependency (numpy) in it
    export WVENV=$BATS_FILE_TMPDIR/venv
    python3 -m venv "$WVENV"
    "$WVENV/bin/pip" install -q --disable-pip-version-check "$WHEEL" >"$BATS_FILE_TMPDIR/pip.log" 2>&1 ||
        { tail -20 "$BATS_FILE_TMPDIR/pip.log" >&3; return 1; }
}

setup() { _common_setup; }
teardown()
{
    # the viewer's tmux server, if its test failed before ending it
    tmux -L "hcb-wheel-$$" kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/hcb-wheel-$$"
    _common_teardown
}

@test "wheel: tagged py3-none-manylinux and musllinux, holding the static binary, docs, reader, licences" {
    run basename "$WHEEL"
    assert_output --regexp '^hcbtrace-[0-9.]+-py3-none-([a-z0-9_]+\.)*manylinux_2_[0-9]+_x86_64\.'
    assert_output --regexp '\.musllinux_1_1_x86_64\.whl$'
    # pip takes it for a musl 1.1 system's, and for glibc's (this one's)
    run python3 -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: \
        --platform musllinux_1_1_x86_64 --target "$T/musl" "$WHEEL"
    assert_success
    [ -x "$T/musl/bin/hcbtrace" ]
    run python3 -m zipfile -l "$WHEEL"
    assert_success
    for f in 'data/scripts/hcbtrace ' 'data/share/man/man1/hcbtrace.1 ' \
             'data/share/bash-completion/completions/hcbtrace ' 'data/share/zsh/site-functions/_hcbtrace ' \
             'data/share/fish/vendor_completions.d/hcbtrace.fish ' 'hcbtrace/recording/__init__.py ' \
             'dist-info/licenses/libelf-dev.copyright ' 'dist-info/licenses/libc6-dev.copyright ' \
             'dist-info/licenses/RELINKING.md ' 'dist-info/RECORD '; do
        assert_output --partial "$f"
    done
    # the reader's files are python/hcbtap/recording's, not a copy gone stale
    for f in "$ROOT"/python/hcbtap/recording/*.py; do
        cmp "$f" <(python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
            "$WHEEL" "hcbtrace/recording/$(basename "$f")")
    done
    # the metadata says what static linking obliges
    run python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.read([n for n in z.namelist() if n.endswith("dist-info/METADATA")][0]).decode())' "$WHEEL"
    assert_output --partial 'Name: hcbtrace'
    assert_output --partial 'LGPL'
    assert_output --partial 'RELINKING.md'
}

@test "wheel: pip install puts a static hcbtrace on PATH, and the reader" {
    [ -x "$WVENV/bin/hcbtrace" ]
    run readelf -d "$WVENV/bin/hcbtrace"
    assert_output --partial 'There is no dynamic section'
    run env PATH="$WVENV/bin:/usr/bin:/bin" hcbtrace --version
    assert_success
    assert_output --regexp '^hcbtrace [0-9.]+$'
    [ -f "$WVENV/share/man/man1/hcbtrace.1" ]
    run "$WVENV/bin/python" -c 'import hcbtrace.recording as r; print(r.taps.__name__)'
    assert_success
    assert_output taps
}

@test "wheel: the installed hcbtrace's --help is the build's, for every command" {
    diff <("$WVENV/bin/hcbtrace" --help 2>&1) <("$HCBTRACE" --help 2>&1)
    for c in record attach replay check list; do
        diff <("$WVENV/bin/hcbtrace" "$c" --help 2>&1) <("$HCBTRACE" "$c" --help 2>&1)
    done
}

@test "wheel: its binary records the example, and both binaries replay it the same" {
    # one device: two runs of the example then tap the same values in the same order
    args=(--devices 1 --steps 6 --interval-ms 0 --field-size 3000)
    run --separate-stderr "$WVENV/bin/hcbtrace" record -q -o "$T/wheel.jsonl" -- "$EXAMPLE" "${args[@]}" \
        --truth "$T/truth.jsonl"
    assert_success
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/wheel.jsonl" "$T/truth.jsonl" --all --devices 1
    assert_success
    "$WVENV/bin/hcbtrace" replay --no-wait "$T/wheel.jsonl" >"$T/by-wheel.txt"
    "$HCBTRACE" replay --no-wait "$T/wheel.jsonl" >"$T/by-build.txt"
    [ -s "$T/by-wheel.txt" ]
    cmp "$T/by-wheel.txt" "$T/by-build.txt"
    # and the build's own recording of the same run replays to the same text
    "$HCBTRACE" record -q -o "$T/build.jsonl" -- "$EXAMPLE" "${args[@]}"
    "$HCBTRACE" replay --no-wait "$T/build.jsonl" >"$T/build-by-build.txt"
    cmp "$T/by-wheel.txt" "$T/build-by-build.txt"
    # the wheel's reader reads what the wheel's binary wrote
    run "$WVENV/bin/python" -c 'import sys; from hcbtrace.recording import taps; print(sum(1 for _ in taps(sys.argv[1])))' "$T/wheel.jsonl"
    assert_success
    [ "$output" -gt 0 ]
}

@test "wheel: its binary attaches to a running example by pid" {
    start_example --devices 1 --steps 0 --interval-ms 10 --field-size 64
    run --separate-stderr "$WVENV/bin/hcbtrace" record -p "$EX_PID" -o "$T/pid.jsonl" -c 20
    assert_success
    tail -1 "$T/pid.jsonl" | grep -q '^{"type":"end","taps":[1-9]'
}

@test "wheel: its binary needs no C library: from an empty root it records a process, and replays it" {
    # a root that holds the binary alone: no libc, no loader, no /etc (as
    # much of glibc as a musl system has); /proc and /sys mounted in a
    # mount namespace of its own, gone with it
    R=$T/root
    mkdir -p "$R/proc" "$R/sys" "$R/tmp" "$R/run"
    cp "$WVENV/bin/hcbtrace" "$R/hcbtrace"
    run readelf -l "$R/hcbtrace"
    refute_output --partial 'program interpreter'
    start_example --devices 1 --steps 0 --interval-ms 10 --field-size 64
    run --separate-stderr unshare -m sh -c 'mount -t proc proc "$1/proc" && mount -t sysfs sys "$1/sys" &&
        exec env -u HCBTRACE_RUNDIR chroot "$1" /hcbtrace record -q -p "$2" -o /tmp/r.jsonl -c 20' sh "$R" "$EX_PID"
    assert_success
    [ "$(grep -c '"type":"tap"' "$R/tmp/r.jsonl")" = 20 ]
    tail -1 "$R/tmp/r.jsonl" | grep -q '^{"type":"end","taps":[1-9][0-9]*,"drops":0,'
    chroot "$R" /hcbtrace replay --no-wait /tmp/r.jsonl >"$T/in-root.txt"
    "$HCBTRACE" replay --no-wait "$R/tmp/r.jsonl" >"$T/by-build.txt"
    [ -s "$T/in-root.txt" ]
    cmp "$T/in-root.txt" "$T/by-build.txt"
}

@test "wheel: its static binary runs CMD as the sudo user, and refuses a user it does not know" {
    run --separate-stderr env SUDO_UID=65534 SUDO_GID=65534 "$WVENV/bin/hcbtrace" record -q -o "$T/x.jsonl" -- id -u
    assert_success
    assert_output 65534
    # no NSS in a static binary: an unknown name is one message, not a crash
    run --separate-stderr "$WVENV/bin/hcbtrace" run -q --user no-such-user-here -- id -u
    assert_failure 2
    assert_equal "$stderr" "hcbtrace: --user no-such-user-here: no such user in /etc/passwd"
}

@test "wheel: its binary records an unmodified JAX program by pid, every callback's value" {
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_MODERN:-${HCB_VENV_JAX12:-$BUILD/venv-jax12}}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    PROG=$ROOT/tests/jax/modern.py
    start_modern
    "$WVENV/bin/hcbtrace" record -p "$MOD_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$MOD_PID"
    touch "$T/go"
    wait "$MOD_PID"
    grep -q '^done [1-9][0-9]*$' "$T/prog.out"
    wait "$rec"
    run "$PY" "$ROOT/tests/tools/check_jaxffi_truth.py" "$T/truth.jsonl" "$T/rec.jsonl"
    assert_success
    assert_output --partial ", 0 mismatches"
}

@test "wheel: its static binary's viewer draws a recording in a terminal (static ncurses, terminfo)" {
    command -v tmux >/dev/null || skip "tmux is not installed (apt-get install -y tmux)"
    "$HCBTRACE" record -q -o "$T/r.jsonl" -- "$EXAMPLE" --devices 2 --steps 3 --interval-ms 0
    sock=hcb-wheel-$$
    tmux -L "$sock" new-session -d -x 100 -y 30 "TERM=xterm-256color $WVENV/bin/hcbtrace view $T/r.jsonl"
    screen() { tmux -L "$sock" capture-pane -p; }
    retry 20 bash -c "tmux -L $sock capture-pane -p | grep -q 'taps 30 .*complete'"
    run screen
    assert_output --regexp 'cpu:1 +loss +3 '
}

@test "wheel: convert -o X.parquet from the wheel alone: its python3 and its reader, pyarrow by its extra" {
    "$HCBTRACE" record -q -o "$T/p.jsonl" -- "$EXAMPLE" --devices 2 --steps 3 --interval-ms 0
    # a venv of its own, so that the others' keep no pyarrow
    python3 -m venv "$T/pv"
    "$T/pv/bin/pip" install -q --disable-pip-version-check "$WHEEL" >"$T/pip.log" 2>&1 ||
        { tail -20 "$T/pip.log" >&3; false; }
    # not there yet: one message naming the extra, exit 4
    run --separate-stderr env -u HCB_PYTHON PATH=/usr/bin:/bin "$T/pv/bin/hcbtrace" convert "$T/p.jsonl" -o "$T/p.parquet"
    assert_failure 4
    [[ "$stderr" == *"converting to Parquet needs pyarrow, which $T/pv/bin/python3 cannot import"*"pip install 'hcbtrace[parquet]'"* ]]
    # pyarrow 19 (numpy 1.26 or 2); from pip's cache where scripts/test put it
    "$T/pv/bin/pip" install -q --disable-pip-version-check pyarrow==19.0.1 >"$T/pip.log" 2>&1 ||
        { tail -20 "$T/pip.log" >&3; false; }
    run --separate-stderr env -u HCB_PYTHON PATH=/usr/bin:/bin "$T/pv/bin/hcbtrace" convert "$T/p.jsonl" -o "$T/p.parquet"
    assert_success
    # a row a tap leaf
    want=$("$T/pv/bin/python" -c 'import sys; from hcbtrace.recording import taps; print(sum(len(t.leaves) for t in taps(sys.argv[1])))' "$T/p.jsonl")
    run "$T/pv/bin/python" -c 'import sys, pyarrow.parquet as pq; print(pq.read_metadata(sys.argv[1]).num_rows)' "$T/p.parquet"
    assert_success
    [ "$want" -gt 0 ]
    assert_output "$want"
}
