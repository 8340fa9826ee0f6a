#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# identity.bats - who each process is (issue 36): real processes whose
# launcher's environment the test sets (SLURM, Open MPI, torchrun,
# Kubernetes), the flags, a UTS namespace of its own, a hostile
# environment, a real 2-process jax.distributed job; each recording's
# session record (JSONL, .hcbcap and the Python reader) names the host, the
# process's index, count and source, the job and the devices; attach and
# replay say who the process is first; output names with patterns.

load common

setup()
{
    _common_setup
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    export PYTHONPATH=$ROOT/python
    HOST=$(uname -n)
}

teardown()
{
    _common_teardown
}

# session REC: the last session record of REC, as the Python reader reads
# it, in one line: host|index|count|source|job|devices (device:global:platform,...)
session()
{
    "$PY" - "$1" <<'EOF'
import sys
from hcbtap.recording import Recording
r = Recording(sys.argv[1])
sessions = [x for x in r if x.kind == "session"]
s = r.session
assert s is sessions[-1]
p = s.process
print("|".join(str(v) for v in (s.host, p and p.index, p and p.count, p and p.source, s.job,
      ",".join("%d:%s:%s" % (d.device, d.global_id, d.platform) for d in sorted(s.devices)))))
EOF
}

@test "identity: SLURM's environment, in JSONL, .hcbcap, the Python reader, replay's header" {
    for ext in jsonl hcbcap; do
        SLURM_PROCID=1 SLURM_NTASKS=4 SLURM_JOB_ID=81723 run --separate-stderr \
            "$HCBTRACE" record -o "$T/s.$ext" -- "$EXAMPLE" -n 2 -s 3 -i 10 --field-size 4
        assert_success
        run session "$T/s.$ext"
        assert_success
        assert_output "$HOST|1|4|slurm|81723|0:None:cpu,1:None:cpu"
    done
    # the first record already says who; the JSONL keys as JSONL.md names them
    head -1 "$T/s.jsonl" | grep -q '"host":"'"$HOST"'","process":{"index":1,"count":4,"source":"slurm"},"job":"81723"'
    grep -q '"devices":\[{"device":0,"platform":"cpu"},{"device":1,"platform":"cpu"}\]\|"devices":\[{"device":1,"platform":"cpu"},{"device":0,"platform":"cpu"}\]' "$T/s.jsonl"
    # replay and convert keep it; replay's text says who first
    run "$HCBTRACE" replay --no-wait "$T/s.jsonl"
    assert_success
    assert_line --index 0 "# process 1 of 4 (slurm), host $HOST, pid $(head -1 "$T/s.jsonl" | sed -E 's/.*"pid":([0-9]+).*/\1/'), job 81723"
    [ "$(grep -c '^# process' <<<"$output")" -eq 1 ]
    "$HCBTRACE" convert "$T/s.hcbcap" -o "$T/copy.hcbcap"
    cmp "$T/s.hcbcap" "$T/copy.hcbcap"
    "$HCBTRACE" convert "$T/s.hcbcap" -o "$T/back.jsonl"
    run session "$T/back.jsonl"
    assert_output "$HOST|1|4|slurm|81723|0:None:cpu,1:None:cpu"
}

@test "identity: Open MPI, torchrun, Kubernetes; the innermost launcher's word" {
    OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=3 SLURM_PROCID=0 SLURM_NTASKS=1 \
        "$HCBTRACE" record -q -o "$T/o.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    run session "$T/o.jsonl"
    assert_output "$HOST|2|3|openmpi|None|0:None:cpu"
    RANK=5 WORLD_SIZE=8 TORCHELASTIC_RUN_ID=run-7 SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_JOB_ID=9 \
        "$HCBTRACE" record -q -o "$T/t.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    run session "$T/t.jsonl"
    assert_output "$HOST|5|8|torchrun|9|0:None:cpu"
    # an Indexed Job says no count: --process-count gives it
    JOB_COMPLETION_INDEX=3 "$HCBTRACE" record -q --process-count 6 -o "$T/k.jsonl" -- \
        "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    run session "$T/k.jsonl"
    assert_output "$HOST|3|6|kubernetes|None|0:None:cpu"
}

@test "identity: the flags where nothing says; a flag a launcher contradicts is told, not taken" {
    run --separate-stderr "$HCBTRACE" record --process-index 2 --process-count 3 --job nightly \
        -o "$T/f.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_success
    [[ "$stderr" != *"differs"* ]]
    run session "$T/f.jsonl"
    assert_output "$HOST|2|3|flag|nightly|0:None:cpu"
    SLURM_PROCID=1 SLURM_NTASKS=4 run --separate-stderr "$HCBTRACE" record --process-index 2 \
        -o "$T/g.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_success
    [[ "$stderr" == *"--process-index 2 differs from what slurm says (1 of 4): slurm's is recorded"* ]]
    run session "$T/g.jsonl"
    assert_output "$HOST|1|4|slurm|None|0:None:cpu"
    # checked before anything starts
    run "$HCBTRACE" record --process-index 3 --process-count 3 -o "$T/x.jsonl" -- true
    assert_failure 2
    assert_output --partial "--process-index 3 is not below --process-count 3"
    run "$HCBTRACE" attach --job 'a b' 1
    assert_failure 2
    run "$HCBTRACE" attach --process-count 0 1
    assert_failure 2
}

@test "identity: a launcher's variables that do not check out name no process, and say why" {
    SLURM_PROCID=7 SLURM_NTASKS=4 run --separate-stderr "$HCBTRACE" record \
        -o "$T/h.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_success
    [[ "$stderr" == *"SLURM_NTASKS is not a process count above SLURM_PROCID: no process index taken"* ]]
    run session "$T/h.jsonl"
    assert_output "$HOST|None|None|None|None|0:None:cpu"
    ! grep -q '"process"' "$T/h.jsonl"
    # a MiB of environment, a value with a control: read within its bound
    local pads=() i
    for i in $(seq 16); do
        pads+=("PAD$i=$(printf '%*s' 65536 '' | tr ' ' x)")
    done
    run --separate-stderr env "${pads[@]}" SLURM_PROCID=$'1\n' SLURM_NTASKS=4 \
        "$HCBTRACE" record -o "$T/i.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_success
    [[ "$stderr" == *"SLURM_PROCID is not a process index"* ]]
}

@test "identity: a process in a UTS namespace of its own is named by its host there" {
    command -v unshare >/dev/null || skip "no unshare"
    unshare -u true 2>/dev/null || skip "no right to make a UTS namespace"
    SLURM_PROCID=0 SLURM_NTASKS=2 unshare -u sh -c 'hostname hcb-uts-test && exec "$0" "$@"' \
        "$HCBTRACE" record -q -o "$T/u.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    run session "$T/u.jsonl"
    assert_output "hcb-uts-test|0|2|slurm|None|0:None:cpu"
    # hcbtrace inside the namespace read its own; now one outside reads in it
    unshare -u sh -c 'hostname hcb-uts-other && exec "$0" "$@"' "$EXAMPLE" -n 1 -s 0 -i 20 \
        --field-size 4 >/dev/null 2>&1 &
    PIDS+=("$!")
    wait_registered "$!"
    "$HCBTRACE" record -q -c 4 -o "$T/v.jsonl" -p "$!"
    run session "$T/v.jsonl"
    assert_output --regexp '^hcb-uts-other\|None\|None\|None\|None\|'
    [ "$(uname -n)" = "$HOST" ]
}

@test "identity: attach says who the process is first, where its job has several" {
    SLURM_PROCID=3 SLURM_NTASKS=8 SLURM_JOB_ID=5 start_example -n 1 -s 0 -i 20 --field-size 4
    run --separate-stderr "$HCBTRACE" attach -c 3 "$EX_PID"
    assert_success
    assert_line --index 0 "# process 3 of 8 (slurm), host $HOST, pid $EX_PID, job 5"
    [ "$(grep -c '^# process' <<<"$output")" -eq 1 ]
    # one process alone: nothing said
    start_example -n 1 -s 0 -i 20 --field-size 4
    run --separate-stderr "$HCBTRACE" attach -c 3 "$EX_PID"
    assert_success
    [ "$(grep -c '^#' <<<"$output")" -eq 0 ]
}

@test "identity: output names with patterns, checked" {
    mkdir "$T/run"
    SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_JOB_ID=77 run --separate-stderr "$HCBTRACE" record \
        -o "$T/run/taps-%h-%r-%q{SLURM_JOB_ID}-%%.hcbcap" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_success
    [ -f "$T/run/taps-$HOST-1-77-%.hcbcap" ]
    ! ls -A "$T/run" | grep -q tmp
    # %p; an index not known: pid and the pid
    run --separate-stderr "$HCBTRACE" record -o "$T/run/p%p-r%r.jsonl" -- "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_success
    pid=$(head -1 "$T/run"/p*-r*.jsonl | sed -E 's/.*"pid":([0-9]+).*/\1/')
    [ -f "$T/run/p$pid-rpid$pid.jsonl" ]
    # a value with a '/', or that makes "..": refused, nothing written
    EVIL=../../etc run --separate-stderr "$HCBTRACE" record -o "$T/run/x-%q{EVIL}.jsonl" -- \
        "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_failure 2
    [[ "$stderr" == *"EVIL holds a '/'"* ]]
    DOTS=.. run --separate-stderr "$HCBTRACE" record -o "$T/run/%q{DOTS}/x.jsonl" -- \
        "$EXAMPLE" -n 1 -s 2 -i 0 --field-size 4
    assert_failure 2
    [ "$(ls -A "$T/run" | wc -l)" -eq 2 ]
    [ ! -e "$T/x.jsonl" ]
    # a name that is no pattern is taken as it is
    "$HCBTRACE" record -q -o "$T/run/50%x.jsonl" -- "$EXAMPLE" -n 1 -s 1 -i 0 --field-size 4
    [ -f "$T/run/50%x.jsonl" ]
}

# start_job N PORT: N processes of tests/jax/job_who.py, each told by
# SLURM's variables it is the other end's (process i: N - 1 - i); JOB_PIDS,
# their JSON lines in $T/d<i>.out
start_job()
{
    local n=$1 port=$2 i
    JOB_PIDS=()
    for ((i = 0; i < n; i++)); do
        SLURM_PROCID=$((n - 1 - i)) SLURM_NTASKS=$n \
            "$PY" "$ROOT/tests/jax/job_who.py" "$port" "$i" "$n" "$T/stop" \
            >"$T/d$i.out" 2>"$T/d$i.err" &
        JOB_PIDS+=("$!")
        PIDS+=("$!")
    done
    for ((i = 0; i < n; i++)); do
        wait_for "$T/d$i.out" '"process_index"' 180
    done
}

@test "identity: a jax.distributed job: each process named as its jax says, over its environment" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax 0.12"
    port=$((20000 + RANDOM % 20000))
    # the environment says the opposite: jax's word is taken, and told
    start_job 2 "$port"
    for k in 0 1; do
        want="jax says process $k of 2, the slurm environment $((1 - k)) of 2: jax's is recorded"
        run --separate-stderr "$HCBTRACE" record -d 2 -o "$T/j$k.jsonl" -p "${JOB_PIDS[$k]}"
        assert_success
        [[ "$stderr" == *"$want"* ]]
    done
    touch "$T/stop"
    for k in 0 1; do
        run "$PY" - "$T/j$k.jsonl" "$T/d$k.out" "$HOST" <<'EOF'
import json, sys
from hcbtap.recording import Recording
r = Recording(sys.argv[1])
taps = [x for x in r if x.kind == "tap"]
s, me = r.session, json.loads(open(sys.argv[2]).readline())
assert s.host == sys.argv[3], s.host
assert s.process == (me["process_index"], me["process_count"], "jax"), (s.process, me)
# its devices are the process's own, by jax's global id (process 1's:
# 2048, 2049), on cpu, and its taps come from them
assert all(d.global_id == d.device and d.platform == "cpu" for d in s.devices), s.devices
assert sorted(d.device for d in s.devices) == me["local_devices"], (s.devices, me)
assert taps and {t.device for t in taps} == set(me["local_devices"]), {t.device for t in taps}
print("process %d of %d: devices %s, %d taps" % (s.process.index, s.process.count,
      [d.global_id for d in s.devices], len(taps)))
EOF
        echo "# $output" >&3
        assert_success
    done
    for p in "${JOB_PIDS[@]}"; do wait "$p"; done
}

@test "identity: record -- CMD of a jax process whose job only its jax names: said at its first tap" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax 0.12"
    port=$((20000 + RANDOM % 20000))
    # process 1 runs alone; process 0 under hcbtrace, no launcher's variable
    "$PY" "$ROOT/tests/jax/job_who.py" "$port" 1 2 "$T/stop" >"$T/d1.out" 2>"$T/d1.err" &
    PIDS+=("$!")
    "$HCBTRACE" record -q -o "$T/l.jsonl" -- "$PY" "$ROOT/tests/jax/job_who.py" "$port" 0 2 \
        "$T/stop" >"$T/d0.out" 2>"$T/d0.err" &
    rec=$!
    wait_for "$T/d0.out" '"process_index"' 180
    retry 60 grep -q '"process":{"index":0,"count":2,"source":"jax"}' "$T/l.jsonl"
    touch "$T/stop"
    wait "$rec"
    # the first record knew nothing of it; a later one says jax's word,
    # before the first tap
    head -1 "$T/l.jsonl" | grep -qv '"process"'
    first_tap=$(grep -n '"type":"tap"' "$T/l.jsonl" | head -1 | cut -d: -f1)
    first_jax=$(grep -n '"source":"jax"' "$T/l.jsonl" | head -1 | cut -d: -f1)
    [ "$first_jax" -lt "$first_tap" ]
    run session "$T/l.jsonl"
    assert_output "$HOST|0|2|jax|None|0:0:cpu,1:1:cpu"
    wait
}

@test "identity: damaged session members: hcbtrace and the Python reader refuse alike, in the same words" {
    S='{"type":"session","version":1,'
    lines=(
        "$S\"host\":\"\"}"
        "$S\"process\":{\"count\":2,\"source\":\"x\"}}"
        "$S\"process\":{\"index\":2,\"count\":2,\"source\":\"x\"}}"
        "$S\"process\":{\"index\":0,\"count\":1}}"
        "$S\"process\":{\"index\":0,\"source\":\"a b\"}}"
        "$S\"job\":7}"
        "$S\"devices\":[{\"device\":1},{\"device\":1}]}"
        "$S\"devices\":[{\"device\":1,\"global_id\":18446744073709551615}]}"
        "$S\"devices\":[{\"device\":1,\"platform\":\"sixteen-bytes-xx\"}]}"
    )
    for l in "${lines[@]}"; do
        printf '%s\n' "$l" >"$T/bad.jsonl"
        run "$HCBTRACE" replay --no-wait "$T/bad.jsonl"
        assert_failure
        c=${output#hcbtrace: }
        run "$PY" -c '
import sys
from hcbtap.recording import records, RecordingError
try:
    list(records(sys.argv[1]))
except RecordingError as e:
    print(e)' "$T/bad.jsonl"
        [ "$output" = "$c" ] || { echo "hcbtrace: $c; python: $output" >&2; false; }
    done
}

@test "identity: the Python reader reads a recording's sessions as hcbtrace writes them, in both formats" {
    in=$ROOT/tests/golden/convert/session-who/in.jsonl
    "$HCBTRACE" convert "$in" -o "$T/w.hcbcap"
    for f in "$in" "$T/w.hcbcap"; do
        run "$PY" - "$f" <<'EOF2'
import sys
from hcbtap.recording import Device, Process, Recording
r = Recording(sys.argv[1])
s = [x for x in r if x.kind == "session"]
assert len(s) == 3, s
assert s[1].host == "node07" and s[1].process == Process(1, 2, "jax") and s[1].job == "81723", s[1]
assert s[1].devices == (Device(2048, 2048, "cpu"), Device(0, None, "cuda"), Device(7, None, None)), s[1]
assert [s[1].device_name(d) for d in (2048, 0, 7, 9)] == ["cpu:2048", "cuda:0", "cpu:7", "cpu:9"]
assert s[1].in_job and not s[2].in_job and s[2].process == Process(3, None, "kubernetes")
assert s[2].host == "n\u0153ud" and s[2].devices == () and s[0].devices == ()
assert r.session is s[2]
print("ok")
EOF2
        assert_output ok
    done
}
