# SPDX-License-Identifier: MIT
# common.bash - shared set-up for the end-to-end tests: the built binaries,
# a temp dir, and starting/stopping real hcb-example processes.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

_common_setup()
{
    ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    BUILD=${HCB_BUILD:-$ROOT/build}
    HCBTRACE=${HCBTRACE:-$BUILD/cli/hcbtrace}
    EXAMPLE=${HCB_EXAMPLE:-$BUILD/examples/hcb-example}
    TOOLS=$BUILD/tests/tools
    export LC_ALL=C
    [ -x "$HCBTRACE" ] || { echo "hcbtrace not built at $HCBTRACE" >&2; return 1; }
    [ -x "$EXAMPLE" ] || { echo "hcb-example not built at $EXAMPLE" >&2; return 1; }
    if [ "$(id -u)" != 0 ]; then
        echo "!!! SKIPPING: these tests attach BPF programs and must run as root !!!" >&2
        skip "needs root for BPF"
    fi
    T=$BATS_TEST_TMPDIR
    PIDS=()
}

_common_teardown()
{
    local p
    for p in "${PIDS[@]}"; do
        kill -9 "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}

# need_python VENV CHECK WHAT: set PY to VENV's python if CHECK (Python
# code) runs there, else fail loudly: scripts/test makes the venvs.
need_python()
{
    PY=$1/bin/python
    if [ ! -x "$PY" ] || ! "$PY" -c "$2" 2>/dev/null; then
        echo "!!! no venv with $3 at $1: run scripts/test !!!" >&2
        return 1
    fi
}

# start_example ARGS...: start hcb-example in the background, wait until its
# libhcbtap is loaded and its taps are registered; sets EX_PID.
start_example()
{
    "$EXAMPLE" "$@" >"$T/example.out" 2>"$T/example.err" &
    EX_PID=$!
    PIDS+=("$EX_PID")
    wait_registered "$EX_PID"
}

# start_modern ARGS...: $PROG (tests/jax/modern.py) under $PY, compiled
# and waiting for $T/go, its truth to $T/truth.jsonl; MOD_PID
start_modern()
{
    "$PY" "$PROG" "$T/go" "$T/truth.jsonl" "$@" >"$T/prog.out" 2>"$T/prog.err" &
    MOD_PID=$!
    PIDS+=("$MOD_PID")
    wait_for "$T/prog.out" '^ready$' 180
}

# wait_registered PID: until `hcbtrace list` shows PID with its 5 consumers
# (at most 60 s: a loaded machine starts a process slowly)
wait_registered()
{
    local i
    for i in $(seq 1200); do
        if grep -q "^  consumers: 5" < <("$HCBTRACE" list 2>/dev/null | sed -n "/^$1 /,/^[0-9]/p"); then
            return 0
        fi
        sleep 0.05
    done
    echo "process $1 never registered its taps" >&2
    return 1
}

# wait_session PID [SECS]: until `hcbtrace list` shows an hcbtrace session
# attached to PID (it is published once the session's probes are in place);
# at most SECS (default 120: probing a jaxlib takes a while)
wait_session()
{
    local i n=$(( ${2:-120} * 20 ))
    for i in $(seq "$n"); do
        if grep -Eq '^  sessions: [1-9]' < <("$HCBTRACE" list 2>/dev/null | sed -n "/^$1 /,/^[0-9]/p"); then
            return 0
        fi
        sleep 0.05
    done
    echo "no hcbtrace session attached to process $1" >&2
    return 1
}

# retry SECS CMD...: until CMD succeeds (checked every 50 ms), at most SECS
# seconds; for conditions no file line or screen pattern expresses.
retry()
{
    local i n=$(( $1 * 20 ))
    shift
    for i in $(seq "$n"); do
        "$@" && return 0
        sleep 0.05
    done
    echo "timed out after ${n} tries waiting for: $*" >&2
    return 1
}

# wait_for FILE PATTERN [SECS]: until FILE has a line matching PATTERN (at
# most SECS, default 60).
wait_for()
{
    local i n=$(( ${3:-60} * 20 ))
    for i in $(seq "$n"); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "timed out waiting for '$2' in $1" >&2
    return 1
}

# semaphore PID: the hcbtap:packet USDT semaphore's value in PID.
semaphore()
{
    "$TOOLS/semaphore_check" "$1"
}

# semaphore_is PID VALUE: PID's semaphore reads VALUE
semaphore_is()
{
    [ "$(semaphore "$1")" = "$2" ]
}

# stopped PID: every thread of PID is stopped (state T): after kill -STOP,
# which only sends the signal, none runs on
stopped()
{
    local states
    states=$(sed 's/^.*) //' /proc/"$1"/task/*/stat 2>/dev/null | cut -c1 | sort -u)
    [ "$states" = T ]
}

# no_tracefs CMD...: run CMD in a private mount namespace where no tracefs
# is mounted, as on a freshly booted machine, whatever this one has mounted
no_tracefs()
{
    unshare -m --propagation private bash -c '
        for m in $(awk '\''$3 == "tracefs" { print $2 }'\'' /proc/self/mounts | sort -r); do
            umount -l "$m" || exit 97
        done
        if awk '\''$3 == "tracefs" { found = 1 } END { exit !found }'\'' /proc/self/mounts; then
            echo "no_tracefs: tracefs is still mounted" >&2
            exit 97
        fi
        exec "$@"' no_tracefs "$@"
}

# issued_total PID: taps PID has issued on all its devices (libhcbtap's counters)
issued_total()
{
    python3 "$ROOT/tests/tools/read_issued.py" "$1" | awk '{ n += $NF } END { print n + 0 }'
}

# issued_past PID N: PID has issued N taps or more
issued_past()
{
    [ "$(issued_total "$1")" -ge "$2" ]
}

# issued_each_past PID FILE N: on every device of FILE (read_issued.py's
# "DEVICE COUNT" lines, taken earlier), PID has issued N taps more since
issued_each_past()
{
    python3 "$ROOT/tests/tools/read_issued.py" "$1" |
        awk -v n="$3" 'NR == FNR { was[$1] = $2; next }
                       ($1 in was) && $2 >= was[$1] + n { ok++ }
                       END { exit !(ok == length(was) && ok > 0) }' "$2" -
}

# switches PID: context switches of all PID's threads so far
switches()
{
    cat /proc/"$1"/task/*/status 2>/dev/null |
        awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}

# runs_on PID [N]: wait until PID has been scheduled N (default 20) more
# times: it is alive and making progress, not merely not dead yet.  For a
# program that sleeps or waits between steps (each one a switch); one that
# never does is switched only when something else wants its CPU: busy_for.
runs_on()
{
    local want=$(( $(switches "$1") + ${2:-20} ))
    retry 120 switches_past "$1" "$want"
    kill -0 "$1"
}
switches_past() { kill -0 "$1" && [ "$(switches "$1")" -ge "$2" ]; }

# cpu_ticks PID: the CPU time of all PID's threads so far, in clock ticks
# (utime + stime of /proc/PID/stat)
cpu_ticks()
{
    sed 's/^.*) //' /proc/"$1"/stat 2>/dev/null | awk '{ print $12 + $13 }'
}

# busy_for PID TICKS: wait until PID has run TICKS clock ticks more on a
# CPU: a program that never sleeps is alive and making progress
busy_for()
{
    local want=$(( $(cpu_ticks "$1") + $2 ))
    retry 120 ticks_past "$1" "$want"
    kill -0 "$1"
}
ticks_past() { kill -0 "$1" && [ "$(cpu_ticks "$1")" -ge "$2" ]; }

# lines_at_least FILE PATTERN N: FILE has N lines or more matching PATTERN
lines_at_least()
{
    [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]
}

# programs_of PID: the names of the BPF programs process PID holds
programs_of()
{
    local f id
    for f in /proc/"$1"/fdinfo/*; do
        sed -n 's/^prog_id:[[:space:]]*//p' "$f" 2>/dev/null
    done | sort -u | while read -r id; do
        bpftool prog show id "$id" | sed -n 's/.* name \([a-z_0-9]*\) .*/\1/p'
    done
}

# linked PID PROG: process PID holds a link of BPF program PROG (a
# uprobe_multi link's fd, or a perf event's link where the kernel has
# none: both say their program)
linked()
{
    local f id
    for f in /proc/"$1"/fdinfo/*; do
        grep -q '^link_type:' "$f" 2>/dev/null || continue
        id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f")
        [ -n "$id" ] || continue
        bpftool prog show id "$id" | grep -q " name $2 " && return 0
    done
    return 1
}

# uprobe_links PID PROG: "COOKIE OFFSET" of each place process PID's
# uprobe_multi links of BPF program PROG sit (their fdinfo says); fails if
# it holds none
uprobe_links()
{
    local f id found=1
    for f in /proc/"$1"/fdinfo/*; do
        grep -q '^link_type:[[:space:]]*uprobe_multi' "$f" 2>/dev/null || continue
        id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$f")
        bpftool prog show id "$id" | grep -q " name $2 " || continue
        # after the "cookie offset ref_ctr_offset" header, one line a place
        sed -n '/^cookie/,$p' "$f" | sed 1d | awk '{print $1, $2}'
        found=0
    done
    return $found
}

# refute CMD...: fail unless CMD fails (a bare `! CMD` never fails a bats test)
refute()
{
    if "$@"; then
        echo "expected to fail, but succeeded: $*" >&2
        return 1
    fi
}

# in_terminal LOG CMDLINE: run CMDLINE (a shell command line) in a terminal
# of its own (tmux, 100x10), everything written to that terminal logged to
# LOG; returns once it has ended, its exit status in LOG.rc and the screen
# it left in LOG.screen (then a line "in_terminal: end", written after it).
in_terminal()
{
    local log=$1 sock="hcbterm-$$-${BATS_TEST_NUMBER:-0}" end="in_terminal: end"
    shift
    rm -f "$log" "$log.rc" "$log.rc.tmp" "$log.go" "$log.screen"
    # the command waits until the log is attached
    tmux -L "$sock" new-session -d -s t -x 100 -y 10 \
        "until [ -f $log.go ]; do sleep 0.02; done; $*; echo \$? >$log.rc.tmp; echo '$end'; sleep 600"
    tmux -L "$sock" pipe-pane -t t -o "cat >>$log"
    touch "$log.go"
    # tmux passes the command's last output on to the log and the screen
    # after the command has ended: the line after it there says it has
    if ! retry 120 test -f "$log.rc.tmp" || ! wait_for "$log" "$end" ||
        ! retry 60 tmux_shows "$sock" "$end" "$log.screen"; then
        tmux -L "$sock" kill-server 2>/dev/null
        return 1
    fi
    tmux -L "$sock" kill-server 2>/dev/null || true
    mv "$log.rc.tmp" "$log.rc"
}

# tmux_shows SOCK TEXT FILE: the screen of in_terminal's tmux SOCK, saved to
# FILE, has a line TEXT
tmux_shows()
{
    tmux -L "$1" capture-pane -p -t t >"$3" && grep -qF -- "$2" "$3"
}

# progress_shown_and_cleared LOG: LOG holds a progress line ("[ 43%] 43 MB
# of 100 MB, 20 MB/s"), the last one cleared ("\r" and erase to the end of
# the line) after it
progress_shown_and_cleared()
{
    python3 - "$1" <<'PY'
import re, sys
log = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
lines = re.findall(r"\r\[ *\d+%\] [\d.]+ [kMG]?B of [\d.]+ [kMG]?B, [\d.]+ [kMG]?B/s\x1b\[K", log)
if not lines:
    sys.exit("no progress line in %r" % log[-400:])
tail = log[log.rindex(lines[-1]) + len(lines[-1]):]
if not tail.startswith("\r\x1b[K"):
    sys.exit("the last progress line is not cleared: %r" % tail[:80])
PY
}

# make_big_jsonl FILE TAPS ELEMS: a recording of TAPS float32[ELEMS] taps
# on 2 devices, written by a script (quick), for work that takes a while
make_big_jsonl()
{
    python3 - "$@" <<'PY'
import sys
path, ntaps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "w") as f:
    f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":1}\n')
    data = ",".join(["0.5"] * n)
    for i in range(ntaps):
        f.write('{"type":"tap","device":%d,"seq":%d,"consumer":1,"name":"field","kwargs":{"what":"field"},'
                '"tree":"*","ts_ns":%d,"arrays":[{"dtype":"float32","shape":[%d],"data":[%s]}]}\n'
                % (i % 2, i // 2, 1700000000000000000 + i * 1000000, n, data))
    f.write('{"type":"end","taps":%d,"drops":0,"end_ns":2}\n' % ntaps)
PY
}
