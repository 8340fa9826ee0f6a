#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/view_first_screen.sh BUILD [--json] [FILE...] - how soon `hcbtrace view
# FILE` shows its first screen on a large recording, how long G takes to reach
# the last tap, and the viewer's peak memory.  The viewer runs in tmux at 80x24
# as a user would; the screen is read back every 10 ms.
#
# Without FILE it makes one: a ~1 GB JSONL recording of hcb-example (4 devices,
# 1600 steps, float32[20000] field taps: 32000 taps) recorded as .hcbcap (fast)
# and converted (a minute or so), and measures both files.  Every FILE must end
# with its end record (the taps it counts are the last tap row G must reach).
# The file is read once first, so that every run finds it in the page cache.
# Needs root (the recording), tmux and GNU time.
set -euo pipefail

build=$1
shift
json=
if [[ ${1:-} == --json ]]; then
    json=1
    shift
fi
hcbtrace=${HCBTRACE:-$build/cli/hcbtrace}
example=$build/examples/hcb-example
work=$(mktemp -d)
sock=hcbbench-$$
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    "$hcbtrace" record -q -b 1024 -o "$work/big.hcbcap" -- "$example" --devices 4 --steps 1600 \
        --interval-ms 0 --field-size 20000 >/dev/null
    "$hcbtrace" convert "$work/big.hcbcap" -o "$work/big.jsonl"
    files=("$work/big.jsonl" "$work/big.hcbcap")
fi

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
screen() { tmux -L "$sock" capture-pane -p -t v; }

# end_taps FILE: the taps its end record counts
end_taps()
{
    case $1 in
    *.hcbcap)
        # the end frame: 16 bytes of head, u64 taps, u64 drops, u64 end_ns, CRC
        tail -c 28 "$1" | od -An -t u8 -N 8 | tr -d ' ' ;;
    *)
        tail -n 1 "$1" | sed -n 's/.*"type":"end","taps":\([0-9]*\).*/\1/p' ;;
    esac
}

# wait_for CMD...: until CMD succeeds, polling every 10 ms, at most 600 s
wait_for()
{
    local i
    for i in $(seq 60000); do
        "$@" && return 0
        sleep 0.01
    done
    echo "view_first_screen: timed out waiting for: $*" >&2
    screen >&2
    return 1
}
has_tap_rows() { screen | grep -qE '^ [0-9]+ +[0-9:.]+ cpu:'; }
last_row_is() { [ "$(screen | grep -E '^ [0-9]+ +[0-9:.]+ cpu:' | tail -1 | awk '{ print $1 }')" = "$1" ]; }

# measure FILE: "MB first_screen_s jump_end_s peak_rss_MB"
measure()
{
    local f=$1 n t0 first jump
    n=$(end_taps "$f")
    [[ -n $n ]] || { echo "view_first_screen: $f has no end record" >&2; return 1; }
    cat "$f" >/dev/null
    rm -f "$work/rss"
    t0=$(now)
    tmux -L "$sock" new-session -d -s v -x 80 -y 24 \
        "LC_ALL=C.UTF-8 /usr/bin/time -f %M -o $work/rss $hcbtrace view $f 2>$work/err; sleep 600"
    wait_for has_tap_rows
    first=$(since "$t0")
    t0=$(now)
    tmux -L "$sock" send-keys -t v G
    wait_for last_row_is $(( n - 1 ))
    jump=$(since "$t0")
    tmux -L "$sock" send-keys -t v q
    wait_for test -s "$work/rss"
    tmux -L "$sock" kill-server 2>/dev/null || true
    awk -v s="$(stat -c %s "$f")" -v a="$first" -v b="$jump" -v r="$(cat "$work/rss")" \
        'BEGIN { printf "%.0f %s %s %.1f\n", s / 1e6, a, b, r / 1024 }'
}

out=()
for f in "${files[@]}"; do
    case $f in *.hcbcap) key=hcbcap ;; *) key=jsonl ;; esac
    read -r mb first jump rss <<<"$(measure "$f")"
    if [[ -n $json ]]; then
        out+=("\"view_${key}_MB\":$mb,\"view_${key}_first_screen_s\":$first,\"view_${key}_jump_end_s\":$jump,\"view_${key}_peak_rss_MB\":$rss")
    else
        printf 'view %-7s %6s MB: first screen %7s s, G to the last tap %7s s, peak RSS %7s MB\n' \
            "$key" "$mb" "$first" "$jump" "$rss"
    fi
done
if [[ -n $json ]]; then
    (IFS=,; echo "{${out[*]}}")
fi
