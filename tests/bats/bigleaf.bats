#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# bigleaf.bats - a 64 MiB leaf crosses whole: chunked through the ring
# buffer and reassembled, never truncated.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

@test "bigleaf: 64 MiB leaves from 2 devices arrive whole" {
    # 16 Mi float32 = 64 MiB per field tap; a 512 MiB ring holds several
    run --separate-stderr "$HCBTRACE" run -b 512 -- "$EXAMPLE" --devices 2 --steps 2 --interval-ms 0 \
        --field-size 16777216
    assert_success
    # per device and step: 45 bytes of small taps + 64 MiB of field
    for d in 0 1; do
        [[ "$stderr" =~ cpu:$d\ +10\ taps\ +134217818\ bytes\ +0\ dropped\ +0\ gaps\ +0\ bad ]]
    done
    [ "$(grep -c 'what: field' <<<"$output")" -eq 4 ]
    # the hot spot each device put at its own index has diffused: device 0's
    # field starts with the values of a real stencil, not zeros
    assert_line --regexp '^\[[0-9]+\.[0-9]* +[0-9]+\.[0-9]* +[0-9]+\.[0-9]* \.\.\. .*\]$'
    [[ "$stderr" == *"0 lost"* ]]
}
