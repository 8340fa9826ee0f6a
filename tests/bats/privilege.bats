#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# privilege.bats - one truth about privilege: the table in cli/privilege.c,
# and the README, the man page, `hcbtrace check` and the refusal saying
# what it says; then a user who is not root, with only the capabilities
# it names, records a tapper of its own, and with one fewer is told which.

load common

setup()
{
    _common_setup
    # what nobody may write: its own output folder and run directory (in
    # /tmp: bats' own temp folders are root's alone)
    W=$(mktemp -d /tmp/hcb-priv.XXXXXX)
    mkdir -p "$W/run"
    chown -R nobody:nogroup "$W"
    chmod 755 "$W"
    chmod 700 "$W/run"
}
teardown()
{
    _common_teardown
    rm -rf "$W"
}

# the table: "NAME|WHAT|WHEN|COMMANDS" a line, in its order
table()
{
    python3 - "$ROOT/cli/privilege.c" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
rows = re.findall(r'\{ (\d+), "(CAP_\w+)", "([^"]*)", CLI_NEED_(\w+),\s*"([^"]*)" \}', src)
assert len(rows) >= 4, rows
for num, name, what, when, cmds in rows:
    print("|".join((name, what, when, cmds)))
EOF
}

# the hint the table makes, as cli_privilege_hint() makes it
hint_of_table()
{
    table | python3 -c '
import sys
rows = [l.rstrip("\n").split("|") for l in sys.stdin]
def names(when):
    n = [r[0] for r in rows if r[2] == when]
    return n[0] if len(n) == 1 else ", ".join(n[:-1]) + " and " + n[-1]
print("run as root, or with %s (plus %s on kernels before 6.6, %s for other users\x27 processes, %s to signal them)"
      % (names("TRACE"), names("OLD"), names("OTHERS"), names("SIGNAL")))'
}

# as_nobody CAPS CMD...: CMD as nobody with capabilities CAPS (setpriv's
# words: sys_admin,bpf; "" none)
as_nobody()
{
    local caps=$1 with=()
    shift
    [ -z "$caps" ] || with=(--inh-caps="+${caps//,/,+}" --ambient-caps="+${caps//,/,+}")
    setpriv --reuid=nobody --regid=nogroup --clear-groups "${with[@]}" \
        env HCBTRACE_RUNDIR="$W/run" "$@"
}

# start_nobody_example: the example as nobody, no capabilities; EX_PID
# (setpriv itself, exec'd into it: a shell function here would leave the
# example behind when its pid is killed)
start_nobody_example()
{
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$EXAMPLE" --devices 1 --steps 0 \
        --interval-ms 10 --field-size 64 >/dev/null 2>&1 3>&- &
    EX_PID=$!
    PIDS+=("$EX_PID")
    wait_registered "$EX_PID"
}

@test "privilege: README, man page and check say what cli/privilege.c's table says" {
    hint=$(hint_of_table)
    grep -qF "In a word: $hint." "$ROOT/README.md"
    grep -qxF "$hint." "$ROOT/man/hcbtrace.1"
    while IFS='|' read -r name what when cmds; do
        grep -qxF "| $name | $what | $cmds |" "$ROOT/README.md" ||
            { echo "README has no row '| $name | $what | $cmds |'" >&2; false; }
        grep -A1 -xF ".B $name" "$ROOT/man/hcbtrace.1" | grep -qxF "${what//\'/\\(aq}; needed by: $cmds" ||
            { echo "the man page has no '$name: $what; needed by: $cmds'" >&2; false; }
    done < <(table)
    # the setcap recipes give exactly what tracing needs, on a kernel with
    # uprobe_multi links and on one without
    for when in 'TRACE' 'TRACE|OLD'; do
        want=$(table | awk -F'|' -v w="^($when)\$" '$3 ~ w { printf "%s%s", sep, tolower($1); sep = "," }')
        grep -qF "sudo setcap $want+ep" "$ROOT/README.md"
        grep -qF "sudo setcap $want+ep" "$ROOT/man/hcbtrace.1"
    done
    # check reports every capability of the table, in its order
    run --separate-stderr "$HCBTRACE" check -f json
    run python3 -c 'import json, sys; print("\n".join(json.loads(sys.argv[1])["privilege"]["capabilities"]))' "$output"
    assert_output "$(table | cut -d'|' -f1)"
    # and what each is for, when, which commands, and the hint: the table's
    run --separate-stderr "$HCBTRACE" check -f json
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])["privilege"]
when = {"TRACE": "trace", "OLD": "trace on kernels before 6.6", "OTHERS": "other users\x27 processes", "SIGNAL": "signal other users\x27 processes"}
for line in sys.argv[2].splitlines():
    name, what, w, cmds = line.split("|")
    assert d["needs"][name] == {"for": what, "when": when[w], "commands": cmds}, (name, d["needs"][name])
assert d["hint"] == sys.argv[3], d["hint"]
print("ok")' "$output" "$(table)" "$hint"
    assert_output ok
    run --separate-stderr "$HCBTRACE" check
    while IFS='|' read -r name _; do
        assert_line --regexp "^  $name +yes$"
    done < <(table)
    assert_line --regexp "^  to trace +$(sed 's/[][().*+?^$|\\]/\\&/g' <<<"$hint")$"
}

# has_uprobe_multi: this kernel has uprobe_multi links, as check finds
has_uprobe_multi()
{
    "$HCBTRACE" check | grep -qE '^  uprobe_multi links +yes$'
}

@test "privilege: not root, with only the documented capabilities, record works on its own tapper" {
    has_uprobe_multi || skip "this kernel has no uprobe_multi links (before 6.6)"
    caps=$(table | awk -F'|' '$3 == "TRACE" || $3 == "OTHERS" { printf "%s%s", sep, tolower(substr($1, 5)); sep = "," }')
    [ "$caps" = bpf,perfmon,sys_ptrace ]
    start_nobody_example
    run --separate-stderr as_nobody "$caps" "$HCBTRACE" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
    assert_success
    assert_equal "$stderr" ""
    [ "$(stat -c %U "$W/rec.jsonl")" = nobody ]
    tail -1 "$W/rec.jsonl" | grep -q '^{"type":"end","taps":[1-9]'
    # and the same process's check says so
    run --separate-stderr as_nobody "$caps" "$HCBTRACE" check
    assert_success
    assert_line --regexp '^  attach a uprobe +yes$'
}

@test "privilege: another user's process: recorded with CAP_SYS_PTRACE; without it, one message names it, nothing written" {
    has_uprobe_multi || skip "this kernel has no uprobe_multi links (before 6.6)"
    # the example as uid 1234, neither root nor nobody
    setpriv --reuid=1234 --regid=1234 --clear-groups "$EXAMPLE" --devices 1 --steps 0 \
        --interval-ms 10 --field-size 64 >/dev/null 2>&1 3>&- &
    EX_PID=$!
    PIDS+=("$EX_PID")
    wait_registered "$EX_PID"
    [ "$(stat -c %u "/proc/$EX_PID")" = 1234 ]
    run --separate-stderr as_nobody bpf,perfmon,sys_ptrace "$HCBTRACE" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
    assert_success
    assert_equal "$stderr" ""
    # every tap delivered, none counted lost: the counters were read
    tail -1 "$W/rec.jsonl" | grep -q '^{"type":"end","taps":[1-9][0-9]*,"drops":0,'
    refute grep -q '"type":"drop"' "$W/rec.jsonl"
    grep -q '"host":' "$W/rec.jsonl"
    rm "$W/rec.jsonl"
    # the kernel lets CAP_PERFMON read its maps and BPF probe it, not read
    # its memory: refused at once, not recorded with its counts wrong
    run --separate-stderr as_nobody bpf,perfmon "$HCBTRACE" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
    assert_failure 4
    assert_output ''
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ $stderr == "hcbtrace: not enough privilege to trace process $EX_PID ("*"): this process lacks CAP_SYS_PTRACE; $(hint_of_table)" ]]
    [ ! -e "$W/rec.jsonl" ]
    run --separate-stderr as_nobody bpf,perfmon "$HCBTRACE" attach -p "$EX_PID" -c 1
    assert_failure 4
    [[ $stderr == *"this process lacks CAP_SYS_PTRACE"* ]]
}

@test "privilege: with one capability fewer, one message names it, in the table's words" {
    has_uprobe_multi || skip "this kernel has no uprobe_multi links (before 6.6)"
    start_nobody_example
    for cap in bpf perfmon; do
        with=$(sed "s/$cap,\?//; s/,$//" <<<bpf,perfmon,sys_ptrace)
        run --separate-stderr as_nobody "$with" "$HCBTRACE" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
        assert_failure 4
        assert_output ''
        [ "$(wc -l <<<"$stderr")" = 1 ]
        [[ $stderr == "hcbtrace: not enough privilege to "*": this process lacks CAP_${cap^^}; $(hint_of_table)" ]]
    done
    # a kernel without uprobe_multi links, as 6.1 is: CAP_SYS_ADMIN is the one
    export HCBTRACE_TEST_MISSING=uprobe_multi
    run --separate-stderr as_nobody bpf,perfmon,sys_ptrace "$HCBTRACE" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
    assert_failure 4
    assert_output ''
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ $stderr == "hcbtrace: not enough privilege to trace process $EX_PID ("*"): this process lacks CAP_SYS_ADMIN; $(hint_of_table)" ]]
    run --separate-stderr as_nobody bpf,perfmon,sys_ptrace "$HCBTRACE" check
    assert_failure 4
    assert_equal "$stderr" "hcbtrace: not enough privilege to attach uprobes: this process lacks CAP_SYS_ADMIN; $(hint_of_table)"
    # and with it, that kernel's way works too
    run --separate-stderr as_nobody bpf,perfmon,sys_admin,sys_ptrace "$HCBTRACE" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
    assert_success
    tail -1 "$W/rec.jsonl" | grep -q '^{"type":"end","taps":[1-9]'
}

@test "privilege: the README's setcap recipe lets a user who is not root record its own tapper" {
    command -v setcap >/dev/null || skip "no setcap (libcap2-bin)"
    has_uprobe_multi || skip "this kernel has no uprobe_multi links (before 6.6)"
    recipe=$(grep -o 'sudo setcap [a-z_,]*+ep' "$ROOT/README.md" | head -1)
    [ -n "$recipe" ]
    # a copy nobody can run, its file given the capabilities the recipe gives
    cp "$HCBTRACE" "$W/hcbtrace"
    chmod 755 "$W/hcbtrace"
    ${recipe#sudo } "$W/hcbtrace"
    start_nobody_example
    run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
        env HCBTRACE_RUNDIR="$W/run" "$W/hcbtrace" record -q -p "$EX_PID" -o "$W/rec.jsonl" -c 20
    assert_success
    tail -1 "$W/rec.jsonl" | grep -q '^{"type":"end","taps":[1-9]'
}
