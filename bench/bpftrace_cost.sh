#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bpftrace_cost.sh BUILD [--json] - what an attached tap costs the
# program, hcbtrace against bpftrace attached to the same USDT probe doing
# the least it can (counting).  The tapper taps 64-byte packets flat out
# for 2 s under each, in the same run; its thread CPU time per tap is the
# cost (best of 3 each).  Needs bpftrace (scripts/lib.sh installs it).
set -euo pipefail

build=$1
json=${2:-}
tapper=$build/bench/tapper
hcbtrace=$build/cli/hcbtrace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v bpftrace >/dev/null; then
    echo "bench/bpftrace_cost.sh: bpftrace is not installed (apt-get install bpftrace)" >&2
    [[ $json == --json ]] && echo '{}'
    exit 0
fi

# one_run TRACER: ns per tap of one flat-out tapper run with TRACER attached
# (for hcbtrace, also how many taps its recording lost, in $work/lost: a
# recorder that drops taps would look cheaper than one that keeps them)
one_run()
{
    "$tapper" --bytes 64 --threads 1 --seconds 2 --wait-attached 20 >"$work/tap.json" &
    local t=$! lib tr
    for _ in $(seq 100); do
        lib=$(grep -m1 -o '/[^ ]*libhcbtap\.so[^ ]*' "/proc/$t/maps" 2>/dev/null) && break
        sleep 0.02
    done
    if [[ $1 == bpftrace ]]; then
        bpftrace -p "$t" -e "usdt:$lib:hcbtap:packet { @n = count(); }" >/dev/null 2>&1 &
    else
        "$hcbtrace" record -p "$t" -o "$work/taps.hcbcap" 2>"$work/record.err" &
    fi
    tr=$!
    wait "$t"
    kill -INT "$tr" 2>/dev/null || true
    wait "$tr" 2>/dev/null || true
    if [[ $1 == hcbtrace ]]; then
        sed -n 's/.* written, \([0-9]*\) lost$/\1/p' "$work/record.err" | tail -1 >>"$work/lost"
    fi
    sed -n 's/.*"ns_per_tap":\([0-9.]*\).*/\1/p' "$work/tap.json"
}

best() { for _ in 1 2 3; do one_run "$1"; done | sort -n | head -1; }

: >"$work/lost"
bt=$(best bpftrace)
hcb=$(best hcbtrace)
lost=$(awk '{ n += $1 } END { print n + 0 }' "$work/lost")
ratio=$(awk -v a="$hcb" -v b="$bt" 'BEGIN { printf "%.2f", a / b }')
if [[ $json == --json ]]; then
    printf '{"tap_bpftrace_count_ns":%s,"tap_hcbtrace_record_64B_ns":%s,"hcbtrace_vs_bpftrace_tap_cost":%s,"tap_hcbtrace_record_lost":%s}\n' \
        "$bt" "$hcb" "$ratio" "$lost"
else
    echo "attached tap, 64 B, flat out, thread CPU time per tap (best of 3 x 2 s):"
    printf '  bpftrace counting the probe      %8s ns\n' "$bt"
    printf '  hcbtrace record (.hcbcap)        %8s ns   (%sx bpftrace: it copies the payload)\n' "$hcb" "$ratio"
    printf '  taps the recordings lost         %8s      (of all 3 runs; 0: every tap kept)\n' "$lost"
fi
