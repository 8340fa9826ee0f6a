#!/bin/bash
# SPDX-License-Identifier: MIT
# make_cases.sh - writes the golden cases of `hcbtrace diff` under cases/:
# each folder holds ref.jsonl, new.jsonl and args; with HCBTRACE set, also the
# expected stdout, stderr (when not empty) and exit status, from that binary.
# Review every changed output by hand before committing it: the files are the
# specification the bats test (tests/bats/diff.bats) holds the binary to.
#
#   tests/data/diff/make_cases.sh                       # inputs only
#   HCBTRACE=build/cli/hcbtrace tests/data/diff/make_cases.sh   # and outputs
set -eu
C=$(cd "$(dirname "$0")" && pwd)/cases
rm -rf "$C"; mkdir -p "$C"
S='{"type":"session","version":1,"pid":100,"provider":"hcbtap","platform":"cpu","start_ns":1700000000000000000,"hcbtrace":"0.1.0"}'
E='{"type":"end","taps":0,"drops":0,"end_ns":1700000001000000000}'
# tap DEV SEQ ID NAME TREE ARRAYS
tap() { printf '{"type":"tap","device":%s,"seq":%s,"consumer":%s,"name":"%s","kwargs":{"what":"%s"},"tree":"%s","ts_ns":%s,"arrays":[%s]}\n' "$1" "$2" "$3" "$4" "$4" "$5" "$((1700000000000000000 + $2))" "$6"; }
arr() { printf '{"dtype":"%s","shape":[%s],"data":[%s]}' "$1" "$2" "$3"; }
mk() { mkdir -p "$C/$1"; printf '%s\n' "$2" > "$C/$1/args"; }

# 1 identical recordings
mk same ""
{ echo "$S"; tap 0 0 11 loss '*' "$(arr float32 "" 0.25)"; tap 0 1 12 grads '( * * )' "$(arr float32 2,2 "1.0,2.0,3.0,4.0"),$(arr int32 3 "1,2,3")"; tap 0 2 11 loss '*' "$(arr float32 "" 0.125)"; echo "$E"; } > "$C/same/ref.jsonl"
cp "$C/same/ref.jsonl" "$C/same/new.jsonl"

# 2 one element off by more than the default tolerance
mk one_element_off ""
{ echo "$S"; tap 0 0 12 weights '*' "$(arr float32 2,3 "1.0,2.0,3.0,4.0,5.0,6.0")"; echo "$E"; } > "$C/one_element_off/ref.jsonl"
{ echo "$S"; tap 0 0 12 weights '*' "$(arr float32 2,3 "1.0,2.0,3.0,4.0,5.0,6.001")"; echo "$E"; } > "$C/one_element_off/new.jsonl"

# 3 |new - ref| == atol + rtol*|ref| exactly is close; one float further is not
mk tolerance_boundary "--rtol 0.5 --atol 0.25"
{ echo "$S"; tap 0 0 13 x '*' "$(arr float64 4 "1.0,1.0,-2.0,0.0")"; echo "$E"; } > "$C/tolerance_boundary/ref.jsonl"
{ echo "$S"; tap 0 0 13 x '*' "$(arr float64 4 "1.75,0.25,-0.75,0.25000000000000006")"; echo "$E"; } > "$C/tolerance_boundary/new.jsonl"

# 4 NaN against NaN differs by default
mk nan ""
{ echo "$S"; tap 0 0 14 y '*' "$(arr float64 3 '1.0,"nan",3.0')"; echo "$E"; } > "$C/nan/ref.jsonl"
{ echo "$S"; tap 0 0 14 y '*' "$(arr float64 3 '1.0,"nan","nan"')"; echo "$E"; } > "$C/nan/new.jsonl"

# 5 ... and NaN against NaN matches with --equal-nan (a number against NaN still differs)
mk nan_equal "--equal-nan"
cp "$C/nan/ref.jsonl" "$C/nan/new.jsonl" "$C/nan_equal/"

# 6 infinities: equal ones match, opposite ones or inf against a number do not
mk inf ""
{ echo "$S"; tap 0 0 15 z '*' "$(arr float32 4 '"inf","-inf","inf",3.0e38')"; echo "$E"; } > "$C/inf/ref.jsonl"
{ echo "$S"; tap 0 0 15 z '*' "$(arr float32 4 '"inf","-inf","-inf","inf"')"; echo "$E"; } > "$C/inf/new.jsonl"

# 7 -0.0 and 0.0 are equal, even with zero tolerances
mk negative_zero "--rtol 0 --atol 0"
{ echo "$S"; tap 0 0 16 z '*' "$(arr float32 2 "-0.0,0.0")"; echo "$E"; } > "$C/negative_zero/ref.jsonl"
{ echo "$S"; tap 0 0 16 z '*' "$(arr float32 2 "0.0,-0.0")"; echo "$E"; } > "$C/negative_zero/new.jsonl"

# 8 integers go through float64 as in numpy: 2^53 and 2^53+1 are close; differences are exact
mk ints ""
{ echo "$S"; tap 0 0 17 counts '( * * * )' "$(arr int64 2 "9007199254740992,5"),$(arr uint8 3 "0,255,7"),$(arr bool 2 "true,false")"; echo "$E"; } > "$C/ints/ref.jsonl"
{ echo "$S"; tap 0 0 17 counts '( * * * )' "$(arr int64 2 "9007199254740993,5"),$(arr uint8 3 "255,0,7"),$(arr bool 2 "true,true")"; echo "$E"; } > "$C/ints/new.jsonl"

# 9 a leaf's dtype changed: values are not compared
mk dtype_mismatch ""
{ echo "$S"; tap 0 0 18 h '*' "$(arr float32 2 "1.0,2.0")"; echo "$E"; } > "$C/dtype_mismatch/ref.jsonl"
{ echo "$S"; tap 0 0 19 h '*' "$(arr float64 2 "1.0,2.0")"; echo "$E"; } > "$C/dtype_mismatch/new.jsonl"

# 10 a leaf's shape changed
mk shape_mismatch ""
{ echo "$S"; tap 0 0 20 h '*' "$(arr float32 2,3 "1.0,2.0,3.0,4.0,5.0,6.0")"; echo "$E"; } > "$C/shape_mismatch/ref.jsonl"
{ echo "$S"; tap 0 0 21 h '*' "$(arr float32 3,2 "1.0,2.0,3.0,4.0,5.0,6.0")"; echo "$E"; } > "$C/shape_mismatch/new.jsonl"

# 11 taps in REF only (missing) and in NEW only (extra); runs are listed as ranges
mk missing_extra ""
{ echo "$S"; for i in 0 1 2 3; do tap 0 $i 11 loss '*' "$(arr float32 "" 0.5)"; done; tap 0 4 22 lr '*' "$(arr float32 "" 0.1)"; echo "$E"; } > "$C/missing_extra/ref.jsonl"
{ echo "$S"; tap 0 0 11 loss '*' "$(arr float32 "" 0.5)"; tap 0 1 23 acc '*' "$(arr float32 "" 0.9)"; tap 0 2 22 lr '*' "$(arr float32 "" 0.1)"; echo "$E"; } > "$C/missing_extra/new.jsonl"

# 12 the recordings' devices differ
mk devices_differ ""
{ echo "$S"; tap 0 0 11 loss '*' "$(arr float32 "" 0.5)"; tap 1 0 11 loss '*' "$(arr float32 "" 0.5)"; echo "$E"; } > "$C/devices_differ/ref.jsonl"
{ echo "$S"; tap 0 0 11 loss '*' "$(arr float32 "" 0.5)"; echo "$E"; } > "$C/devices_differ/new.jsonl"

# 13 devices interleaved differently: taps pair by (device, consumer, occurrence), not file order
mk reordered_devices ""
{ echo "$S"; for i in 0 1 2; do for d in 0 1; do tap $d $i 11 loss '*' "$(arr float32 "" "$d.$i")"; done; done; echo "$E"; } > "$C/reordered_devices/ref.jsonl"
{ echo "$S"; for d in 1 0; do for i in 0 1 2; do tap $d $i 11 loss '*' "$(arr float32 "" "$d.$i")"; done; done; echo "$E"; } > "$C/reordered_devices/new.jsonl"

# 14 only seq and ts_ns differ: the same
mk seq_ts_only ""
{ echo "$S"; tap 0 0 11 loss '*' "$(arr float32 "" 0.5)"; tap 0 1 11 loss '*' "$(arr float32 "" 0.25)"; echo "$E"; } > "$C/seq_ts_only/ref.jsonl"
{ echo "$S"; tap 0 40 11 loss '*' "$(arr float32 "" 0.5)"; tap 0 97 11 loss '*' "$(arr float32 "" 0.25)"; echo "$E"; } > "$C/seq_ts_only/new.jsonl"

# 15 complex: |new - ref| is the modulus of the complex difference
mk complex "--rtol 0.1 --atol 0"
{ echo "$S"; tap 0 0 24 w '*' "$(arr complex128 2 "[3.0,4.0],[3.0,4.0]")"; echo "$E"; } > "$C/complex/ref.jsonl"
{ echo "$S"; tap 0 0 24 w '*' "$(arr complex128 2 "[3.0,4.5],[3.0,4.6]")"; echo "$E"; } > "$C/complex/new.jsonl"

# 16 the same comparison for machines
mk json "-f json"
cp "$C/one_element_off/ref.jsonl" "$C/one_element_off/new.jsonl" "$C/json/"

# 17 quiet: nothing printed, the exit status tells
mk quiet "-q"
cp "$C/one_element_off/ref.jsonl" "$C/one_element_off/new.jsonl" "$C/quiet/"

# 18 a looser tolerance accepts the change
mk loose_rtol "--rtol 1e-3"
cp "$C/one_element_off/ref.jsonl" "$C/one_element_off/new.jsonl" "$C/loose_rtol/"

# 19 a damaged recording: trouble (exit 2), the reader's message names file and line
mk damaged ""
cp "$C/same/ref.jsonl" "$C/damaged/ref.jsonl"
{ echo "$S"; tap 0 0 11 loss '*' "$(arr float32 "" 0.25)"; echo '{"type":"tap","device":0,"seq":1,'; echo "$E"; } > "$C/damaged/new.jsonl"

# 20 a recording cut short (no final newline): compared up to its last complete line, with a warning
mk truncated ""
cp "$C/same/ref.jsonl" "$C/truncated/ref.jsonl"
{ head -n 3 "$C/same/ref.jsonl"; sed -n 4p "$C/same/ref.jsonl" | head -c 60; } > "$C/truncated/new.jsonl"

# the expected outputs, as this hcbtrace gives them
if [ -n "${HCBTRACE:-}" ]; then
    H=$(cd "$(dirname "$HCBTRACE")" && pwd)/$(basename "$HCBTRACE")
    for d in "$C"/*/; do
        (
            cd "$d"
            read -r -a a <args || true
            set +e
            "$H" diff "${a[@]}" ref.jsonl new.jsonl >stdout 2>stderr
            echo $? >status
            [ -s stderr ] || rm stderr
        )
    done
fi
