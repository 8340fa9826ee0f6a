#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# errors.bats - each way attach can fail says what, which and what to do,
# with its own exit code (hcbtrace(1), EXIT STATUS).

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

@test "errors: no such process (exit 3)" {
    pid=4000000
    while kill -0 "$pid" 2>/dev/null; do pid=$((pid + 1)); done
    run --separate-stderr "$HCBTRACE" attach "$pid"
    assert_failure 3
    assert_equal "$stderr" "hcbtrace: no process with pid $pid"
}

@test "errors: a process without libhcbtap (exit 3)" {
    sleep 60 &
    PIDS+=($!)
    run --separate-stderr "$HCBTRACE" attach $!
    assert_failure 3
    [[ "$stderr" == "hcbtrace: process $! (sleep 60) has no libhcbtap loaded, nor a jaxlib whose taps hcbtrace reads: nothing to attach to; programs emit taps by linking libhcbtap (see hcbtap.h), or with JAX's callbacks (jax.debug.print and its kin)" ]]
}

@test "errors: usage errors (exit 2)" {
    run --separate-stderr "$HCBTRACE" attach
    assert_failure 2
    [[ "$stderr" == *"which process?"* ]]
    run --separate-stderr "$HCBTRACE" attach abc
    assert_failure 2
    [[ "$stderr" == *"invalid pid 'abc'"* ]]
    run --separate-stderr "$HCBTRACE" attach -f xml 1
    assert_failure 2
    [[ "$stderr" == *"unknown format 'xml'"* ]]
    run --separate-stderr "$HCBTRACE" attach -b 3 1
    assert_failure 2
    [[ "$stderr" == *"power of two"* ]]
    # 4096 MiB does not fit the kernel's 32 bits (it was a ring of 0 bytes)
    for b in 4096 0 -1 1e3; do
        run --separate-stderr "$HCBTRACE" record -b "$b" -o x.jsonl -p 1
        assert_failure 2
        [[ "$stderr" == *"invalid buffer size '$b': expected a power of two from 1 to 2048 (MiB)"* ]]
    done
    run --separate-stderr "$HCBTRACE" record --max-lag -5 -o x.jsonl -p 1
    assert_failure 2
    [[ "$stderr" == *"invalid max lag '-5': expected a whole number from 0 to 60000"* ]]
    run --separate-stderr "$HCBTRACE" view --max-lag 60001 -p 1
    assert_failure 2
    [[ "$stderr" == *"invalid max lag '60001'"* ]]
    [ ! -e x.jsonl ]
    # a device is any u32 (jax's 2048 on), at most 64 of them
    run --separate-stderr "$HCBTRACE" attach --device 4294967296 1
    assert_failure 2
    run --separate-stderr "$HCBTRACE" attach $(printf -- '--device %d ' $(seq 2048 2112)) 1
    assert_failure 2
    [[ "$stderr" == *"too many --device options (at most 64)"* ]]
    run --separate-stderr "$HCBTRACE" frobnicate
    assert_failure 2
    [[ "$stderr" == *"unknown command 'frobnicate'"* ]]
    run --separate-stderr "$HCBTRACE" attach --nope 1
    assert_failure 2
    [[ "$stderr" == *"unknown option '--nope'"* ]]
}

@test "errors: not enough privilege (exit 4), as an unprivileged user" {
    # copies the nobody user can run, wherever the checkout lives
    local d
    d=$(mktemp -d /tmp/hcb-nobody.XXXXXX)
    chmod 755 "$d"
    cp "$HCBTRACE" "$EXAMPLE" "$d/"
    cp -L "$BUILD"/hcbtap/libhcbtap.so.0 "$d/"
    chmod 755 "$d"/*
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env LD_LIBRARY_PATH="$d" "$@"; }

    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 8
    # another user's process: its memory map is not ours to read
    run --separate-stderr as_nobody "$d/hcbtrace" attach "$EX_PID"
    assert_failure 4
    [[ "$stderr" == *"not enough privilege"* ]]
    # our own process, but no CAP_BPF/CAP_PERFMON: loading BPF is refused
    setpriv --reuid=65534 --regid=65534 --clear-groups env LD_LIBRARY_PATH="$d" \
        "$d/hcb-example" --devices 1 --steps 0 --interval-ms 50 --field-size 8 &
    PIDS+=($!)
    wait_registered $!
    run --separate-stderr as_nobody "$d/hcbtrace" attach $!
    assert_failure 4
    [[ "$stderr" == *"not enough privilege to load BPF programs: this process lacks CAP_BPF and CAP_PERFMON; run as root, or with CAP_BPF and CAP_PERFMON"* ]]
    rm -rf "$d"
}

@test "errors: a kernel without BPF (exit 4)" {
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 8
    run --separate-stderr "$TOOLS/deny-syscall" bpf ENOSYS -- "$HCBTRACE" attach "$EX_PID"
    assert_failure 4
    [[ "$stderr" == *"this kernel cannot run BPF programs"* ]]
}

@test "errors: a kernel without uprobes (exit 4)" {
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 8
    # hide the uprobe event source as a kernel without CONFIG_UPROBE_EVENTS would
    run --separate-stderr unshare -m sh -c \
        'mount -t tmpfs none /sys/bus/event_source/devices && exec "$0" attach "$1"' "$HCBTRACE" "$EX_PID"
    assert_failure 4
    [[ "$stderr" == *"this kernel has no uprobes"* ]]
}

@test "errors: a full disk or a closed pipe on stdout is an error (exit 1)" {
    start_example --devices 2 --steps 0 --interval-ms 10 --field-size 8
    run bash -c '"$0" attach -c 3 "$1" >/dev/full' "$HCBTRACE" "$EX_PID"
    assert_failure 1
    assert_output --partial "hcbtrace: writing to standard output: No space left on device"
    kill -0 "$EX_PID"
    run bash -c '"$0" attach "$1" 2>"$2" | head -2 >/dev/null; echo "${PIPESTATUS[0]}"' \
        "$HCBTRACE" "$EX_PID" "$T/err"
    assert_output 1
    grep -q 'hcbtrace: writing to standard output: Broken pipe' "$T/err"
    kill -0 "$EX_PID"
}
