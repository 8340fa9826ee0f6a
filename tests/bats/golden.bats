#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# golden.bats - data-driven cases, one folder each under tests/golden/CMD/:
#   args     the hcbtrace arguments; @CASE@ is the folder, @TMP@ a temp dir,
#            @EXAMPLE@ the built hcb-example
#   stdout   expected standard output (exact)
#   stderr   expected standard error (exact), if present
#   status   expected exit status
#   then     optional shell line run afterwards; its output is appended to
#            stdout before comparing (e.g. to show a written file)
# The replay cases' stdout is what jax 0.4.25's host_callback.id_print
# printed for the same values (tests/tools/gen_golden_replay.py).

load common

setup() { _common_setup; }

run_cases()
{
    local dir=$ROOT/tests/golden/$1 c args failures=0
    [ -d "$dir" ] || { echo "no cases in $dir" >&2; return 1; }
    for c in "$dir"/*/; do
        c=${c%/}
        local tmp=$T/$(basename "$c")
        mkdir -p "$tmp"
        args=$(sed -e "s|@CASE@|$c|g" -e "s|@TMP@|$tmp|g" -e "s|@EXAMPLE@|$EXAMPLE|g" "$c/args")
        local rc=0
        (cd "$tmp" && eval "\"\$HCBTRACE\" $args") >"$tmp/out" 2>"$tmp/err" || rc=$?
        echo "$rc" >"$tmp/status"
        if [ -f "$c/then" ]; then
            (cd "$tmp" && eval "$(sed -e "s|@CASE@|$c|g" -e "s|@TMP@|$tmp|g" -e "s|@HCBTRACE@|$HCBTRACE|g" "$c/then")") >>"$tmp/out" 2>&1 || true
        fi
        sed -i -e "s|$c|@CASE@|g" -e "s|$tmp|@TMP@|g" "$tmp/err"
        if ! cmp -s "$tmp/out" "$c/stdout"; then
            echo "--- $c: stdout differs" >&2; diff "$c/stdout" "$tmp/out" | head -20 >&2
            failures=$((failures + 1))
        fi
        if [ -f "$c/stderr" ] && ! cmp -s "$tmp/err" "$c/stderr"; then
            echo "--- $c: stderr differs" >&2; diff "$c/stderr" "$tmp/err" | head -10 >&2
            failures=$((failures + 1))
        fi
        if [ "$(cat "$tmp/status")" != "$(cat "$c/status")" ]; then
            echo "--- $c: exit status $(cat "$tmp/status"), expected $(cat "$c/status")" >&2
            failures=$((failures + 1))
        fi
    done
    [ "$failures" -eq 0 ]
}

@test "golden: replay" { run_cases replay; }
@test "golden: convert" { run_cases convert; }
@test "golden: record" { run_cases record; }
