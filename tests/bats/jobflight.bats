#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# jobflight.bats - one trigger, the whole job's lead-up (cli/trace_job.h):
# record of several processes (--follow, -p A -p B) under --keep-last and
# --until, each process its own ring and file; when one fires, every other
# writes its ring at once, its trigger record ("job") naming the process
# that fired; and --until exit: a traced process that dies abnormally fires.
# Real processes (tests/tools/nan_tapper.c, tests/jax/nan_job.py) through
# real BPF; each recording read back through hcbtap.recording (python/).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run PYTHONPATH=$ROOT/python
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    TAPPER=$TOOLS/nan_tapper
}

teardown()
{
    _common_teardown
}

# step_past FILE N: the tapper's --progress step in FILE is past N
step_past()
{
    [ -s "$1" ] && [ "$(od -An -t d8 "$1" | tr -d ' ')" -gt "$2" ]
}

# the pid a bash -c script wrote to FILE, once written; killed at teardown
pid_in()
{
    retry 30 test -s "$1"
    PIDS+=("$(cat "$1")")
}

# follow_two EXT: record --follow --keep-last of two tappers that tap on
# (into $T/d/PID.EXT), both past step 100; rec, a, b their pids
follow_two()
{
    "$HCBTRACE" record --follow --keep-last 1M --until nonfinite -o "$T/d/%p.$1" -- bash -c "
        '$TAPPER' -n 1 -s 1000000 -i 200 --progress '$T/astep' & echo \$! > '$T/a.pid'
        '$TAPPER' -n 1 -s 1000000 -i 200 --progress '$T/bstep' & echo \$! > '$T/b.pid'
        wait" >"$T/rec.out" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    pid_in "$T/a.pid"
    pid_in "$T/b.pid"
    a=$(cat "$T/a.pid") b=$(cat "$T/b.pid")
    retry 60 step_past "$T/astep" 100
    retry 60 step_past "$T/bstep" 100
}

@test "jobflight: --follow --keep-last --until nonfinite: one process's NaN writes every process's ring, the other's trigger names it" {
    mkdir "$T/d"
    for ext in jsonl hcbcap; do
        rm -f "$T"/d/* "$T"/go "$T"/*.pid "$T"/bstep
        "$HCBTRACE" record --follow --keep-last 1M --until nonfinite -o "$T/d/%p.$ext" -- bash -c "
            '$TAPPER' -n 1 -k 300 -s 400 -i 200 --go '$T/go' & echo \$! > '$T/a.pid'
            '$TAPPER' -n 1 -s 1000000 -i 200 --progress '$T/bstep' & echo \$! > '$T/b.pid'
            wait" >"$T/rec.out" 2>"$T/rec.err" &
        rec=$!
        PIDS+=("$rec")
        pid_in "$T/a.pid"
        pid_in "$T/b.pid"
        # the other one traced and tapping, then the first goes bad
        retry 60 step_past "$T/bstep" 50
        touch "$T/go"
        wait "$rec"
        cat "$T/rec.err" >&3
        a=$(cat "$T/a.pid") b=$(cat "$T/b.pid")
        run "$PY" - "$T/d/$a.$ext" "$T/d/$b.$ext" "$a" <<'EOF'
import sys
from hcbtap.recording import records
a = list(records(sys.argv[1]))
b = list(records(sys.argv[2]))
pid_a = int(sys.argv[3])
# the one that fired: its window ends at its NaN tap, its own trigger
assert [r.kind for r in a[-3:]] == ["tap", "trigger", "end"], [r.kind for r in a[-3:]]
assert a[-3].name == "values" and int(a[-3].leaves[0].flat[0]) == 300
assert a[-2].condition == "nonfinite" and a[-2].by_pid is None, vars(a[-2]) if hasattr(a[-2], "__dict__") else a[-2].condition
ta = [r for r in a if r.kind == "tap"]
assert int(ta[0].leaves[0].flat[0]) < 300 and len(ta) > 100, len(ta)
# the other: its last taps, then a trigger naming the process that fired
assert [r.kind for r in b[-2:]] == ["trigger", "end"], [r.kind for r in b[-2:]]
tb = [r for r in b if r.kind == "tap"]
trig = b[-2]
assert trig.condition == "job" and trig.by_pid == pid_a and trig.seq is None, (trig.condition, trig.by_pid)
assert trig.exit_status is None and trig.exit_signal is None
steps = [int(t.leaves[0].flat[0]) for t in tb if t.name == "step"]
assert len(tb) > 50 and steps == sorted(steps) and steps[-1] > 50, (len(tb), steps[-3:])
assert b[-1].taps == len(tb)
print("fired: %d taps up to step 300; the other: %d taps up to step %d, trigger job by pid %d"
      % (len(ta), len(tb), steps[-1], trig.by_pid))
EOF
        echo "# $ext: $output" >&3
        assert_success
        grep -q "trigger fired" "$T/rec.err"
    done
    # replay says who fired it
    run "$HCBTRACE" replay --no-wait "$T/d/$b.hcbcap"
    assert_success
    assert_line --regexp "^trigger job: fired by pid $a\$"
    # and the job's Parquet events say it too (pyarrow: scripts/lib.sh's)
    HCB_PYTHON=$PY run --separate-stderr "$HCBTRACE" convert "$T/d" -o "$T/job.parquet"
    assert_success
    run "$PY" -c 'import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1]).to_pylist()
print(sorted((r["pid"], r["condition"], r["by_pid"]) for r in t if r["kind"] == "trigger"))' \
        "$T/job.events.parquet"
    assert_output "$(python3 -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); print(sorted([(a, "nonfinite", None), (b, "job", a)]))' "$a" "$b")"
}

# check_job_trigger REC PID: REC holds over 50 taps, then a trigger "job"
# fired by process PID
check_job_trigger()
{
    "$PY" - "$1" "$2" <<'EOF'
import sys
from hcbtap.recording import records
r = list(records(sys.argv[1]))
t = r[-2]
assert t.kind == "trigger" and t.condition == "job" and t.by_pid == int(sys.argv[2]), (t.kind, getattr(t, "condition", None))
assert len([x for x in r if x.kind == "tap"]) > 50
EOF
}

# check_exit REC SIG: REC ends with taps, a trigger "exit" by signal SIG
check_exit()
{
    "$PY" - "$1" "$2" <<'EOF'
import sys
from hcbtap.recording import records
r = list(records(sys.argv[1]))
assert [x.kind for x in r[-2:]] == ["trigger", "end"], [x.kind for x in r[-3:]]
t = r[-2]
assert t.condition == "exit" and t.exit_signal == int(sys.argv[2]) and t.exit_status is None, \
    (t.condition, t.exit_signal, t.exit_status)
assert t.seq is None and t.by_pid is None
taps = [x for x in r if x.kind == "tap"]
steps = [int(x.leaves[0].flat[0]) for x in taps if x.name == "step"]
assert len(taps) > 50 and steps == sorted(steps) and r[-1].taps == len(taps), len(taps)
print("%d taps up to step %d, then exit by signal %s" % (len(taps), steps[-1], sys.argv[2]))
EOF
}

@test "jobflight: --until exit: a process killed by SIGKILL fires its ring with an exit trigger; the job's others name it; a clean end fires nothing" {
    # one process, record -- CMD: the status is waitpid's
    "$HCBTRACE" record --keep-last 1M --until nonfinite -o "$T/s.jsonl" -- \
        "$TAPPER" -n 1 -s 1000000 -i 200 --progress "$T/step" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    retry 60 step_past "$T/step" 100
    kill -KILL "$(pgrep -P "$rec" -f nan_tapper)"
    # CMD ended by itself: its status is record's (128 + 9)
    st=0
    wait "$rec" || st=$?
    [ "$st" -eq 137 ]
    grep -q "trigger fired" "$T/rec.err"
    run check_exit "$T/s.jsonl" 9
    echo "# record -- CMD: $output" >&3
    assert_success
    run "$HCBTRACE" replay --no-wait "$T/s.jsonl"
    assert_line "trigger exit: killed by signal 9"
    # --follow: a grandchild, reaped by bash: the kernel says its status
    mkdir "$T/d"
    follow_two "hcbcap"
    kill -KILL "$b"
    wait "$rec"
    run check_exit "$T/d/$b.hcbcap" 9
    echo "# --follow: $output" >&3
    assert_success
    run check_job_trigger "$T/d/$a.hcbcap" "$b"
    assert_success
    # a clean end (status 0) fires nothing: nothing recorded, said
    run --separate-stderr "$HCBTRACE" record --keep-last 1M --until nonfinite -o "$T/c.jsonl" -- \
        "$TAPPER" -n 1 -s 50 -i 200
    assert_success
    [[ "$stderr" == *"no tap met --until before the session ended: nothing was recorded"* ]]
    [ ! -s "$T/c.jsonl" ]
}

@test "jobflight: a two-process jax.distributed job, NaN on process 1: each process's file holds its lead-up to that step, the trigger naming process 1" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    local jpy=$PY port i
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir "$T/d"
    # NaN on device 2049 (process 1) at step 5 of 60, kept from spreading
    # to process 0: were process 0's NaN of step 6 read before process 1's
    # of step 5 (a busy reader), process 0 would fire first, rightly
    "$HCBTRACE" record --follow --keep-last 64M --until nonfinite -o "$T/d/taps-%r.jsonl" -- bash -c "
        for i in 0 1; do
            NAN_JOB_SPREAD=0 SLURM_PROCID=\$i SLURM_NTASKS=2 $jpy $ROOT/tests/jax/nan_job.py \$i 2 $port $T/go 2049 5 60 \
                >$T/prog\$i.out 2>$T/prog\$i.err &
            echo \$! > $T/p\$i.pid
        done
        wait" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    for i in 0 1; do pid_in "$T/p$i.pid"; wait_for "$T/prog$i.out" '^ready ' 300; done
    touch "$T/go"
    wait "$rec"
    cat "$T/rec.err" >&3
    run "$PY" - "$T/d/taps-0.jsonl" "$T/d/taps-1.jsonl" "$(cat "$T/p1.pid")" <<'EOF'
import math, sys
from hcbtap.recording import records

def steps(recs):
    """each device's steps, in order (the callback's first operand)"""
    out = {}
    for t in recs:
        if t.kind == "tap":
            out.setdefault(t.device, []).append(int(t.leaves[0].flat[0]))
    return out

r0, r1 = list(records(sys.argv[1])), list(records(sys.argv[2]))
# process 1: its lead-up, whole per device, to the tap that went NaN
t1 = r1[-2]
assert [r.kind for r in r1[-2:]] == ["trigger", "end"]
assert t1.condition == "nonfinite" and t1.device == 2049 and t1.by_pid is None, t1.condition
s1 = steps(r1)
assert set(s1) <= {2048, 2049} and s1[2049][-1] == 5, s1
assert s1[2049] == list(range(-1, 6)), s1[2049]
# process 0: its own lead-up up to that step, the trigger naming process 1
t0 = r0[-2]
assert [r.kind for r in r0[-2:]] == ["trigger", "end"]
assert t0.condition == "job" and t0.by_pid == int(sys.argv[3]) and t0.by_process == 1, \
    (t0.condition, t0.by_pid, t0.by_process)
s0 = steps(r0)
assert set(s0) == {0, 1}, s0
# as far as hcbtrace had read process 0 when process 1 fired (a busy
# reader may be a few steps behind: its ring's unread taps are not waited
# for), whole and in order
for dev, st in s0.items():
    assert st == list(range(-1, st[-1] + 1)) and st[-1] >= 0, (dev, st)
# no NaN in process 0's window: none ever reached it
assert all(not math.isnan(float(t.leaves[1].flat[0])) for t in r0 if t.kind == "tap")
print("process 1: steps %s on 2049, trigger nonfinite; process 0: up to step %s, trigger job by process %d"
      % (s1[2049], {d: s[-1] for d, s in s0.items()}, t0.by_process))
EOF
    echo "# $output" >&3
    assert_success
}

@test "jobflight: record -p A -p B of processes not hcbtrace's children: a SIGKILL fires (the kernel says the status), the other's ring names it; -p alone alike" {
    "$TAPPER" -n 1 -s 1000000 -i 200 --progress "$T/astep" 2>/dev/null &
    a=$!
    PIDS+=("$a")
    "$TAPPER" -n 1 -s 1000000 -i 200 --progress "$T/bstep" 2>/dev/null &
    b=$!
    PIDS+=("$b")
    "$HCBTRACE" record -p "$a" -p "$b" --keep-last 1M --until nonfinite -o "$T/%p.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$a"
    wait_session "$b"
    s=$(od -An -t d8 "$T/bstep" | tr -d ' ')
    retry 60 step_past "$T/bstep" $((s + 100))
    kill -KILL "$b"
    wait "$rec"
    run check_exit "$T/$b.jsonl" 9
    echo "# -p A -p B: $output" >&3
    assert_success
    run check_job_trigger "$T/$a.jsonl" "$b"
    assert_success
    # one -p: the same watch
    "$HCBTRACE" record -p "$a" --keep-last 1M --until nonfinite -o "$T/one.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$a"
    s=$(od -An -t d8 "$T/astep" | tr -d ' ')
    retry 60 step_past "$T/astep" $((s + 300))
    kill -KILL "$a"
    wait "$rec"
    run check_exit "$T/one.jsonl" 9
    echo "# -p: $output" >&3
    assert_success
}

@test "jobflight: hcbtrace dump of a job's process writes every process's ring, each with a signal trigger" {
    mkdir "$T/d"
    follow_two "jsonl"
    run --separate-stderr "$HCBTRACE" dump "$a"
    assert_success
    wait "$rec"
    for p in "$a" "$b"; do
        run "$PY" - "$T/d/$p.jsonl" <<'EOF'
import sys
from hcbtap.recording import records
r = list(records(sys.argv[1]))
assert [x.kind for x in r[-2:]] == ["trigger", "end"] and r[-2].condition == "signal", r[-2].kind
taps = [x for x in r if x.kind == "tap"]
assert len(taps) > 50 and r[-1].taps == len(taps)
print("%d taps, signal" % len(taps))
EOF
        echo "# $p: $output" >&3
        assert_success
    done
}

@test "jobflight: usage: --rearm and --on-trigger stop stay one process's; --keep-last still needs a condition; --until exit is one" {
    run --separate-stderr "$HCBTRACE" record --follow --keep-last 1M --until nonfinite --rearm 2 -o "$T/%p.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"--rearm arms one process's ring again: with several processes each ring is written once"* ]]
    run --separate-stderr "$HCBTRACE" record -p 1 -p 2 --keep-last 1M --until nonfinite --on-trigger stop -o "$T/%p.jsonl"
    assert_failure 2
    [[ "$stderr" == *"--on-trigger stop stops one process: with several processes"* ]]
    run --separate-stderr "$HCBTRACE" record --follow --keep-last 1M -o "$T/%p.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"--keep-last holds taps back until something fires: give --until COND"* ]]
    run --separate-stderr "$HCBTRACE" record --follow --keep-last 1M --until nonfinite -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"name them apart with %p (pid) or %r (process index)"* ]]
    # --until exit alone: a condition; a clean end fires nothing
    run --separate-stderr "$HCBTRACE" record --keep-last 1M --until exit -o "$T/e.jsonl" -- "$TAPPER" -n 1 -s 20 -i 0
    assert_success
    [[ "$stderr" == *"nothing was recorded"* ]]
    [ ! -s "$T/e.jsonl" ]
}
