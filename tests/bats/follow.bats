#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# follow.bats - the whole job with one command (issue 36): `record -p A -p
# B` of running processes and `record --follow -- CMD` of a launcher and
# every process it starts (through fork, and exec in a child or in CMD
# itself), one recording a process named by -o's patterns.  Real hcb
# examples and a real two-process jax.distributed job (HCB_VENV_JAX12),
# each recording checked against the truth its process wrote.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    mkdir -p "$T/d"
    HOST=$(uname -n)
}

teardown()
{
    _common_teardown
}

# devices_of REC: the devices REC's taps came from, sorted, one line
devices_of()
{
    grep -o '"type":"tap","device":[0-9]*' "$1" | cut -d: -f3 | sort -un | tr '\n' ' '
}

@test "follow: record -p A -p B: one recording a process, each exactly its own taps" {
    start_example --devices 2 --steps 0 --interval-ms 10 --field-size 64 --truth "$T/truthA.jsonl"
    A=$EX_PID
    start_example --devices 1 --steps 0 --interval-ms 10 --field-size 64 --truth "$T/truthB.jsonl"
    B=$EX_PID
    # a count each: each session ends at its own, and the command when both have
    run --separate-stderr "$HCBTRACE" record -p "$A" -p "$B" -o "$T/d/taps-%p.jsonl" -c 150
    assert_success
    kill -TERM "$A" "$B"; wait "$A" "$B" || true
    [ "$(ls "$T/d" | wc -l)" -eq 2 ]
    [ "$(grep -c 'count reached' <<<"$stderr")" -eq 2 ]
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/taps-$A.jsonl" "$T/truthA.jsonl" --devices 2
    assert_success
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/taps-$B.jsonl" "$T/truthB.jsonl" --devices 1
    assert_success
    for p in "$A" "$B"; do
        head -1 "$T/d/taps-$p.jsonl" | grep -q "^{\"type\":\"session\",\"version\":1,\"pid\":$p,"
        [ "$(grep -c '"type":"tap"' "$T/d/taps-$p.jsonl")" -eq 150 ]
        tail -1 "$T/d/taps-$p.jsonl" | grep -q '^{"type":"end","taps":1[5-9][0-9],'
    done
    [ "$(devices_of "$T/d/taps-$A.jsonl")" = "0 1 " ]
    [ "$(devices_of "$T/d/taps-$B.jsonl")" = "0 " ]
}

@test "follow: record --follow -- a shell starting 3 workers (one by exec): each worker's every tap, in its own file" {
    local e=$EXAMPLE args="--steps 4 --interval-ms 0 --field-size 100"
    run --separate-stderr "$HCBTRACE" record --follow -o "$T/d/%p.jsonl" -- bash -c "
        $e --devices 1 $args --truth $T/t1.jsonl >/dev/null & echo \$! >$T/pid1
        ( $e --devices 2 $args --truth $T/t2.jsonl >/dev/null ) & echo \$! >$T/pid2sub
        wait
        echo \$\$ >$T/pid3
        exec $e --devices 3 $args --truth $T/t3.jsonl >/dev/null"
    assert_success
    # the shell loaded no provider's library: no file of its own, until its exec
    [ "$(ls "$T/d" | wc -l)" -eq 3 ]
    [ "$(grep -c 'target exited' <<<"$stderr")" -eq 3 ]
    # worker 2 is the subshell's child, a grandchild of the command: the one other file
    rec2=$(ls "$T/d" | grep -vx -e "$(cat "$T/pid1").jsonl" -e "$(cat "$T/pid3").jsonl")
    [ "$(wc -w <<<"$rec2")" -eq 1 ]
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/$(cat "$T/pid1").jsonl" "$T/t1.jsonl" --all --devices 1
    assert_success
    assert_output --partial "ok: 20 taps"
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/$rec2" "$T/t2.jsonl" --all --devices 2
    assert_success
    assert_output --partial "ok: 40 taps"
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/$(cat "$T/pid3").jsonl" "$T/t3.jsonl" --all --devices 3
    assert_success
    assert_output --partial "ok: 60 taps"
}

@test "follow: a worker whose parent left it (a daemon's double fork) is followed to its end, and CMD's status is record's" {
    run --separate-stderr "$HCBTRACE" record --follow -o "$T/d/%p.jsonl" -- bash -c "
        ( $EXAMPLE --devices 2 --steps 30 --interval-ms 10 --field-size 8 --truth $T/t.jsonl \
            >/dev/null & echo \$! >$T/pid ) ; exit 3"
    assert_failure 3
    # record ended with the worker, not with CMD: the worker's truth is whole
    [ -s "$T/t.jsonl" ]
    [ "$(ls "$T/d")" = "$(cat "$T/pid").jsonl" ]
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/$(cat "$T/pid").jsonl" "$T/t.jsonl" --all --devices 2
    assert_success
    assert_output --partial "ok: 300 taps"
}

@test "follow: -d ends every process's session, and CMD (SIGTERM), as record -- CMD does" {
    run --separate-stderr "$HCBTRACE" record --follow -d 2 -o "$T/d/%p.jsonl" -- bash -c "
        $EXAMPLE --devices 1 --steps 0 --interval-ms 10 --field-size 4 >/dev/null & echo \$! >$T/pid1
        $EXAMPLE --devices 2 --steps 0 --interval-ms 10 --field-size 4 >/dev/null & echo \$! >$T/pid2
        wait"
    # bash, ended by SIGTERM: 128 + 15
    assert_failure 143
    PIDS+=("$(cat "$T/pid1")" "$(cat "$T/pid2")")
    [ "$(grep -c 'duration reached' <<<"$stderr")" -eq 2 ]
    for i in 1 2; do
        tail -1 "$T/d/$(cat "$T/pid$i").jsonl" | grep -q '^{"type":"end","taps":[1-9]'
        [ "$(devices_of "$T/d/$(cat "$T/pid$i").jsonl" | wc -w)" -eq "$i" ]
    done
}

@test "follow: SIGINT to hcbtrace ends every session, each file whole, and CMD" {
    "$HCBTRACE" record --follow -o "$T/d/%p.jsonl" -- bash -c "
        $EXAMPLE --devices 1 --steps 0 --interval-ms 10 --field-size 4 >/dev/null & echo \$! >$T/pid1.tmp
        mv $T/pid1.tmp $T/pid1
        wait" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    retry 60 test -s "$T/pid1"
    PIDS+=("$(cat "$T/pid1")")
    wait_session "$(cat "$T/pid1")"
    # a tap written first: the summary must count some
    retry 60 grep -q '"type":"tap"' "$T/d/$(cat "$T/pid1").jsonl"
    kill -INT "$rec"
    st=0
    wait "$rec" || st=$?
    # bash, ended by SIGTERM: 128 + 15
    assert_equal "$st" 143
    grep -q 'interrupted: [1-9][0-9]* taps' "$T/rec.err"
    tail -1 "$T/d/$(cat "$T/pid1").jsonl" | grep -q '^{"type":"end","taps":[1-9]'
}

@test "follow: a traced process that execs a new program is followed into it, its new recording NAME.1" {
    # a process attached on its libhcbtap, that then becomes an example
    run --separate-stderr "$HCBTRACE" record --follow -o "$T/d/w-%p.jsonl" -- python3 -c "
import ctypes, os, sys
ctypes.CDLL('$BUILD/hcbtap/libhcbtap.so')
print(os.getpid(), flush=True)
# until its session is there (hcbtrace list), then the exec
while os.system('$HCBTRACE list 2>/dev/null | grep -A9 \"^%d \" | grep -q \"sessions: [1-9]\"' % os.getpid()):
    pass
os.execv('$EXAMPLE', ['hcb-example', '-n', '1', '-s', '100', '-i', '10', '--field-size', '16',
         '--truth', '$T/truth.jsonl'])"
    echo "# $stderr" >&3
    assert_success
    pid=$output
    [ "$(ls "$T/d" | tr '\n' ' ')" = "w-$pid.1.jsonl w-$pid.jsonl " ]
    [[ "$stderr" == *"target exec'd a new program (followed into it): 0 taps"* ]]
    [[ "$stderr" == *"target exited: "*" of process $pid (hcb-example "* ]]
    # its taps from the attach on, each as sent, to the last
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/d/w-$pid.1.jsonl" "$T/truth.jsonl" --devices 1
    assert_success
    last() { grep '"type":"tap"' "$1" | tail -1 | grep -o '"seq":[0-9]*'; }
    [ "$(last "$T/d/w-$pid.1.jsonl")" = "$(last "$T/truth.jsonl")" ]
}

@test "follow: CMD's exit status, and a launcher of 100 processes that load nothing writes nothing" {
    run --separate-stderr "$HCBTRACE" record --follow -o "$T/d/%p.jsonl" -- \
        bash -c 'for i in $(seq 100); do /bin/true; done; exit 7'
    assert_failure 7
    # the kernel said the forks (no word of /proc), as it does without tracefs
    assert_equal "$stderr" ""
    [ "$(ls -A "$T/d" | wc -l)" -eq 0 ]
    run --separate-stderr no_tracefs "$HCBTRACE" record --follow -o "$T/d/%p.jsonl" -- \
        bash -c "$EXAMPLE --devices 1 --steps 2 --interval-ms 0 --field-size 4 >/dev/null; exit 5"
    assert_failure 5
    [[ "$stderr" != *"looked for in /proc"* ]]
    [ "$(ls -A "$T/d" | wc -l)" -eq 1 ]
    [ "$(grep -c '"type":"tap"' "$T/d/"*.jsonl)" -eq 10 ]
}

# follow_job N: a jax.distributed job of N processes, started by a shell
# as srun would (each told its place by SLURM's variables), under record
# --follow: each process's file holds every callback it was handed, from
# the first, and names it as its jax does
follow_job()
{
    local n=$1 prog=$ROOT/tests/jax/distributed.py port i
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$HCBTRACE" record --follow -o "$T/d/taps-%h-%r.jsonl" -- bash -c "
        for i in \$(seq 0 $((n - 1))); do
            SLURM_PROCID=\$i SLURM_NTASKS=$n $PY $prog \$i $n $port $T/go\$i $T/truth\$i.jsonl \
                --truth-all >$T/prog\$i.out 2>$T/prog\$i.err &
        done
        wait" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    for i in $(seq 0 $((n - 1))); do wait_for "$T/prog$i.out" '^ready ' 180; done
    for i in $(seq 0 $((n - 1))); do touch "$T/go$i"; done
    wait "$rec"
    [ "$(ls "$T/d" | wc -l)" -eq "$n" ]
    for i in $(seq 0 $((n - 1))); do
        grep -q '^done [1-9][0-9]*$' "$T/prog$i.out"
        # every call a tap, from the first (the program's warm-up too), each value its own
        run "$PY" "$ROOT/tests/tools/check_jaxffi_truth.py" "$T/truth$i.jsonl" "$T/d/taps-$HOST-$i.jsonl"
        echo "# process $i: $output" >&3
        assert_success
        assert_output --regexp '^truth ([1-9][0-9]*) calls, recording \1 taps, 0 drop records'
        # who it is: as its jax says
        run env PYTHONPATH="$ROOT/python" "$PY" - "$T/d/taps-$HOST-$i.jsonl" "$i" "$n" "$HOST" <<'EOF'
import sys
from hcbtap.recording import Recording
r = Recording(sys.argv[1])
taps = [x for x in r if x.kind == "tap"]
s, i, n = r.session, int(sys.argv[2]), int(sys.argv[3])
assert s.host == sys.argv[4], s.host
assert (s.process.index, s.process.count) == (i, n), s.process
want = {2048 * i, 2048 * i + 1}
assert {d.global_id for d in s.devices} <= want, s.devices
assert {t.device for t in taps} == want
print("process %d of %d (%s)" % (s.process.index, s.process.count, s.process.source))
EOF
        echo "# $output" >&3
        assert_success
    done
}

@test "follow: a two-process jax.distributed job started by a shell: every callback of each process, named by index" {
    follow_job 2
}

@test "follow: a four-process jax.distributed job started by a shell: the same for each" {
    follow_job 4
}

@test "follow: record -p A -p B of a running two-process jax.distributed job: each process's every callback, by index" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    local prog=$ROOT/tests/jax/distributed.py port i
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    for i in 0 1; do
        "$PY" "$prog" "$i" 2 "$port" "$T/go$i" "$T/truth$i.jsonl" >"$T/prog$i.out" 2>"$T/prog$i.err" &
        JOB[$i]=$!
        PIDS+=("$!")
    done
    for i in 0 1; do wait_for "$T/prog$i.out" '^ready ' 180; done
    # compiled and waiting: the index is jax's own word by now
    "$HCBTRACE" record -p "${JOB[0]}" -p "${JOB[1]}" -o "$T/d/taps-%r.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    for i in 0 1; do wait_session "${JOB[$i]}"; done
    touch "$T/go0" "$T/go1"
    for i in 0 1; do wait "${JOB[$i]}"; done
    wait "$rec"
    [ "$(grep -c 'target exited' "$T/rec.err")" -eq 2 ]
    for i in 0 1; do
        run "$PY" "$ROOT/tests/tools/check_jaxffi_truth.py" "$T/truth$i.jsonl" "$T/d/taps-$i.jsonl"
        echo "# process $i: $output" >&3
        assert_success
        assert_output --regexp '^truth ([1-9][0-9]*) calls, recording \1 taps, 0 drop records'
        head -1 "$T/d/taps-$i.jsonl" | grep -q "\"pid\":${JOB[$i]},.*\"process\":{\"index\":$i,\"count\":2,\"source\":\"jax\"}"
    done
}

@test "follow: usage errors: several processes need %p or %r in -o, --follow a command" {
    run --separate-stderr "$HCBTRACE" record -p 1 -p 2 -o "$T/x.jsonl"
    assert_failure 2
    assert_equal "$stderr" "hcbtrace: several processes are recorded, one file each: name them apart with %p (pid) or %r (process index) in -o, such as -o 'run/taps-%h-%p.jsonl'
Try 'hcbtrace record --help'."
    run --separate-stderr "$HCBTRACE" record --follow -o "$T/%%p.hcbcap" -- true
    assert_failure 2
    [[ "$stderr" == *"-o 'run/taps-%h-%p.hcbcap'"* ]]
    run --separate-stderr "$HCBTRACE" record --follow -p 1 -o "$T/%p.jsonl"
    assert_failure 2
    [[ "$stderr" == *"--follow follows a command hcbtrace starts"* ]]
    run --separate-stderr "$HCBTRACE" record -p 1 -p 1 -o "$T/%p.jsonl"
    assert_failure 2
    [[ "$stderr" == *"process 1 is given twice (-p)"* ]]
    run --separate-stderr "$HCBTRACE" record -p 1 -p 2 -o "$T/%p.jsonl" --keep-last 1M --until nonfinite --rearm 2
    assert_failure 2
    [[ "$stderr" == *"--rearm arms one process's ring again: with several processes"* ]]
    [ ! -e "$T/x.jsonl" ]
}
