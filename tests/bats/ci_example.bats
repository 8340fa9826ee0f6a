#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# ci_example.bats - the worked CI example of examples/ci/: check-drift.sh
# records hcb-example and diffs the run against examples/ci/golden.jsonl;
# it passes while the example is unchanged and fails, with a report naming
# what drifted, when the example computes something else.

load common

setup()
{
    _common_setup
    SCRIPT=$ROOT/examples/ci/check-drift.sh
    GOLDEN=$ROOT/examples/ci/golden.jsonl
}
teardown() { _common_teardown; }

# check_drift ARGS...: the script as a CI job runs it, with this build's
# binaries and the run recorded (and a drift drawn) in the test's temp dir.
check_drift()
{
    HCBTRACE=$HCBTRACE HCB_EXAMPLE=$EXAMPLE HCB_RUN=$T/run.jsonl HCB_PLOT=$T/drift.svg "$SCRIPT" "$@"
}

@test "ci example: the golden recording is a complete recording of the example's run" {
    [ -x "$SCRIPT" ]
    head -1 "$GOLDEN" | grep -q '^{"type":"session","version":1,'
    tail -1 "$GOLDEN" | grep -q '^{"type":"end","taps":50,"drops":0,'
    run grep -c '"type":"drop"' "$GOLDEN"
    assert_output 0
    # 2 devices x 5 steps x 5 consumers
    [ "$(grep -c '^{"type":"tap",' "$GOLDEN")" -eq 50 ]
    run --separate-stderr "$HCBTRACE" replay --no-wait "$GOLDEN"
    assert_success
    assert_equal "$stderr" ""
}

@test "ci example: check-drift.sh passes on the unchanged example" {
    echo stale >"$T/drift.svg"
    run --separate-stderr check_drift
    assert_success
    [[ $stderr == *"check-drift: no drift"* ]] || fail "no verdict on stderr: $stderr"
    # no tap reported as differing, missing or extra
    refute_line --regexp '^(tap|missing|extra) '
    refute_output --partial 'mismatched'
    # the run was recorded where asked, private to its owner
    [ "$(stat -c %a "$T/run.jsonl")" = 600 ]
    tail -1 "$T/run.jsonl" | grep -q '^{"type":"end","taps":50,"drops":0,'
    # no drift, no picture: not even an old one
    [ ! -e "$T/drift.svg" ]
}

@test "ci example: check-drift.sh --learning-rate 0.06 fails with a report of the drift" {
    run --separate-stderr check_drift --learning-rate 0.06
    assert_failure 1
    [[ $stderr == *"check-drift: DRIFT"* ]] || fail "no verdict on stderr: $stderr"
    # the consumers fed by the learning rate drift, on both devices ...
    local c d
    for c in loss params status; do
        for d in 0 1; do
            assert_line --regexp "^tap cpu:$d $c #[0-9]+ "
        done
    done
    # ... with counts of mismatched elements and differences
    assert_line --regexp 'mismatched elements: [0-9]+ / [0-9]+ \([0-9.]+%\)'
    assert_line --partial 'max absolute difference: '
    assert_line --partial 'max relative difference: '
    # the others do not, and no tap went missing
    refute_output --partial 'power3'
    refute_output --partial 'field'
    refute_line --regexp '^(missing|extra) '
    # and the picture of it, for the job's artifacts: a chart per drifting
    # consumer and device, none for the others
    [[ $stderr == *"picture in $T/drift.svg"* ]] || fail "$stderr"
    python3 "$ROOT/tests/tools/svg_summary.py" "$T/drift.svg" >"$T/sum.json"
    python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
titles = [c["title"] for c in s["charts"]]
for d in (0, 1):
    for c in ("loss", "params: b", "params: w", "status: [2]"):
        assert "cpu:%d %s" % (d, c) in titles, (d, c, titles)
assert not [t for t in titles if "power3" in t or "field" in t], titles
' "$T/sum.json"
}

@test "ci example: check-drift.sh reports trouble (exit 2) apart from drift" {
    # a damaged golden recording: one message naming file and line
    sed '4s/"float32"/"float33"/' "$GOLDEN" >"$T/damaged.jsonl"
    HCB_GOLDEN=$T/damaged.jsonl run --separate-stderr check_drift
    assert_failure 2
    [[ $stderr == *"$T/damaged.jsonl:4:"*"float33"* ]] || fail "damage not located: $stderr"
    # a recording that could not be made
    run --separate-stderr check_drift --no-such-option
    assert_failure 2
    [[ $stderr == *"recording failed"* ]] || fail "$stderr"
    # a missing tool
    HCBTRACE=$T/nope run --separate-stderr "$SCRIPT"
    assert_failure 2
    [[ $stderr == *"$T/nope"*"is not an executable file"* ]] || fail "$stderr"
}

# barrier_diff ARGS...: the README's record / barrier / diff script, as it stands.
barrier_diff()
{
    HCBTRACE=$HCBTRACE HCB_EXAMPLE=$EXAMPLE HCB_RUN=$T/run.jsonl HCBTRACE_RUNDIR=$T/run \
        "$ROOT/examples/ci/barrier-diff.sh" "$@"
}

@test "ci example: barrier-diff.sh records a lingering job, barriers, stops and finds no drift" {
    run --separate-stderr barrier_diff
    assert_success
    [[ "$stderr" == *"hcbtrace: barrier: every tap process "*" had issued (50 on 2 devices) is written by its 1 session"* ]]
    [[ "$stderr" == *"barrier-diff: no drift"* ]]
    # the barrier record follows the 50th tap; the end record closes the file
    tail -2 "$T/run.jsonl" | head -1 | grep -q '^{"type":"barrier","ts_ns":[0-9]*,"taps":50}$'
    tail -1 "$T/run.jsonl" | grep -q '^{"type":"end","taps":50,"drops":0,'
}

@test "ci example: barrier-diff.sh exits 1 with diff's report when the job drifts" {
    run --separate-stderr barrier_diff --learning-rate 0.06
    assert_failure 1
    [[ "$output" == *"50 pairs compared, 24 same, 26 differ"* ]]
    [[ "$stderr" == *"barrier-diff: DRIFT"* ]]
}
