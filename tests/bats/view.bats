#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# view.bats - `hcbtrace view` in a real terminal: tmux runs it at 80x24,
# keys go in with send-keys, the screen comes back with capture-pane.

load common

setup()
{
    _common_setup
    command -v tmux >/dev/null || skip "tmux is not installed (apt-get install -y tmux)"
    # tmux's server detaches through /dev/null: a regular file there stops it
    [ -c /dev/null ] || { echo "/dev/null is not the null device (ls -l /dev/null): tmux cannot start" >&2; return 1; }
    # a tmux server of this test's own, gone in teardown
    SOCK="hcbview-$$-$BATS_TEST_NUMBER"
}

teardown()
{
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    _common_teardown
}

tm() { tmux -L "$SOCK" "$@"; }

# view ARGS...: hcbtrace view ARGS in an 80x24 terminal; when it exits, its
# status goes to $T/rc and the terminal's settings to $T/stty, and the
# window stays to be looked at.
view()
{
    local args
    printf -v args '%q ' "$@"
    rm -f "$T/rc"
    tm new-session -d -s view -x 80 -y 24 \
        "$HCBTRACE view $args 2>$T/err; echo \$? >$T/rc.tmp; stty -a >$T/stty; mv $T/rc.tmp $T/rc; echo viewer-exited; sleep 600"
}

screen() { tm capture-pane -p -t view; }

# wait_screen PATTERN [SECS]: until the screen has a line matching PATTERN.
wait_screen()
{
    local i
    for i in $(seq $(( ${2:-10} * 20 ))); do
        screen | grep -q -- "$1" && return 0
        sleep 0.05
    done
    echo "timed out waiting for '$1' on the screen:" >&2
    screen >&2
    return 1
}

# wait_no_screen PATTERN: until no line of the screen matches PATTERN.
wait_no_screen()
{
    local i
    for i in $(seq 200); do
        screen | grep -q -- "$1" || return 0
        sleep 0.05
    done
    echo "'$1' never left the screen:" >&2
    screen >&2
    return 1
}

# header_taps: the "taps N" count in the header.
header_taps() { screen | head -1 | sed -n 's/.* taps \([0-9]*\) .*/\1/p'; }

# last_tap: the index of the last row of the tap list.
last_tap() { screen | sed -n '/^ tap  *time/,$p' | grep -E '^ [0-9]+ ' | tail -1 | awk '{ print $1 }'; }

# wait_until_taps N: until the tap list shows tap N or later (a full list).
wait_until_taps()
{
    local i t
    for i in $(seq 200); do
        t=$(last_tap)
        [ -n "$t" ] && [ "$t" -ge "$1" ] && return 0
        sleep 0.05
    done
    echo "the tap list never reached tap $1" >&2
    return 1
}

# sparklines_of N: the ASCII sparkline shows N device rows of 10+ points
sparklines_of()
{
    [ "$(screen | grep -A4 '^ Sparkline: loss' | grep -cE '^ cpu:[0-3] +[_.:=+*#-]{10,}')" = "$1" ]
}

# selected_moved FILE: the stream list's rows differ from FILE's last 6
selected_moved()
{
    ! diff -q <(screen | sed -n '3,8p') <(tail -6 "$1") >/dev/null
}

# taps_past A N: the last tap row is past A and the header's count past N
taps_past()
{
    local b n
    b=$(last_tap); n=$(header_taps)
    [ -n "$b" ] && [ "$b" -gt "$1" ] && [ -n "$n" ] && [ "$n" -gt "$2" ]
}

# header_past N K: the header counts at least K taps more than N
header_past()
{
    local n
    n=$(header_taps)
    [ -n "$n" ] && [ "$n" -ge $(( $1 + $2 )) ]
}

# last_tap_past A: the last tap row's index is past A
last_tap_past()
{
    local b
    b=$(last_tap)
    [ -n "$b" ] && [ "$b" -gt "$1" ]
}

# tap_rows_at_least N: the tap list shows N rows or more
tap_rows_at_least()
{
    [ "$(screen | grep -cE '^ [0-9]+ +[0-9:.]+ cpu:')" -ge "$1" ]
}

# only_consumer_rows NAME: the tap list has rows, all of consumer NAME
only_consumer_rows()
{
    local rows
    rows=$(screen | grep -E '^ [0-9]+ +[0-9:.]+ cpu:')
    [ -n "$rows" ] && ! grep -qv " $1 " <<<"$rows"
}

# screen_rows N: the terminal shows N lines
screen_rows()
{
    [ "$(screen | wc -l)" -eq "$1" ]
}

quit_view()
{
    tm send-keys -t view q
    for i in $(seq 100); do
        [ -f "$T/rc" ] && break
        sleep 0.05
    done
    [ -f "$T/rc" ]
}

@test "view -p: the 4x5 streams, a tap list that advances, q exits 0 and restores the terminal" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 16
    view -p "$EX_PID"
    wait_screen '\[20 streams\]'
    # the header names the process
    screen | head -1 | grep -q "pid $EX_PID (hcb-example)"
    # LC_ALL=C: the sparkline of the selected stream's consumer uses ASCII, one row per device
    retry 10 sparklines_of 4
    # the stream list scrolls: walk it and see every device x consumer
    tm send-keys -t view Tab
    wait_screen '^ cpu:0  loss '
    : >"$T/streams"
    for i in $(seq 22); do
        screen | sed -n '3,8p' >>"$T/streams"
        tm send-keys -t view j
        retry 5 selected_moved "$T/streams"
    done
    seen=$(grep -oE '^ cpu:[0-9]  (loss|power3|params|status|field) ' "$T/streams" | sort -u | wc -l)
    [ "$seen" -eq 20 ]
    # the sparkline follows the selected stream, and s chooses its statistic
    screen | grep -q '^ Sparkline: field, mean of \[0\] per device'
    tm send-keys -t view s
    wait_screen '^ Sparkline: field, min of \[0\] per device'
    tm send-keys -t view s
    wait_screen '^ Sparkline: field, max of \[0\] per device'
    tm send-keys -t view s
    wait_screen '^ Sparkline: field, mean of \[0\] per device'
    # taps advance: the newest row's index and the header's count grow
    a=$(last_tap); n1=$(header_taps)
    [ -n "$a" ] && [ -n "$n1" ]
    retry 10 taps_past "$a" "$n1"
    # the tap rows name the consumers and devices
    screen | grep -qE '^ [0-9]+ +[0-9:.]+ cpu:[0-3] +(loss|power3|params|status|field) '
    # the footer shows the keys
    screen | tail -1 | grep -q 'q quit ? help / search'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    # curses gave the terminal back: canonical mode and echo, main screen
    grep -qw icanon "$T/stty"
    grep -qw echo "$T/stty"
    wait_screen viewer-exited
    [ "$(tm display -p -t view '#{alternate_on}')" = 0 ]
    # the session's summary, held while the viewer ran, printed after it
    grep -q "^hcbtrace: interrupted: [0-9]* taps .* from 4 devices of process $EX_PID" "$T/err"
    grep -q ', 0 lost$' "$T/err"
}

@test "view -p: space freezes the screen, taps are still received and counted" {
    start_example --devices 4 --steps 0 --interval-ms 10 --field-size 16
    view -p "$EX_PID"
    wait_screen 'following'
    tm send-keys -t view Space
    wait_screen ' PAUSED '
    paused=$(header_taps)
    screen >"$T/s1"
    # the program goes on tapping: 50 more steps of 4 devices x 5 taps
    issued0=$(issued_total "$EX_PID")
    retry 20 issued_past "$EX_PID" $(( issued0 + 4 * 5 * 50 ))
    screen >"$T/s2"
    # nothing moved, not even the counts
    cmp "$T/s1" "$T/s2"
    [ "$(header_taps)" = "$paused" ]
    tm send-keys -t view Space
    wait_no_screen ' PAUSED '
    # what came during the pause was received and counted, none dropped
    after=$(header_taps)
    [ "$after" -ge $(( paused + 4 * 5 * 50 )) ]
    screen | head -1 | grep -q 'dropped 0'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    grep -q ', 0 lost$' "$T/err"
}

@test "view -p: scrolling up stops following, G resumes; Enter shows a tap with min/max/mean" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 16
    view -p "$EX_PID"
    wait_until_taps 100
    tm send-keys -t view k k k
    wait_screen 'G follows'
    a=$(last_tap); n1=$(header_taps)
    # more taps come in (the header counts them), the list stays put
    retry 10 header_past "$n1" 100
    [ "$(last_tap)" = "$a" ]
    tm send-keys -t view G
    wait_screen 'following'
    retry 10 last_tap_past "$a"
    # search a consumer: the selection goes to a field tap, the detail shows it
    tm send-keys -t view / f i e l d Enter
    wait_screen '^/field: row '
    tm send-keys -t view Enter
    wait_screen '^ Detail'
    screen | grep -q '^ tap #[0-9]*  seq [0-9]*  .*consumer field ([0-9]*)$'
    # id_print's lines, then the array's figures
    screen | grep -qE '^ device: cpu:[0-3] what: field$'
    screen | grep -qE '^ \[0\] float32\[16\]  min [-0-9.e]+  max [-0-9.e]+  mean 6\.2[0-9]*  nan 0  inf 0$'
    # n goes on to the next match; N back
    tm send-keys -t view n
    wait_screen '^/field: row '
    # Enter again closes the detail
    tm send-keys -t view Enter
    wait_no_screen '^ Detail'
    # a search that matches nothing says so
    tm send-keys -t view / n o p e Enter
    wait_screen 'not found: nope'
    # the help overlay, closed by any key
    tm send-keys -t view '?'
    wait_screen 'hcbtrace view: keys'
    screen | grep -q 'space  *pause the screen'
    tm send-keys -t view x
    wait_no_screen 'hcbtrace view: keys'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view -p: f filters by device or consumer; an empty filter clears it" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 16
    view -p "$EX_PID"
    wait_screen '\[20 streams\]'
    tm send-keys -t view f 2 Enter
    wait_screen '\[5 streams, filtered\]'
    retry 10 tap_rows_at_least 5
    screen >"$T/s"
    # every stream and tap row is device 2
    [ "$(grep -cE '^ cpu:[0-9]  ' "$T/s")" -ge 3 ]
    [ -z "$(grep -E '^ cpu:[0-9]  ' "$T/s" | grep -v '^ cpu:2 ')" ]
    [ "$(grep -cE '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s")" -ge 5 ]
    [ -z "$(grep -E '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s" | grep -v ' cpu:2 ')" ]
    head -1 "$T/s" | grep -q 'filter 2'
    # by consumer name
    tm send-keys -t view f C-u s t a t u s Enter
    wait_screen '\[4 streams, filtered\]'
    retry 10 only_consumer_rows status
    screen >"$T/s"
    [ -z "$(grep -E '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s" | grep -v ' status ')" ]
    # cleared
    tm send-keys -t view f C-u Enter
    wait_screen '\[20 streams\]'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view -p: resizing redraws to the new size" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 16
    view -p "$EX_PID"
    wait_until_taps 100
    rows24=$(screen | grep -cE '^ [0-9]+ +[0-9:.]+ cpu:')
    tm resize-window -t view -x 120 -y 40
    retry 10 screen_rows 40
    wait_screen 'q quit ? help'
    screen >"$T/s"
    [ "$(wc -l <"$T/s")" -eq 40 ]
    [ "$(grep -cE '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s")" -gt "$rows24" ]
    tail -1 "$T/s" | grep -q 'q quit ? help'
    head -1 "$T/s" | grep -q '^hcbtrace view  pid'
    # too small: says so, and comes back
    tm resize-window -t view -x 30 -y 8
    wait_screen 'terminal too small'
    tm resize-window -t view -x 80 -y 24
    wait_screen 'q quit ? help'
    screen >"$T/s"
    refute grep -q 'too small' "$T/s"
    [ "$(grep -cE '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s")" -eq "$rows24" ]
    tail -1 "$T/s" | grep -q 'q quit ? help'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view FILE: browse a recording; the detail is what replay prints" {
    "$HCBTRACE" record -q -o "$T/rec.jsonl" -- "$EXAMPLE" --steps 5 --interval-ms 0 --field-size 16
    "$HCBTRACE" replay --no-wait "$T/rec.jsonl" >"$T/replay.txt"
    tm new-session -d -s view -x 80 -y 24 \
        "LC_ALL=C.UTF-8 $HCBTRACE view $T/rec.jsonl 2>$T/err; echo \$? >$T/rc; sleep 600"
    wait_screen '\[20 streams\]'
    screen | head -1 | grep -q "rec.jsonl  taps 100  dropped 0  complete"
    # a UTF-8 locale: block glyphs
    screen | grep -A1 '^ Sparkline' | tail -1 | grep -q '[▁▂▃▄▅▆▇█]'
    # the first tap, in detail: its two lines are replay's first two
    tm send-keys -t view g Enter
    wait_screen '^ tap #0  seq'
    screen | grep -A2 '^ tap #0  seq' | tail -2 | sed 's/^ //' >"$T/detail.txt"
    diff "$T/detail.txt" <(head -2 "$T/replay.txt")
    grep -qE '  min .*  max .*  mean ' <(screen)
    tm send-keys -t view q
    for i in $(seq 100); do [ -f "$T/rc" ] && break; sleep 0.05; done
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view: errors are attach's and replay's, and it needs a terminal" {
    run --separate-stderr "$HCBTRACE" view -p 1 </dev/null
    assert_failure 2
    [ "$stderr" = 'hcbtrace: hcbtrace view needs a terminal' ]
    run --separate-stderr "$HCBTRACE" view
    assert_failure 2
    [[ "$stderr" == *"what to view?"* ]]
    run --separate-stderr "$HCBTRACE" view -p 1 "$T/x.jsonl"
    assert_failure 2
    [[ "$stderr" == *"not both"* ]]
    run --separate-stderr "$HCBTRACE" view -b 3 -p 1
    assert_failure 2
    [[ "$stderr" == *"invalid buffer size '3'"* ]]

    # in a terminal: the same messages and exit codes as attach
    in_tty() {
        local args
        printf -v args '%q ' "$@"
        rm -f "$T/rc"
        tm new-session -d -x 80 -y 24 "$HCBTRACE $args 2>$T/err; echo \$? >$T/rc"
        for i in $(seq 200); do [ -f "$T/rc" ] && break; sleep 0.05; done
        [ -f "$T/rc" ]
    }
    "$HCBTRACE" attach 999999 2>"$T/attach.err" && false || echo $? >"$T/attach.rc"
    in_tty view -p 999999
    [ "$(cat "$T/rc")" = "$(cat "$T/attach.rc")" ]
    [ "$(cat "$T/rc")" = 3 ]
    diff "$T/err" "$T/attach.err"
    sleep 600 &
    PIDS+=("$!")
    "$HCBTRACE" attach "$!" 2>"$T/attach.err" && false || echo $? >"$T/attach.rc"
    in_tty view -p "$!"
    [ "$(cat "$T/rc")" = 3 ]
    diff "$T/err" "$T/attach.err"
    grep -q 'has no libhcbtap loaded' "$T/err"

    # a damaged recording: the reader's message, replay's exit code
    "$HCBTRACE" record -q -o "$T/rec.jsonl" -- "$EXAMPLE" --steps 2 --interval-ms 0 --field-size 16
    head -c 3000 "$T/rec.jsonl" >"$T/bad.jsonl"
    echo 'garbage{' >>"$T/bad.jsonl"
    "$HCBTRACE" replay --no-wait "$T/bad.jsonl" >/dev/null 2>"$T/replay.err" && false || echo $? >"$T/replay.rc"
    in_tty view "$T/bad.jsonl"
    [ "$(cat "$T/rc")" = "$(cat "$T/replay.rc")" ]
    diff "$T/err" "$T/replay.err"
    grep -q "bad.jsonl:[0-9]*: " "$T/err"
    in_tty view "$T/missing.jsonl"
    [ "$(cat "$T/rc")" = 1 ]
    grep -q "cannot open '$T/missing.jsonl': No such file or directory" "$T/err"
}
