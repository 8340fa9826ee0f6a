#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# trust.bats - a traced program, or a local user, must not be able to
# hang, fool or make root's hcbtrace lose data (issue 25): what a target
# names reaches a terminal shown, never acted on; files a target names are
# opened safely; outputs are replaced only once there is something to put
# there; the run directory is trusted only as its owner's; a barrier that
# cannot complete is given up without a busy loop.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    TAPPER="python3 $ROOT/tests/tools/escape_tapper.py"
    LIBHCBTAP=$BUILD/hcbtap/libhcbtap.so
    FIFOS=()
}

# plant_fifo PATH: a FIFO at PATH, removed by unplant_fifos (and teardown)
plant_fifo()
{
    FIFOS+=("$1")
    mkfifo "$1"
}

# unplant_fifos: remove the FIFOs planted; any process blocked opening one
# (an hcbtrace without the fix, of this run or another) is let go first:
# an open for reading and writing never blocks and completes theirs
unplant_fifos()
{
    local f fd
    for f in "${FIFOS[@]}"; do
        [ -p "$f" ] || continue
        exec {fd}<>"$f"
        exec {fd}>&-
        rm -f "$f"
    done
    FIFOS=()
}

teardown()
{
    unplant_fifos
    _common_teardown
}

# start_tapper [LIB]: escape_tapper.py on LIB (default the build's), until ready
start_tapper()
{
    $TAPPER "${1:-$LIBHCBTAP}" >"$T/tapper.out" 2>"$T/tapper.err" &
    TAP_PID=$!
    PIDS+=("$TAP_PID")
    wait_for "$T/tapper.out" '^ready$'
}

# no_controls FILE: FILE holds no byte a terminal acts on but the newlines
# between lines (C0 but \n, DEL, C1 as UTF-8 or raw, bytes of no UTF-8)
no_controls()
{
    python3 - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
bad = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
try:
    data.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("no UTF-8 at %d: %r" % (e.start, data[max(0, e.start - 20):e.start + 20]))
if bad:
    sys.exit("a control at %d: %r" % (bad.start(), data[max(0, bad.start() - 20):bad.start() + 20]))
PY
}

SHOWN='what: \x1b]0;pwned\x07\x1b[2J\nhcbtrace: forged line\x7f\xff'

@test "trust: escapes and newlines a target names are shown, not acted on, by list, attach, replay and view" {
    start_tapper
    "$HCBTRACE" list >"$T/list.txt"
    no_controls "$T/list.txt"
    section=$(sed -n "/^$TAP_PID /,/^[0-9]/p" "$T/list.txt")
    grep -qF '  devices: cpu\x1b[7m:0' <<<"$section"
    grep -qF " evil\\xc2\\x9b2J " <<<"$section"
    grep -qF ' { k\xff=* } float32[] '"$SHOWN" <<<"$section"
    # attach: id_print's lines, the controls made visible, no forged line
    "$HCBTRACE" attach -c 2 "$TAP_PID" >"$T/attach.txt" 2>"$T/attach.err"
    no_controls "$T/attach.txt"
    no_controls "$T/attach.err"
    [ "$(grep -c '^hcbtrace: forged' "$T/attach.txt")" = 0 ]
    [ "$(head -2 "$T/attach.txt")" = 'device: cpu\x1b[7m:0 '"$SHOWN"$'\n{ k\\xff=1.5 }' ]
    grep -qF '  cpu\x1b[7m:0 ' "$T/attach.err"
    # a recording keeps what the target said (JSON escapes it; a byte of
    # no UTF-8 cannot be JSON, and is U+FFFD)
    "$HCBTRACE" record -c 2 -p "$TAP_PID" -o "$T/h.jsonl" 2>/dev/null
    no_controls "$T/h.jsonl"
    python3 - "$T/h.jsonl" <<'PY'
import json, sys
tap = [json.loads(l) for l in open(sys.argv[1]) if '"tap"' in l][0]
assert tap["kwargs"]["what"] == "\x1b]0;pwned\x07\x1b[2J\nhcbtrace: forged line\x7f\ufffd", tap
assert tap["name"] == "evil\u009b2J" and tap["tree"] == "{ k\ufffd=* }", tap
PY
    # replay prints what attach printed (but for the byte JSON could not keep)
    "$HCBTRACE" replay --no-wait "$T/h.jsonl" >"$T/replay.txt"
    no_controls "$T/replay.txt"
    grep -qF "${SHOWN%\\xff}"$'\xef\xbf\xbd' "$T/replay.txt"
    # view: its screen shows the words; nothing of them reaches the terminal raw
    command -v tmux >/dev/null || skip "tmux is not installed"
    local sock="hcbtrust-$$"
    tmux -L "$sock" new-session -d -s v -x 160 -y 24 "LC_ALL=C.UTF-8 $HCBTRACE view $T/h.jsonl; sleep 600"
    tmux -L "$sock" pipe-pane -t v -o "cat >>$T/view.log"
    if ! retry 60 eval "tmux -L $sock capture-pane -p -t v | grep -qF 'evil\\xc2\\x9b2J'"; then
        tmux -L "$sock" kill-server
        false
    fi
    tmux -L "$sock" send-keys -t v q
    tmux -L "$sock" kill-server || true
    refute grep -qaF $'\x1b]0;pwned' "$T/view.log"
    refute grep -qaF $'\xc2\x9b' "$T/view.log"
}

@test "trust: a library deleted and replaced by FIFOs: list neither hangs nor opens them, and reads the file mapped" {
    mkdir "$T/lib"
    cp "$(readlink -f "$LIBHCBTAP")" "$T/lib/libhcbtap.so"
    start_tapper "$T/lib/libhcbtap.so"
    grep -q "$T/lib/libhcbtap.so$" /proc/"$TAP_PID"/maps
    rm "$T/lib/libhcbtap.so"
    plant_fifo "$T/lib/libhcbtap.so (deleted)"
    plant_fifo "$T/lib/libhcbtap.so"
    run --separate-stderr timeout 20 "$HCBTRACE" list
    unplant_fifos
    assert_success
    section=$(sed -n "/^$TAP_PID /,/^[0-9]/p" <<<"$output")
    # the kernel's own link to the file it maps, never what has its name now
    grep -Eq "^  library: /proc/$TAP_PID/map_files/[0-9a-f]+-[0-9a-f]+$" <<<"$section"
    grep -q '^  consumers: 1$' <<<"$section"
}

@test "trust: outputs: a failed record keeps the file it would have replaced; convert never writes into its input" {
    echo precious >"$T/results.jsonl"
    run --separate-stderr "$HCBTRACE" record -p 999999 -o "$T/results.jsonl"
    assert_failure 3
    [ "$(cat "$T/results.jsonl")" = precious ]
    # and no temporary file is left beside it
    [ "$(ls -A "$T" | grep -c hcbtrace)" = 0 ]
    # a session that starts replaces it
    start_tapper
    "$HCBTRACE" record -c 1 -p "$TAP_PID" -o "$T/results.jsonl" 2>/dev/null
    grep -q '"type":"tap"' "$T/results.jsonl"
    cp "$T/results.jsonl" "$T/d.jsonl"
    ln "$T/d.jsonl" "$T/hard.jsonl"
    sum=$(md5sum <"$T/d.jsonl")
    cd "$T"
    for out in d.jsonl ./d.jsonl "$T/hard.jsonl"; do
        run --separate-stderr "$HCBTRACE" convert ./d.jsonl -o "$out"
        assert_failure 2
        [[ "$stderr" == "hcbtrace: '$out' is the input './d.jsonl' itself: "*"give the output another name"* ]]
        [ "$(md5sum <"$T/d.jsonl")" = "$sum" ]
    done
    # an input that cannot be read leaves the output as it was
    echo precious >"$T/out.jsonl"
    run --separate-stderr "$HCBTRACE" convert "$T/none.jsonl" -o "$T/out.jsonl"
    assert_failure 1
    [ "$(cat "$T/out.jsonl")" = precious ]
    # a FIFO output still streams: read while it is written
    mkfifo "$T/out.fifo.jsonl"
    FIFOS+=("$T/out.fifo.jsonl")
    "$HCBTRACE" convert "$T/d.jsonl" -o "$T/out.fifo.jsonl" &
    PIDS+=("$!")
    grep -q '"type":"tap"' <"$T/out.fifo.jsonl"
}

@test "trust: the run directory is trusted only as root's: shared, foreign or a symlink, it is refused in one message" {
    start_tapper
    mkdir -m 1777 "$T/shared"
    mkdir -m 0700 "$T/foreign" && chown nobody "$T/foreign"
    mkdir -m 0700 "$T/real" && ln -s "$T/real" "$T/link"
    for dir in "$T/shared" "$T/foreign" "$T/link"; do
        HCBTRACE_RUNDIR=$dir run --separate-stderr "$HCBTRACE" record -c 1 -p "$TAP_PID" -o "$T/r.jsonl"
        assert_success
        [[ "$stderr" == *"cannot publish this session in $dir: the run directory is not trusted"* ]]
        HCBTRACE_RUNDIR=$dir run --separate-stderr "$HCBTRACE" barrier -t 1 "$TAP_PID"
        assert_failure 4
        [[ "$stderr" == "hcbtrace: cannot look for sessions in $dir: the run directory is not trusted"* ]]
        HCBTRACE_RUNDIR=$dir run --separate-stderr "$HCBTRACE" list
        assert_success
        grep -qF "  sessions: not looked for (the run directory $dir is not trusted" <<<"$output"
    done
    # nothing was written into them
    [ -z "$(find "$T/shared" "$T/foreign" "$T/real" -mindepth 1)" ]
}

@test "trust: a session start removes what killed sessions left, and follows no symlink planted there" {
    start_tapper
    mkdir -m 0700 "$HCBTRACE_RUNDIR"
    echo x >"$T/victim"
    : >"$HCBTRACE_RUNDIR/$TAP_PID.999999.session"
    : >"$HCBTRACE_RUNDIR/$TAP_PID.999999.session.tmp"
    mkfifo "$HCBTRACE_RUNDIR/$TAP_PID.999999.wake"
    ln -s "$T/victim" "$HCBTRACE_RUNDIR/1.999998.wake"
    "$HCBTRACE" record -p "$TAP_PID" -o "$T/r.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/r.jsonl" '"type":"tap"'
    retry 30 test -e "$HCBTRACE_RUNDIR/$TAP_PID.$rec.session"
    [ "$(ls "$HCBTRACE_RUNDIR" | sort)" = "$(printf '%s\n' "$TAP_PID.$rec.session" "$TAP_PID.$rec.wake")" ]
    [ "$(cat "$T/victim")" = x ]
    run --separate-stderr "$HCBTRACE" barrier -t 60 "$TAP_PID"
    assert_success
    [ "$(cat "$T/victim")" = x ]
    kill -INT "$rec"
    wait "$rec"
}

@test "trust: a barrier the target's claims make impossible is given up at its timeout, no busy loop, the next one works" {
    start_example --devices 1 --steps 0 --interval-ms 5 --field-size 16
    "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/rec.jsonl" '"type":"tap"'
    # the target claims 1000 taps on device 0 it never sends
    kill -STOP "$EX_PID"
    retry 60 stopped "$EX_PID"
    python3 "$ROOT/tests/tools/bump_issued.py" "$EX_PID" 0 1000
    for i in 1 2; do
        run --separate-stderr "$HCBTRACE" barrier -t 2 "$EX_PID"
        assert_failure 1
        [[ "$stderr" == *"barrier timed out after "* ]]
    done
    retry 30 grep -q 'gave up a barrier when the last one waiting for it timed out' "$T/rec.err"
    # no busy loop: while a CPU hog runs 1 s of CPU time, the session takes
    # a fraction of that (spinning, it took as much)
    sh -c 'while :; do :; done' &
    hog=$!
    PIDS+=("$hog")
    before=$(cpu_ticks "$rec")
    busy_for "$hog" 100
    after=$(cpu_ticks "$rec")
    kill "$hog"
    echo "session CPU while the hog ran 100 ticks: $((after - before)) ticks" >&2
    [ $((after - before)) -lt 20 ]
    # the target sends again: its jump is counted lost, and a barrier completes
    kill -CONT "$EX_PID"
    run --separate-stderr "$HCBTRACE" barrier -t 60 "$EX_PID"
    assert_success
    grep -q '"type":"barrier"' "$T/rec.jsonl"
    kill -INT "$rec"
    wait "$rec"
    grep -q '"type":"drop"' "$T/rec.jsonl"
}
