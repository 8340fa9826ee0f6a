# SPDX-License-Identifier: MIT
# tests/kernel/helpers.sh - what a check of tests/kernel/checks uses: its
# result and notes, the programs it starts and ends, and polls that wait
# for a condition (builtins only: under software emulation each process a
# poll starts takes a good part of a second from the program it waits
# for).  Sourced by tests/kernel/checks, which sets HCBTRACE, NAP and the
# rest before any of these runs.
# --- helpers a check uses (each check runs in a subshell of its own, in
# its own folder; `fail` ends it) ---

# fail WHY [FILE]: the check fails for WHY; FILE holds what the failing
# command said (its stderr), shown after the result line
fail()
{
    echo "$1" >why
    [ -n "${2:-}" ] && echo "$2" >why.file
    exit 1
}

# note TEXT: what the check saw, shown under its result line
note() { echo "$*" >>note; }

# mark WHAT: WHAT happened now, seconds into the check (shown under its
# result line: where a slow machine's time went)
mark() { echo "$1 $(( ($(date +%s%N) - T0) / 1000000000 ))s" >>marks; }

# start OUT ERR CMD...: CMD in the background, stdout to OUT and stderr to
# ERR; its pid in LAST, ended with the check
KIDS=()
start()
{
    local out=$1 err=$2
    shift 2
    "$@" >"$out" 2>"$err" &
    LAST=$!
    KIDS+=("$LAST")
}

# the end of every check: nothing it started outlives it
end_kids()
{
    local p
    for p in "${KIDS[@]}"; do
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
}

# alive PID: PID runs (a zombie has ended: only its status is left).
# Builtins only, as in every poll below: under software emulation each
# process a poll starts takes a good part of a second from the program
# it waits for.
alive()
{
    local stat
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    [[ $stat != *") Z "* ]]
}

# wait_until SECS CMD...: until CMD succeeds, polled every 0.1 s times
# HCB_CHECK_SCALE (at most 1 s); 1 if it did not within SECS
wait_until()
{
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep "$NAP"
    done
}

# finished PID SECS: wait (at most SECS) for our child PID to end; its exit
# status in RC (124: it did not end in time)
finished()
{
    RC=124
    wait_until "$2" not_alive "$1" || return 1
    # (bash's word of a child it killed would be in the check's log)
    { wait "$1"; } 2>/dev/null
    RC=$?
}
not_alive() { ! alive "$1"; }

# must SECS ERR CMD...: CMD (stdout as the caller directs, stderr to ERR)
# must end well within SECS
must()
{
    local t=$1 err=$2 rc
    shift 2
    timeout -k 10 "$t" "$@" 2>"$err"
    rc=$?
    [ "$rc" = 124 ] && fail "${1##*/} ${2:-} did not end within $t s" "$err"
    [ "$rc" = 0 ] || fail "${1##*/} ${2:-} exited $rc" "$err"
}

# section PID: hcbtrace list's lines about process PID
section() { "$HCBTRACE" list 2>/dev/null | sed -n "/^$1 /,/^[0-9]/p"; }

# registered PID: PID has libhcbtap loaded and its 5 consumers registered
registered() { section "$1" | grep -q '^  consumers: 5'; }

# wait_session TARGET TRACER ERR SECS: until a session of TRACER on TARGET
# is published (its probes are in place); fails at once if the tracer ends
wait_session()
{
    wait_until "$4" session_or_gone "$1" "$2"
    alive "$2" || fail "hcbtrace ended before its session started" "$3"
    section "$1" | grep -Eq '^  sessions: [1-9]' ||
        fail "no hcbtrace session on process $1 within $4 s" "$3"
}
session_or_gone() { ! alive "$2" || section "$1" | grep -Eq '^  sessions: [1-9]'; }

# wait_line FILE PATTERN SECS PID ERR WHAT: until FILE has a line matching
# PATTERN; fails (for WHAT, showing ERR) at once if PID ends first
wait_line()
{
    wait_until "$3" line_or_gone "$1" "$2" "$4"
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    alive "$4" || fail "$6: it ended" "$5"
    fail "$6 within $3 s" "$5"
}
line_or_gone() { grep -q -- "$2" "$1" 2>/dev/null || ! alive "$3"; }

# stopped PID: every thread of PID is stopped (state T)
stopped()
{
    [ "$(sed 's/^.*) //' /proc/"$1"/task/*/stat 2>/dev/null | cut -c1 | sort -u)" = T ]
}

# loaded TRACER WHAT: the BPF programs and maps TRACER (an hcbtrace) holds
# now, by its file descriptors: what it loaded into this kernel for WHAT
loaded()
{
    local ids links maps names fdinfo
    # through cat: a descriptor closed since the glob is skipped, where
    # awk would stop at it
    fdinfo=$(cat /proc/"$1"/fdinfo/* 2>/dev/null)
    ids=" $(awk '$1 == "prog_id:" { print $2 }' <<<"$fdinfo" | sort -un | paste -sd' ') "
    read -r links maps < <(awk '$1 == "link_id:" { l++ } $1 == "map_id:" { m++ } END { print l + 0, m + 0 }' \
        <<<"$fdinfo")
    # "ID: TYPE  name NAME  tag ..." for each program of the kernel's
    names=$(bpftool prog show 2>/dev/null | awk -v ids="$ids" '
        /^[0-9]+: / {
            id = $1; sub(/:$/, "", id)
            if (!index(ids, " " id " ")) next
            n = "prog " id
            for (i = 2; i < NF; i++) if ($i == "name") n = $(i + 1)
            out = out sep n " (" $2 ")"; sep = ", "; k++ }
        END { print k + 0 " programs: " out }')
    echo "# loaded by $2: $names; $links links, $maps maps" >>"$OUT/loaded"
}
