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

_hcbtrace()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cword=$COMP_CWORD

    local commands='attach run list help'
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

    # opts: every option of the command; argopts: those taking an argument.
    local opts argopts
    case $cmd in
        attach)
            opts='-p --pid --device --consumer -c --count -d --duration
                  -f --format -b --buffer-size -q --quiet -h --help'
            argopts='-p --pid --device --consumer -c --count -d --duration
                     -f --format -b --buffer-size'
            ;;
        run)
            opts='--device --consumer -c --count -d --duration
                  -f --format -b --buffer-size -q --quiet -h --help'
            argopts='--device --consumer -c --count -d --duration
                     -f --format -b --buffer-size'
            ;;
        list)
            opts='-h --help'
            argopts=
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

    # Walk the command's words: skip options and their arguments, find
    # where `run`'s CMD starts (after "--", or its first operand).
    local npos=0 cmdstart=0
    for ((i = cmdi + 1; i < cword; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == = ]]; then
            ((i++))
            continue
        fi
        if [[ $w == -- ]]; then
            [[ $cmd == run ]] && cmdstart=$((i + 1))
            break
        fi
        if [[ $argopts == *" $w "* ]]; then
            if [[ ${COMP_WORDS[i + 1]} == = ]]; then
                ((i += 2))
            else
                ((i++))
            fi
            continue
        fi
        [[ $w == -* ]] && continue
        ((npos++))
        if [[ $cmd == run ]]; then
            cmdstart=$i
            break
        fi
    done

    # run -- CMD ARGS...: complete CMD's command line.
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
            -f | --format) mapfile -t COMPREPLY < <(compgen -W 'text jsonl' -- "$cur") ;;
            *) COMPREPLY=() ;;
        esac
        return
    fi

    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return
    fi

    # Operands.
    case $cmd in
        attach)
            ((npos == 0)) && _hcbtrace_pids "$cur"
            ;;
        run)
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
            ;;
        help)
            ((npos == 0)) && mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
            ;;
    esac
}

complete -F _hcbtrace hcbtrace

# ex: filetype=sh
