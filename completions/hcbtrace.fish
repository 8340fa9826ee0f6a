# fish completion for hcbtrace(1)
# SPDX-License-Identifier: MIT
#
# Kept in step with `hcbtrace --help` and `hcbtrace COMMAND --help` by
# tests/bats/help_sync.bats.  The rule it checks, one `complete -c hcbtrace`
# line per entry, options as `-s X` and `-l NAME`:
#   - commands:  -n __fish_use_subcommand -a NAME
#   - options of hcbtrace itself:  -n __fish_use_subcommand -s X -l NAME
#   - options of COMMAND:  -n '__fish_seen_subcommand_from COMMAND... [; ...]'
#   - arguments of help:  -n '__fish_seen_subcommand_from help' -a 'NAME...'

# True until `--` has been typed (after it come CMD and its arguments).
function __fish_hcbtrace_no_dashdash
    not contains -- -- (commandline -opc)
end

# Complete the command line that follows `hcbtrace run|record [OPTIONS] --`.
function __fish_hcbtrace_run_command
    set -l tokens (commandline -opc)
    set -l i (contains -i -- -- $tokens)
    or return
    set -e tokens[1..$i]
    complete -C (string join -- ' ' (string escape -- $tokens) (commandline -ct))
end

# Files whose names end in one of the suffixes given (.jsonl ...), and
# directories to reach them.
function __fish_hcbtrace_files
    set -l re '\.('(string join '|' (string replace -r '^\.' '' -- $argv))')$'
    # the token being completed, without a leading --output= or the like
    set -l cur (string replace -r -- '^-[^=]*=' '' (commandline -ct))
    for f in $cur*
        if test -d $f
            echo $f/
        else if string match -qr -- $re $f
            echo $f
        end
    end
end

complete -c hcbtrace -f

# hcbtrace itself
complete -c hcbtrace -n __fish_use_subcommand -l version -d 'print the version and exit'
complete -c hcbtrace -n __fish_use_subcommand -l help -d 'show the list of commands'

# commands
complete -c hcbtrace -n __fish_use_subcommand -a attach -d 'attach to a running program and print its taps like id_print'
complete -c hcbtrace -n __fish_use_subcommand -a run -d 'launch a command and print its taps from the very first one'
complete -c hcbtrace -n __fish_use_subcommand -a record -d "record a program's taps to a file (.jsonl or .hcbcap)"
complete -c hcbtrace -n __fish_use_subcommand -a replay -d 'print a recording exactly as attach printed it live'
complete -c hcbtrace -n __fish_use_subcommand -a convert -d 'convert a recording between .jsonl and .hcbcap, or to .npz, a timeline or Parquet'
complete -c hcbtrace -n __fish_use_subcommand -a diff -d 'compare two recordings tap by tap (numeric regression check)'
complete -c hcbtrace -n __fish_use_subcommand -a barrier -d 'wait until every tap a process issued so far has been recorded'
complete -c hcbtrace -n __fish_use_subcommand -a dump -d "make a running 'record --keep-last' write its ring now"
complete -c hcbtrace -n __fish_use_subcommand -a list -d 'list processes that have libhcbtap loaded, with devices and consumers'
complete -c hcbtrace -n __fish_use_subcommand -a check -d 'say what this kernel and this process allow hcbtrace'
complete -c hcbtrace -n __fish_use_subcommand -a view -d "watch a running program's taps, or a recording, in an interactive viewer"
complete -c hcbtrace -n __fish_use_subcommand -a help -d 'show the help of a command'

# help [COMMAND]
complete -c hcbtrace -n '__fish_seen_subcommand_from help' -a 'attach run record replay convert diff barrier dump list check view help'

# attach [OPTIONS] PID
complete -c hcbtrace -n '__fish_seen_subcommand_from attach' -s p -l pid -x -a '(__fish_complete_pids)' -d 'the process to attach to'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach' -a '(__fish_complete_pids)'

# run [OPTIONS] -- CMD [ARGS...], record [OPTIONS] -o FILE (-p PID | -- CMD [ARGS...])
complete -c hcbtrace -n '__fish_seen_subcommand_from run record; and not __fish_hcbtrace_no_dashdash' -a '(__fish_hcbtrace_run_command)'

# options of attach, run and record
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -s f -l format -x -a 'text jsonl' -d 'output format: text (id_print, default) or jsonl'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l device -x -d 'only taps from device N (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l consumer -x -d 'only taps of this consumer, ID or NAME (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from run record; and __fish_hcbtrace_no_dashdash' -l cuda -d 'load libhcbtap_cupti.so into CMD: CUDA taps carry their device copy times'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l follow -d 'with -- CMD: record CMD and every process it starts, each its own recording'
complete -c hcbtrace -n '__fish_seen_subcommand_from run record; and __fish_hcbtrace_no_dashdash' -l user -x -a '(__fish_complete_users)' -d 'run CMD as this user (under sudo: the user who ran it)'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l keep-last -x -d 'flight recorder: hold the last SIZE bytes or DURATION of taps until --until fires'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l until -x -d 'end when a tap meets COND (nonfinite, "loss: max > 1e4") or a process dies (exit); repeatable'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l after -x -d 'record N more taps after the trigger (default 0)'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l until-signal -d 'SIGUSR1 to hcbtrace fires the recorder as --until would'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l on-trigger -x -a 'none stop' -d 'when a tap fires --until: leave the program running or stop it'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l rearm -x -d 'arm again after each firing, each its own recording (0: no limit)'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -l fleet-dir -x -a '(__fish_complete_directories)' -d 'across hosts: publish a firing in DIR, shared by every host, and fire on theirs'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record view; and __fish_hcbtrace_no_dashdash' -l provider -x -a 'hcbtap xla-outfeed jax-callback' -d 'trace through this provider only (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l no-text -d 'jax.debug.print: show and record its operands, not the line it printed'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l text-probe -d 'jax.debug.print: take its line from the probe on str concatenation for the whole session'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l process-index -x -d 'the process is process N of its job, where nothing better says'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l process-count -x -d 'its job has N processes, where nothing else says'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l job -x -d 'the job'"'"'s name, where its launcher names none'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -s c -l count -x -d 'stop after N taps'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -s d -l duration -x -d 'stop after SECS seconds'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -s b -l buffer-size -x -d 'ring buffer size in MiB (default 64)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -l max-lag -x -d 'while taps are lost, drop them rather than fall over MS ms behind (default 25; 0: off)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record; and __fish_hcbtrace_no_dashdash' -s q -l quiet -d 'no summary on exit'

# which taps, and numpy's print options of the text format: attach, run and replay
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run replay; and __fish_hcbtrace_no_dashdash' -l nonfinite -d 'only taps holding a NaN or inf, and the first of each call site and device'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run replay; and __fish_hcbtrace_no_dashdash' -l threshold -x -d 'text: summarize arrays of more than N elements (default 1024)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run replay; and __fish_hcbtrace_no_dashdash' -l precision -x -d 'text: at most N digits after the point (default 8)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run replay; and __fish_hcbtrace_no_dashdash' -l linewidth -x -d 'text: wrap array rows at N columns (default 75)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run replay; and __fish_hcbtrace_no_dashdash' -l edgeitems -x -d 'text: items kept at each end when summarizing (default 3)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run replay; and __fish_hcbtrace_no_dashdash' -l suppress -d 'text: print small floats positionally, not in scientific notation'

# record's own options
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -s p -l pid -x -a '(__fish_complete_pids)' -d 'record the running process PID (repeatable: one recording each)'
complete -c hcbtrace -n '__fish_seen_subcommand_from record; and __fish_hcbtrace_no_dashdash' -s o -l output -x -a '(__fish_hcbtrace_files .jsonl .hcbcap)' -d 'the recording: FILE.jsonl or FILE.hcbcap'

# replay [OPTIONS] FILE
complete -c hcbtrace -n '__fish_seen_subcommand_from replay' -a '(__fish_hcbtrace_files .jsonl .hcbcap)'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -l device -x -d 'only taps from device N (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -l consumer -x -d 'only taps of this consumer, ID or NAME (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -s c -l count -x -d 'stop after N taps'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -s f -l format -x -a 'text jsonl' -d 'output format: text (id_print, default) or jsonl'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -l speed -x -d 'replay X times as fast as recorded (default 1)'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -l no-wait -d 'do not wait between taps'
complete -c hcbtrace -n '__fish_seen_subcommand_from replay; and __fish_hcbtrace_no_dashdash' -s q -l quiet -d 'no warnings about filters that match nothing'

# convert [OPTIONS] -o OUT IN, or FILE|DIR... -o OUT.parquet|OUTDIR/
complete -c hcbtrace -n '__fish_seen_subcommand_from convert' -a '(__fish_hcbtrace_files .jsonl .hcbcap)'
complete -c hcbtrace -n '__fish_seen_subcommand_from convert; and __fish_hcbtrace_no_dashdash' -s o -l output -x -a '(__fish_hcbtrace_files .jsonl .hcbcap .npz .json .parquet)' -d 'the output: .jsonl, .hcbcap, .npz, .json (a timeline), .parquet or DIR/'
complete -c hcbtrace -n '__fish_seen_subcommand_from convert; and __fish_hcbtrace_no_dashdash' -l device -x -d 'only taps from device N (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from convert; and __fish_hcbtrace_no_dashdash' -l consumer -x -d 'only taps of this consumer, ID or NAME (repeatable)'

# diff [OPTIONS] REF NEW
complete -c hcbtrace -n '__fish_seen_subcommand_from diff' -a '(__fish_hcbtrace_files .jsonl .hcbcap)'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -l rtol -x -d 'relative tolerance (default 1e-05)'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -l atol -x -d 'absolute tolerance (default 1e-08)'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -l equal-nan -d 'count NaN in both as equal'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -s f -l format -x -a 'text json' -d 'report format: text (default) or json'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -s q -l quiet -d 'print nothing: the exit status tells'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -l plot -x -a '(__fish_hcbtrace_files .svg)' -d 'when they differ, draw the drift in FILE (SVG)'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -l plot-stat -x -a 'mean min max norm' -d 'arrays drawn as their mean, min, max or norm'
complete -c hcbtrace -n '__fish_seen_subcommand_from diff; and __fish_hcbtrace_no_dashdash' -l across-processes -d 'compare each process of one job with process 0'

# barrier [OPTIONS] PID
complete -c hcbtrace -n '__fish_seen_subcommand_from barrier' -a '(__fish_complete_pids)'
complete -c hcbtrace -n '__fish_seen_subcommand_from barrier; and __fish_hcbtrace_no_dashdash' -s p -l pid -x -a '(__fish_complete_pids)' -d 'the traced process'
complete -c hcbtrace -n '__fish_seen_subcommand_from barrier; and __fish_hcbtrace_no_dashdash' -s t -l timeout -x -d 'give up after SECS seconds (default 60; 0: no limit)'
complete -c hcbtrace -n '__fish_seen_subcommand_from barrier; and __fish_hcbtrace_no_dashdash' -s q -l quiet -d 'no message on success'

# dump [OPTIONS] PID
complete -c hcbtrace -n '__fish_seen_subcommand_from dump' -a '(__fish_complete_pids)'
complete -c hcbtrace -n '__fish_seen_subcommand_from dump; and __fish_hcbtrace_no_dashdash' -s p -l pid -x -a '(__fish_complete_pids)' -d 'the traced process, or the recording hcbtrace'
complete -c hcbtrace -n '__fish_seen_subcommand_from dump; and __fish_hcbtrace_no_dashdash' -s t -l timeout -x -d 'give up waiting after SECS seconds (default 10)'
complete -c hcbtrace -n '__fish_seen_subcommand_from dump; and __fish_hcbtrace_no_dashdash' -s q -l quiet -d 'no message on success'

# check [OPTIONS]
complete -c hcbtrace -n '__fish_seen_subcommand_from check; and __fish_hcbtrace_no_dashdash' -s f -l format -x -a 'text json' -d 'output format: text (default) or json'
complete -c hcbtrace -n '__fish_seen_subcommand_from check; and __fish_hcbtrace_no_dashdash' -s v -l verbose -d "each program's stack depths, and the verifier's last lines of a refusal"

# view [OPTIONS] -p PID [-p PID...] | FILE | DIR | FILE FILE...
complete -c hcbtrace -n '__fish_seen_subcommand_from view' -a '(__fish_hcbtrace_files .jsonl .hcbcap)'
complete -c hcbtrace -n '__fish_seen_subcommand_from view; and __fish_hcbtrace_no_dashdash' -s p -l pid -x -a '(__fish_complete_pids)' -d 'the running process to watch (repeatable; else FILE: a recording)'
complete -c hcbtrace -n '__fish_seen_subcommand_from view; and __fish_hcbtrace_no_dashdash' -l device -x -d 'only taps from device N (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from view; and __fish_hcbtrace_no_dashdash' -l consumer -x -d 'only taps of this consumer, ID or NAME (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from view; and __fish_hcbtrace_no_dashdash' -s b -l buffer-size -x -d 'live: ring buffer size in MiB (default 64)'
complete -c hcbtrace -n '__fish_seen_subcommand_from view; and __fish_hcbtrace_no_dashdash' -l max-lag -x -d 'live: while taps are lost, drop them rather than fall over MS ms behind (default 25; 0: off)'

# options of every command
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run record replay convert diff barrier dump list check view help; and __fish_hcbtrace_no_dashdash' -s h -l help -d 'show the help of the command'
