#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# jobdir.bats - a directory (or several files) of one job is one recording
# (issue 36): replay DIR merges a real two-process jax.distributed job's
# recordings by time, each process under its header; diff DIR DIR pairs
# the processes of two runs by who they are, never by the files' names;
# a directory that is damaged, holds one process twice or holds nothing
# gets one message.  Needs the newest jax's venv (HCB_VENV_JAX12).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
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

# job_into DIR: one run of tests/jax/distributed.py's two processes, each
# recorded by pid (as distributed.bats does) into DIR/rec$I.jsonl
job_into()
{
    local i port dir=$1 job=() rec=()
    port=$(free_port)
    mkdir -p "$dir"
    rm -f "$T"/go*
    for i in 0 1; do
        "$PY" "$ROOT/tests/jax/distributed.py" "$i" 2 "$port" "$T/go$i" "$dir.truth$i" \
            >"$T/prog$i.out" 2>"$T/prog$i.err" &
        job[$i]=$!
        PIDS+=("$!")
    done
    for i in 0 1; do wait_for "$T/prog$i.out" '^ready ' 180; done
    for i in 0 1; do
        "$HCBTRACE" record -p "${job[$i]}" -o "$dir/rec$i.jsonl" 2>"$dir.rec$i.err" &
        rec[$i]=$!
        PIDS+=("$!")
    done
    for i in 0 1; do wait_session "${job[$i]}"; done
    for i in 0 1; do touch "$T/go$i"; done
    for i in 0 1; do wait "${job[$i]}"; done
    for i in 0 1; do wait "${rec[$i]}"; grep -q 'target exited' "$dir.rec$i.err"; done
}

@test "job: replay DIR of a two-process jax.distributed job: every tap of both, merged by time, each process under its header" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    job_into "$T/run1"
    echo "x" >"$T/run1/notes.txt"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/run1"
    assert_success
    assert_output --regexp '(^|'$'\n'')# process 0 of 2 \(jax\), host [^,]+, pid [0-9]+'
    assert_output --regexp '(^|'$'\n'')# process 1 of 2 \(jax\), host [^,]+, pid [0-9]+'
    assert_output --partial 'cpu:2049'
    assert_output --partial 'cpu:0'
    [ "$stderr" = "hcbtrace: warning: skipped '$T/run1/notes.txt': not a recording (.jsonl or .hcbcap)" ]
    # the same as JSONL: each file's taps, all, in the file's order, under
    # their own process's session record; merged by time
    "$HCBTRACE" replay --no-wait -q -f jsonl "$T/run1" >"$T/merged.jsonl"
    run python3 - "$T/merged.jsonl" "$T/run1/rec0.jsonl" "$T/run1/rec1.jsonl" <<'EOF2'
import json, sys
merged = [json.loads(l) for l in open(sys.argv[1])]
files = {}
for path in sys.argv[2:]:
    recs = [json.loads(l) for l in open(path)]
    pid = next(r["pid"] for r in recs if r["type"] == "session")
    files[pid] = [r for r in recs if r["type"] == "tap"]
got, order, who = {pid: [] for pid in files}, [], None
for r in merged:
    if r["type"] == "session":
        who = r["pid"]
    elif r["type"] == "tap":
        got[who].append(r)
        order.append((who, r["ts_ns"]))
for pid in files:
    assert got[pid] == files[pid], (pid, len(got[pid]), len(files[pid]))
switches = 0
for (pa, ta), (pb, tb) in zip(order, order[1:]):
    if pa != pb:
        switches += 1
        assert ta <= tb, (pa, ta, pb, tb)      # the earliest of the files' next taps
assert switches >= 2, switches
print("%d taps of %d processes, %d turns between them" % (len(order), len(files), switches))
EOF2
    echo "# $output" >&3
    assert_success
}

@test "job: diff DIR DIR of two runs of a deterministic job: no difference; a value changed in process 1 is named there" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    job_into "$T/a"
    job_into "$T/b"
    run "$HCBTRACE" diff "$T/a" "$T/b"
    echo "# ${lines[-1]}" >&3
    assert_success
    assert_output --regexp '== REF process 0 \(host [^,]+, pid [0-9]+\), NEW process 0 '
    assert_output --regexp '== REF process 1 \(host [^,]+, pid [0-9]+\), NEW process 1 '
    assert_line 'job: 2 processes in REF, 2 in NEW: 2 paired, 0 differ; 0 in REF only, 0 in NEW only'
    # a third run: process 1's first float value changed, and the files'
    # names swapped: the processes pair by who they are, not by name
    mkdir "$T/c"
    "$HCBTRACE" convert "$T/b/rec0.jsonl" -o "$T/c/rec1.hcbcap"
    run python3 - "$T/b/rec1.jsonl" "$T/c/rec0.jsonl" <<'EOF2'
import json, sys
out = []
changed = None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if changed is None and r["type"] == "tap" and r["arrays"] and r["arrays"][0]["dtype"] == "float32" \
            and r["arrays"][0]["data"]:
        r["arrays"][0]["data"][0] += 1.0
        changed = r
    out.append(json.dumps(r) + "\n")
open(sys.argv[2], "w").write("".join(out))
print("%d\t%s\t%d" % (changed["device"], changed["name"], changed["seq"]))
EOF2
    assert_success
    IFS=$'\t' read -r dev name seq <<<"$output"
    run "$HCBTRACE" diff "$T/a" "$T/c"
    echo "# $(grep -A1 '^== REF process 1' <<<"$output" | tail -1)" >&3
    assert_failure 1
    # process 1's pair holds the change: its device, site and seq
    run awk '/^== REF process 1 /{p=1} /^== REF process 0 /{p=0} p' <<<"$output"
    assert_output --partial "tap cpu:$dev $name #"
    assert_output --regexp "\(REF seq [0-9]+, NEW seq $seq\)"
    run "$HCBTRACE" diff "$T/a" "$T/c"
    assert_line 'job: 2 processes in REF, 2 in NEW: 2 paired, 1 differ; 0 in REF only, 0 in NEW only'
    # a process in one run only
    rm "$T/c/rec1.hcbcap"
    run "$HCBTRACE" diff -q "$T/a" "$T/c"
    assert_failure 1
    assert_output ''
    run "$HCBTRACE" diff "$T/a" "$T/c"
    assert_output --regexp "== process 0 \(host [^,]+, pid [0-9]+\): in REF only \('$T/a/rec0.jsonl'\): NEW has no such process"
}

# example_into FILE INDEX: a real recording of hcb-example as process INDEX of 2
example_into()
{
    start_example -n 2 -s 0 -i 10 --field-size 16
    "$HCBTRACE" record -p "$EX_PID" --process-index "$2" --process-count 2 -c 10 -o "$1" 2>/dev/null
    kill "$EX_PID"
}

@test "job: a directory with no recording, one process twice, or a damaged file: one message each" {
    mkdir "$T/none" "$T/dup" "$T/bad"
    echo x >"$T/none/notes.txt"
    run --separate-stderr "$HCBTRACE" replay "$T/none"
    assert_failure 1
    [ "$stderr" = "hcbtrace: warning: skipped '$T/none/notes.txt': not a recording (.jsonl or .hcbcap)
hcbtrace: '$T/none' holds no recording (.jsonl or .hcbcap)" ]
    run --separate-stderr "$HCBTRACE" diff "$T/none" "$T/none"
    assert_failure 2
    example_into "$T/dup/p0.jsonl" 0
    example_into "$T/dup/p1.jsonl" 1
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/dup"
    assert_success
    [ "$(grep -c '^# process [01] of 2 (flag)' <<<"$output")" -ge 2 ]
    # converted into one file, it replays the same; an .npz would run them together
    "$HCBTRACE" convert "$T/dup" -o "$T/all.hcbcap"
    diff <(printf '%s\n' "$output") <("$HCBTRACE" replay --no-wait "$T/all.hcbcap")
    run --separate-stderr "$HCBTRACE" convert "$T/dup" -o "$T/all.npz"
    assert_failure 2
    [[ "$stderr" == *"a job's recordings convert to .jsonl or .hcbcap"* ]]
    [ ! -e "$T/all.npz" ]
    # a converted copy beside its original: the same process twice
    "$HCBTRACE" convert "$T/dup/p1.jsonl" -o "$T/dup/p1.hcbcap"
    run --separate-stderr "$HCBTRACE" replay "$T/dup"
    assert_failure 1
    assert_output ''
    [[ "$stderr" =~ ^"hcbtrace: '$T/dup/p1."(jsonl|hcbcap)"' and '$T/dup/p1."(hcbcap|jsonl)"' are both recordings of process 1 on host "[^:]+": a job's recordings hold one file a process; move one of them away"$ ]]
    run --separate-stderr "$HCBTRACE" diff "$T/dup" "$T/dup"
    assert_failure 2
    [ "${#stderr_lines[@]}" -eq 1 ]
    # a file damaged before its first tap names its line
    cp "$T/dup/p0.jsonl" "$T/bad/p0.jsonl"
    { head -c 30 "$T/dup/p1.jsonl"; echo; } >"$T/bad/p1.jsonl"
    run --separate-stderr "$HCBTRACE" replay "$T/bad"
    assert_failure 1
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "$stderr" =~ ^"hcbtrace: $T/bad/p1.jsonl:1: " ]]
    # damaged later: everything of the others and before the damage, then its message
    { cat "$T/dup/p1.jsonl"; echo '{"type":"tap",'; } >"$T/bad/p1.jsonl"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/bad"
    assert_failure 1
    [ "$(grep -c '^device: ' <<<"$output")" -eq 20 ]
    [[ "$stderr" =~ ^"hcbtrace: $T/bad/p1.jsonl:" ]]
    [ "${#stderr_lines[@]}" -eq 1 ]
    # several files named: the same as their directory
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/dup/p1.jsonl" "$T/dup/p0.jsonl"
    assert_success
    [ "$(grep -c '^device: ' <<<"$output")" -eq 20 ]
}

@test "job: diff --across-processes: replicas the same; one that drifts named with its first differing seq, device and site" {
    local i
    mkdir "$T/rep"
    # three replicas of one job, each recorded from its first tap
    for i in 0 1 2; do
        "$HCBTRACE" record --process-index "$i" --process-count 3 -o "$T/rep/p$i.jsonl" -- \
            "$EXAMPLE" -n 2 -s 5 -i 1 --field-size 16 2>/dev/null
    done
    run "$HCBTRACE" diff --across-processes "$T/rep"
    assert_success
    assert_line --regexp '^== process 1 \(host [^,]+, pid [0-9]+\) against process 0 \(host [^,]+, pid [0-9]+\)$'
    assert_line 'processes: 2 compared with process 0: none diverges'
    # process 2 learns at another rate: its values drift from its first update on
    "$HCBTRACE" record --process-index 2 --process-count 3 -o "$T/rep/p2.jsonl" -- \
        "$EXAMPLE" -n 2 -s 5 -i 1 --field-size 16 --learning-rate 0.06 2>/dev/null
    run python3 - "$T/rep/p0.jsonl" "$T/rep/p2.jsonl" <<'EOF2'
import collections, json, sys
def taps(path):
    seen, out = collections.Counter(), {}
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "tap":
            k = (r["device"], r["name"], seen[(r["device"], r["name"])])
            seen[(r["device"], r["name"])] += 1
            out[k] = r
    return out
a, b = taps(sys.argv[1]), taps(sys.argv[2])
first = min((b[k]["seq"], k[0], k[1]) for k in a if a[k]["arrays"] != b[k]["arrays"])
print("%d cpu:%d %s" % first)
EOF2
    assert_success
    read -r seq dev site <<<"$output"
    run "$HCBTRACE" diff --across-processes "$T/rep"
    assert_failure 1
    assert_line --regexp "^processes: 2 compared with process 0: 1 diverges; first process 2 \(host [^,]+, pid [0-9]+\), at seq $seq: $dev $site\$"
    run "$HCBTRACE" diff -q --across-processes "$T/rep"
    assert_failure 1
    assert_output ''
    run --separate-stderr "$HCBTRACE" diff --across-processes "$T/rep/p0.jsonl"
    assert_failure 2
    [ "$stderr" = "hcbtrace: '$T/rep/p0.jsonl' holds one process's recording: nothing to compare it with" ]
}

# bats test_tags=big
@test "job: replay and diff of a job's directory of several hundred MB: memory stays flat (peak RSS under 64 MB)" {
    local i
    mkdir "$T/big"
    # four processes of ~80 MB each, their taps interleaved in time
    for i in 0 1 2 3; do
        make_big_jsonl "$T/big/p$i.jsonl" 1000 20000
        sed -i "1s/\"pid\":1,/\"pid\":1$i,\"host\":\"h\",\"process\":{\"index\":$i,\"count\":4,\"source\":\"flag\"},/" \
            "$T/big/p$i.jsonl"
    done
    [ "$(du -cb "$T"/big/*.jsonl | tail -1 | cut -f1)" -gt $((300 * 1000 * 1000)) ]
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
    /usr/bin/time -f 'peak %M kB' -o "$T/rss" "$HCBTRACE" replay --no-wait -f jsonl "$T/big" >"$T/out.jsonl"
    echo "# replay: $(cat "$T/rss")" >&3
    [ "$(grep -c '"type":"tap"' "$T/out.jsonl")" -eq 4000 ]
    [ "$(awk '/^peak/ { print $2 }' "$T/rss")" -lt 65536 ]
    rm "$T/out.jsonl"
    run --separate-stderr /usr/bin/time -f 'peak %M kB' -o "$T/rss" "$HCBTRACE" diff "$T/big" "$T/big"
    assert_success
    assert_line 'job: 4 processes in REF, 4 in NEW: 4 paired, 0 differ; 0 in REF only, 0 in NEW only'
    echo "# diff: $(cat "$T/rss")" >&3
    [ "$(awk '/^peak/ { print $2 }' "$T/rss")" -lt 65536 ]
}
