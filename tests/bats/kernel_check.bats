#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# scripts/kernel-check's contract, on this machine alone: its checks
# (tests/kernel/checks) pass on the running kernel, one line each; where
# QEMU cannot be had it says so in one line and exits 3; usage errors exit
# 2.  Its VMs (6.1, 6.12) are scripts/test's own step, not a bats test.

load common

setup()
{
    _common_setup
    export HCB_KERNEL_CHECK_DIR=$T/kc
    mkdir -p "$T/bin"
}

teardown()
{
    _common_teardown
}

@test "kernel-check: --kernel host runs every check on the running kernel, one line each, and what was loaded" {
    # the fault reproductions twice each (sleepable.bats runs them 20 times)
    HCB_FAULT_RUNS=2 run --separate-stderr timeout 600 "$ROOT/scripts/kernel-check" --kernel host
    assert_success
    for c in run attach record-replay follow barrier flight-recorder jax-callbacks xla-outfeed faults; do
        assert_line --regexp "^ok host: $c \\([0-9.]+s\\)\$"
    done
    refute_line --partial 'not ok'
    assert_line --regexp '^# loaded by record \(hcbtap\): [1-9][0-9]* programs: .*hcbtap_packet \(kprobe\)'
    assert_line --regexp '^# loaded by record \(jax-callback\): [1-9][0-9]* programs: .*jaxffi_call \(kprobe\)'
    assert_line --regexp '^# loaded by attach \(xla-outfeed\): [1-9][0-9]* programs: .*xla_outfeed_leaf \(kprobe\)'
    assert_line '#   userfaultfd: 2 runs, 6000 of 6000 taps each, every value in its own tap'
    assert_line --regexp '^kernel-check: host 9/9: 9 passed, 0 failed \([0-9]+ s\)$'
    # the results stay for a look afterwards
    grep -q '^# end: 9 passed, 0 failed$' "$T/kc/results/host/results"
}

@test "kernel-check: a check that fails says why, the command's last words after it; exit 1" {
    # a verifier that refuses hcbtap's probe, for real (src/bpf/load.c)
    HCBTRACE_TEST_REFUSE=hcbtap_packet run --separate-stderr timeout 300 "$ROOT/scripts/kernel-check" \
        --kernel host --check run
    assert_failure 1
    assert_line --regexp '^not ok host: run: hcbtrace run exited 4 \([0-9.]+s\)$'
    assert_line --regexp "^#   hcbtrace: this kernel \\(.*\\) refuses the hcbtap provider's BPF program hcbtap_packet"
    assert_line --regexp '^#   hcbtrace: the verifier.s last lines for hcbtap_packet:$'
    assert_line '# hcbtrace check: hcbtap: cannot work (1 of 2 programs refused)'
    assert_line --regexp '^kernel-check: host 0/1: 0 passed, 1 failed'
    [ -f "$T/kc/results/host/failed/run/run.err" ]
}

@test "kernel-check: no QEMU to be had: one line, not possible here, exit 3; usage errors exit 2" {
    # apt that cannot reach its archive, and a dpkg without QEMU
    printf '#!/bin/sh\necho "E: Could not resolve deb.debian.org (a stand-in)" >&2\nexit 100\n' >"$T/bin/apt-get"
    printf '#!/bin/sh\nexit 0\n' >"$T/bin/apt-cache"
    printf '#!/bin/sh\ncase "$*" in *qemu-system-x86*) exit 1 ;; esac\nprintf "install ok installed"\n' \
        >"$T/bin/dpkg-query"
    chmod +x "$T/bin/"*
    PATH=$T/bin:$PATH run --separate-stderr timeout 300 "$ROOT/scripts/kernel-check" --kernel 6.1
    assert_failure 3
    assert_output 'not possible here: cannot install qemu-system-x86 with apt: E: Could not resolve deb.debian.org (a stand-in)'
    run --separate-stderr "$ROOT/scripts/kernel-check" --kernel 5.10
    assert_failure 2
    [[ "$stderr" == *"no kernel '5.10' (6.1, 6.12, host or all)"* ]]
    run --separate-stderr "$ROOT/scripts/kernel-check" --check nope
    assert_failure 2
    run "$ROOT/scripts/kernel-check" --help
    assert_success
    assert_line --partial 'Exit status: 0 every check passed'
}
