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

# Complete the command line that follows `hcbtrace run [OPTIONS] --`.
function __fish_hcbtrace_run_command
    set -l tokens (commandline -opc)
    set -l i (contains -i -- -- $tokens)
    or return
    set -e tokens[1..$i]
    complete -C (string join -- ' ' (string escape -- $tokens) (commandline -ct))
end

complete -c hcbtrace -f

# hcbtrace itself
complete -c hcbtrace -n __fish_use_subcommand -l version -d 'print the version and exit'
complete -c hcbtrace -n __fish_use_subcommand -l help -d 'show the list of commands'

# commands
complete -c hcbtrace -n __fish_use_subcommand -a attach -d 'attach to a running program and print its taps like id_print'
complete -c hcbtrace -n __fish_use_subcommand -a run -d 'launch a command and print its taps from the very first one'
complete -c hcbtrace -n __fish_use_subcommand -a list -d 'list processes that have libhcbtap loaded, with devices and consumers'
complete -c hcbtrace -n __fish_use_subcommand -a help -d 'show the help of a command'

# help [COMMAND]
complete -c hcbtrace -n '__fish_seen_subcommand_from help' -a 'attach run list help'

# attach [OPTIONS] PID
complete -c hcbtrace -n '__fish_seen_subcommand_from attach' -s p -l pid -x -a '(__fish_complete_pids)' -d 'the process to attach to'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach' -a '(__fish_complete_pids)'

# run [OPTIONS] -- CMD [ARGS...]
complete -c hcbtrace -n '__fish_seen_subcommand_from run; and not __fish_hcbtrace_no_dashdash' -a '(__fish_hcbtrace_run_command)'

# options of attach and run
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -l device -x -d 'only taps from device N (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -l consumer -x -d 'only taps of this consumer, ID or NAME (repeatable)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -s c -l count -x -d 'stop after N taps'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -s d -l duration -x -d 'stop after SECS seconds'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -s f -l format -x -a 'text jsonl' -d 'output format: text (id_print, default) or jsonl'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -s b -l buffer-size -x -d 'ring buffer size in MiB (default 64)'
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run; and __fish_hcbtrace_no_dashdash' -s q -l quiet -d 'no summary on exit'

# options of every command
complete -c hcbtrace -n '__fish_seen_subcommand_from attach run list help; and __fish_hcbtrace_no_dashdash' -s h -l help -d 'show the help of the command'
