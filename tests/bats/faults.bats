#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# faults.bats - a full disk, a closed pipe, an exhausted heap: hcbtrace says
# what failed, exits 1, and leaves complete records behind; it never crashes.
# The failures come from tests/tools/faultinject.c (an LD_PRELOAD shim).

load common

setup()
{
    _common_setup
    SHIM=$TOOLS/faultinject.so
    [ -f "$SHIM" ] || { echo "faultinject.so not built at $SHIM" >&2; return 1; }
    GOLDEN=$ROOT/tests/golden/replay/basic/in.jsonl
}
teardown() { _common_teardown; }

# faulty VAR=VALUE... -- CMD...: run CMD with the shim and the variables.
faulty()
{
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    env LD_PRELOAD="$SHIM" "${vars[@]}" "$@"
}

# bigger IN OUT K: IN's taps K times over (seq and ts_ns moved on), one session, one end.
bigger()
{
    python3 - "$@" <<'EOF'
import json, sys
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
recs = [json.loads(l) for l in open(src)]
taps = [r for r in recs if r["type"] == "tap"]
step = 1 + max(t["seq"] for t in taps)
out = [r for r in recs if r["type"] == "session"]
for i in range(k):
    out += [dict(t, seq=t["seq"] + i * step, ts_ns=t["ts_ns"] + i * 1000000) for t in taps]
for r in recs:
    if r["type"] == "end":
        out.append(dict(r, taps=len(taps) * k))
    elif r["type"] not in ("session", "tap"):
        out.append(r)
with open(dst, "w") as f:
    f.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in out)
EOF
}

# complete_prefix PARTIAL FULL: every complete line of PARTIAL is JSON, and
# they are FULL's first lines; prints how many.
complete_prefix()
{
    python3 - "$1" "$2" <<'EOF'
import json, sys
part = open(sys.argv[1], "rb").read().decode().split("\n")[:-1]
full = open(sys.argv[2]).read().split("\n")
for i, line in enumerate(part):
    json.loads(line)
    assert line == full[i], "line %d differs from the full conversion" % (i + 1)
print(len(part))
EOF
}

# no_torn_tail FILE: FILE is empty or ends with a newline.
no_torn_tail()
{
    [ ! -s "$1" ] || [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

@test "faults: convert to a disk that fills up exits 1, naming the output, with complete lines" {
    bigger "$GOLDEN" "$T/big.jsonl" 8
    "$HCBTRACE" convert "$T/big.jsonl" -o "$T/full.jsonl"
    [ "$(stat -c %s "$T/full.jsonl")" -gt 20000 ]
    run --separate-stderr faulty HCB_FAULT_WRITE=ENOSPC HCB_FAULT_WRITE_AFTER=10000 -- \
        "$HCBTRACE" convert "$T/big.jsonl" -o "$T/out.jsonl"
    assert_failure 1
    assert_output ''
    assert_equal "$stderr" "hcbtrace: writing to $T/out.jsonl: No space left on device"
    [ "$(stat -c %s "$T/out.jsonl")" -le 10000 ]
    run complete_prefix "$T/out.jsonl" "$T/full.jsonl"
    assert_success
    [ "$output" -gt 1 ]
    # what is there reads back (up to its last complete line)
    run --separate-stderr "$HCBTRACE" replay --no-wait -f jsonl "$T/out.jsonl"
    assert_success
}

@test "faults: record -p to a disk that fills up exits 1 with complete lines, the target runs on" {
    start_example --devices 2 --steps 0 --interval-ms 5 --field-size 2000
    run --separate-stderr timeout 30 env LD_PRELOAD="$SHIM" HCB_FAULT_WRITE=ENOSPC \
        HCB_FAULT_WRITE_AFTER=10000 "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl"
    assert_failure 1
    assert_output ''
    # the error, then the summary
    assert_equal "$(head -1 <<<"$stderr")" "hcbtrace: writing to $T/rec.jsonl: No space left on device"
    [ "$(grep -c 'No space left' <<<"$stderr")" -eq 1 ]
    summary=$stderr
    runs_on "$EX_PID"
    [ "$(stat -c %s "$T/rec.jsonl")" -le 10000 ]
    # every complete line parses; the first is the session, then taps
    run python3 -c '
import json, sys
lines = open(sys.argv[1], "rb").read().decode().split("\n")[:-1]
recs = [json.loads(l) for l in lines]
assert recs and recs[0]["type"] == "session", recs[:1]
assert all(r["type"] == "tap" for r in recs[1:])
print(len(recs))' "$T/rec.jsonl"
    assert_success
    [ "$output" -ge 2 ]
    # the summary's "written" is what the file holds, not what was handed
    # to the writer before the disk filled up
    written=$(sed -n 's/.*), \([0-9]*\) written, [0-9]* lost$/\1/p' <<<"$summary")
    [ "$written" -eq $(( output - 1 )) ]
    run --separate-stderr "$HCBTRACE" replay --no-wait -f jsonl "$T/rec.jsonl"
    assert_success
}

# The writer is cut short mid-record (as a real full disk does: a short write,
# then ENOSPC), and the man page says the file grows by whole records only.
@test "faults: a disk that fills up mid-record leaves no torn last line" {
    bigger "$GOLDEN" "$T/big.jsonl" 8
    run --separate-stderr faulty HCB_FAULT_WRITE=ENOSPC HCB_FAULT_WRITE_AFTER=10000 -- \
        "$HCBTRACE" convert "$T/big.jsonl" -o "$T/out.jsonl"
    assert_failure 1
    no_torn_tail "$T/out.jsonl"
    start_example --devices 2 --steps 0 --interval-ms 5 --field-size 2000
    run --separate-stderr timeout 30 env LD_PRELOAD="$SHIM" HCB_FAULT_WRITE=ENOSPC \
        HCB_FAULT_WRITE_AFTER=10000 "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl"
    assert_failure 1
    no_torn_tail "$T/rec.jsonl"
}

@test "faults: replay to a closed pipe exits 1 with 'Broken pipe'" {
    for after in 0 100 1000; do
        run --separate-stderr faulty HCB_FAULT_WRITE=EPIPE HCB_FAULT_WRITE_AFTER=$after -- \
            "$HCBTRACE" replay --no-wait "$GOLDEN"
        assert_failure 1
        assert_equal "$stderr" "hcbtrace: writing to standard output: Broken pipe"
    done
    run --separate-stderr faulty HCB_FAULT_WRITE=EPIPE -- "$HCBTRACE" replay --no-wait -f jsonl "$GOLDEN"
    assert_failure 1
    assert_equal "$stderr" "hcbtrace: writing to standard output: Broken pipe"
    # and the shim alone changes nothing
    run --separate-stderr "$HCBTRACE" replay --no-wait "$GOLDEN"
    want=$output
    run --separate-stderr faulty HCB_FAULT_WRITE=EIO HCB_FAULT_WRITE_AFTER=100000000 -- \
        "$HCBTRACE" replay --no-wait "$GOLDEN"
    assert_success
    assert_output "$want"
}

# N counts the allocations from main() on; the basic recording needs ~40 of
# them up to its first tap and a few hundred in all, so these N fail in the
# option parsing, the reader's set-up, getline, the JSON parser and the printer.
MALLOC_NS="0 1 2 3 5 7 8 9 10 15 20 30 40 50 60 80 100 150 200 250 300 400 600"

# run_oom N ARGS...: hcbtrace ARGS with the N+1-th allocation failing; it
# exits 0, or nonzero (not by a signal) with a message, and never aborts.
run_oom()
{
    local n=$1; shift
    run --separate-stderr timeout 20 env LD_PRELOAD="$SHIM" HCB_FAULT_MALLOC_AFTER="$n" "$HCBTRACE" "$@"
    if [ "$status" -ge 124 ]; then
        echo "N=$n: hcbtrace $*: killed or hung (status $status): $stderr" >&2
        return 1
    fi
    if grep -qiE 'sanitizer|abort|assert|core dumped|double free|corrupted|segmentation' <<<"$stderr"; then
        echo "N=$n: hcbtrace $*: $stderr" >&2
        return 1
    fi
    if [ "$status" -ne 0 ] && ! grep -q '^hcbtrace: ' <<<"$stderr"; then
        echo "N=$n: hcbtrace $*: status $status without a message" >&2
        return 1
    fi
}

@test "faults: with malloc failing, replay and convert never crash" {
    bigger "$GOLDEN" "$T/big.jsonl" 2
    "$HCBTRACE" convert "$T/big.jsonl" -o "$T/big.hcbcap"
    for n in $MALLOC_NS; do
        run_oom "$n" replay --no-wait "$T/big.jsonl"
        run_oom "$n" replay --no-wait -f jsonl "$T/big.hcbcap"
        run_oom "$n" convert "$T/big.jsonl" -o "$T/out.hcbcap"
        run_oom "$n" convert "$T/big.hcbcap" -o "$T/out.jsonl"
    done
}

# Currently fails: getline's ENOMEM is taken for the end of the file, so
# replay and convert exit 0 with the output cut short (N = 7..9 here).
@test "faults: with malloc failing, a replay or convert that exits 0 wrote everything" {
    "$HCBTRACE" replay --no-wait "$GOLDEN" >"$T/want.txt"
    "$HCBTRACE" convert "$GOLDEN" -o "$T/want.jsonl"
    for n in $MALLOC_NS; do
        run_oom "$n" replay --no-wait "$GOLDEN"
        if [ "$status" -eq 0 ]; then
            diff <(printf '%s\n' "$output") "$T/want.txt" >/dev/null ||
                { echo "N=$n: replay exited 0 but printed $(printf "%s" "$output" | grep -c "") of $(wc -l <"$T/want.txt") lines" >&2; return 1; }
        fi
        rm -f "$T/out.jsonl"
        run_oom "$n" convert "$GOLDEN" -o "$T/out.jsonl"
        if [ "$status" -eq 0 ]; then
            cmp -s "$T/out.jsonl" "$T/want.jsonl" ||
                { echo "N=$n: convert exited 0 but wrote $(wc -l <"$T/out.jsonl") of $(wc -l <"$T/want.jsonl") lines" >&2; return 1; }
        fi
    done
}
