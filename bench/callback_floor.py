#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/callback_floor.py HCBTRACE PYTHON [--kind KIND] [--rounds K] [--seconds S] [--against HCBTRACE2] [--json]
- what attaching costs one unmodified JAX program per jax.debug.callback
(--kind print: per jax.debug.print), in the whole CPU time of the program,
against the floor: bpftrace counting the same function's calls, the least a
uprobe can do.

The program (PYTHON: a venv with jax, jaxlib >= 0.6, whose callbacks go
through XLA's FFI) runs a jitted fori_loop of 1,000 calls on a float32[4],
over and over, pinned to CPU 0, its stdout to /dev/null.  One program for
the whole run: the tracers take turns on it, pinned to CPU 1, so that every
side is measured on the same process (two processes of the same program
differ here by a few percent in speed for as long as they run).  Sides:

  detached   nothing attached
  floor      bpftrace, `@n = count()` at jaxlib's inner callback function
             (jax::XlaFfiPythonCpuCallback), where hcbtrace's call probe sits
  reads      bpftrace there making the reads of the target that naming a
             call and taking its operand need, as hcbtrace makes them (the
             callable through its list, the frame's args, the operand's
             buffer, its bytes: 6 reads of 8 bytes, READS), and counting:
             the least a tracer that reads the call pays
  attached   `HCBTRACE record -p` (after 4 s: the probes a site's naming
             needs have gone off by then)
  against    --against HCBTRACE2: another build's record, the build before a
             change, taking turns with this one

Each window of S seconds (default 3) runs from one loop's end to another's
and takes the program's CPU time between them, as it wrote it with its calls
(time.process_time_ns(): all its threads, user and kernel, not sampled:
perf's sampling at 10 kHz costs this machine more than the probe), divided by
those calls, and the BPF programs' own run time per call from
kernel.bpf_stats_enabled (on for the run: it adds two clock reads a program
run, to every side alike).  K rounds (default 6), the sides in turn, the
order reversed every other round; what a side adds is the median of its
windows less the detached window of the same round (the machine's drift
cancels), "over the floor" the same against the floor's window, and
hcbtrace's "over the reads" against the reads side's.  The
whole CPU time holds what the probe's trap, its program and the caches it
stirs cost the program; bench/callback_kernel.py says where the kernel's
part goes.  Needs root and bpftrace (scripts/lib.sh installs it); without
bpftrace it says so and prints nothing (--json: {}).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from jax_loop import arguments, next_progress, program

SCRIPT = "bench/callback_floor.py"
HCB, PY, ROUNDS, SECONDS, KIND, AGAINST = arguments(SCRIPT, __doc__, 6, 3.0)
SIDES = ["detached", "floor", "reads", "attached"] + (["against"] if AGAINST else [])
INNER = "XlaFfiPythonCpuCallback"
# The reads side's program (after the probe and its pid filter): at the
# inner function, rsi is the FfiLoadedHostCallbacks (its list first), rcx
# the callback's index, r8 the frame's XLA_FFI_Args (args at 32); an
# XLA_FFI_Buffer has its data at 24.  Their values are summed, not used: a
# layout that differs costs the same reads.
READS = """{
  $cbs = *(uint64 *)reg("si");
  $callable = *(uint64 *)($cbs + reg("cx") * 8);
  $args = *(uint64 *)(reg("r8") + 32);
  $buf = *(uint64 *)$args;
  $data = *(uint64 *)($buf + 24);
  $v = *(uint64 *)$data;
  @n = count();
  @x = sum(($callable ^ $v) & 1);
}"""


def wait_for(what, test, timeout=60.0):
    """Poll test() until it is true; exit saying what did not happen."""
    end = time.monotonic() + timeout
    while not test():
        if time.monotonic() > end:
            sys.exit("%s: %s" % (SCRIPT, what))
        time.sleep(0.05)


def bpf_ns():
    """The summed run time of every loaded BPF program (bpf_stats)."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True,
                         check=True).stdout
    return sum(p.get("run_time_ns", 0) for p in json.loads(out))


def inner_probe(pid):
    """bpftrace's probe on the inner callback function of the process's
    libjax_common.so: "uprobe:LIB:0xADDR"."""
    lib = None
    for line in open("/proc/%d/maps" % pid):
        if line.rstrip().endswith("/libjax_common.so"):
            lib = line.split()[-1]
            break
    if not lib:
        sys.exit("%s: the program has no libjax_common.so (jaxlib < 0.6?)" % SCRIPT)
    nm = subprocess.run(["nm", "--defined-only", lib], capture_output=True, text=True,
                        check=True).stdout
    for line in nm.splitlines():
        f = line.split()
        # the function itself, not its handler's symbols (kXlaFfi...)
        if len(f) == 3 and f[1] in "tT" and INNER in f[2] and "kXla" not in f[2]:
            return "uprobe:%s:0x%s" % (lib, f[0].lstrip("0"))
    sys.exit("%s: no %s in %s (stripped?)" % (SCRIPT, INNER, lib))


def start_tracer(side, pid, work, probe):
    """The side's tracer attached to pid, pinned to CPU 1, or None (probe:
    the floor's, inner_probe())."""
    if side == "detached":
        return None
    err = open(os.path.join(work, side + ".err"), "w")
    if side in ("floor", "reads"):
        out = os.path.join(work, side + ".out")
        script = "%s /pid == %d/ %s" % (probe, pid, "{ @n = count(); }" if side == "floor"
                                         else READS)
        t = subprocess.Popen(["taskset", "-c", "1", "bpftrace", "-e", script],
                             stdout=open(out, "w"), stderr=err)
        wait_for("bpftrace did not attach: see %s" % err.name,
                 lambda: "Attaching" in open(out).read() or t.poll() is not None)
        if t.poll() is not None:
            sys.exit("%s: bpftrace ended: see %s" % (SCRIPT, err.name))
        time.sleep(1)
        return t
    hcb = HCB if side == "attached" else AGAINST
    t = subprocess.Popen(["taskset", "-c", "1", hcb, "record", "-q", "-p", str(pid), "-o",
                          os.path.join(work, side + ".hcbcap")], stderr=err)
    time.sleep(4)
    if t.poll() is not None:
        sys.exit("%s: %s record ended: see %s" % (SCRIPT, hcb, err.name))
    return t


def window(side, prog, count, work, probe):
    """(CPU us, BPF us) a call of one window of the side: from one write of
    the program's count file to the first after S seconds (next_progress),
    its calls and CPU time as the program wrote them."""
    tracer = start_tracer(side, prog.pid, work, probe)
    try:
        (n0, c0), b0 = next_progress(count, prog, SCRIPT), bpf_ns()
        time.sleep(SECONDS)
        (n1, c1), b1 = next_progress(count, prog, SCRIPT), bpf_ns()
    finally:
        if tracer:
            tracer.send_signal(2)
            tracer.wait()
    return (c1 - c0) / 1e3 / (n1 - n0), (b1 - b0) / 1e3 / (n1 - n0)


def run(work):
    """{side: [(cpu us, bpf us) a round]}."""
    count = os.path.join(work, "count")
    # stdout not a terminal: block-buffered, as a job's log has it
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    prog = subprocess.Popen(["taskset", "-c", "0", PY, "-c", program(KIND),
                             count], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, "prog.err"), "w"), env=env)
    res = {s: [] for s in SIDES}
    try:
        wait_for("the program did not start: see %s" % os.path.join(work, "prog.err"),
                 lambda: os.path.exists(count) or prog.poll() is not None, 300)
        if prog.poll() is not None:
            sys.exit("%s: the program ended: see %s/prog.err" % (SCRIPT, work))
        probe = inner_probe(prog.pid)   # once: nm reads the whole library
        for r in range(ROUNDS):
            for side in (SIDES if r % 2 == 0 else SIDES[::-1]):
                res[side].append(window(side, prog, count, work, probe))
    finally:
        open(count + ".end", "w").close()
        try:
            prog.wait(timeout=60)
        except subprocess.TimeoutExpired:
            prog.kill()
            prog.wait()
    return res


def adds(res, side, base):
    """The side's CPU us a call less base's, round by round."""
    return [a[0] - b[0] for a, b in zip(res[side], res[base])]


def main():
    for tool in ("bpftrace", "bpftool", "nm"):
        if not shutil.which(tool):
            print("%s: %s is not installed (scripts/lib.sh installs it)"
                  % (SCRIPT, tool), file=sys.stderr)
            if "--json" in sys.argv:
                print("{}")
            return
    stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
        try:
            res = run(work)
        finally:
            subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=" + stats], check=True)
    med = {s: (statistics.median(r[0] for r in res[s]), statistics.median(r[1] for r in res[s]))
           for s in SIDES}
    traced = [s for s in SIDES if s not in ("detached", "floor")]
    hcbs = [s for s in traced if s != "reads"]
    if "--json" in sys.argv:
        out = {}
        for s in SIDES:
            out["%s_floor_%s_cpu_us" % (KIND, s)] = round(med[s][0], 3)
            if s != "detached":
                out["%s_floor_%s_adds_us" % (KIND, s)] = round(
                    statistics.median(adds(res, s, "detached")), 3)
                out["%s_floor_%s_bpf_us" % (KIND, s)] = round(med[s][1], 3)
        for s in traced:
            out["%s_floor_%s_over_floor_us" % (KIND, s)] = round(
                statistics.median(adds(res, s, "floor")), 3)
        for s in hcbs:
            out["%s_floor_%s_over_reads_us" % (KIND, s)] = round(
                statistics.median(adds(res, s, "reads")), 3)
        print(json.dumps(out, sort_keys=True))
        return
    print("The program's CPU time per jax.debug.%s (us; median of %d rounds of %g s, "
          "one program)" % (KIND, ROUNDS, SECONDS))
    print("  %-24s" % "" + "".join("%14s" % s for s in SIDES))
    print("  %-24s" % "CPU time a call" + "".join("%14.2f" % med[s][0] for s in SIDES))
    print("  %-24s" % "adds" + "".join(
        "%14s" % ("" if s == "detached" else "+%.2f" % statistics.median(adds(res, s, "detached")))
        for s in SIDES))
    print("  %-24s" % "x detached" + "".join("%14.3f" % (med[s][0] / med["detached"][0])
                                             for s in SIDES))
    print("  %-24s" % "BPF programs a call" + "".join(
        "%14s" % ("" if s == "detached" else "%.2f" % med[s][1]) for s in SIDES))
    for s, base in [(s, "floor") for s in traced] + [(s, "reads") for s in hcbs]:
        over = adds(res, s, base)
        print("  %s over the %s: %+.2f us a call (rounds: %s)" % (
            s, base, statistics.median(over), " ".join("%+.2f" % v for v in over)))
    for s in SIDES[1:]:
        print("  %s adds, round by round: %s" % (
            s, " ".join("%+.2f" % v for v in adds(res, s, "detached"))))


main()
