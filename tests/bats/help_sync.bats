#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# help_sync.bats - the man page and the bash, zsh and fish completions know
# exactly the commands and options of the real hcbtrace: every command and
# every option (short and long) of every command that `hcbtrace --help` and
# `hcbtrace COMMAND --help` list is in each file, and each file has no
# command or option that the binary lacks.  The rules that say where an
# entry counts are written next to the parsers in tests/tools/help_sync.sh
# and at the top of each checked file.  And no two options of a command
# share a getopt id (tests/tools/help_sync.sh, hs_option_ids).
#
#   HCBTRACE=build/cli/hcbtrace bats tests/bats/help_sync.bats
#
# The same checks, outside bats:
#   HCBTRACE=build/cli/hcbtrace tests/tools/help_sync.sh [man|bash|zsh|fish]...

bats_require_minimum_version 1.5.0

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

setup_file()
{
    export HS_ROOT
    HS_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    # shellcheck source=../tools/help_sync.sh
    source "$BATS_TEST_DIRNAME/../tools/help_sync.sh"
    # Fails setup_file, so every test, with the reason on stderr.
    hs_binary_inventory >"$BATS_FILE_TMPDIR/binary.inv"
}

setup()
{
    # shellcheck source=../tools/help_sync.sh
    source "$BATS_TEST_DIRNAME/../tools/help_sync.sh"
    BIN=$(cat "$BATS_FILE_TMPDIR/binary.inv")
}

# bin_commands: the commands of the binary, one a line.
bin_commands()
{
    awk -F '\t' '$1 == "command" { print $2 }' <<<"$BIN"
}

# complete_bash WORD...: what the bash completion offers for the command line
# WORD... (the last word is the one being completed), one a line.
complete_bash()
{
    bash --norc --noprofile -c '
        source "$1" || exit 1
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        _hcbtrace hcbtrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        ((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}"
        exit 0
    ' complete_bash "$HS_BASH" "$@"
}

@test "hcbtrace --help and COMMAND --help list commands and options" {
    # setup_file parsed them; here the parse is shown and sanity-checked.
    echo "$BIN"
    run grep -c '^command' <<<"$BIN"
    assert_success
    run grep -Fx $'option\t-\t--help' <<<"$BIN"
    assert_success
    local cmd
    for cmd in $(bin_commands); do
        grep -Fxq "option	$cmd	--help" <<<"$BIN" ||
            fail "hcbtrace $cmd --help does not list --help among its options"
    done
}

@test "option ids: unique within each command, long-only ones one list in cli.h" {
    run hs_option_ids
    assert_success
    assert_output ''
}

@test "man page: every command and option of hcbtrace, and no other" {
    run hs_check man "$BIN"
    assert_success
    assert_output ''
}

@test "bash completion: every command and option of hcbtrace, and no other" {
    run hs_check bash "$BIN"
    assert_success
    assert_output ''
}

@test "zsh completion: every command and option of hcbtrace, and no other" {
    run hs_check zsh "$BIN"
    assert_success
    assert_output ''
}

@test "fish completion: every command and option of hcbtrace, and no other" {
    run hs_check fish "$BIN"
    assert_success
    assert_output ''
}

@test "man page renders without warnings" {
    command -v groff >/dev/null ||
        skip "groff is not installed: man/hcbtrace.1 NOT checked for warnings"
    run --separate-stderr groff -man -Tutf8 -ww -z "$HS_MAN"
    assert_success
    assert_output ''
    [[ -z $stderr ]] || fail "groff warns about man/hcbtrace.1: $stderr"

    command -v man >/dev/null ||
        skip "man is not installed: man -l man/hcbtrace.1 NOT checked"
    MANPAGER=cat MANWIDTH=80 run --separate-stderr man --warnings -l "$HS_MAN"
    assert_success
    [[ -z $stderr ]] || fail "man -l warns about man/hcbtrace.1: $stderr"
    assert_line --regexp '^HCBTRACE\(1\)'
}

@test "bash completion: option arguments, pids and the command of run" {
    run complete_bash hcbtrace attach -f ''
    assert_success
    assert_output $'text\njsonl'

    # --format=j: readline splits the word at "="
    run complete_bash hcbtrace run --format = j
    assert_success
    assert_output 'jsonl'

    # pids: of running processes (this shell's included)
    run complete_bash hcbtrace attach ''
    assert_success
    assert_line "$$"
    run complete_bash hcbtrace attach -p ''
    assert_line "$$"

    # no completion for a number
    run complete_bash hcbtrace attach -c ''
    assert_success
    assert_output ''

    # after `run --`: command names, then no more hcbtrace options
    run complete_bash hcbtrace run -q -- bas
    assert_success
    assert_line 'bash'
    run complete_bash hcbtrace run -c 5 -- bash --
    refute_output --partial -- '--quiet'

    # help COMMAND
    run complete_bash hcbtrace help at
    assert_output 'attach'
}

# complete_zsh LINE: what zsh offers for LINE<TAB>, one a line: an
# interactive zsh in a pseudo-terminal, with compadd wrapped to print its
# matches.  RE''ADY and DO''NE so that only the output matches, not the echo
# of the typed line; no ^U or other key the tty would take while zle is not
# reading yet: after <TAB>, ^A and ": " make the line a no-op.
complete_zsh()
{
    cat >"$BATS_TEST_TMPDIR/complete.zsh" <<'EOF_ZSH'
zmodload zsh/zpty || exit 1
zpty z zsh -f -i
zpty -w z "PROMPT='> '; bindkey -e; unsetopt auto_list auto_menu; LISTMAX=100000"
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D -d ${(q)3}"
zpty -w z 'compadd() { builtin compadd -O __m "$@"; print -rl -- ${^__m/#/MATCH:}; builtin compadd "$@"; }'
zpty -w z "print RE''ADY"
zpty -r z out '*READY*' || exit 1
zpty -w z "$2"$'\t\C-a: '
zpty -w z "print DO''NE"
zpty -r z out '*DONE*' || exit 1
zpty -d z
print -r -- "$out" | tr -d '\r' | grep -a -o 'MATCH:[^[:cntrl:]]*' | cut -c7- | LC_ALL=C sort -u
EOF_ZSH
    # the dump file is never /dev/null: compinit may replace it with a regular file
    timeout 30 zsh -f "$BATS_TEST_TMPDIR/complete.zsh" "$(dirname "$HS_ZSH")" "$1" \
        "$BATS_TEST_TMPDIR/zcompdump"
}

@test "zsh completion loads and completes" {
    command -v zsh >/dev/null ||
        skip "zsh is not installed: completions/_hcbtrace NOT loaded in zsh"
    run zsh -n "$HS_ZSH"
    assert_success
    # compinit must register it from #compdef; running it (with _arguments
    # stubbed: no completion is under way) must define a function per
    # command of the binary.
    export ZDUMP=$BATS_TEST_TMPDIR/zcompdump
    run zsh -f -c '
        fpath=("$1" $fpath)
        autoload -Uz compinit && compinit -u -D -d "$ZDUMP" || exit 1
        [[ $_comps[hcbtrace] == _hcbtrace ]] || { echo "no #compdef hcbtrace"; exit 1; }
        _arguments() { return 1; }
        autoload -Uz _hcbtrace && _hcbtrace
        shift
        for c in "$@"; do
            (( $+functions[_hcbtrace_$c] )) || echo "missing function _hcbtrace_$c"
        done
    ' zsh "$(dirname "$HS_ZSH")" $(bin_commands)
    assert_success
    assert_output ''

    run complete_zsh 'hcbtrace '
    assert_success
    assert_output "$(bin_commands | LC_ALL=C sort)"
    run complete_zsh 'hcbtrace attach --'
    assert_line -- '--pid'
    run complete_zsh 'hcbtrace run -f '
    assert_output $'jsonl\ntext'
    run complete_zsh 'hcbtrace run -q -- bas'
    assert_line 'bash'
    refute_output --partial -- '--quiet'
}

@test "fish completion loads and completes" {
    command -v fish >/dev/null ||
        skip "fish is not installed: completions/hcbtrace.fish NOT loaded in fish"
    run fish --no-config -n "$HS_FISH"
    assert_success

    fish_complete() { fish --no-config -c "source $HS_FISH; complete -C '$1'" | cut -f1 | LC_ALL=C sort; }

    run fish_complete 'hcbtrace '
    assert_success
    local cmd
    for cmd in $(bin_commands); do
        assert_line "$cmd"
    done
    run fish_complete 'hcbtrace attach --'
    assert_line -- '--pid'
    run fish_complete 'hcbtrace attach -f '
    assert_output $'jsonl\ntext'
    run fish_complete 'hcbtrace run -q -- bas'
    assert_line 'bash'
    run fish_complete 'hcbtrace run -- bash --'
    refute_output --partial -- '--quiet'
}

# The provider names: each provider's .name in its folder (the list of
# src/providers/meson.build names the folders, each defining hcb_prov_NAME)
# is the one source; cli/words.c's words (one entry per provider, by its
# struct) and the --provider error (cli/trace.c) take them from there; the
# --provider help (cli/trace.h), the man page and the zsh and fish
# completions spell them literally, so they are checked here to name
# exactly those.
prov_names()
{
    local p
    for p in "$@"; do
        sed -n 's/^[[:space:]]*\.name = "\([^"]*\)",.*/\1/p' \
            $(grep -l "^const struct hcb_provider hcb_prov_$p = {" "$HS_ROOT"/src/providers/"$p"/*.c)
    done | hs_sort
}

src_provider_names()
{
    prov_names $(sed -n "s/^providers = \[\(.*\)\]$/\1/p" "$HS_ROOT/src/providers/meson.build" |
                 tr -d "',")
}

@test "provider names: words, --provider help and error, man page, completions name exactly the providers" {
    local want got
    want=$(src_provider_names)
    [[ $(wc -l <<<"$want") -ge 3 ]]
    # cli/words.c: one entry per provider
    got=$(prov_names $(sed -n 's/^[[:space:]]*{ &hcb_prov_\([a-z0-9_]*\), "[^"]*", ".*/\1/p' \
                           "$HS_ROOT/cli/words.c"))
    assert_equal "$got" "$want"
    # the --provider help of every live command
    for cmd in attach run record view; do
        got=$("$HCBTRACE" "$cmd" --help | sed -n 's/.*--provider NAME.*only: \(.*\) (repeatable.*/\1/p' |
              sed 's/,\| or /\n/g' | tr -d ' ' | sed '/^$/d' | hs_sort)
        assert_equal "$got" "$want"
    done
    # the error for an unknown one
    run -2 "$HCBTRACE" attach --provider no-such-provider -p 1
    got=$(sed -n 's/.*expected \(.*\)$/\1/p' <<<"${lines[0]}" | sed 's/,\| or /\n/g' | tr -d ' ' |
          sed '/^$/d' | hs_sort)
    assert_equal "$got" "$want"
    # the man page: the names in bold after each "Trace only through this provider:"
    local man n
    man=$(awk '/^Trace only through this provider:/ { on = 1; block++; next }
               on && /^\.B / { n = $2; gsub(/\\/, "", n); print block, n; next }
               on && /^Repeatable/ { on = 0 }' "$HS_ROOT/man/hcbtrace.1")
    n=$(awk '{ print $1 }' <<<"$man" | hs_sort | wc -l)
    [[ $n -ge 4 ]]
    for ((i = 1; i <= n; i++)); do
        assert_equal "$(awk -v b="$i" '$1 == b { print $2 }' <<<"$man" | hs_sort)" "$want"
    done
    # zsh: every --provider spec's value list; fish: every -l provider's -a list
    local -a lists
    mapfile -t lists < <(sed -n "s/.*--provider=\[[^]]*\]:provider:(\([^)]*\)).*/\1/p" \
                             "$HS_ROOT/completions/_hcbtrace")
    [[ ${#lists[@]} -ge 4 && ${#lists[@]} -eq $(grep -c -- '--provider=' "$HS_ROOT/completions/_hcbtrace") ]]
    for got in "${lists[@]}"; do
        assert_equal "$(tr ' ' '\n' <<<"$got" | hs_sort)" "$want"
    done
    mapfile -t lists < <(sed -n "s/.*-l provider -x -a '\([^']*\)'.*/\1/p" "$HS_ROOT/completions/hcbtrace.fish")
    [[ ${#lists[@]} -ge 1 && ${#lists[@]} -eq $(grep -c -- '-l provider ' "$HS_ROOT/completions/hcbtrace.fish") ]]
    for got in "${lists[@]}"; do
        assert_equal "$(tr ' ' '\n' <<<"$got" | hs_sort)" "$want"
    done
}
