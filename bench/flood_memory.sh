#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/flood_memory.sh BUILD [N] [RING_MIB] - hcbtrace's peak memory under a
# registration flood: `hcbtrace record -b RING_MIB` attached to
# tests/tools/hostile_tap flood N (N consumers, default 150, whose 1 MiB
# registrations end in an unmapped page, two packets each, 10 ms apart),
# and, for the floor, the same with N = 1.  Prints VmHWM of hcbtrace (kB)
# for both, and how many packets reached the decoder (its "bad" count: the
# rest were dropped by a full ring).  Before the bounds of
# src/providers/bounds.h every registration that reached the decoder stayed,
# 1.1 MiB each.  Root only (BPF).
set -euo pipefail

build=$1
n=${2:-150}
ring=${3:-16}
hcbtrace=$build/cli/hcbtrace
hostile=$build/tests/tools/hostile_tap
work=$(mktemp -d)
export HCBTRACE_RUNDIR=$work/run
pids=()
cleanup() { kill -9 "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# until FILE has a line matching PATTERN (60 s at most)
wait_line()
{
    for _ in $(seq 1200); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "flood_memory: timed out waiting for '$2' in $1" >&2
    return 1
}

# flood N: "N VMHWM_KB REACHED"
flood()
{
    local hp tp hwm
    "$hostile" flood "$1" >"$work/h.out" &
    hp=$!
    pids+=("$hp")
    wait_line "$work/h.out" '^ready$'
    "$hcbtrace" record -b "$ring" -o "$work/r.jsonl" -p "$hp" 2>"$work/r.err" &
    tp=$!
    pids+=("$tp")
    for _ in $(seq 600); do
        "$hcbtrace" list 2>/dev/null | sed -n "/^$hp /,/^[0-9]/p" | grep -Eq '^  sessions: [1-9]' && break
        sleep 0.1
    done
    kill -USR1 "$hp"
    wait_line "$work/r.jsonl" '"name":"end"'
    hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/"$tp"/status)
    kill -USR1 "$hp"
    wait "$tp"
    echo "$1 $hwm $(awk '$1 == "cpu:0" { print $(NF - 1) }' "$work/r.err")"
}

floor=$(flood 1)
full=$(flood "$n")
echo "registration flood, ring $ring MiB: consumers, hcbtrace VmHWM kB, packets that reached the decoder"
echo "  $floor"
echo "  $full"
