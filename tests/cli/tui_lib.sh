# What the TUI's case files share (sourced): a folder $TUT and tui_run,
# which drives `fabcheck tui` in a detached tmux session.
TUT=$(mktemp -d /tmp/fc-tui-XXXXXX)
MXD=tests/data/matrix
export TERM=${TERM:-xterm}
# Absolute, so tmux's shell finds it whatever its folder.
TFC=$(cd "$(dirname "$FC")" && pwd)/$(basename "$FC")

# tui_run NAME COLSxLINES KEYS WANT -- ARGS...: runs `fabcheck tui ARGS` in a
# detached tmux session of that size, waits for the TUI's first screen (not a
# fixed time: a loaded host starts it late), sends KEYS (tmux send-keys words,
# "-" for none, or resize:COLSxLINES), then captures the pane into
# $TUT/out-NAME.txt until it shows WANT (an extended regex, the screen the
# case asserts on), waits for the TUI to exit, and appends its exit code,
# stderr, and the terminal modes before and after (restored?). No fixed
# sleep: a screen captured before the TUI drew its answer to the keys (make
# check once caught "tui z: back to the blocks" so, with the fuzz and
# valgrind steps beside it) is captured again. Each wait has a deadline; a
# TUI that ends before WANT is seen leaves the last drawn screen seen (or
# none), and the case fails on its pattern with that screen shown.
tui_run() {
	local name=$1 size=$2 keys=$3 want=$4 sess="fctui-$$-$1" i
	shift 5
	rm -f "$TUT/out-$name".*
	tmux new-session -d -s "$sess" -x "${size%x*}" -y "${size#*x}" \
		"stty -a > $TUT/out-$name.before; $(printf '%q ' "$TFC" tui "$@") 2> $TUT/out-$name.err; echo \$? > $TUT/out-$name.rc; stty -a > $TUT/out-$name.after; sleep 30"
	tui_seen "$sess" "$TUT/out-$name" 600 '[^[:space:]]'
	tui_before_keys "$name" "$keys" "$want"
	case $keys in
	-) ;;
	resize:*) keys=${keys#resize:}
		tmux resize-window -t "$sess" -x "${keys%x*}" -y "${keys#*x}" ;;
	*) tmux send-keys -t "$sess" $keys ;;
	esac
	tui_seen "$sess" "$TUT/out-$name" 300 "$want"
	for i in $(seq 100); do [ -s "$TUT/out-$name.rc" ] && break; sleep 0.1; done
	tmux kill-session -t "$sess" 2>/dev/null
	{ echo "exit=$(cat "$TUT/out-$name.rc" 2>/dev/null)"
	  cmp -s "$TUT/out-$name.before" "$TUT/out-$name.after" && echo "terminal restored"
	  cat "$TUT/out-$name.err"; } >> "$TUT/out-$name.txt"
}
# tui_before_keys NAME KEYS WANT: a WANT already on the first screen, before
# KEYS were sent, cannot tell the keys' answer from the screen before it: the
# case would assert on whichever it caught. Such a case file is wrong (wait on
# what the keys draw, or '-' for the last screen): a suite error, a failure.
tui_before_keys() {
	[ "$2" = - ] || [ "$3" = - ] && return 0
	grep -Eq -- "$3" "$TUT/out-$1.txt" 2>/dev/null || return 0
	fail=$((fail + 1))
	echo "FAIL: tui_run $1: suite error: /$3/ is on the screen before the keys '$2' were sent; wait on what the keys draw"
}
# tui_settled SESSION PREFIX: the screen PREFIX.txt holds is the whole
# frame, not one caught while the TUI was still writing it (CI once saw a
# list screen's header without the detail drawn under it in the same
# refresh): a second capture 0.1 s later shows the same, else it replaces
# PREFIX.txt and the wait goes on.
tui_settled() {
	sleep 0.1
	tmux capture-pane -p -t "$1" > "$2.cap2" 2>/dev/null
	cmp -s "$2.cap2" "$2.txt" && return 0
	grep -q '[^[:space:]]' "$2.cap2" && mv "$2.cap2" "$2.txt"
	return 1
}
# tui_seen SESSION PREFIX TENTHS WANT: captures the pane every 0.1 s until it
# shows WANT (an extended regex; '[^[:space:]]': any drawn screen; '-': none,
# the last screen before the TUI exits, for keys that end where the TUI
# began) or the TUI has exited (PREFIX.rc), TENTHS tenths of a second at most. Each drawn
# capture replaces PREFIX.txt, a blank one never does: after the TUI exits
# its screen is gone. Returns 0 when WANT was seen.
tui_seen() {
	local i
	for i in $(seq "$3"); do
		tmux capture-pane -p -t "$1" > "$2.cap" 2>/dev/null
		if grep -q '[^[:space:]]' "$2.cap"; then
			mv "$2.cap" "$2.txt"
			[ "$4" != - ] && grep -Eq -- "$4" "$2.txt" && tui_settled "$1" "$2" && return 0
		fi
		[ -s "$2.rc" ] && break
		sleep 0.1
	done
	[ -f "$2.txt" ] || mv "$2.cap" "$2.txt"
	return 1
}
# only_suspect FILE NAME: the matrix marks NAME, and no other row, with '*'.
only_suspect() {
	local rows
	rows=$(grep -E '^\*' "$1" | awk '{print $1}' | tr '\n' ' ')
	[ "$rows" = "*$2 " ] && echo ok || echo "suspect rows: '$rows'"
}
max_width() {
	awk '{ if (length($0) > m) m = length($0) } END { print "width " m }' "$1"
}

