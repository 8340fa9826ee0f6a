#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# help_sync.sh - compare the commands and options of the real hcbtrace binary
# with those of the man page and the bash, zsh and fish completions.
#
# Sourced by tests/bats/help_sync.bats; also runs on its own:
#   HCBTRACE=build/cli/hcbtrace tests/tools/help_sync.sh [man|bash|zsh|fish]...
# prints one line per disagreement and exits 1 if there is any.  On its own
# it also checks that no two options of a command share a getopt id
# (hs_option_ids, near the end).
#
# Everything is reduced to an *inventory*: sorted lines, tab-separated,
#   command  NAME            NAME is a command
#   option   OWNER  OPT      OPT (-x or --long) is an option of OWNER, which
#                            is a command name or "-" for hcbtrace itself
#   helparg  NAME            `hcbtrace help <TAB>` offers NAME (completions)
# The binary's inventory comes from its help texts (format below); each
# file's from the rule given with its function.  Then the two are compared
# both ways: what the binary has and the file lacks, and what the file has
# and the binary lacks.
#
# Help text format (cli/, see `hcbtrace --help`):
#   - `hcbtrace --help`: a "Usage:" line whose [-x]/[--long] words are the
#     options of hcbtrace itself; a section whose title ends in "Commands:" or
#     "commands:", with one "  NAME  description" line per command; it ends
#     at the next line that is not blank and not indented.  An "Options:"
#     section, if any, adds options of hcbtrace itself.
#   - `hcbtrace COMMAND --help`: a section whose title ends in "Options:" or
#     "options:", with one line per option: indented, the option words
#     ("-x, --long ARG", "    --long ARG", "-x") up to two spaces, then the
#     description.  Indented lines not starting with "-" continue the
#     description above them.

HS_ROOT=${HS_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
HS_MAN=${HS_MAN:-$HS_ROOT/man/hcbtrace.1}
HS_BASH=${HS_BASH:-$HS_ROOT/completions/hcbtrace.bash}
HS_ZSH=${HS_ZSH:-$HS_ROOT/completions/_hcbtrace}
HS_FISH=${HS_FISH:-$HS_ROOT/completions/hcbtrace.fish}

hs_sort() { LC_ALL=C sort -u; }

# hs_help_commands < TOP_HELP: the command names, one a line.
hs_help_commands()
{
    awk '
        /^([A-Za-z][A-Za-z -]* )?[Cc]ommands:[ \t]*$/ { in_cmds = 1; next }
        in_cmds && /^[^ \t]/ { in_cmds = 0 }
        in_cmds && /^[ \t]+[a-z][a-z0-9_-]*([ \t]|$)/ { print $1 }
    '
}

# hs_help_options [usage] < HELP: the options, one a line (-x or --long).
# With "usage", also the [-x] and [--long] words of the Usage: line.
hs_help_options()
{
    awk -v usage="${1:-}" '
        function words(s,   n, i, w, a) {
            gsub(/[][|,]/, " ", s)
            n = split(s, a, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                w = a[i]
                sub(/=.*$/, "", w)
                if (w ~ /^--?[A-Za-z0-9][A-Za-z0-9-]*$/)
                    print w
            }
        }
        usage != "" && /^Usage:/ { words($0); next }
        /^([A-Za-z][A-Za-z -]* )?[Oo]ptions:[ \t]*$/ { in_opts = 1; next }
        in_opts && /^[^ \t]/ { in_opts = 0 }
        in_opts && /^[ \t]+-/ {
            s = $0
            sub(/^[ \t]+/, "", s)
            i = index(s, "  ")
            if (i > 0)
                s = substr(s, 1, i - 1)
            words(s)
        }
    '
}

# hs_binary_inventory: the inventory of "$HCBTRACE"; on trouble, a message
# on stderr and status 1.
hs_binary_inventory()
{
    local top cmd help cmds opts
    if [[ -z ${HCBTRACE:-} ]]; then
        echo "help_sync: HCBTRACE is not set: set it to the built hcbtrace binary (e.g. HCBTRACE=build/cli/hcbtrace)" >&2
        return 1
    fi
    if [[ ! -f $HCBTRACE || ! -x $HCBTRACE ]]; then
        echo "help_sync: HCBTRACE=$HCBTRACE is not an executable file" >&2
        return 1
    fi
    if ! top=$("$HCBTRACE" --help 2>&1); then
        printf 'help_sync: "%s --help" failed:\n%s\n' "$HCBTRACE" "$top" >&2
        return 1
    fi
    cmds=$(hs_help_commands <<<"$top")
    if [[ -z $cmds ]]; then
        printf 'help_sync: no commands found in the output of "%s --help" (expected a "Commands:" section of "  NAME  description" lines):\n%s\n' \
            "$HCBTRACE" "$top" >&2
        return 1
    fi
    {
        hs_help_options usage <<<"$top" | sed 's/^/option\t-\t/'
        for cmd in $cmds; do
            printf 'command\t%s\n' "$cmd"
            if ! help=$("$HCBTRACE" "$cmd" --help 2>&1); then
                printf 'help_sync: "%s %s --help" failed:\n%s\n' "$HCBTRACE" "$cmd" "$help" >&2
                return 1
            fi
            opts=$(hs_help_options <<<"$help")
            if [[ -z $opts ]]; then
                printf 'help_sync: no options found in the output of "%s %s --help" (expected an "Options:" section):\n%s\n' \
                    "$HCBTRACE" "$cmd" "$help" >&2
                return 1
            fi
            sed "s/^/option\t$cmd\t/" <<<"$opts"
        done
    } | hs_sort
    return "${PIPESTATUS[0]}"
}

# hs_with_helpargs < INVENTORY: add "helparg NAME" for every command, if
# there is a help command (what the completions must offer after `help`).
hs_with_helpargs()
{
    awk -F '\t' '
        { print }
        $1 == "command" { n++; c[n] = $2; if ($2 == "help") h = 1 }
        END { if (h) for (i = 1; i <= n; i++) print "helparg\t" c[i] }
    ' | hs_sort
}

# Man page rule (man/hcbtrace.1):
#   - in section COMMANDS, each command is a .TP entry whose tag line starts
#     with \fBhcbtrace NAME\fR;
#   - each option of that command is a later .TP entry (before the next
#     command or section) whose tag line starts with \fB\-: every
#     \fB\-x\fR and \fB\-\-long\fR on it is an option, every hyphen
#     written \-;
#   - in section OPTIONS, such .TP entries are the options of hcbtrace
#     itself.
# Other sections are not read.  An option entry before the first command of
# COMMANDS is reported as an option of the command "?".
hs_man_inventory()
{
    awk '
        function opts(owner, s,   t) {
            while (match(s, /\\fB--?[A-Za-z0-9][A-Za-z0-9-]*\\f[RP]/)) {
                t = substr(s, RSTART + 3, RLENGTH - 6)
                print "option\t" owner "\t" t
                s = substr(s, RSTART + RLENGTH)
            }
        }
        /^\.\\"/ { next }
        /^\.SH/ {
            sec = $0
            sub(/^\.SH[ \t]*/, "", sec)
            gsub(/"/, "", sec)
            sub(/[ \t]+$/, "", sec)
            cmd = "?"
            tag = 0
            next
        }
        /^\.TP/ { tag = 1; next }
        tag {
            tag = 0
            s = $0
            gsub(/\\-/, "-", s)
            if (sec == "COMMANDS" && s ~ /^\\fBhcbtrace [a-z]/) {
                sub(/^\\fBhcbtrace /, "", s)
                sub(/\\f[RP].*$/, "", s)
                sub(/[ \t].*$/, "", s)
                cmd = s
                print "command\t" cmd
            } else if (s ~ /^\\fB-/) {
                if (sec == "COMMANDS")
                    opts(cmd, s)
                else if (sec == "OPTIONS")
                    opts("-", s)
            }
        }
    ' "$HS_MAN" | hs_sort
}

# Bash rule: what the completion function registered for hcbtrace offers,
# asked in a clean bash:
#   hcbtrace <TAB>            the commands
#   hcbtrace -<TAB>           the options of hcbtrace itself
#   hcbtrace CMD -<TAB>       the options of CMD (for every command the
#                             binary or the completion knows)
#   hcbtrace help <TAB>       helparg lines
# $1: the binary's inventory (to ask about its commands too).
hs_bash_inventory()
{
    local known
    known=$(awk -F '\t' '$1 == "command" { print $2 }' <<<"${1:-}")
    bash --norc --noprofile -c '
        set -u
        source "$1" || exit 1
        known=$2
        spec=$(complete -p hcbtrace 2>/dev/null) || {
            echo "help_sync: $1 registers no completion for hcbtrace" >&2
            exit 1
        }
        [[ $spec =~ -F\ ([^ ]+) ]] || {
            echo "help_sync: $1: completion of hcbtrace is not a function (complete -F): $spec" >&2
            exit 1
        }
        fn=${BASH_REMATCH[1]}
        ask() {
            COMP_WORDS=("$@")
            COMP_CWORD=$(($# - 1))
            COMP_LINE="$*"
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            "$fn" hcbtrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" </dev/null >/dev/null 2>&1
            ((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}"
            return 0
        }
        cmds=$(ask hcbtrace "")
        for c in $cmds; do printf "command\t%s\n" "$c"; done
        for o in $(ask hcbtrace -); do printf "option\t-\t%s\n" "$o"; done
        for c in $(printf "%s\n" $cmds $known | LC_ALL=C sort -u); do
            for o in $(ask hcbtrace "$c" -); do printf "option\t%s\t%s\n" "$c" "$o"; done
        done
        if printf "%s\n" $cmds $known | grep -qx help; then
            for c in $(ask hcbtrace help ""); do printf "helparg\t%s\n" "$c"; done
        fi
    ' help_sync "$HS_BASH" "$known" | hs_sort
    return "${PIPESTATUS[0]}"
}

# Zsh rule (completions/_hcbtrace):
#   - function _hcbtrace__commands: each line 'NAME:description' is a command;
#     if _hcbtrace_help completes with :_hcbtrace__commands, they are also
#     its helparg lines;
#   - function _hcbtrace: the options of hcbtrace itself; function
#     _hcbtrace_NAME: the options of command NAME; functions _hcbtrace__*
#     are helpers and not read;
#   - in those functions an option is a -x or --long word that starts an
#     _arguments spec or follows {  ,  *  or ) , and is followed by one of
#     + = , } [ : or a quote: '-x[..]' '--long=[..]' {-x+,--long=}'[..]'
#     '*--long=[..]' '(- *)--long[..]'.  Exclusion lists "(-x --long)" and
#     the flags of _arguments are not options.
# Functions start with "NAME() {" at the start of a line and end with "}"
# alone at the start of a line.  Comment lines are skipped.
hs_zsh_inventory()
{
    awk -v q="'" '
        BEGIN {
            re = "[{,*)" q "]--?[A-Za-z0-9][A-Za-z0-9-]*([+=,}:" q "]|\\[)"
        }
        function opts(owner, s,   t) {
            while (match(s, re)) {
                t = substr(s, RSTART + 1, RLENGTH - 2)
                print "option\t" owner "\t" t
                s = substr(s, RSTART + RLENGTH - 1)
            }
        }
        /^[ \t]*#/ { next }
        /^[A-Za-z_][A-Za-z0-9_-]*[ \t]*\(\)/ {
            fn = $0
            sub(/[ \t]*\(\).*$/, "", fn)
            next
        }
        /^}/ { fn = ""; next }
        fn == "_hcbtrace__commands" {
            if (match($0, "^[ \t]*" q "[a-z][a-z0-9_-]*:")) {
                t = substr($0, RSTART, RLENGTH - 1)
                sub("^[ \t]*" q, "", t)
                print "command\t" t
                cmds[++ncmds] = t
            }
            next
        }
        fn == "_hcbtrace" { opts("-", $0); next }
        fn ~ /^_hcbtrace__/ { next }
        fn == "_hcbtrace_help" && /:_hcbtrace__commands/ { helpcmds = 1 }
        fn ~ /^_hcbtrace_/ { opts(substr(fn, 11), $0) }
        END {
            if (helpcmds)
                for (i = 1; i <= ncmds; i++)
                    print "helparg\t" cmds[i]
        }
    ' "$HS_ZSH" | hs_sort
}

# Fish rule (completions/hcbtrace.fish), on each `complete -c hcbtrace` line
# (options -n/--condition, -s/--short-option, -l/--long-option and
# -a/--arguments, each with its value as the next word):
#   - condition __fish_use_subcommand: -a words are commands, -s/-l are
#     options of hcbtrace itself;
#   - condition '__fish_seen_subcommand_from NAME... [; and ...]': -s/-l are
#     options of each NAME; if NAME is only "help", the -a words are
#     helparg lines.
#   - "(...)" words of -a (command substitutions) are not read.
hs_fish_inventory()
{
    awk '
        # split a fish command line into words, quotes removed
        function tokenize(s,   n, i, c, w, inw, qc) {
            n = 0; w = ""; inw = 0; qc = ""
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (qc != "") {
                    if (c == qc) { qc = ""; continue }
                    if (c == "\\" && i < length(s)) {
                        i++; w = w substr(s, i, 1); continue
                    }
                    w = w c
                } else if (c == "\047" || c == "\"") {
                    qc = c; inw = 1
                } else if (c == " " || c == "\t") {
                    if (inw) { tok[++n] = w; w = ""; inw = 0 }
                } else if (c == "#" && !inw) {
                    break
                } else {
                    if (c == "\\" && i < length(s)) { i++; c = substr(s, i, 1) }
                    w = w c; inw = 1
                }
            }
            if (inw)
                tok[++n] = w
            return n
        }
        /^[ \t]*complete[ \t]/ {
            n = tokenize($0)
            prog = ""; cond = ""; shorts = ""; longs = ""; args = ""
            for (i = 2; i <= n; i++) {
                t = tok[i]
                if ((t == "-c" || t == "--command") && i < n) prog = tok[++i]
                else if ((t == "-n" || t == "--condition") && i < n) cond = tok[++i]
                else if ((t == "-s" || t == "--short-option") && i < n) shorts = shorts " -" tok[++i]
                else if ((t == "-l" || t == "--long-option") && i < n) longs = longs " --" tok[++i]
                else if ((t == "-a" || t == "--arguments") && i < n) args = args " " tok[++i]
            }
            if (prog != "hcbtrace")
                next
            nown = 0
            if (cond ~ /__fish_use_subcommand/) {
                own[++nown] = "-"
                m = split(args, a, /[ \t]+/)
                for (j = 1; j <= m; j++)
                    if (a[j] != "" && a[j] !~ /^\(/)
                        print "command\t" a[j]
            } else if (match(cond, /__fish_seen_subcommand_from[^;|&]*/)) {
                s = substr(cond, RSTART, RLENGTH)
                m = split(s, a, /[ \t]+/)
                for (j = 2; j <= m; j++)
                    if (a[j] != "")
                        own[++nown] = a[j]
                if (nown == 1 && own[1] == "help") {
                    m = split(args, a, /[ \t]+/)
                    for (j = 1; j <= m; j++)
                        if (a[j] != "" && a[j] !~ /^\(/)
                            print "helparg\t" a[j]
                }
            }
            m = split(shorts longs, a, /[ \t]+/)
            for (k = 1; k <= nown; k++)
                for (j = 1; j <= m; j++)
                    if (a[j] != "")
                        print "option\t" own[k] "\t" a[j]
        }
    ' "$HS_FISH" | hs_sort
}

# hs_compare FILE EXPECTED ACTUAL: one line per disagreement; status 1 if any.
hs_compare()
{
    local file=$1 expected=$2 actual=$3 cmds
    cmds=$(awk -F '\t' '$1 == "command" { printf " %s", $2 }' <<<"$expected")
    {
        LC_ALL=C comm -23 <(printf '%s\n' "$expected" | hs_sort) <(printf '%s\n' "$actual" | hs_sort) |
            sed 's/^/-\t/'
        LC_ALL=C comm -13 <(printf '%s\n' "$expected" | hs_sort) <(printf '%s\n' "$actual" | hs_sort) |
            sed 's/^/+\t/'
    } | awk -F '\t' -v file="$file" -v cmds="$cmds " '
        function who(o) { return o == "-" ? "hcbtrace" : "hcbtrace " o }
        $2 == "" { next }
        # the options of a command the binary lacks: the command is reported
        $1 == "+" && $2 == "option" && $3 != "-" && index(cmds, " " $3 " ") == 0 {
            bad = 1
            next
        }
        $1 == "-" && $2 == "command" {
            print file ": missing command \"" $3 "\" (listed by hcbtrace --help)"
        }
        $1 == "-" && $2 == "option" {
            print file ": missing option " $4 " of \"" who($3) "\" (listed by " who($3) " --help)"
        }
        $1 == "-" && $2 == "helparg" {
            print file ": \"hcbtrace help <TAB>\" does not offer command \"" $3 "\""
        }
        $1 == "+" && $2 == "command" {
            print file ": has command \"" $3 "\", which hcbtrace --help does not list"
        }
        $1 == "+" && $2 == "option" {
            print file ": has option " $4 " of \"" who($3) "\", which " who($3) " --help does not list"
        }
        $1 == "+" && $2 == "helparg" {
            print file ": \"hcbtrace help <TAB>\" offers \"" $3 "\", which hcbtrace --help does not list"
        }
        { bad = 1 }
        END { exit bad }
    '
}

# hs_check KIND [BINARY_INVENTORY]: compare one file (man, bash, zsh, fish)
# with the binary; prints the disagreements, status 1 if any.
hs_check()
{
    local kind=$1 bin=${2:-} actual file
    if [[ -z $bin ]]; then
        bin=$(hs_binary_inventory) || return 2
    fi
    case $kind in
        man) file=$HS_MAN ;;
        bash) file=$HS_BASH ;;
        zsh) file=$HS_ZSH ;;
        fish) file=$HS_FISH ;;
        *) echo "help_sync: unknown kind: $kind (man, bash, zsh, fish)" >&2; return 2 ;;
    esac
    if [[ ! -r $file ]]; then
        echo "help_sync: cannot read $file" >&2
        return 2
    fi
    case $kind in
        man) actual=$(hs_man_inventory) ;;
        bash) actual=$(hs_bash_inventory "$bin") ;;
        zsh) actual=$(hs_zsh_inventory) ;;
        fish) actual=$(hs_fish_inventory) ;;
    esac || {
        echo "help_sync: cannot read the $kind inventory of $file" >&2
        return 2
    }
    if [[ $kind != man ]]; then
        bin=$(hs_with_helpargs <<<"$bin")
    fi
    hs_compare "${file#"$HS_ROOT"/}" "$bin" "$actual"
}

# hs_option_ids: the getopt ids of the options (cli/).  Within a command no
# two options share an id, and every id without a short letter is one of
# enum cli_long_opt in cli/cli.h, whose values are distinct and past every
# short letter: so no two long-only options of the whole CLI collide.  The
# option tables of cli/*.c are taken from the preprocessor (FILTER_OPTS,
# PRINT_FLAGS, TRACE_OPTS... expanded) and compiled with cli.h into a
# program that prints every id; $CC (default cc).  Prints one line per
# problem, status 1 if any, 2 if the tables cannot be compiled.
hs_option_ids()
{
    local cc=${CC:-cc} tmp f n=0 ids problems outside
    local inc=(-D_GNU_SOURCE -I"$HS_ROOT/cli" -I"$HS_ROOT/src" -I"$HS_ROOT/formats" -I"$HS_ROOT/tui")
    # an OPT_ name given a value outside cli.h escapes the one list
    outside=$(grep -nE '\<OPT_[A-Z0-9_]+[[:space:]]*=[[:space:]]*[0-9]' "$HS_ROOT"/cli/*.[ch] "$HS_ROOT"/tui/*.[ch] |
        grep -v "^$HS_ROOT/cli/cli.h:" |
        sed "s|^$HS_ROOT/||; s|^\([^:]*:[0-9]*\):.*|\1: an option id outside enum cli_long_opt (cli/cli.h)|")
    [[ -n $outside ]] && printf '%s\n' "$outside"
    tmp=$(mktemp -d) || return 2
    # every table, renamed tN_NAME, after a "TABLE FILE NAME SYMBOL" comment
    for f in "$HS_ROOT"/cli/*.c; do
        "$cc" -E -P "${inc[@]}" "$f" | awk -v t="t$n" -v file="cli/${f##*/}" '
            match($0, /struct cli_opt [A-Za-z0-9_]+\[\] = *\{/) {
                name = substr($0, RSTART + 15, RLENGTH - 15)
                sub(/\[.*$/, "", name)
                sub(/struct cli_opt [A-Za-z0-9_]+\[\]/, "struct cli_opt " t "_" name "[]")
                print "/* TABLE " file " " name " " t "_" name " */"
                on = 1
            }
            on { print }
            on && /^};/ { on = 0 }
        '
        n=$((n + 1))
    done >"$tmp/tables.c"
    # a program that prints "opt FILE TABLE ID --NAME" and "enum NAME VALUE"
    {
        printf '#include <stdio.h>\n#include "cli.h"\n'
        cat "$tmp/tables.c"
        printf 'int main(void)\n{\n\tconst struct cli_opt *o;\n\n'
        sed -n 's|^/\* TABLE \([^ ]*\) \([^ ]*\) \([^ ]*\) \*/$|\1 \2 \3|p' "$tmp/tables.c" |
            while read -r file name sym; do
                printf '\tfor (o = %s; o->name; o++)\n' "$sym"
                printf '\t\tprintf("opt\\t%s\\t%s\\t%%d\\t--%%s\\n", o->id, o->name);\n' "$file" "$name"
            done
        awk '/^enum cli_long_opt[ \t]*\{/ { on = 1; next }
             on && /^\};/ { on = 0 }
             on && match($0, /^[ \t]*OPT_[A-Z0-9_]+/) {
                 s = substr($0, RSTART, RLENGTH); sub(/^[ \t]*/, "", s); print s
             }' "$HS_ROOT/cli/cli.h" |
            while read -r e; do
                printf '\tprintf("enum\\t%s\\t%%d\\n", (int)%s);\n' "$e" "$e"
            done
        printf '\treturn 0;\n}\n'
    } >"$tmp/ids.c"
    if ! "$cc" -std=gnu11 "${inc[@]}" -o "$tmp/ids" "$tmp/ids.c" 2>"$tmp/cc.log" || ! ids=$("$tmp/ids"); then
        echo "help_sync: cannot compile the option tables of cli/ with cli.h ($tmp/ids.c):" >&2
        cat "$tmp/cc.log" >&2
        return 2
    fi
    rm -rf "$tmp"
    problems=$(awk -F '\t' '
        $1 == "enum" && $2 != "OPT_LONG_FIRST" && $2 != "OPT_LONG_END" {
            if ($3 < 256)
                printf "cli/cli.h: %s is %d, the value of a short letter\n", $2, $3
            if ($3 in val)
                printf "cli/cli.h: %s and %s are both %d\n", val[$3], $2, $3
            val[$3] = $2
        }
        $1 == "opt" {
            key = $2 " " $3 " " $4
            if (key in seen)
                printf "%s: options %s and %s of %s share the id %d\n", $2, seen[key], $5, $3, $4
            seen[key] = $5
            if ($4 >= 256)
                long[++nlong] = $2 "\t" $3 "\t" $4 "\t" $5
        }
        END {
            for (i = 1; i <= nlong; i++) {
                split(long[i], a, "\t")
                if (!(a[3] in val))
                    printf "%s: option %s of %s has the id %d, not one of enum cli_long_opt (cli/cli.h)\n",
                        a[1], a[4], a[2], a[3]
            }
        }
    ' <<<"$ids" | LC_ALL=C sort)
    [[ -n $problems ]] && printf '%s\n' "$problems"
    [[ -z $problems && -z $outside ]]
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -u
    bin=$(hs_binary_inventory) || exit 2
    status=0
    kinds=("$@")
    ((${#kinds[@]})) || kinds=(man bash zsh fish)
    for kind in "${kinds[@]}"; do
        hs_check "$kind" "$bin" || status=1
    done
    hs_option_ids || status=1
    exit "$status"
fi
