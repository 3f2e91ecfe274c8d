# What the TUI's case files share (sourced): a folder $TUT and tui_run,
# which drives `fabcheck tui` in a detached tmux session.
TUT=$(mktemp -d /tmp/fc-tui-XXXXXX)
MXD=tests/data/matrix
export TERM=${TERM:-xterm}
# Absolute, so tmux's shell finds it whatever its folder.
TFC=$(cd "$(dirname "$FC")" && pwd)/$(basename "$FC")

# tui_run NAME COLSxLINES KEYS DELAY -- ARGS...: runs `fabcheck tui ARGS` in a
# detached tmux session of that size, sends KEYS (tmux send-keys words, "-"
# for none, or resize:COLSxLINES) after a second, captures the pane DELAY seconds later into
# $TUT/out-NAME.txt, waits for the TUI to exit, and appends its exit code,
# stderr, and the terminal modes before and after (restored?).
tui_run() {
	local name=$1 size=$2 keys=$3 delay=$4 sess="fctui-$$-$1" i
	shift 5
	rm -f "$TUT/out-$name".*
	tmux new-session -d -s "$sess" -x "${size%x*}" -y "${size#*x}" \
		"stty -a > $TUT/out-$name.before; $(printf '%q ' "$TFC" tui "$@") 2> $TUT/out-$name.err; echo \$? > $TUT/out-$name.rc; stty -a > $TUT/out-$name.after; sleep 30"
	sleep 1
	case $keys in
	-) ;;
	resize:*) keys=${keys#resize:}
		tmux resize-window -t "$sess" -x "${keys%x*}" -y "${keys#*x}" ;;
	*) tmux send-keys -t "$sess" $keys ;;
	esac
	sleep "$delay"
	tmux capture-pane -p -t "$sess" > "$TUT/out-$name.txt"
	for i in $(seq 100); do [ -s "$TUT/out-$name.rc" ] && break; sleep 0.1; done
	tmux kill-session -t "$sess" 2>/dev/null
	{ echo "exit=$(cat "$TUT/out-$name.rc" 2>/dev/null)"
	  cmp -s "$TUT/out-$name.before" "$TUT/out-$name.after" && echo "terminal restored"
	  cat "$TUT/out-$name.err"; } >> "$TUT/out-$name.txt"
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

