#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# barrier-diff.sh - the CI check of a program that keeps running after the
# work under test, as a service does: record it from its first tap, wait
# until its work is done, `hcbtrace barrier` until every tap it issued is in
# the recording and on disk, stop the recorder, diff against the golden
# recording.  (check-drift.sh is the simpler case of a program that exits.)
#
#   examples/ci/barrier-diff.sh [EXAMPLE-ARGS...]
#
# Exit status: diff's.  0 no drift; 1 drift (diff's report on stdout);
# 2 trouble: the recording or the barrier failed, or taps were lost.
# Environment: HCBTRACE, HCB_EXAMPLE, HCB_GOLDEN, HCB_RUN, HCB_RTOL, HCB_ATOL
# as for check-drift.sh.  Run as root: recording attaches BPF probes.

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
hcbtrace=${HCBTRACE:-$top/build/cli/hcbtrace}
example=${HCB_EXAMPLE:-$top/build/examples/hcb-example}
golden=${HCB_GOLDEN:-$here/golden.jsonl}
run=${HCB_RUN:-run.jsonl}
rtol=${HCB_RTOL:-1e-5}
atol=${HCB_ATOL:-1e-6}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

say() { printf 'barrier-diff: %s\n' "$*" >&2; }

# 1. The job, recorded from its first tap.  --linger keeps it alive after its
#    5 steps, tapping nothing more, like a service waiting for more work.
"$hcbtrace" record -q -o "$run" -- "$example" --devices 2 --steps 5 --interval-ms 0 \
    --field-size 1000 --linger "$@" 2>"$log" &
rec=$!

# 2. Wait until the work under test is done.  (A real job: until the test's
#    requests are answered.)  The taps may still be on their way.
until grep -q 'steps done' "$log"; do
    if ! kill -0 "$rec" 2>/dev/null; then
        cat "$log" >&2
        say "the job or its recorder stopped before the work was done"
        exit 2
    fi
    sleep 0.1
done
job=$(pgrep -P "$rec" -x hcb-example)

# 3. The barrier: every tap the job issued so far is in $run, flushed.
if ! "$hcbtrace" barrier -t 30 "$job"; then
    say "the barrier failed: the recording is incomplete, no comparison made"
    kill -INT "$rec"
    wait "$rec"
    exit 2
fi

# 4. Stop the recorder; it writes its end record and stops the job (SIGTERM).
kill -INT "$rec"
if ! wait "$rec"; then
    cat "$log" >&2
    say "recording failed: no comparison made"
    exit 2
fi
if grep -q '^{"type":"drop",' "$run"; then
    say "the recording lost taps (see its drop records): no comparison made"
    exit 2
fi

# 5. Compare.
"$hcbtrace" diff --rtol "$rtol" --atol "$atol" "$golden" "$run"
status=$?
case $status in
    0) say "no drift" ;;
    1) say "DRIFT: the taps of $run differ from $golden (report above)" ;;
    *) say "diff could not compare the recordings (exit status $status)"; status=2 ;;
esac
exit "$status"
