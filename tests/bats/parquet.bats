#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# parquet.bats - hcbtrace convert ... -o OUT.parquet and -o OUTDIR/ (issue 37,
# formats/PARQUET.md): real jax.distributed jobs of 2 and 4 processes whose
# loss goes NaN at a known process, device and step (tests/jax/nan_job.py),
# each process recorded by pid; the documented queries run by DuckDB find
# it.  Every dtype round-trips bit for bit through raw against the Python
# reader (tests/tools/check_parquet.py; recordings from
# tests/python/recgen.py, as pyreader.bats makes them); damaged recordings
# convert up to the damage; no pyarrow is one message.  The writer's python
# is build/venv's (pyarrow and duckdb, scripts/lib.sh), the jobs run in the
# newest jax's venv (HCB_VENV_JAX12).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run PYTHONPATH=$ROOT/python:$ROOT/tests/python
    need_python "${HCB_VENV:-$BUILD/venv}" 'import pyarrow, duckdb, ml_dtypes' "pyarrow, duckdb, ml_dtypes"
    export HCB_PYTHON=$PY
    CHECK=("$PY" "$ROOT/tests/tools/check_parquet.py")
}

teardown()
{
    _common_teardown
}

# taps_in REC N: REC, a recording being written, holds N taps or more
taps_in()
{
    [ "$("$HCBTRACE" replay --no-wait -f jsonl "$1" 2>/dev/null | grep -c '"type":"tap"')" -ge "$2" ]
}

# job N BAD_DEVICE BAD_STEP STEPS: the N processes of a nan_job.py job, each
# recorded by pid into $T/job/recI.EXT (.jsonl for even I, .hcbcap for odd),
# run to their end
job()
{
    local n=$1 i port ext
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    local jpy=$PY
    need_python "${HCB_VENV:-$BUILD/venv}" 'import pyarrow' "pyarrow"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$T/job"
    JOB=() REC=()
    for ((i = 0; i < n; i++)); do
        NAN_JOB_END=$T/end "$jpy" "$ROOT/tests/jax/nan_job.py" "$i" "$n" "$port" "$T/go" \
            "$2" "$3" "$4" >"$T/prog$i.out" 2>"$T/prog$i.err" &
        JOB[$i]=$!
        PIDS+=("$!")
    done
    for ((i = 0; i < n; i++)); do
        wait_for "$T/prog$i.out" '^ready ' 300
    done
    for ((i = 0; i < n; i++)); do
        ext=jsonl
        [ $((i % 2)) -eq 1 ] && ext=hcbcap
        "$HCBTRACE" record -p "${JOB[$i]}" -o "$T/job/rec$i.$ext" 2>"$T/rec$i.err" &
        REC[$i]=$!
        PIDS+=("$!")
    done
    for ((i = 0; i < n; i++)); do
        wait_session "${JOB[$i]}"
    done
    touch "$T/go"
    # each process ends once its recording holds its taps (2 devices a
    # step): named while its callables live, whatever the machine's load
    for ((i = 0; i < n; i++)); do
        wait_for "$T/prog$i.out" "^done $4\$" 120
        retry 60 taps_in "$(ls "$T"/job/rec$i.*)" $((2 * $4))
    done
    touch "$T/end"
    for ((i = 0; i < n; i++)); do
        wait "${JOB[$i]}"
    done
    for ((i = 0; i < n; i++)); do
        wait "${REC[$i]}"
    done
    RECS=()
    for ((i = 0; i < n; i++)); do
        RECS+=("$(ls "$T"/job/rec$i.*)")
    done
}

# check_job BAD_PROCESS BAD_DEVICE BAD_STEP: convert the job's directory to a
# file and to a dataset; rows, bits and the first NaN in both
check_job()
{
    run --separate-stderr "$HCBTRACE" convert "$T/job" -o "$T/job.parquet"
    assert_success
    [ -z "$stderr" ]
    run --separate-stderr "$HCBTRACE" convert "$T/job" -o "$T/ds/"
    assert_success
    for out in "$T/job.parquet" "$T/ds"; do
        for c in rows bits; do
            run "${CHECK[@]}" "$c" "$out" "${RECS[@]}"
            echo "# $output" >&3
            assert_success
        done
        run "${CHECK[@]}" firstnan "$out" "$1" "$2" "$3" "${RECS[@]}"
        echo "# $output" >&3
        assert_success
    done
    # the dataset: a directory a host and process, each process's recording in its own
    for ((i = 0; i < ${#RECS[@]}; i++)); do
        ls "$T/ds/taps/host=$HOST/process=$i/"rec$i.parquet
        ls "$T/ds/events/host=$HOST/process=$i/"rec$i.parquet
    done
    # the documented queries answer alike from the file and the dataset
    diff <("$PY" "$ROOT/tests/tools/parquet_queries.py" "$T/job.parquet") \
         <("$PY" "$ROOT/tests/tools/parquet_queries.py" "$T/ds")
}

@test "parquet: a jax.distributed job of 2 processes, NaN on device 2049 at step 3: DuckDB's first NaN is process 1, device 2049, that seq" {
    HOST=$(hostname)
    job 2 2049 3 8
    check_job 1 2049 3
    # a process_index column over two processes' files
    run "$PY" -c 'import duckdb, sys; print(duckdb.sql("SELECT process_index, count(DISTINCT global_device_id), count(*) FROM read_parquet(?) GROUP BY 1 ORDER BY 1", params=[sys.argv[1]]).fetchall())' "$T/job.parquet"
    assert_output '[(0, 2, 48), (1, 2, 48)]'    # 8 steps x 2 devices x 3 leaves
}

@test "parquet: a jax.distributed job of 4 processes, NaN on device 4097 at step 5: process 2, device 4097, that seq" {
    HOST=$(hostname)
    job 4 4097 5 9
    check_job 2 4097 5
}

@test "parquet: a pmap loop on 2 devices recorded by record -- CMD, NaN at step 7: each device's first NaN is its tap of step 7" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    jpy=$PY
    need_python "${HCB_VENV:-$BUILD/venv}" 'import pyarrow, duckdb' "pyarrow, duckdb"
    run --separate-stderr "$HCBTRACE" record -q -o "$T/loop.hcbcap" -- \
        "$jpy" "$ROOT/tests/jax/nan_loss.py" 7 12 --devices 2 --size 4
    assert_success
    "$HCBTRACE" convert "$T/loop.hcbcap" -o "$T/loop.parquet"
    # the tap of each device's first NaN, and its step (leaf 0 of the same tap)
    run "$PY" -c '
import duckdb, sys
print(duckdb.sql("""
SELECT n.global_device_id, s.value, count(*) OVER () FROM
  (SELECT device, global_device_id, min(seq) AS seq FROM read_parquet($f)
   WHERE nan_count > 0 GROUP BY ALL) n
  JOIN read_parquet($f) s ON s.device = n.device AND s.seq = n.seq AND s.leaf = 0
ORDER BY 1""", params={"f": sys.argv[1]}).fetchall())' "$T/loop.parquet"
    assert_output '[(0, 7.0, 2), (1, 7.0, 2)]'
    # 12 steps x 2 devices x 3 leaves, the rows the reader reads
    run "${CHECK[@]}" rows "$T/loop.parquet" "$T/loop.hcbcap"
    echo "# $output" >&3
    assert_success
    assert_output --partial 'rows: 72 rows = 24 taps'
}

@test "parquet: every dtype, from .jsonl and .hcbcap, round-trips bit for bit through raw; values, nan_count, rows in order" {
    "$PY" -c '
import sys, recgen
for s in (1, 2, 3):
    recgen.write_jsonl(sys.argv[1] + "/all%d.jsonl" % s, s)
recgen.write_hcbcap(sys.argv[1] + "/raw.hcbcap", 7)' "$T"
    recs=("$T/all1.jsonl" "$T/all2.jsonl" "$T/all3.jsonl" "$T/raw.hcbcap")
    for s in 1 2 3; do
        "$HCBTRACE" convert "$T/all$s.jsonl" -o "$T/all$s.hcbcap"
        recs+=("$T/all$s.hcbcap")
    done
    "$HCBTRACE" convert "${recs[@]}" -o "$T/all.parquet"
    for c in rows bits; do
        run "${CHECK[@]}" "$c" "$T/all.parquet" "${recs[@]}"
        echo "# $output" >&3
        assert_success
    done
    # the dtypes the issue names, each there
    run "$PY" -c 'import duckdb, sys; print(" ".join(r[0] for r in duckdb.sql("SELECT DISTINCT dtype FROM read_parquet(?) ORDER BY 1", params=[sys.argv[1]]).fetchall()))' "$T/all.parquet"
    for d in bfloat16 float8_e4m3fn float8_e5m2 int4 complex64 complex128 bool; do
        [[ " $output " == *" $d "* ]]
    done
    # the Python API writes what the command line writes
    "$PY" -c 'import sys, hcbtap.recording as R; R.to_parquet(sys.argv[2:], sys.argv[1])' "$T/api.parquet" "${recs[@]}"
    "$PY" -c '
import sys, pyarrow.parquet as pq, hcbtap.recording as R
def plain(t):       # NaN is not equal to itself in Table.equals: NaN as a word
    nan = lambda v: "nan" if v != v else [nan(x) for x in v] if isinstance(v, list) else v
    return {n: [nan(v) for v in t[n].to_pylist()] for n in t.column_names}
a, b = pq.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
assert plain(a) == plain(b), "the API and the command line differ"
t = R.to_arrow(sys.argv[3:])
assert plain(t) == plain(a), "to_arrow differs from the file"
ev = R.to_arrow(sys.argv[3:], events=True)
assert plain(ev) == plain(pq.read_table(sys.argv[1][:-8] + ".events.parquet"))
assert len(t.to_pandas()) == t.num_rows' "$T/all.parquet" "$T/api.parquet" "${recs[@]}"
}

@test "parquet: hcb-example recorded by hcbtrace, .jsonl and .hcbcap: a row per leaf; the end records in the events" {
    for ext in jsonl hcbcap; do
        "$HCBTRACE" record -q -o "$T/live.$ext" -- "$EXAMPLE" --devices 2 --steps 3 \
            --interval-ms 0 --field-size 3000
    done
    "$HCBTRACE" convert "$T/live.jsonl" "$T/live.hcbcap" -o "$T/live.parquet"
    for c in rows bits; do
        run "${CHECK[@]}" "$c" "$T/live.parquet" "$T/live.jsonl" "$T/live.hcbcap"
        echo "# $output" >&3
        assert_success
    done
    taps=$(grep -c '"type":"tap"' "$T/live.jsonl")
    run "$PY" "$ROOT/tests/tools/parquet_queries.py" "$T/live.parquet" taps-per-process
    assert_output "{\"taps-per-process\": [[null, $((2 * taps))]]}"
    # every row says which program it came from, as the program was run
    run "$PY" -c 'import sys, pyarrow.parquet as pq; print(sorted(set(pq.read_table(sys.argv[1], columns=["command"]).column(0).to_pylist())))' "$T/live.parquet"
    assert_output "['$EXAMPLE --devices 2 --steps 3 --interval-ms 0 --field-size 3000']"
}

@test "parquet: taps lost per host and process: the documented query sums each process's drop records" {
    # a 4 MiB field in a 1 MiB ring is lost on every device, every step; two
    # processes of one job, by the flags
    mkdir -p "$T/lossy"
    for i in 0 1; do
        "$HCBTRACE" record -q -b 1 --process-index "$i" --process-count 2 --job lossy \
            -o "$T/lossy/p$i.jsonl" -- "$EXAMPLE" --devices 2 --steps 3 --interval-ms 0 \
            --field-size 1048576
    done
    "$HCBTRACE" convert "$T/lossy" -o "$T/lossy.parquet"
    want=$("$PY" -c '
import sys, hcbtap.recording as R
lost = [sum(r.count for r in R.records(f) if r.kind == "drop") for f in sys.argv[1:]]
assert all(lost), lost
print(lost)' "$T/lossy/p0.jsonl" "$T/lossy/p1.jsonl")
    run "$PY" "$ROOT/tests/tools/parquet_queries.py" "$T/lossy.parquet" lost-per-host
    echo "# $output" >&3
    "$PY" -c '
import json, sys
rows = json.loads(sys.argv[1])["lost-per-host"]
assert {r[0] for r in rows} == {sys.argv[3]}, rows
by_process = {r[1]: r[2] for r in rows}
want = json.loads(sys.argv[2])
assert by_process == {0: want[0], 1: want[1]}, (by_process, want)' "$output" "$want" "$(hostname)"
}

@test "parquet: progress on a terminal's stderr, as convert shows it, cleared at the end; nothing otherwise" {
    make_big_jsonl "$T/big.jsonl" 30 100000
    in_terminal "$T/tty" HCBTRACE_PROGRESS_DELAY_MS=0 HCB_PYTHON="$PY" PYTHONPATH="$PYTHONPATH" \
        "$HCBTRACE" convert "$T/big.jsonl" -o "$T/big.parquet"
    [ "$(cat "$T/tty.rc")" = 0 ]
    progress_shown_and_cleared "$T/tty"
    refute grep -q '%\]' "$T/tty.screen"
    run --separate-stderr "$HCBTRACE" convert "$T/big.jsonl" -o "$T/big2.parquet"
    assert_success
    [ -z "$stderr" ]
}

@test "parquet: a damaged recording converts up to the damage, one message, exit 1; a cut one warns, exit 0" {
    "$PY" -c 'import sys, recgen; recgen.write_jsonl(sys.argv[1], 4)' "$T/good.jsonl"
    # line 30 loses its name: replay stops there, and so does convert
    awk 'NR == 30 { sub(/"name":"[^"]*",/, "") } { print }' "$T/good.jsonl" >"$T/bad.jsonl"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/bad.jsonl"
    [ "$status" -eq 1 ]
    want=$stderr
    run --separate-stderr "$HCBTRACE" convert "$T/bad.jsonl" "$T/good.jsonl" -o "$T/bad.parquet"
    [ "$status" -eq 1 ]
    [ "$(wc -l <<<"$stderr")" -eq 1 ]
    [ "$stderr" = "$want (converted up to there)" ]
    # what is before the damage is there, and all of the good one
    run "${CHECK[@]}" rows "$T/bad.parquet" "$T/bad.jsonl" "$T/good.jsonl"
    echo "# $output" >&3
    assert_success
    # a file that is no recording at all: replay's message, nothing of it, the others whole
    echo hello >"$T/not.hcbcap"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/not.hcbcap"
    want=$stderr
    run --separate-stderr "$HCBTRACE" convert "$T/not.hcbcap" "$T/good.jsonl" -o "$T/not.parquet"
    [ "$status" -eq 1 ]
    [ "$stderr" = "$want (converted up to there)" ]
    run "${CHECK[@]}" rows "$T/not.parquet" "$T/good.jsonl"
    assert_success
    # a copy cut inside its last line: replay's warning, the rest converted
    head -c $(( $(stat -c %s "$T/good.jsonl") - 40 )) "$T/good.jsonl" >"$T/cut.jsonl"
    run --separate-stderr "$HCBTRACE" convert "$T/cut.jsonl" -o "$T/cut.parquet"
    assert_success
    [[ "$stderr" == "hcbtrace: warning: $T/cut.jsonl:"*"truncated?"* ]]
    [ "$(wc -l <<<"$stderr")" -eq 1 ]
    run "${CHECK[@]}" rows "$T/cut.parquet" "$T/cut.jsonl"
    assert_success
}

@test "parquet: no pyarrow, no python3: one message naming the install, exit 4; usage errors exit 2" {
    "$PY" -c 'import sys, recgen; recgen.write_jsonl(sys.argv[1], 5)' "$T/r.jsonl"
    # a venv without pyarrow: pyarrow's import is made to fail in it
    mkdir -p "$T/nopa/pyarrow"
    echo 'raise ImportError("no pyarrow here")' >"$T/nopa/pyarrow/__init__.py"
    PYTHONPATH=$T/nopa run --separate-stderr "$HCBTRACE" convert "$T/r.jsonl" -o "$T/r.parquet"
    [ "$status" -eq 4 ]
    [[ "$stderr" == "hcbtrace: converting to Parquet needs pyarrow, which "*"cannot import: pip install 'hcbtap[parquet]' (or pip install pyarrow)"* ]]
    [ "$(wc -l <<<"$stderr")" -eq 1 ]
    [ ! -e "$T/r.parquet" ]
    HCB_PYTHON=$T/no-python3 run --separate-stderr "$HCBTRACE" convert "$T/r.jsonl" -o "$T/r.parquet"
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"cannot run '$T/no-python3'"*"HCB_PYTHON"* ]]
    run "$HCBTRACE" convert -o "$T/r.parquet"
    [ "$status" -eq 2 ]
    run "$HCBTRACE" convert --device 1 "$T/r.jsonl" -o "$T/r.parquet"
    [ "$status" -eq 2 ]
    mkdir -p "$T/full" && touch "$T/full/x"
    run "$HCBTRACE" convert "$T/r.jsonl" -o "$T/full/"
    [ "$status" -eq 2 ]
}
