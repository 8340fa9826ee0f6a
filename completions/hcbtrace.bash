# bash completion for hcbtrace(1)                          -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Kept in step with `hcbtrace --help` and `hcbtrace COMMAND --help` by
# tests/bats/help_sync.bats, which asks _hcbtrace what it offers for
# `hcbtrace <TAB>`, `hcbtrace -<TAB>`, `hcbtrace COMMAND -<TAB>` and
# `hcbtrace help <TAB>`: add a new command or option in the tables below.
# Works with or without the bash-completion package.

# Process ids of running processes.
_hcbtrace_pids()
{
    local p pids=()
    for p in /proc/[0-9]*; do
        pids+=("${p#/proc/}")
    done
    mapfile -t COMPREPLY < <(compgen -W "${pids[*]}" -- "$1")
}

# Files whose names end in one of the extensions (an extglob alternation
# such as "jsonl|hcbcap"), and directories to reach them.
_hcbtrace_files()
{
    local exts=$1 cur=$2
    if declare -F _filedir >/dev/null; then
        _filedir "@($exts)"
        return
    fi
    compopt -o filenames 2>/dev/null
    local had_extglob=0
    shopt -q extglob && had_extglob=1
    shopt -s extglob
    mapfile -t COMPREPLY < <(compgen -d -- "$cur"; compgen -f -X "!*.@($exts)" -- "$cur")
    ((had_extglob)) || shopt -u extglob
}

_hcbtrace()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cword=$COMP_CWORD

    local commands='attach run record replay convert diff barrier dump list check view help'
    local global_opts='--version --help'

    # --opt=value: readline splits it into "--opt" "=" "value"
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = && $cword -ge 2 ]]; then
        prev=${COMP_WORDS[cword - 2]}
    fi

    # Find the command, skipping options of hcbtrace itself.
    local i w cmd="" cmdi=0
    for ((i = 1; i < cword; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
            -*) ;;
            *) cmd=$w cmdi=$i; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$global_opts" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
        fi
        return
    fi

    # which taps, and numpy's print options of the text format (attach, run, replay)
    local print_opts='--nonfinite --threshold --precision --linewidth --edgeitems --suppress'
    local print_argopts='--threshold --precision --linewidth --edgeitems'
    # who the process is, where nothing better says (attach, run, record): each takes an argument
    local ident_opts='--process-index --process-count --job'

    # opts: every option of the command; argopts: those taking an argument.
    local opts argopts
    case $cmd in
        attach)
            opts="-p --pid -f --format $print_opts --device --consumer --provider --no-text --text-probe -c --count
                  -d --duration -b --buffer-size --max-lag $ident_opts -q --quiet -h --help"
            argopts="-p --pid -f --format $print_argopts --device --consumer --provider -c --count
                     -d --duration -b --buffer-size --max-lag $ident_opts"
            ;;
        run)
            opts="-f --format --cuda --user $print_opts --device --consumer --provider --no-text --text-probe -c --count -d --duration
                  -b --buffer-size --max-lag $ident_opts -q --quiet -h --help"
            argopts="-f --format --user $print_argopts --device --consumer --provider -c --count -d --duration
                     -b --buffer-size --max-lag $ident_opts"
            ;;
        record)
            opts="-p --pid --follow -o --output --cuda --user --keep-last --until --after --until-signal --rearm
                  --on-trigger --fleet-dir
                  --device --consumer --provider --no-text --text-probe -c --count
                  -d --duration -b --buffer-size --max-lag $ident_opts -q --quiet -h --help"
            argopts="-p --pid -o --output --user --keep-last --until --after --rearm --on-trigger --fleet-dir
                     --device --consumer --provider -c --count -d --duration -b --buffer-size --max-lag $ident_opts"
            ;;
        replay)
            opts="--device --consumer -c --count -f --format $print_opts --speed --no-wait
                  -q --quiet -h --help"
            argopts="--device --consumer -c --count -f --format $print_argopts --speed"
            ;;
        convert)
            opts='-o --output --device --consumer -h --help'
            argopts='-o --output --device --consumer'
            ;;
        diff)
            opts='--rtol --atol --equal-nan -f --format -q --quiet --plot --plot-stat --across-processes -h --help'
            argopts='--rtol --atol -f --format --plot --plot-stat'
            ;;
        barrier | dump)
            opts='-p --pid -t --timeout -q --quiet -h --help'
            argopts='-p --pid -t --timeout'
            ;;
        list)
            opts='-h --help'
            argopts=
            ;;
        check)
            opts='-f --format -v --verbose -h --help'
            argopts='-f --format'
            ;;
        view)
            opts='-p --pid --device --consumer --provider -b --buffer-size --max-lag -h --help'
            argopts='-p --pid --device --consumer --provider -b --buffer-size --max-lag'
            ;;
        help)
            opts='-h --help'
            argopts=
            ;;
        *)
            return
            ;;
    esac
    argopts=" ${argopts//[$'\n' ]/ } "

    # run and record launch CMD: it starts after "--", or at their first
    # operand.
    local launches=0
    [[ $cmd == run || $cmd == record ]] && launches=1

    # Walk the command's words: skip options and their arguments, find
    # where CMD starts.
    local npos=0 cmdstart=0 dashdash=0
    for ((i = cmdi + 1; i < cword; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == = ]]; then
            ((i++))
            continue
        fi
        if [[ $w == -- ]]; then
            if ((launches)); then
                cmdstart=$((i + 1))
                break
            fi
            dashdash=1
            continue
        fi
        if ((dashdash)); then
            ((npos++))
            continue
        fi
        if [[ $argopts == *" $w "* ]]; then
            if [[ ${COMP_WORDS[i + 1]} == = ]]; then
                ((i += 2))
            else
                ((i++))
            fi
            continue
        fi
        [[ $w == -* && $w != - ]] && continue
        ((npos++))
        if ((launches)); then
            cmdstart=$i
            break
        fi
    done

    # run/record -- CMD ARGS...: complete CMD's command line.
    if ((cmdstart > 0 && cword >= cmdstart)); then
        if declare -F _command_offset >/dev/null; then
            _command_offset "$cmdstart"
        elif ((cword == cmdstart)); then
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        else
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return
    fi

    # The argument of an option.
    if [[ $argopts == *" $prev "* ]]; then
        case $prev in
            -p | --pid) _hcbtrace_pids "$cur" ;;
            -f | --format)
                if [[ $cmd == diff || $cmd == check ]]; then
                    mapfile -t COMPREPLY < <(compgen -W 'text json' -- "$cur")
                else
                    mapfile -t COMPREPLY < <(compgen -W 'text jsonl' -- "$cur")
                fi
                ;;
            --plot) _hcbtrace_files 'svg' "$cur" ;;
            --plot-stat) mapfile -t COMPREPLY < <(compgen -W 'mean min max norm' -- "$cur") ;;
            --on-trigger) mapfile -t COMPREPLY < <(compgen -W 'none stop' -- "$cur") ;;
            --user) mapfile -t COMPREPLY < <(compgen -u -- "$cur") ;;
            --fleet-dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
            -o | --output)
                if [[ $cmd == convert ]]; then
                    _hcbtrace_files 'jsonl|hcbcap|npz|json|parquet' "$cur"
                else
                    _hcbtrace_files 'jsonl|hcbcap' "$cur"
                fi
                ;;
            *) COMPREPLY=() ;;
        esac
        return
    fi

    if [[ $cur == -* && $dashdash == 0 ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return
    fi

    # Operands.
    case $cmd in
        attach | barrier | dump)
            ((npos == 0)) && _hcbtrace_pids "$cur"
            ;;
        run | record)
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
            ;;
        replay)
            ((npos == 0)) && _hcbtrace_files 'jsonl|hcbcap' "$cur"
            ;;
        convert)    # several recordings and directories, for Parquet
            _hcbtrace_files 'jsonl|hcbcap' "$cur"
            ;;
        view)       # a recording, or a job's: a directory, several files
            _hcbtrace_files 'jsonl|hcbcap' "$cur"
            ;;
        diff)
            ((npos < 2)) && _hcbtrace_files 'jsonl|hcbcap' "$cur"
            ;;
        help)
            ((npos == 0)) && mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
            ;;
    esac
}

complete -F _hcbtrace hcbtrace

# ex: filetype=sh
