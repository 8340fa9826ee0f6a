#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# distributed.bats - devices by id, not by a dense array (issue 36): a real
# two-process jax.distributed job on CPU (gloo collectives; jax numbers
# process 1's devices 2048 and 2049), each process recorded by pid, and a
# process of 300 devices, more than the 256 a session holds.  Every value
# is checked against what the program's own callbacks were handed
# (tests/jax/distributed.py writes that truth, tests/tools/check_jaxffi_truth.py
# compares).  Needs the newest jax's venv (HCB_VENV_JAX12).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    PROG=$ROOT/tests/jax/distributed.py
    CHECK=("$PY" "$ROOT/tests/tools/check_jaxffi_truth.py")
}

teardown()
{
    _common_teardown
}

# free_port: a TCP port of this machine nobody listens on now
free_port()
{
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_job N: the N processes of one job, each compiled and waiting for
# $T/go$I; their pids in JOB[I]
start_job()
{
    local i port
    port=$(free_port)
    JOB=()
    for i in $(seq 0 $(( $1 - 1 ))); do
        "$PY" "$PROG" "$i" "$1" "$port" "$T/go$i" "$T/truth$i.jsonl" >"$T/prog$i.out" 2>"$T/prog$i.err" &
        JOB[$i]=$!
        PIDS+=("$!")
    done
    for i in $(seq 0 $(( $1 - 1 ))); do
        wait_for "$T/prog$i.out" '^ready ' 180
    done
}

# record_each N: `hcbtrace record -p` on each process of the job, into
# $T/rec$I.jsonl, until each is attached; the recorders' pids in REC[I]
record_each()
{
    local i
    REC=()
    for i in $(seq 0 $(( $1 - 1 ))); do
        "$HCBTRACE" record -p "${JOB[$i]}" -o "$T/rec$i.jsonl" 2>"$T/rec$i.err" &
        REC[$i]=$!
        PIDS+=("$!")
    done
    for i in $(seq 0 $(( $1 - 1 ))); do
        wait_session "${JOB[$i]}"
    done
}

# finish_job N: let the job run, wait for it and its recorders
finish_job()
{
    local i
    for i in $(seq 0 $(( $1 - 1 ))); do touch "$T/go$i"; done
    for i in $(seq 0 $(( $1 - 1 ))); do
        wait "${JOB[$i]}"
        grep -q '^done [1-9][0-9]*$' "$T/prog$i.out"
    done
    for i in $(seq 0 $(( $1 - 1 ))); do
        wait "${REC[$i]}"
        grep -q 'target exited' "$T/rec$i.err"
    done
}

@test "distributed: two jax.distributed processes recorded by pid: process 1's callbacks on cpu:2048 and cpu:2049, each value the program's" {
    start_job 2
    # the processes' own words: process 1's devices are 2048 and 2049
    grep -qx 'ready 0 0 1' "$T/prog0.out"
    grep -qx 'ready 1 2048 2049' "$T/prog1.out"
    record_each 2
    finish_job 2
    for i in 0 1; do
        # every call a tap, each value what the callback was handed, on its device
        run "${CHECK[@]}" "$T/truth$i.jsonl" "$T/rec$i.jsonl"
        echo "# process $i: $output" >&3
        assert_success
        assert_output --regexp '^truth ([1-9][0-9]*) calls, recording \1 taps, 0 drop records'
    done
    for d in 2048 2049; do
        grep -q "\"type\":\"tap\",\"device\":$d," "$T/rec1.jsonl"
        grep -Eq "^  cpu:$d +[1-9][0-9]* taps .* 0 dropped .* 0 bad$" "$T/rec1.err"
    done
    ! grep -q '"device":[01],' "$T/rec1.jsonl"
    grep -q 'from 2 devices of process' "$T/rec1.err"
    # what a user does with them speaks ids: a filter, the formats, the viewer's text
    run "$HCBTRACE" replay --no-wait --device 2049 -f jsonl "$T/rec1.jsonl"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" -eq "$(grep -c '"type":"tap","device":2049,' "$T/rec1.jsonl")" ]
    ! grep -q '"device":2048,' <<<"$output"
    "$HCBTRACE" convert "$T/rec1.jsonl" -o "$T/rec1.hcbcap"
    "$HCBTRACE" convert "$T/rec1.hcbcap" -o "$T/back.jsonl"
    diff <(grep '"type":"tap"' "$T/rec1.jsonl") <(grep '"type":"tap"' "$T/back.jsonl")
    "$HCBTRACE" convert "$T/rec1.hcbcap" -o "$T/rec1.json"
    python3 "$ROOT/tests/tools/check_timeline.py" "$T/rec1.json" "$T/back.jsonl"
    PYTHONPATH=$ROOT/python "$PY" -c '
import sys
from hcbtap import recording as R
devs = {t.device for t in R.taps(sys.argv[1])}
assert devs == {2048, 2049}, devs' "$T/rec1.hcbcap"
    run "$HCBTRACE" replay --no-wait "$T/rec1.hcbcap"
    assert_success
    assert_output --partial 'device: cpu:2049'
}

@test "distributed: a process of 300 devices: 256 recorded, each call of the others counted \"too many devices\" on its own id" {
    XLA_FLAGS=--xla_force_host_platform_device_count=300 \
        "$PY" "$PROG" 0 1 0 "$T/go0" "$T/truth0.jsonl" --reps 1 >"$T/prog0.out" 2>"$T/prog0.err" &
    JOB=($!)
    PIDS+=("$!")
    wait_for "$T/prog0.out" '^ready ' 180
    record_each 1
    finish_job 1
    # every call a tap, or lost as counted on its device
    run "${CHECK[@]}" "$T/truth0.jsonl" "$T/rec0.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial ', 0 mismatches'
    run python3 - "$T/rec0.jsonl" "$T/truth0.jsonl" <<'EOF'
import collections, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
truth = collections.Counter(json.loads(l)["device"] for l in open(sys.argv[2]))
taps = collections.Counter(r["device"] for r in recs if r["type"] == "tap")
drops = [r for r in recs if r["type"] == "drop"]
over = {d["device"]: d["count"] for d in drops}
assert len(taps) == 256 and len(over) == 44, (len(taps), len(over))
assert set(taps).isdisjoint(over) and set(taps) | set(over) == set(range(300))
assert all(d["reason"] == "too many devices" for d in drops), drops[:3]
for dev, n in truth.items():
    assert taps[dev] + over.get(dev, 0) == n, (dev, taps[dev], over.get(dev), n)
assert recs[-1]["type"] == "end" and recs[-1]["drops"] == sum(over.values()), recs[-1]
print("%d devices recorded, %d counted too many, %d calls lost" % (len(taps), len(over), sum(over.values())))
EOF
    echo "# $output" >&3
    assert_success
    grep -q 'more devices than the 256 a session holds' "$T/rec0.err"
    grep -Eq '^  \(too many devices\) +0 taps +0 bytes +[1-9][0-9]* dropped' "$T/rec0.err"
    grep -q 'from 256 devices of process' "$T/rec0.err"
}
