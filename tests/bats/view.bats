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
    # tmux servers of this test's own, gone in teardown: a new one for each
    # terminal (tm_new), since a server told to exit (kill-server) may still
    # be going when the next client comes, which then fails with "server
    # exited unexpectedly"
    SOCK_BASE="hcbview-$$-$BATS_TEST_NUMBER"
    SOCKN=0
    SOCK=$SOCK_BASE-0
}

teardown()
{
    local i
    for ((i = 0; i <= SOCKN; i++)); do
        tmux -L "$SOCK_BASE-$i" kill-server 2>/dev/null || true
    done
    # a server gone leaves its socket file behind
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK_BASE"-*
    _common_teardown
}

tm() { tmux -L "$SOCK" "$@"; }
# tm_new ARGS...: tmux new-session ARGS on a server of its own
tm_new()
{
    SOCKN=$((SOCKN + 1))
    SOCK=$SOCK_BASE-$SOCKN
    tm new-session "$@"
}

# view ARGS...: hcbtrace view ARGS in an 80x24 terminal; when it exits, its
# status goes to $T/rc and the terminal's settings to $T/stty, and the
# window stays to be looked at.
view() { view_in "" "$@"; }

# view_in ENV ARGS...: the same with ENV (NAME=VALUE words) in its
# environment, and its peak memory in $T/rss (KiB, GNU time's)
view_in()
{
    local env=$1 args
    shift
    printf -v args '%q ' "$@"
    rm -f "$T/rc"
    tm_new -d -s view -x 80 -y 24 \
        "env $env /usr/bin/time -f %M -o $T/rss $HCBTRACE view $args 2>$T/err; echo \$? >$T/rc.tmp; stty -a >$T/stty; mv $T/rc.tmp $T/rc; echo viewer-exited; sleep 600"
}

# tap_line DEVICE SEQ CONSUMER NAME TS DTYPE SHAPE DATA: a JSONL tap record
tap_line()
{
    printf '{"type":"tap","device":%s,"seq":%s,"consumer":%s,"name":"%s","kwargs":{"what":"%s"},"tree":"*","ts_ns":%s,"arrays":[{"dtype":"%s","shape":%s,"data":%s}]}\n' \
        "$1" "$2" "$3" "$4" "$4" "$5" "$6" "$7" "$8"
}

SESSION_LINE='{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":1}'

# plots_recording FILE: a scalar, a float64[40] of 0..39, a float32[6,10] of 0..59
plots_recording()
{
    {
        echo "$SESSION_LINE"
        tap_line 0 0 1 loss 1700000000000000000 float32 '[]' '[0.5]'
        tap_line 0 1 2 line 1700000000001000000 float64 '[40]' "[$(seq -s, 0 39)]"
        tap_line 0 2 3 grid 1700000000002000000 float32 '[6,10]' "[$(seq -s, 0 59)]"
        echo '{"type":"end","taps":3,"drops":0,"end_ns":2}'
    } >"$1"
}

# big_recording FILE TAPS N: TAPS taps over 4 devices, every other one a
# float32[N] field, the others a scalar loss, 1 ms apart; written quickly
big_recording()
{
    python3 - "$@" <<'PY'
import sys
path, taps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = "[" + ",".join(["0.5"] * n) + "]"
with open(path, "w") as f:
    f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":1}\n')
    for i in range(taps):
        field = i % 2
        name = "field" if field else "loss"
        f.write('{"type":"tap","device":%d,"seq":%d,"consumer":%d,"name":"%s","kwargs":{"what":"%s"},"tree":"*",'
                '"ts_ns":%d,"arrays":[{"dtype":"float32","shape":%s,"data":%s}]}\n'
                % (i // 2 % 4, i // 8, 1 + field, name, name, 1700000000000000000 + i * 1000000,
                   "[%d]" % n if field else "[]", data if field else "[%d.25]" % i))
    f.write('{"type":"end","taps":%d,"drops":0,"end_ns":2}\n' % taps)
PY
}

screen() { tm capture-pane -p -t view; }

# wait_screen [-E] PATTERN [SECS]: until the screen has a line matching
# PATTERN (-E: an extended one), at most SECS (default 60).  What a key
# brings is checked so, not in one look: curses may send a frame in more
# than one write, and the terminal show the first before the rest comes.
wait_screen()
{
    local i ere=-G
    if [ "$1" = -E ]; then
        ere=-E
        shift
    fi
    for i in $(seq $(( ${2:-60} * 20 ))); do
        screen | grep -q "$ere" -- "$1" && return 0
        sleep 0.05
    done
    echo "timed out waiting for '$1' on the screen:" >&2
    screen >&2
    return 1
}

# wait_no_screen PATTERN: until no line of the screen matches PATTERN (at
# most 60 s).
wait_no_screen()
{
    local i
    for i in $(seq 1200); do
        screen | grep -q -- "$1" || return 0
        sleep 0.05
    done
    echo "'$1' never left the screen:" >&2
    screen >&2
    return 1
}

# header_taps: the "taps N" count in the header.
header_taps() { screen | head -1 | sed -n 's/.* taps \([0-9]*\) .*/\1/p'; }

# last_row_is N: the last row of the tap list is tap N
last_row_is() { [ "$(last_tap)" = "$1" ]; }

# last_tap: the index of the last row of the tap list.
last_tap() { screen | sed -n '/^ tap  *time/,$p' | grep -E '^ [0-9]+ ' | tail -1 | awk '{ print $1 }'; }

# wait_until_taps N: until the tap list shows tap N or later (a full list;
# at most 60 s).
wait_until_taps()
{
    local i t
    for i in $(seq 1200); do
        t=$(last_tap)
        [ -n "$t" ] && [ "$t" -ge "$1" ] && return 0
        sleep 0.05
    done
    echo "the tap list never reached tap $1" >&2
    return 1
}

# detail_starts_with FILE: the detail's two lines under its "tap #0" line
# are FILE's first two
detail_starts_with()
{
    [ "$(screen | grep -A2 '^ tap #0  seq' | tail -2 | sed 's/^ //')" = "$(head -2 "$1")" ]
}

# screen_has N PATTERN: the screen has N lines or more matching PATTERN
# (an extended one)
screen_has()
{
    [ "$(screen | grep -cE -- "$2")" -ge "$1" ]
}

# sparklines_of N: the ASCII sparkline shows N device rows of 10+ points
sparklines_of()
{
    [ "$(screen | grep -A4 '^ Sparkline: loss' | grep -cE '^ cpu:[0-3] +[_.:=+*#-]{10,}')" = "$1" ]
}

# selected_stream_not NAME: the stream list shows one selected row (in
# reverse video: the list has the focus), a whole one, of a stream other
# than NAME ("cpu:0 loss"), which goes to SELECTED, read twice alike (a
# capture may fall inside a redraw).  A row's counts change as taps come;
# which row is selected, only with a key.
selected_stream_not()
{
    local again
    selected_row && again=$SELECTED && selected_row &&
        [ "$SELECTED" = "$again" ] && [ "$SELECTED" != "$1" ]
}

# selected_row: the selected stream (as above) into SELECTED, if one row is
selected_row()
{
    SELECTED=$(tm capture-pane -e -p -t view | sed -n '3,8p' |
        grep -E $'\e\\[([0-9]+;)*7(;[0-9]+)*m' | sed $'s/\e\\[[0-9;]*m//g' |
        grep -E '^ cpu:[0-9]+  (loss|power3|params|status|field) +[0-9]+ ' | awk '{ print $1, $2 }')
    [ -n "$SELECTED" ] && [ "$(wc -l <<<"$SELECTED")" = 1 ]
}

# selected_stream_is NAME: the selected stream is NAME
selected_stream_is()
{
    selected_stream_not none && [ "$SELECTED" = "$1" ]
}

# read_counts: LAST (the last tap row) and COUNT (the header's taps count),
# once the screen shows both
read_counts()
{
    LAST=$(last_tap)
    COUNT=$(header_taps)
    [ -n "$LAST" ] && [ -n "$COUNT" ]
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

# tap_list_whole: the tap list, from under its title to the footer, is tap
# rows of consecutive taps (a frame drawn whole, not one half sent while
# the list follows new taps); their number goes to ROWS
tap_list_whole()
{
    ROWS=$(screen | awk '/^ tap  *time / { on = 1; next }
        on && /^q quit/ { done = 1; exit }
        on && (!/^ [0-9]+ +[0-9:.]+ cpu:/ || (n && $1 != last + 1)) { bad = 1 }
        on { last = $1; n++ }
        END { if (!done || bad || !n) exit 1; print n }')
}

# only_device D: the screen, saved to $T/s, has stream rows (3 or more) and
# tap rows (5 or more), all of device D
only_device()
{
    screen >"$T/s"
    [ "$(grep -cE '^ cpu:[0-9]  ' "$T/s")" -ge 3 ] &&
        [ -z "$(grep -E '^ cpu:[0-9]  ' "$T/s" | grep -v "^ cpu:$1 ")" ] &&
        [ "$(grep -cE '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s")" -ge 5 ] &&
        [ -z "$(grep -E '^ [0-9]+ +[0-9:.]+ cpu:' "$T/s" | grep -v " cpu:$1 ")" ]
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

# quit_view: q, then until the viewer has exited and its status is in $T/rc
quit_view()
{
    tm send-keys -t view q
    retry 60 test -f "$T/rc"
}

@test "view -p: the 4x5 streams, a tap list that advances, q exits 0 and restores the terminal" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 16
    view -p "$EX_PID"
    wait_screen '\[20 streams\]'
    # the header names the process
    screen | head -1 | grep -q "pid $EX_PID (hcb-example)"
    # LC_ALL=C: the sparkline of the selected stream's consumer uses ASCII, one row per device
    retry 60 sparklines_of 4
    # the stream list scrolls: walk it with j, one stream a key, and the
    # selection goes through every device x consumer in order
    # the selection stays on its stream as others come: on a slow start
    # the first shown (and selected) may be any device's, so g goes to the top
    tm send-keys -t view Tab
    retry 60 selected_stream_not none
    tm send-keys -t view g
    retry 60 selected_stream_is "cpu:0 loss"
    echo "$SELECTED" >"$T/streams"
    for i in $(seq 19); do
        tm send-keys -t view j
        retry 60 selected_stream_not "$(tail -1 "$T/streams")"
        echo "$SELECTED" >>"$T/streams"
    done
    for d in 0 1 2 3; do
        for c in loss power3 params status field; do echo "cpu:$d $c"; done
    done | diff - "$T/streams"
    # the sparkline follows the selected stream, and s chooses its statistic
    wait_screen '^ Sparkline: field, mean of \[0\] per device'
    tm send-keys -t view s
    wait_screen '^ Sparkline: field, min of \[0\] per device'
    tm send-keys -t view s
    wait_screen '^ Sparkline: field, max of \[0\] per device'
    tm send-keys -t view s
    wait_screen '^ Sparkline: field, mean of \[0\] per device'
    # taps advance: the newest row's index and the header's count grow
    retry 60 read_counts
    retry 60 taps_past "$LAST" "$COUNT"
    # the tap rows name the consumers and devices
    wait_screen -E '^ [0-9]+ +[0-9:.]+ cpu:[0-3] +(loss|power3|params|status|field) '
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
    retry 60 issued_past "$EX_PID" $(( issued0 + 4 * 5 * 50 ))
    screen >"$T/s2"
    # nothing moved, not even the counts
    cmp "$T/s1" "$T/s2"
    [ "$(header_taps)" = "$paused" ]
    tm send-keys -t view Space
    wait_no_screen ' PAUSED '
    # what came during the pause was received and counted, none dropped
    # (the session may still be reading the last of it)
    retry 60 header_past "$paused" $(( 4 * 5 * 50 ))
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
    retry 60 read_counts
    a=$LAST
    # more taps come in (the header counts them), the list stays put
    retry 60 header_past "$COUNT" 100
    [ "$(last_tap)" = "$a" ]
    tm send-keys -t view G
    wait_screen 'following'
    retry 60 last_tap_past "$a"
    # search a consumer: the selection goes to a field tap, the detail shows it
    tm send-keys -t view / f i e l d Enter
    wait_screen '^/field: row '
    tm send-keys -t view Enter
    wait_screen '^ Detail'
    wait_screen '^ tap #[0-9]*  seq [0-9]*  .*consumer field ([0-9]*)$'
    # text and plot do not both fit at 80x24: the array's figures and its chart
    wait_screen '^ Detail   \[plot of \[0\]; v: the text'
    wait_screen -E '^ \[0\] float32\[16\]  min [-0-9.e]+  max [-0-9.e]+  mean 6\.2[0-9]*  nan 0  inf 0$'
    # its axis: the max and the min (4 digits) on the top and bottom rows, the indices below
    wait_screen -E '^ +\+0-+15$'
    screen >"$T/s"
    min=$(sed -n 's/^ \[0\] float32\[16\]  min \([^ ]*\)  max .*/\1/p' "$T/s")
    max=$(sed -n 's/^ \[0\] float32\[16\]  min [^ ]*  max \([^ ]*\)  .*/\1/p' "$T/s")
    grep -A10 '^ \[0\] float32\[16\]' "$T/s" | sed -n 2p | grep -qE "^ +$(printf %.4g "$max") \+[ .'|-]+$"
    grep -qE "^ +$(printf %.4g "$min") \+[ .'|-]+$" "$T/s"
    grep -qE '^ +\+0-+15$' "$T/s"
    [ "$(grep -cE "[.'|-]" <(sed -n '/^ \[0\] float32/,/^ +\+0-/p' "$T/s"))" -ge 5 ]
    # v: the text, id_print's lines then the array's figures
    tm send-keys -t view v
    wait_screen '^ device: cpu:[0-3] what: field$'
    wait_screen '^ Detail   \[lines 1-.*v: plot, Enter closes\]'
    wait_screen -E '^ \[0\] float32\[16\]  min [-0-9.e]+  max [-0-9.e]+  mean 6\.2[0-9]*  nan 0  inf 0$'
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
    wait_screen 'space  *pause the screen'
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
    # every stream and tap row is device 2 (once the frame is drawn whole:
    # the streams' title comes first)
    retry 60 only_device 2
    head -1 "$T/s" | grep -q 'filter 2'
    # by consumer name
    tm send-keys -t view f C-u s t a t u s Enter
    wait_screen '\[4 streams, filtered\]'
    retry 60 only_consumer_rows status
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
    retry 60 tap_list_whole
    rows24=$ROWS
    tm resize-window -t view -x 120 -y 40
    retry 60 screen_rows 40
    wait_screen 'q quit ? help'
    retry 60 tap_list_whole
    [ "$ROWS" -gt "$rows24" ]
    screen >"$T/s"
    [ "$(wc -l <"$T/s")" -eq 40 ]
    tail -1 "$T/s" | grep -q 'q quit ? help'
    head -1 "$T/s" | grep -q '^hcbtrace view  pid'
    # too small: says so, and comes back
    tm resize-window -t view -x 30 -y 8
    wait_screen 'terminal too small'
    tm resize-window -t view -x 80 -y 24
    wait_screen 'q quit ? help'
    retry 60 tap_list_whole
    [ "$ROWS" -eq "$rows24" ]
    screen >"$T/s"
    refute grep -q 'too small' "$T/s"
    tail -1 "$T/s" | grep -q 'q quit ? help'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view FILE: browse a recording; the detail is what replay prints" {
    "$HCBTRACE" record -q -o "$T/rec.jsonl" -- "$EXAMPLE" --steps 5 --interval-ms 0 --field-size 16
    "$HCBTRACE" replay --no-wait "$T/rec.jsonl" >"$T/replay.txt"
    tm_new -d -s view -x 80 -y 24 \
        "LC_ALL=C.UTF-8 $HCBTRACE view $T/rec.jsonl 2>$T/err; echo \$? >$T/rc.tmp; mv $T/rc.tmp $T/rc; sleep 600"
    wait_screen '\[20 streams\]'
    screen | head -1 | grep -q "rec.jsonl  taps 100  dropped 0  complete"
    # a UTF-8 locale: block glyphs
    wait_screen '^ cpu:0  *[▁▂▃▄▅▆▇█]'
    # the first tap, in detail: its two lines are replay's first two
    tm send-keys -t view g Enter
    wait_screen '^ tap #0  seq'
    retry 60 detail_starts_with "$T/replay.txt"
    wait_screen -E '  min .*  max .*  mean '
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view FILE: taps holding NaN are marked !, ] and [ jump between them" {
    # a real program's recording: values[3] NaN at steps 10 and 20 on cpu:1
    # (seqs 21 and 41), everything else finite
    "$HCBTRACE" record -q -o "$T/nan.jsonl" -- "$TOOLS/nan_tapper" -n 2 -k 10 -e 10 -s 30 -i 0 -f 8
    [ "$(grep -c '"nan"' "$T/nan.jsonl")" -eq 2 ]
    view_in NO_COLOR=1 "$T/nan.jsonl"
    wait_screen '\[4 streams\]'
    # from the top of the list, ] goes to the first; the detail shows it
    tm send-keys -t view ']'
    wait_screen -E '^NaN or inf: row [0-9]+ of 120$'
    # marked without colour, and the only marked row shown
    wait_screen -E '^![0-9]+ +[0-9:.]+ cpu:1 +values +float32\[8\] '
    [ "$(screen | grep -c '^!')" -eq 1 ]
    tm send-keys -t view Enter
    wait_screen -E '^ tap #[0-9]+  seq 21  .*consumer values '
    wait_screen '^ \[10\.    10\.125 10\.25     nan 10\.5 '
    tm send-keys -t view ']'
    wait_screen -E '^ tap #[0-9]+  seq 41  .*consumer values '
    tm send-keys -t view ']'
    wait_screen -E '^ tap #[0-9]+  seq 21  .*consumer values '
    wait_screen -E '^NaN or inf: row [0-9]+ of 120 \(wrapped round\)$'
    tm send-keys -t view '['
    wait_screen -E '^ tap #[0-9]+  seq 41  .*consumer values '
    # a filter without them: the cursor stays, and it says so
    tm send-keys -t view f 0 Enter
    wait_screen '\[2 streams, filtered\]'
    tm send-keys -t view ']'
    wait_screen "^no tap of the filter's holds a NaN or inf"
    # the keys are in the help
    tm send-keys -t view '?'
    wait_screen '\]  \[ *next / previous tap holding a NaN or inf (marked !)'
    tm send-keys -t view x
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view -p: a live tap holding NaN is marked as it comes, and ] reaches it" {
    "$TOOLS/nan_tapper" -n 2 -k 20 -s 30 -i 1000 -f 8 --go "$T/go" --done "$T/done" &
    tapper=$!
    PIDS+=("$tapper")
    view -p "$tapper"
    wait_session "$tapper" 60
    touch "$T/go"
    retry 60 test -s "$T/done"
    # the last tap shown, the list following
    wait_screen -E '^ [0-9]+ +[0-9:.]+ cpu:1 +values +float32\[8\] mean=29\.4375$'
    tm send-keys -t view ']'
    wait_screen -E '^![0-9]+ +[0-9:.]+ cpu:1 +values +float32\[8\] '
    tm send-keys -t view Enter
    wait_screen -E '^ tap #[0-9]+  seq [0-9]+  .*consumer values '
    wait_screen '^ \[20\.    20\.125 20\.25     nan 20\.5 '
    quit_view
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
        tm_new -d -x 80 -y 24 "$HCBTRACE $args 2>$T/err; echo \$? >$T/rc.tmp; mv $T/rc.tmp $T/rc"
        retry 60 test -f "$T/rc"
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

@test "view FILE: a 1-D tap plotted as a chart, a 2-D one as a heatmap in colour, or grey with NO_COLOR" {
    plots_recording "$T/plots.jsonl"
    view "$T/plots.jsonl"
    wait_screen '\[3 streams\]'
    # the float64[40]: its chart (ASCII: LC_ALL=C), max and min on its axis, the indices below
    tm send-keys -t view g j Enter
    wait_screen '^ Detail   \[plot of \[0\]; v: the text'
    wait_screen -E '^    \+0-+39$'
    screen >"$T/s"
    grep -q '^ \[0\] float64\[40\]  min 0  max 39  mean 19.5  nan 0  inf 0$' "$T/s"
    grep -qE "^ 39 \+ +\.\.\.---''$" "$T/s"
    grep -qE "^  0 \+\.\.---'''" "$T/s"
    grep -qE '^    \+0-+39$' "$T/s"
    # the float32[6,10]: rows 0 to 5, columns 0 to 9, a legend from 0 to 59, in colours
    tm send-keys -t view j
    wait_screen 'float32\[6,10\]  min 0  max 59'
    wait_screen -E '^ 0 \+$'
    wait_screen -E '^ 5 \+$'
    wait_screen -E '^   \+0-{18}9$'
    wait_screen -E '^    0 {18}59$'
    tm capture-pane -e -p -t view | sed -n '/^ 0 +/,/^ 5 +/p' >"$T/colours"
    [ "$(grep -cE $'\e\\[(4[0-7]|48;5;[0-9]+)m' "$T/colours")" = 6 ]
    [ "$(grep -oE $'\e\\[(4[0-7]|48;5;[0-9]+)m' "$T/colours" | sort -u | wc -l)" -ge 5 ]
    quit_view
    tm kill-server

    # NO_COLOR: the grey ramp, in ASCII and in UTF-8 (braille for the chart)
    view_in "NO_COLOR=1" "$T/plots.jsonl"
    wait_screen '\[3 streams\]'
    tm send-keys -t view g j j Enter
    wait_screen 'float32\[6,10\]  min 0  max 59'
    wait_screen '^ 0 +................::::$'
    wait_screen '^ 5 +####@@@@@@@@@@@@@@@@$'
    wait_screen '^    0 ..::--==++\*\*##@@ 59$'
    quit_view
    tm kill-server
    view_in "NO_COLOR=1 LC_ALL=C.UTF-8" "$T/plots.jsonl"
    wait_screen '\[3 streams\]'
    tm send-keys -t view g j j Enter
    wait_screen 'float32\[6,10\]  min 0  max 59'
    wait_screen '^ 0 ┤····················$'
    wait_screen '^ 5 ┤████████████████████$'
    wait_screen '^    0 ··░░▒▒▓▓██ 59$'
    tm send-keys -t view k
    wait_screen 'float64\[40\]  min 0  max 39'
    wait_screen '^ 39 ┤ .*⠉$'
    wait_screen '^  0 ┤⣀'
    wait_screen '^    └0─.*─39$'
    # a scalar: its text, nothing to plot
    tm send-keys -t view k
    wait_screen '^ Detail   \[lines 1-'
    wait_screen '^ device: cpu:0 what: loss$'
    refute grep -q 'plot' <(screen | grep '^ Detail')
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view FILE: taps stamped alike, or with a counter, have no rate; clock stamps have one" {
    {
        echo "$SESSION_LINE"
        for i in $(seq 0 9); do
            tap_line 0 "$i" 1 same 1700000000000000000 float32 '[]' "[$i.5]"
            tap_line 0 "$i" 2 count "$i" float32 '[]' "[$i.5]"
            tap_line 0 "$i" 3 clock $(( 1700000000000000000 + i * 1000000 )) float32 '[]' "[$i.5]"
        done
    } >"$T/stamps.jsonl"
    view "$T/stamps.jsonl"
    wait_screen '\[3 streams\]'
    wait_screen -E '^ cpu:0  same +10 +- +0  9\.5$'
    wait_screen -E '^ cpu:0  count +10 +- +0  9\.5$'
    wait_screen -E '^ cpu:0  clock +10 +1000/s +0  9\.5$'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view FILE: a large recording shows its first screen at once, G reaches its last tap, the counts are the file's" {
    big_recording "$T/big.jsonl" 24000 4000
    [ "$(stat -c %s "$T/big.jsonl")" -gt 150000000 ]
    "$HCBTRACE" convert "$T/big.jsonl" -o "$T/big.hcbcap"
    # the viewer's peak memory, measured: ASan's quarantine of freed memory
    # is kept small so that it measures the same thing in both builds (the
    # viewer's tmux server, started below, passes this on)
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
    for f in big.jsonl big.hcbcap; do
        view "$T/$f"
        # a recording opens at its first tap, while the rest is indexed (how
        # soon is the machine's speed: bench/view_first_screen.sh measures it)
        wait_screen '^ 0  *[0-9:.]* cpu:0  *loss  *0\.25$'
        wait_screen "^hcbtrace view  $f  taps 24000  dropped 0  complete" 120
        # 8 streams of 3000, a tap every 8 ms each
        retry 60 screen_has 5 '^ cpu:[0-3]  (loss|field) +3000 +125\.0/s '
        tm send-keys -t view G
        retry 60 last_row_is 23999
        wait_screen -E '^ 23999 +[0-9:.]+ cpu:3 +field +float32\[4000\] mean=0\.5$'
        tm send-keys -t view g
        retry 60 last_row_is 8
        tm send-keys -t view NPage NPage
        retry 60 last_row_is 18
        # search, and a field tap's plot, anywhere in it
        tm send-keys -t view G / f i e l d Enter
        wait_screen '^/field: row 23998 of 24000'
        tm send-keys -t view Enter
        wait_screen '^ Detail   \[text and plot'
        wait_screen '^ tap #23997  seq 2999'
        wait_screen -E '^     \+0-+3999$'
        quit_view
        [ "$(cat "$T/rc")" = 0 ]
        # nothing like the file in memory
        [ "$(cat "$T/rss")" -lt 100000 ]
        tm kill-server
    done
}

@test "view FILE: damage past the part read whole: shown up to it, said on exit as replay says it" {
    # 32 MB: more than the 16 MB a viewer reads whole before it opens
    big_recording "$T/big.jsonl" 4000 4000
    # a field tap's data damaged near the end: indexed, unreadable when shown
    sed -i '3991s/0\.5,0\.5\]/0.5,0.x]/' "$T/big.jsonl"
    view "$T/big.jsonl"
    wait_screen "taps 4000  dropped 0  complete"
    tm send-keys -t view G k k k k k k k k k k
    wait_screen '^ 3989 .* field  *(cannot be read: Enter for why)$'
    tm send-keys -t view Enter
    wait_screen '^ tap #3989 cannot be read back from the recording:$'
    wait_screen "big.jsonl:offset [0-9]*: not valid JSON"
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    tm kill-server
    # then a damaged line at the end: everything before it, then replay's message and status
    sed -i '3991s/0\.x\]/0.5]/' "$T/big.jsonl"
    echo 'garbage{' >>"$T/big.jsonl"
    "$HCBTRACE" replay --no-wait "$T/big.jsonl" >/dev/null 2>"$T/replay.err" && false || echo $? >"$T/replay.rc"
    view "$T/big.jsonl"
    wait_screen "taps 4000  dropped 0  damaged (said on exit)$"
    quit_view
    [ "$(cat "$T/rc")" = "$(cat "$T/replay.rc")" ]
    diff "$T/err" "$T/replay.err"
}

@test "view FILE: a FIFO, which cannot be read back, is read whole first as before" {
    plots_recording "$T/plots.jsonl"
    mkfifo "$T/fifo.jsonl"
    cat "$T/plots.jsonl" >"$T/fifo.jsonl" &
    PIDS+=("$!")
    view "$T/fifo.jsonl"
    wait_screen '^hcbtrace view  fifo.jsonl  taps 3  dropped 0  complete'
    tm send-keys -t view G Enter
    wait_screen 'float32\[6,10\]  min 0  max 59'
    wait_screen -E '^   \+0-{18}9$'
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

# view_tall ARGS...: hcbtrace view ARGS as view does, in a 110x66 terminal:
# a stream list of 20 rows whole
view_tall()
{
    local args
    printf -v args '%q ' "$@"
    rm -f "$T/rc"
    tm_new -d -s view -x 110 -y 66 \
        "$HCBTRACE view $args 2>$T/err; echo \$? >$T/rc.tmp; mv $T/rc.tmp $T/rc; echo viewer-exited; sleep 600"
}

# record_two DIR: two hcb-example processes, A of 1 device and B of 3,
# recorded by one `record -p A -p B` into DIR/PID.jsonl, 40 taps each
record_two()
{
    start_example --devices 1 --steps 0 --interval-ms 15 --field-size 16
    A=$EX_PID
    start_example --devices 3 --steps 0 --interval-ms 15 --field-size 16
    B=$EX_PID
    mkdir -p "$1"
    "$HCBTRACE" record -q -p "$A" -p "$B" -c 40 -o "$1/%p.jsonl"
    [ -f "$1/$A.jsonl" ] && [ -f "$1/$B.jsonl" ]
}

# file_streams DIR: "PID DEVICE CONSUMER TAPS" a stream of DIR's files, as
# the files say (the pid of the session record before the taps), sorted
file_streams()
{
    python3 - "$1" <<'PY' | sort
import collections, glob, json, sys
count = collections.Counter()
for path in glob.glob(sys.argv[1] + "/*.jsonl"):
    pid = None
    for line in open(path):
        rec = json.loads(line)
        if rec["type"] == "session":
            pid = rec["pid"]
        elif rec["type"] == "tap":
            count[(pid, "cpu:%d" % rec["device"], rec["name"])] += 1
for (pid, dev, name), n in count.items():
    print(pid, dev, name, n)
PY
}

# screen_streams: the same of the stream list on the screen, sorted
screen_streams()
{
    screen | awk '/^ proc +device +consumer / { on = 1; next }
        on && /^ (Sparkline|tap +time)/ { exit }
        on && NF >= 4 { print $1, $2, $3, $4 }' | sort
}

@test "view DIR: two processes' recordings as one, each one's streams apart, counted as the files count" {
    record_two "$T/run"
    file_streams "$T/run" >"$T/files.txt"
    # 1 + 3 devices of 5 consumers, 40 taps a process, each process's cpu:0 its own
    [ "$(wc -l <"$T/files.txt")" = 20 ]
    [ "$(grep -c " cpu:0 " "$T/files.txt")" = 10 ]
    # a name the header has room for, however long the temporary directory's
    cd "$T"
    view_tall run
    wait_screen "^hcbtrace view  run (2 processes)  taps 80  dropped 0  complete"
    wait_screen '\[20 streams\]'
    screen_streams >"$T/shown.txt"
    diff "$T/files.txt" "$T/shown.txt"
    # ordered by process, then device: A's one device, then B's three
    screen | grep -E '^ [0-9]+ +cpu:' | awk '{ print $1 }' | uniq >"$T/order.txt"
    [ "$(cat "$T/order.txt")" = "$(printf '%s\n' "$A" "$B" | sort -n)" ]
    # f @PID: one process's streams and taps
    tm send-keys -t view f "@$B" Enter
    wait_screen '\[15 streams, filtered\]'
    wait_screen -E "^ [0-9]+ +[0-9:.]+ $B +cpu:2 "
    [ -z "$(screen | grep -E '^ [0-9]+ +([0-9:.]+ )?[0-9]+ +cpu:' | grep -v " $B ")" ]
    # a tap in detail says whose it is, in replay's words
    tm send-keys -t view Tab G Enter
    wait_screen "^ process: pid $B: .*hcb-example --devices 3 "
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    [ ! -s "$T/err" ]
    tm kill-server
    # the files named are the same recording
    view_tall "$T/run/$B.jsonl" "$T/run/$A.jsonl"
    wait_screen "^hcbtrace view  recordings (2 processes)  taps 80  dropped 0  complete"
    wait_screen '\[20 streams\]'
    screen_streams >"$T/shown2.txt"
    diff "$T/files.txt" "$T/shown2.txt"
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
}

@test "view DIR: a damaged member is said in one line as replay says it, the rest is browsed" {
    record_two "$T/run"
    echo 'garbage{' >>"$T/run/$B.jsonl"
    # the header has room for a short name, however long the temporary directory's
    cd "$T"
    "$HCBTRACE" replay --no-wait run >/dev/null 2>"$T/replay.err" && false || echo $? >"$T/replay.rc"
    [ "$(wc -l <"$T/replay.err")" = 1 ]
    view_tall run
    # every tap of both: the damage is past B's last one
    wait_screen "^hcbtrace view  run (2 processes)  taps 80  dropped 0  damaged (said on exit)$"
    wait_screen '\[20 streams\]'
    quit_view
    [ "$(cat "$T/rc")" = "$(cat "$T/replay.rc")" ]
    diff "$T/err" "$T/replay.err"
}

@test "view DIR: large recordings (JSONL and .hcbcap) browsed in place, the memory one file's is" {
    big_recording "$T/a.jsonl" 12000 4000
    mkdir "$T/job"
    # another process (by its session record), in the other format
    sed '1s/"pid":1,/"pid":2,/' "$T/a.jsonl" >"$T/b.jsonl"
    "$HCBTRACE" convert "$T/b.jsonl" -o "$T/job/b.hcbcap"
    mv "$T/a.jsonl" "$T/job/a.jsonl"
    [ "$(du -cb "$T"/job/* | tail -1 | cut -f1)" -gt 100000000 ]
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
    cd "$T"
    view_in "" job
    wait_screen '^ 0  *[0-9:.]* 1  *cpu:0  *loss  *0\.25$'
    wait_screen "^hcbtrace view  job (2 processes)  taps 24000  dropped 0  complete" 120
    # each process's 8 streams of 1500 taps (the rows shown)
    retry 60 screen_has 5 '^ [12] +cpu:[0-3] +(loss|field) +1500 '
    # stamped alike, the first process's tap first: the last is the second's
    tm send-keys -t view G
    retry 60 last_row_is 23999
    wait_screen -E '^ 23999 +[0-9:.]+ 2 +cpu:3 +field +float32\[4000\] mean=0\.5$'
    tm send-keys -t view Tab G Enter
    wait_screen '^ process: pid 2$'
    wait_screen '^ tap #23999  seq 1499 '
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    # nothing like the files in memory
    echo "# view job/ of $(du -cb job/* | tail -1 | cut -f1) bytes: peak $(cat "$T/rss") kB" >&3
    [ "$(cat "$T/rss")" -lt 100000 ]
}

@test "view DIR: one process is shown as one recording is, without a process column" {
    mkdir "$T/one"
    "$HCBTRACE" record -q -o "$T/one/rec.jsonl" -- "$EXAMPLE" --steps 5 --interval-ms 0 --field-size 16
    # a name that leaves the header room on an 80-column screen, however
    # long the temporary directory's
    cd "$T"
    view one
    wait_screen '\[20 streams\]'
    wait_screen " one (1 process)  taps 100  dropped 0"
    wait_screen '^ device consumer '
    [ -z "$(screen | grep -E '^ proc ')" ]
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    [ ! -s "$T/err" ]
}

@test "view -p A -p B: two processes live, each its own session, their streams apart in one view" {
    start_example --devices 1 --steps 0 --interval-ms 15 --field-size 16
    A=$EX_PID
    start_example --devices 3 --steps 0 --interval-ms 15 --field-size 16
    B=$EX_PID
    run --separate-stderr "$HCBTRACE" view -p "$A" -p "$A"
    [ "$status" = 2 ]
    [[ "$stderr" == *"process $A is given twice (-p)"* ]]
    view_tall -p "$A" -p "$B"
    wait_screen '\[20 streams\]'
    wait_screen -E "^hcbtrace view  2 processes  taps [0-9]+"
    # A's one device, then B's three; every stream counting
    screen | grep -E '^ [0-9]+ +cpu:[0-9] ' >"$T/rows.txt"
    [ "$(grep -c "^ $A  *cpu:0 " "$T/rows.txt")" = 5 ]
    [ "$(grep -c "^ $B  *cpu:[012] " "$T/rows.txt")" = 15 ]
    [ "$(awk '{ print $1 }' "$T/rows.txt" | uniq)" = "$(printf '%s\n' "$A" "$B" | sort -n)" ]
    # f @PID: one process's taps
    tm send-keys -t view f "@$A" Enter
    wait_screen '\[5 streams, filtered\]'
    wait_screen -E "^ [0-9]+ +[0-9:.]+ $A +cpu:0 "
    [ -z "$(screen | grep -E '^ [0-9]+ +([0-9:.]+ )?[0-9]+ +cpu:' | grep -v " $A ")" ]
    tm send-keys -t view Tab Enter
    wait_screen "^ process: pid $A$"
    quit_view
    [ "$(cat "$T/rc")" = 0 ]
    # each session's own summary, said once the terminal is back
    [ "$(grep -c "interrupted: .* of process $A .* 0 lost" "$T/err")" = 1 ]
    [ "$(grep -c "interrupted: .* of process $B .* 0 lost" "$T/err")" = 1 ]
    # and nothing else: the per-device rows of those summaries
    [ -z "$(grep -vE '^  cpu:[0-3] |^hcbtrace: interrupted: ' "$T/err")" ]
}
