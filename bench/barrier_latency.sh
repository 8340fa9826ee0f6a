#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/barrier_latency.sh BUILD [--json] - how long `hcbtrace barrier` takes,
# on an idle target (one step a second) and on a busy one (4 devices tapping
# flat out), with one `hcbtrace record` session attached (.hcbcap); and on
# the bundled example as it comes (4 devices, a step a millisecond, its
# default 1 Mi-element field taps: about 1 GB of taps a minute) with a JSONL
# recorder, whose writer is then the slowest part: as it comes (the lag
# limit at its default, 25 ms) and with `record --max-lag 0`, the ring's
# size the only limit (man page, DELIVERY).  20 barriers each;
# prints the median and the worst, in ms (from barrier's own message).
set -euo pipefail

build=$1
json=${2:-}
hcbtrace=$build/cli/hcbtrace
example=$build/examples/hcb-example
work=$(mktemp -d)
export HCBTRACE_RUNDIR=$work/run
pids=()
cleanup() { kill -9 "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# measure NAME EXT [--max-lag MS] EXAMPLE_ARGS...: median and max of 20
# barriers with a recorder to NAME.EXT attached, as "NAME MEDIAN MAX"
measure()
{
    local name=$1 ext=$2 lag=(); shift 2
    if [[ $1 == --max-lag ]]; then lag=(--max-lag "$2"); shift 2; fi
    "$example" "$@" >/dev/null 2>&1 &
    local ex=$!
    pids+=("$ex")
    for _ in $(seq 100); do "$hcbtrace" list 2>/dev/null | grep -q "^$ex " && break; sleep 0.05; done
    "$hcbtrace" record -q -p "$ex" "${lag[@]}" -o "$work/$name.$ext" 2>/dev/null &
    local rec=$!
    pids+=("$rec")
    for _ in $(seq 100); do ls "$HCBTRACE_RUNDIR" 2>/dev/null | grep -q "^$ex\.$rec\." && break; sleep 0.05; done
    sleep 0.5
    for _ in $(seq 20); do
        "$hcbtrace" barrier -t 30 "$ex" 2>&1 | sed -n 's/.*, in \([0-9.]*\) ms$/\1/p'
    done | sort -n | awk -v n="$name" '{ v[NR] = $1 } END { print n, v[int((NR + 1) / 2)], v[NR] }'
    kill -INT "$rec"; wait "$rec" 2>/dev/null || true
    kill "$ex"; wait "$ex" 2>/dev/null || true
}

idle=$(measure idle hcbcap --devices 4 --steps 0 --interval-ms 1000 --field-size 16)
busy=$(measure busy hcbcap --devices 4 --steps 0 --interval-ms 0 --field-size 16)
jsonl=$(measure jsonl jsonl --devices 4 --steps 0 --interval-ms 1)
nolimit=$(measure nolimit jsonl --max-lag 0 --devices 4 --steps 0 --interval-ms 1)
read -r _ idle_med idle_max <<<"$idle"
read -r _ busy_med busy_max <<<"$busy"
read -r _ jsonl_med jsonl_max <<<"$jsonl"
read -r _ nolim_med nolim_max <<<"$nolimit"
if [[ $json == --json ]]; then
    printf '{"barrier_idle_ms":%s,"barrier_idle_max_ms":%s,"barrier_busy_ms":%s,"barrier_busy_max_ms":%s,' \
        "$idle_med" "$idle_max" "$busy_med" "$busy_max"
    printf '"barrier_busy_jsonl_ms":%s,"barrier_busy_jsonl_max_ms":%s,' "$jsonl_med" "$jsonl_max"
    printf '"barrier_busy_jsonl_nolimit_ms":%s,"barrier_busy_jsonl_nolimit_max_ms":%s}\n' \
        "$nolim_med" "$nolim_max"
else
    echo "barrier latency, 1 record session, 20 barriers each (median / worst):"
    printf '  idle target (a step a second)       %8s ms / %s ms\n' "$idle_med" "$idle_max"
    printf '  busy target (4 devices, flat out)   %8s ms / %s ms\n' "$busy_med" "$busy_max"
    printf '  example as it comes, JSONL recorder %8s ms / %s ms\n' "$jsonl_med" "$jsonl_max"
    printf '  the same, record --max-lag 0        %8s ms / %s ms\n' "$nolim_med" "$nolim_max"
fi
