#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/callback_kernel.py HCBTRACE PYTHON [--kind KIND] [--rounds K] [--seconds S] [--against HCBTRACE2] [--json]
- the kernel's time per jax.debug.callback (--kind print: per
jax.debug.print) of an unmodified JAX program, detached, attached, and
attached with the custom-call thunk's probe kept on (HCBTRACE_TEST_THUNK=on:
what each call paid before that probe went off once its sites are named),
by kind: where a callback's microseconds go.

The program (PYTHON: a venv with jax, jaxlib >= 0.6 for the FFI path) runs a
jitted fori_loop of 1,000 jax.debug.callback calls on a float32[4] (KIND
print: jax.debug.print("x={x}"), its stdout /dev/null), over and over,
pinned to CPU 0; hcbtrace records it pinned to CPU 1, from 4 s before
the window (the probes a site's naming needs go in the first second).
`perf record -p` samples the program for S seconds (default 8) at 10 kHz;
each kernel symbol's and BPF program's samples are summed by kind, and a
kind's time a call is its share of all the program's samples times the
program's CPU time a call in the window (as the program writes them,
jax_loop.py).  The sides take turns, K rounds (default 2); each figure is
the median of its rounds, and what attaching adds the median of each
round's attached window less its detached one (the machine's drift
cancels).  The program's stdout is block-buffered whatever
PYTHONUNBUFFERED says.  perf's cpu-clock
samples land where interrupts come back on: a trap's own way in shows as
irqentry_exit_to_user_mode.  --against HCBTRACE2: the third side is another
build's attached (the build before a change), in place of the thunk's: this
machine's speed moves every figure by up to a third from run to run, so two
builds are compared in one run, taking turns.  --json: one object, keys
KIND_kernel_SIDE_WHAT_us.  Needs root and perf (linux-perf); without
perf it says so and prints nothing (--json: {}).
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

SCRIPT = "bench/callback_kernel.py"
HCB, PY, ROUNDS, SECONDS, KIND, AGAINST = arguments(SCRIPT, __doc__, 2, 8.0)
FREQ = 10000
# (name, environment, binary): None, detached
SIDES = [("detached", None, None), ("attached", {}, HCB),
         ("attached, against", {}, AGAINST) if AGAINST else
         ("thunk probe kept", {"HCBTRACE_TEST_THUNK": "on"}, HCB)]


# kernel symbols by what they do for a probe (prefixes; the first match wins)
KINDS = [
    ("reads of the target", ("copy_from_user_nofault", "__check_object_size", "__virt_addr_valid",
                             "__check_heap_object", "check_stack_object", "bpf_probe_read_user",
                             "nmi_uaccess_okay", "is_vmalloc_addr", "copy_from_kernel_nofault")),
    ("the trap, in and out", ("irqentry_exit_to_user_mode", "exc_int3", "do_int3", "handle_swbp",
                              "uprobe_notify_resume", "arch_uprobe", "push_emulate_op",
                              "emulate_push_stack", "_copy_to_user", "find_active_uprobe",
                              "find_uprobe", "mtree_load", "uprobe_pre_sstep", "is_trap_insn",
                              "uprobe_get_swbp_addr", "uprobe_dispatcher")),
    ("uprobe dispatch", ("handler_chain", "uprobe_prog_run", "uprobe_multi_link_handler",
                         "bpf_uprobe_multi", "__rcu_read", "rcu_read_unlock_trace",
                         "migrate_", "bpf_prog_run")),
    ("ring buffer, maps, clocks", ("__bpf_ringbuf", "bpf_ringbuf", "bpf_task_storage",
                                   "task_init_private", "htab", "__htab", "lookup_nulls_elem",
                                   "bpf_map", "read_tsc", "ktime_get", "memcmp",
                                   "bpf_get_current", "bpf_get_attach_cookie", "bpf_loop",
                                   "bpf_send_signal", "bpf_get_prandom")),
    ("the BPF programs", ("bpf_prog_",)),
]


def kind_of(sym):
    for kind, prefixes in KINDS:
        if sym.startswith(prefixes):
            return kind
    return "other"


def profile(data):
    """({kind: samples} of the kernel's symbols in perf data, all the
    program's samples, user and kernel)."""
    rep = subprocess.run(["perf", "report", "-i", data, "--sort", "sym", "--stdio", "-q", "-n"],
                         capture_output=True, text=True, check=True).stdout
    kinds, total = {}, 0
    for line in rep.splitlines():
        f = line.split()
        if len(f) < 4 or not f[0].endswith("%") or not f[1].isdigit():
            continue
        total += int(f[1])
        if f[2] == "[k]":
            k = kind_of(f[3])
            kinds[k] = kinds.get(k, 0) + int(f[1])
    return kinds, total


def sampled(prog, count, data):
    """perf sampling the program for S seconds into data: the program's CPU
    us a call meanwhile, from the first to the last of its count file's
    writes in the window (jax_loop.next_progress)."""
    perf = subprocess.Popen(["perf", "record", "-q", "-F", str(FREQ), "-p", str(prog.pid), "-o",
                             data, "--", "sleep", str(SECONDS)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    seen = []
    while perf.poll() is None:
        now = next_progress(count, prog, SCRIPT)
        if perf.poll() is None:
            seen.append(now)
    if perf.returncode:
        sys.exit("%s: perf record failed (%d)" % (SCRIPT, perf.returncode))
    if len(seen) < 3:
        sys.exit("%s: the program made too few calls in %g s" % (SCRIPT, SECONDS))
    # the first write may come before perf's first sample: from the second
    (n0, c0), (n1, c1) = seen[1], seen[-1]
    return (c1 - c0) / 1e3 / (n1 - n0)


def one_side(work, env, hcb):
    """{kind: us a callback} of one window, "all" their sum."""
    count = os.path.join(work, "count")
    for p in (count, count + ".end"):
        if os.path.exists(p):
            os.unlink(p)
    # stdout block-buffered, as a job's log file or pipe has it, whatever
    # the caller's environment: PYTHONUNBUFFERED=1 makes each print a
    # write to the pipe and a wake-up of its reader, some 15 us of kernel
    # time a line that moves by more than the probe costs
    prog_env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open(os.path.join(work, "prog.out"), "w") as out:
        prog = subprocess.Popen(["taskset", "-c", "0", PY, "-c",
                                 program(KIND), count],
                                stdout=subprocess.PIPE, stderr=out, text=True, env=prog_env)
    # a print's warm-up lines come first; after "ready", its lines go nowhere
    line = "x"
    while line and line.strip() != "ready":
        line = prog.stdout.readline()
    if not line:
        sys.exit("%s: the program did not start: see %s" % (SCRIPT, out.name))
    drain = subprocess.Popen(["cat"], stdin=prog.stdout, stdout=subprocess.DEVNULL)
    rec = None
    if env is not None:
        with open(os.path.join(work, "rec.err"), "w") as err:
            rec = subprocess.Popen(["taskset", "-c", "1", hcb, "record", "-q", "-p",
                                    str(prog.pid), "-o", os.path.join(work, "rec.hcbcap")],
                                   stderr=err, env={**os.environ, **env})
    try:
        time.sleep(4)
        data = os.path.join(work, "perf.data")
        cpu_us = sampled(prog, count, data)
    finally:
        open(count + ".end", "w").close()
        prog.wait()
        drain.wait()
        if rec:
            rec.send_signal(2)
            rec.wait()
    # each kind's share of the program's samples, of its CPU time a call:
    # no count of calls that moves by the thousand against a window of
    # samples (a 2% error on a print's 8 s)
    kinds, total = profile(data)
    per_call = {k: n / total * cpu_us for k, n in kinds.items()}
    per_call["all"] = sum(per_call.values())
    return per_call


def key(side, kind):
    """A JSON key: callback_kernel_attached_the_trap_in_and_out_us (KIND callback)."""
    words = "".join(c if c.isalnum() else " " for c in side + " " + kind).split()
    return "%s_kernel_%s_us" % (KIND, "_".join(words))


def main():
    if not shutil.which("perf"):
        print("%s: perf is not installed (apt-get install linux-perf)" % SCRIPT,
              file=sys.stderr)
        if "--json" in sys.argv:
            print("{}")
        return
    runs = {name: [] for name, _, _ in SIDES}
    with tempfile.TemporaryDirectory() as work:
        for r in range(ROUNDS):
            for name, env, hcb in (SIDES if r % 2 == 0 else SIDES[::-1]):
                runs[name].append(one_side(work, env, hcb))
    kinds = ["all"] + [k for k, _ in KINDS] + ["other"]
    res = {name: {k: statistics.median(run.get(k, 0.0) for run in rs) for k in kinds}
           for name, rs in runs.items()}
    # what attaching adds, round by round: each side against the detached
    # window next to it in time, so that the machine's drift over a run
    # (a third, here) cancels; the median of those
    adds = {name: [run["all"] - base["all"] for run, base in zip(rs, runs["detached"])]
            for name, rs in runs.items() if name != "detached"}
    if "--json" in sys.argv:
        out = {key(n, k): round(v, 3) for n, r in res.items() for k, v in r.items()}
        out.update({key(n, "adds"): round(statistics.median(a), 3) for n, a in adds.items()})
        print(json.dumps(out, sort_keys=True))
        return
    print("The kernel's time per jax.debug.%s (us; median of %d rounds of %g s, "
          "perf at %d Hz)" % (KIND, ROUNDS, SECONDS, FREQ))
    print("  %-28s" % "" + "".join("%18s" % n for n, _, _ in SIDES))
    for k in kinds:
        print("  %-28s" % ("in all" if k == "all" else k) +
              "".join("%18.2f" % res[n][k] for n, _, _ in SIDES))
    print("  %-28s" % "attached adds" +
          "".join("%18s" % ("" if n == "detached" else "+%.2f" % statistics.median(adds[n]))
                  for n, _, _ in SIDES))
    for n, a in adds.items():
        print("  %s, round by round: %s" % (n, " ".join("%+.2f" % v for v in a)))

main()
