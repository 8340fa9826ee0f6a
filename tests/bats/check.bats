#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# check.bats - hcbtrace check says what this kernel and this process allow
# (issue 35): here (6.18) every provider's programs load and it exits 0,
# its JSON naming each of them; without privilege it exits 4 with one
# message naming the capabilities missing; a program the verifier refuses
# (made so for real by HCBTRACE_TEST_REFUSE) is named with the verifier's
# words and never called a matter of privilege, by check and by attach.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

# The programs each provider lists (its `programs[]`), from the sources:
# one "PROVIDER PROGRAM" a line, sorted.
source_programs()
{
    python3 - "$ROOT/src/providers" <<'EOF'
import glob, re, sys
for path in sorted(glob.glob(sys.argv[1] + "/*/*.c")):
    src = open(path).read()
    progs = re.search(r"programs\[\] = \{(.*?)\};", src, re.S)
    name = re.search(r"^const struct hcb_provider hcb_prov_\w+ = \{.*?\.name = \"([^\"]+)\"", src,
                     re.S | re.M)
    if progs and name:
        for p in re.findall(r'"([^"]+)"', progs.group(1)):
            print(name.group(1), p)
EOF
}

# The programs check's JSON ($1) says are loaded, as source_programs lists them.
json_loaded()
{
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
for p in d["providers"]:
    for q in p["programs"]:
        if q["loaded"] is True:
            print(p["name"], q["name"])
' "$1" | sort
}

@test "check: here every provider's programs load (exit 0), and the JSON names them" {
    run --separate-stderr "$HCBTRACE" check
    assert_success
    [[ -z "$stderr" ]]
    assert_line --regexp '^kernel Linux '"$(uname -r)"' '
    assert_line --regexp '^  the ring buffer map +yes$'
    assert_line --regexp '^  attach a uprobe +yes$'
    assert_line '  hcbtap: works'
    assert_line --regexp '^    hcbtap_packet +loaded$'
    assert_line '  every session (the exec watch): works'

    run --separate-stderr "$HCBTRACE" check -f json
    assert_success
    local want json=$output
    want=$(source_programs | sort)
    [[ $(wc -l <<<"$want") -ge 10 ]]
    assert_equal "$(json_loaded "$json")" "$want"
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["status"] == 0, d["status"]
assert all(p["works"] for p in d["providers"])
assert d["session"]["programs"][0]["name"] == "hcb_exec" and d["session"]["programs"][0]["loaded"]
assert d["features"]["ringbuf"]["present"] is True and d["features"]["ringbuf"]["since"] == "5.8"
assert all(d["privilege"]["capabilities"].values()) and d["privilege"]["attach"] is True
for p in d["providers"]:
    for q in p["programs"]:
        assert q["stack_depth"] and q["insns_processed"] > 0, q
print("ok")
' "$json"
    assert_success
    assert_output ok
}

@test "check -v: each program's stack depth per subprogram, as the verifier says it, every one under 64 bytes" {
    run --separate-stderr "$HCBTRACE" check -v
    assert_success
    # the line after each loaded program
    assert_line --regexp '^      (not )?sleepable; stack depth [0-9]+(\+[0-9]+)*; [0-9]+ instructions processed$'
    depths=$(sed -n 's/^      .*sleepable; stack depth \([0-9+]*\);.*/\1/p' <<<"$output")
    [[ $(wc -l <<<"$depths") -ge 14 ]]
    # no function's frame a kernel with a private BPF stack (6.13 on) would
    # give one (src/bpf/state.bpf.h): the verifier's own figures, which
    # even count its inlining of bpf_loop() (24 bytes more)
    for d in $(tr '+' ' ' <<<"$depths"); do
        (( d < 64 )) || { echo "# a frame of $d bytes: $depths" >&3; false; }
    done
}

@test "check: without privilege, exit 4 and one message naming the capabilities missing" {
    run --separate-stderr setpriv --inh-caps=-all --bounding-set=-all "$HCBTRACE" check
    assert_failure 4
    assert_equal "$stderr" "hcbtrace: not enough privilege to load BPF programs: this process lacks CAP_BPF and CAP_PERFMON; run as root, or with CAP_BPF and CAP_PERFMON (plus CAP_SYS_ADMIN on kernels before 6.6, CAP_SYS_PTRACE for other users' processes, CAP_KILL to signal them)"
    assert_line --regexp '^  CAP_BPF +no$'
    assert_line --regexp '^    hcbtap_packet +not tried: Operation not permitted$'

    # enough to load and, by uprobe_multi links, to attach
    if "$HCBTRACE" check | grep -qE '^  uprobe_multi links +yes$'; then
        run --separate-stderr setpriv --inh-caps=-all --bounding-set=-all,+bpf,+perfmon "$HCBTRACE" check
        assert_success
        assert_line --regexp '^  attach a uprobe +yes$'
    fi
    # a kernel without them (as 6.1): not to attach, and CAP_SYS_ADMIN is what is missing
    run --separate-stderr env HCBTRACE_TEST_MISSING=uprobe_multi setpriv --inh-caps=-all \
        --bounding-set=-all,+bpf,+perfmon "$HCBTRACE" check
    assert_failure 4
    assert_equal "$stderr" "hcbtrace: not enough privilege to attach uprobes: this process lacks CAP_SYS_ADMIN; run as root, or with CAP_BPF and CAP_PERFMON (plus CAP_SYS_ADMIN on kernels before 6.6, CAP_SYS_PTRACE for other users' processes, CAP_KILL to signal them)"
    assert_line --regexp '^  load a uprobe program +yes$'

    # as nobody, from a copy it can run wherever the checkout lives
    local d
    d=$(mktemp -d /tmp/hcb-nobody.XXXXXX)
    chmod 755 "$d"
    cp "$HCBTRACE" "$d/"
    chmod 755 "$d/hcbtrace"
    run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$d/hcbtrace" check -f json
    rm -rf "$d"
    assert_failure 4
    [[ "$stderr" == "hcbtrace: not enough privilege to load BPF programs: this process lacks CAP_BPF and CAP_PERFMON; "* ]]
    [[ $(wc -l <<<"$stderr") -eq 1 ]]
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["status"] == 4 and d["privilege"]["load"] is False
assert d["privilege"]["capabilities"]["CAP_BPF"] is False
assert d["features"]["ringbuf"]["present"] is None
print("ok")
' "$output"
    assert_output ok
}

@test "check: a kernel without BPF, or without uprobes (exit 4)" {
    run --separate-stderr "$TOOLS/deny-syscall" bpf ENOSYS -- "$HCBTRACE" check
    assert_failure 4
    assert_equal "$stderr" "hcbtrace: this kernel ($(uname -r)) has no bpf() system call: hcbtrace needs a kernel with CONFIG_BPF_SYSCALL"
    assert_line --regexp '^  the bpf\(\) system call +no \(Linux 3\.18\)$'

    run --separate-stderr unshare -m sh -c \
        'mount -t tmpfs none /sys/bus/event_source/devices && exec "$0" check' "$HCBTRACE"
    assert_failure 4
    [[ "$stderr" == *"has no uprobes"* ]]
}

@test "check: a program the verifier refuses is named with its words, never privilege (exit 1)" {
    HCBTRACE_TEST_REFUSE=hcbtap_copy_times run --separate-stderr "$HCBTRACE" check
    assert_failure 1
    assert_equal "$stderr" "hcbtrace: on this kernel ($(uname -r)), these providers cannot work: hcbtap (refuses hcbtap_copy_times)"
    assert_line '  hcbtap: cannot work (1 of 2 programs refused)'
    assert_line --regexp "^    hcbtap_copy_times +refused: R0 invalid mem access"
    assert_line '  jax-callback: works'
    # the table's "privilege" heading aside, no word of it
    [[ "$stderr" != *privilege* ]]
    [[ $(grep -c privilege <<<"$output") -eq 1 ]]

    # -v: the verifier's last lines, from its full log: the instructions
    HCBTRACE_TEST_REFUSE=hcbtap_copy_times run --separate-stderr "$HCBTRACE" check -v
    assert_failure 1
    assert_line "      the verifier's last lines:"
    assert_line --regexp '^        [0-9]+: \([0-9a-f]{2}\) '
    assert_line --regexp '^        R0 invalid mem access'
    assert_line --regexp '^        processed [0-9]+ insns'

    HCBTRACE_TEST_REFUSE=hcbtap_copy_times run --separate-stderr "$HCBTRACE" check -f json
    assert_failure 1
    run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["status"] == 1
hcbtap = [p for p in d["providers"] if p["name"] == "hcbtap"][0]
q = [q for q in hcbtap["programs"] if q["name"] == "hcbtap_copy_times"][0]
assert hcbtap["works"] is False and q["loaded"] is False, q
assert q["reason"].startswith("R0 invalid mem access"), q
assert q["error"] == "Permission denied" and q["verifier_log"], q
print("ok")
' "$output"
    assert_output ok
}

@test "check: the exec watch refused is every provider's refusal (exit 4)" {
    HCBTRACE_TEST_REFUSE=hcb_exec run --separate-stderr "$HCBTRACE" check
    assert_failure 4
    [[ "$stderr" == "hcbtrace: this kernel ($(uname -r)) refuses a BPF program of every provider: hcbtap (refuses hcb_exec), "* ]]
    assert_line --regexp '^    hcb_exec +refused: R0 invalid mem access'
    [[ "$stderr" != *privilege* ]]
    [[ $(grep -c privilege <<<"$output") -eq 1 ]]
}

@test "attach: a program the kernel refuses is the kernel's (exit 4), named, never privilege" {
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 8
    HCBTRACE_TEST_REFUSE=hcbtap_packet run --separate-stderr "$HCBTRACE" attach "$EX_PID"
    assert_failure 4
    assert_equal "$stderr" "hcbtrace: this kernel ($(uname -r)) refuses the hcbtap provider's BPF program hcbtap_packet (the verifier: R0 invalid mem access 'scalar'); run 'hcbtrace check' for what this kernel supports"
    assert_output ''

    # HCBTRACE_DEBUG: the verifier's last lines follow the message
    HCBTRACE_DEBUG=1 HCBTRACE_TEST_REFUSE=hcbtap_packet run --separate-stderr "$HCBTRACE" attach "$EX_PID"
    assert_failure 4
    [[ "$stderr" == *"hcbtrace: this kernel ($(uname -r)) refuses the hcbtap provider's BPF program hcbtap_packet (the verifier: R0 invalid mem access 'scalar')"* ]]
    [[ "$stderr" == *$'\n'"hcbtrace: the verifier's last lines for hcbtap_packet:"$'\n'"    R0 invalid mem access 'scalar'"$'\n'* ]]
    [[ "$stderr" != *privilege* ]]
    # the exec watch is every session's, no provider's own
    HCBTRACE_TEST_REFUSE=hcb_exec run --separate-stderr "$HCBTRACE" attach "$EX_PID"
    assert_failure 4
    assert_equal "$stderr" "hcbtrace: this kernel ($(uname -r)) refuses BPF program hcb_exec (the verifier: R0 invalid mem access 'scalar'); run 'hcbtrace check' for what this kernel supports"
    # the target runs on, and a session without the refusal attaches
    run "$HCBTRACE" attach -c 1 "$EX_PID"
    assert_success
}

@test "a kernel without a feature every program needs (as if): check and attach name it and the Linux that brought it" {
    # HCBTRACE_TEST_MISSING makes this kernel seem to lack one, as an
    # older one does (bpf_loop came with 5.17, task storage in uprobe
    # programs with 5.11); attach meets it as the refusal it would be
    HCBTRACE_TEST_MISSING=bpf_loop run --separate-stderr "$HCBTRACE" check
    assert_failure 4
    assert_line --regexp '^  bpf_loop\(\) +no \(Linux 5\.17\)$'
    assert_equal "$stderr" "hcbtrace: this kernel ($(uname -r)) has no bpf_loop(), which came with Linux 5.17: hcbtrace's BPF programs need it"
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 8
    HCBTRACE_TEST_MISSING=task_storage HCBTRACE_TEST_REFUSE=hcbtap_packet \
        run --separate-stderr "$HCBTRACE" attach "$EX_PID"
    assert_failure 4
    [[ "$stderr" == "hcbtrace: this kernel ($(uname -r)) has no task local storage in uprobe programs (Linux 5.11 on), which hcbtrace's BPF programs need: it refuses "* ]]
    [[ "$stderr" != *privilege* ]]
}
