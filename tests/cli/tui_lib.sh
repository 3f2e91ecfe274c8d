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
# tui_seen SESSION PREFIX TENTHS WANT: captures the pane every 0.1 s until it
# shows WANT (an extended regex; '[^[:space:]]': any drawn screen) or the TUI
# has exited (PREFIX.rc), TENTHS tenths of a second at most. Each drawn
# capture replaces PREFIX.txt, a blank one never does: after the TUI exits
# its screen is gone. Returns 0 when WANT was seen.
tui_seen() {
	local i
	for i in $(seq "$3"); do
		tmux capture-pane -p -t "$1" > "$2.cap" 2>/dev/null
		if grep -q '[^[:space:]]' "$2.cap"; then
			mv "$2.cap" "$2.txt"
			grep -Eq -- "$4" "$2.txt" && return 0
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

