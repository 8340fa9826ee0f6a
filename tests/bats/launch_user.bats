#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# launch_user.bats - `record -- CMD` and `run -- CMD` under sudo run CMD as
# the user who ran sudo (SUDO_UID, SUDO_GID), or as --user NAME; never
# silently as root (cli/launch_user.c).

load common

setup()
{
    _common_setup
    # a folder nobody may write (bats' own temp folders are root's alone)
    W=$(mktemp -d /tmp/hcb-user.XXXXXX)
    chown nobody:nogroup "$W"
}
teardown()
{
    _common_teardown
    rm -rf "$W"
}

@test "launch user: under sudo, record -- CMD runs CMD as SUDO_UID, with SUDO_GID and no root group" {
    run --separate-stderr env SUDO_UID=65534 SUDO_GID=65534 "$HCBTRACE" record -q -o "$T/x.jsonl" -- id -u
    assert_success
    assert_output 65534
    run --separate-stderr env SUDO_UID=65534 SUDO_GID=65534 "$HCBTRACE" record -q -o "$T/x.jsonl" -- id -G
    assert_output 65534
    # and its environment names it, not root
    run --separate-stderr env SUDO_UID=65534 SUDO_GID=65534 "$HCBTRACE" run -q -- sh -c 'echo $USER $HOME'
    assert_output "nobody $(getent passwd nobody | cut -d: -f6)"
}

@test "launch user: --user root keeps root, --user NAME chooses, a wrong one is refused" {
    run --separate-stderr env SUDO_UID=65534 SUDO_GID=65534 "$HCBTRACE" record -q -o "$T/x.jsonl" --user root -- id -u
    assert_success
    assert_output 0
    run --separate-stderr "$HCBTRACE" run -q --user nobody -- id -un
    assert_output nobody
    run --separate-stderr "$HCBTRACE" run -q --user 65534 -- id -u
    assert_output 65534
    # the groups /etc/group lists the user in come along, and only those
    grep -q '^hcbtestgrp:' /etc/group || groupadd -g 64999 hcbtestgrp
    gpasswd -a nobody hcbtestgrp >/dev/null
    run --separate-stderr "$HCBTRACE" run -q --user nobody -- id -G
    gpasswd -d nobody hcbtestgrp >/dev/null
    groupdel hcbtestgrp
    assert_output "65534 64999"
    run --separate-stderr "$HCBTRACE" record -q -o "$T/x.jsonl" --user no-such-user-here -- id -u
    assert_failure 2
    assert_output ''
    assert_equal "$stderr" "hcbtrace: --user no-such-user-here: no such user in /etc/passwd"
    run --separate-stderr "$HCBTRACE" record -o "$T/x.jsonl" --user nobody -p 1
    assert_failure 2
    # SUDO_UID that is no id: refused, not run as root
    run --separate-stderr env SUDO_UID=bob "$HCBTRACE" run -q -- id -u
    assert_failure 2
    assert_output ''
}

@test "launch user: not root, --user root is one message, and CMD never runs" {
    # what tracing takes, but not CAP_SETUID
    run -127 --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
        --inh-caps=+sys_admin,+bpf,+perfmon --ambient-caps=+sys_admin,+bpf,+perfmon \
        env HCBTRACE_RUNDIR="$W" "$HCBTRACE" run -q --user root -- touch "$W/ran"
    assert_failure 127
    assert_equal "$stderr" "hcbtrace: cannot run 'touch' as uid 0: Operation not permitted"
    [ ! -e "$W/ran" ]
}

@test "launch user: a tapper dropped to SUDO_UID is recorded from its first tap" {
    run --separate-stderr env SUDO_UID=65534 SUDO_GID=65534 "$HCBTRACE" record -q -o "$T/rec.jsonl" -- \
        sh -c 'id -u >"$1/uid"; exec "$2" --devices 2 --steps 4 --interval-ms 0 --field-size 100 --truth "$1/truth.jsonl"' \
        sh "$W" "$EXAMPLE"
    assert_success
    [ "$(cat "$W/uid")" = 65534 ]
    [ "$(stat -c %u "$W/truth.jsonl")" = 65534 ]
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/rec.jsonl" "$W/truth.jsonl" --all --devices 2
    assert_success
    assert_output --partial "ok: 40 taps"
}
