#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-drift.sh - the CI check of examples/ci/README.md: record a run of
# hcb-example with hcbtrace, compare its taps with a golden recording within
# numeric tolerances, and fail when they drifted.
#
#   examples/ci/check-drift.sh [EXAMPLE-ARGS...]
#
# EXAMPLE-ARGS are passed on to hcb-example after its fixed arguments (so
# `examples/ci/check-drift.sh --learning-rate 0.06` shows what a drift
# looks like).  Recording attaches BPF probes: run it as root.
#
# Exit status: diff's.
#   0  no drift: every tap of the run matches the golden one within the
#      tolerances
#   1  drift: the report of `hcbtrace diff` is on standard output, and a
#      picture of it in HCB_PLOT (an SVG file to keep as a CI artifact)
#   2  trouble: a tool is missing, the recording failed or lost taps (it
#      would be compared incomplete), or a recording could not be read
#
# Environment (all optional):
#   HCBTRACE     the hcbtrace binary      (default: build/cli/hcbtrace)
#   HCB_EXAMPLE  the hcb-example binary   (default: build/examples/hcb-example)
#   HCB_GOLDEN   the reference recording  (default: golden.jsonl next to this script)
#   HCB_RUN      where to record the run  (default: run.jsonl in the current directory)
#   HCB_PLOT     where to draw a drift    (default: drift.svg in the current directory;
#                removed first, so that it is there only when this run drifted)
#   HCB_RTOL, HCB_ATOL  tolerances of the diff (default: 1e-5 and 1e-6)
# The defaults for the binaries are relative to the top of the source tree,
# wherever the script is run from.

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

hcbtrace=${HCBTRACE:-$top/build/cli/hcbtrace}
example=${HCB_EXAMPLE:-$top/build/examples/hcb-example}
golden=${HCB_GOLDEN:-$here/golden.jsonl}
run=${HCB_RUN:-run.jsonl}
plot=${HCB_PLOT:-drift.svg}
rtol=${HCB_RTOL:-1e-5}
atol=${HCB_ATOL:-1e-6}

# The run the golden recording was made from.  The example is deterministic:
# the same arguments tap the same values on every run.
example_args=(--devices 2 --steps 5 --interval-ms 0 --field-size 1000)

say() { printf 'check-drift: %s\n' "$*" >&2; }

for f in "$hcbtrace" "$example"; do
    if [[ ! -x $f ]]; then
        say "'$f' is not an executable file: build the project (ninja -C build) or set HCBTRACE / HCB_EXAMPLE"
        exit 2
    fi
done
if [[ ! -r $golden ]]; then
    say "cannot read the golden recording '$golden'"
    exit 2
fi

say "recording $example ${example_args[*]}${*:+ $*} to $run"
"$hcbtrace" record -o "$run" -- "$example" "${example_args[@]}" "$@"
status=$?
if ((status != 0)); then
    say "recording failed (exit status $status): no comparison made"
    exit 2
fi

# A run that lost taps (drop records: ring buffer full, malformed packets)
# is not a fair comparison: diff would report the lost taps as missing.
lost=$("$hcbtrace" replay --no-wait -f jsonl "$run" |
    awk '/^\{"type":"drop",/ { if (match($0, /"count":[0-9]+/)) n += substr($0, RSTART + 8, RLENGTH - 8) }
         END { print n + 0 }')
if [[ $lost != 0 ]]; then
    say "the recording lost $lost tap(s) (see its drop records): no comparison made"
    exit 2
fi

say "comparing $run with $golden (rtol $rtol, atol $atol)"
# diff writes the picture only when the recordings differ: an old one
# would pass for this run's
rm -f "$plot"
"$hcbtrace" diff --rtol "$rtol" --atol "$atol" --plot "$plot" "$golden" "$run"
status=$?
case $status in
    0) say "no drift" ;;
    1) say "DRIFT: the taps of $run differ from $golden (report above, picture in $plot)" ;;
    *) say "diff could not compare the recordings (exit status $status)"; status=2 ;;
esac
exit "$status"
